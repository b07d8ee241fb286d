// gpuos.custom: NVRTC compiles the user's source, nvJitLink links it into
// the image beside the tasks; errors name the user's file and line, or the
// op that calls a function no source defines.
// REQUIRES: nvjitlink, nvrtc, libdevice, runtime-device
// RUN: rm -rf %t && mkdir -p %t
// RUN: gpuos-jit %s --custom-source=%S/Inputs/softplus.cu --no-cache -o %t/img
// RUN: llvm-nm %t/img.cubin | FileCheck %s --check-prefix=SYMS
// SYMS-DAG: T gpuos_resident
// SYMS-DAG: T gpuos_task_custom_t0
// SYMS-DAG: T scaled_softplus
// RUN: not gpuos-jit %s --custom-source=%S/Inputs/softplus-error.cu --no-cache -o %t/bad 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NVRTC
// NVRTC: custom source {{.*}}softplus-error.cu does not compile:
// NVRTC: softplus-error.cu(3): error: identifier "undefined_helper" is undefined
// RUN: not gpuos-jit %s --no-cache -o %t/none 2>&1 | FileCheck %s --check-prefix=NOSRC
// NOSRC: custom-op.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'gpuos.custom' op calls @scaled_softplus, but no custom source was given
// RUN: not gpuos-jit %s --custom-source=%S/Inputs/other.cu --no-cache -o %t/other 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNDEF
// UNDEF: error: 'gpuos.custom' op calls @scaled_softplus, but no custom source defines extern "C" __device__ scaled_softplus (sources: {{.*}}other.cu)
// A definition whose prototype differs from the call (one parameter for
// two) is an error at the op, naming the source: nvJitLink prints
// "Prototype doesn't match" and still links an image that passes the wrong
// arguments.
// RUN: not gpuos-jit %s --custom-source=%S/Inputs/softplus-wrong-prototype.cu --no-cache -o %t/proto 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PROTO
// PROTO: custom-op.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'gpuos.custom' op calls @scaled_softplus as '(.param .b32) scaled_softplus(.param .b32, .param .b32)', but {{.*}}softplus-wrong-prototype.cu defines it as '(.param .b32) scaled_softplus(.param .b32)'
// RUN: not ls %t/proto.cubin
// A double where the call passes float: .b64 against .b32.
// RUN: not gpuos-jit %s --custom-source=%S/Inputs/softplus-double.cu --no-cache -o %t/dbl 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DOUBLE
// DOUBLE: defines it as '(.param .b64) scaled_softplus(.param .b64, .param .b64)'
// RUN: not gpuos-jit %s --custom-source=%t/missing.cu -o %t/m 2>&1 | FileCheck %s --check-prefix=READ
// READ: gpuos-jit: cannot read custom source '{{.*}}missing.cu'
// Without a reference graph the interpreter says it cannot run the op.
// RUN: not gpuos-interp %s 2>&1 | FileCheck %s --check-prefix=INTERP
// INTERP: @scaled_softplus is a custom CUDA C++ op without a reference graph

gpuos.graph @custom(%x : !gpuos.tensor<4x256xf32>, %s : !gpuos.tensor<256xf32>) -> (y : !gpuos.tensor<4x256xf32>) {
  %0 = gpuos.task "custom_t0" ins(%a = %x : !gpuos.tensor<4x256xf32>, %b = %s : !gpuos.tensor<256xf32>) tile [1, 256] -> (!gpuos.tensor<4x256xf32>) {
    %1 = gpuos.custom @scaled_softplus(%a, %b) : !gpuos.tensor<4x256xf32>, !gpuos.tensor<256xf32> -> f32
    gpuos.yield %1 : !gpuos.tensor<4x256xf32>
  }
  gpuos.yield %0 : !gpuos.tensor<4x256xf32>
}
