// gpuos-jit --emit=ptx: the NVPTX backend in-process, sm_90 unless --arch.
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s
// RUN: gpuos-jit %s --emit=ptx --arch=sm_80 -o - | FileCheck %s --check-prefix=SM80
// RUN: gpuos-jit %s --emit=ptx --arch=sm_89 -O1 -o - | FileCheck %s --check-prefix=SM89
// RUN: gpuos-jit %s --emit=ptx --arch=sm_100 -O0 -o - | FileCheck %s --check-prefix=SM100

// CHECK: .version 8.6
// CHECK: .target sm_90
// The task function links into the runtime's table: a .visible .func with
// (args, tile); the test kernel is the only .entry.
// CHECK: .visible .func gpuos_task_bias_exp(
// CHECK-NEXT: .param .b64 gpuos_task_bias_exp_param_0,
// CHECK-NEXT: .param .b32 gpuos_task_bias_exp_param_1
// Buffer addresses come from the read-only argument block.
// CHECK: ld.global.nc.b64
// 16-byte accesses on the aligned path.
// CHECK: ld.global.v4.b32
// CHECK: st.global.v4.b32
// CHECK: .visible .entry gpuos_launch_bias_exp(
// CHECK: mov.u32 %r{{[0-9]+}}, %ctaid.x;
// SM80: .target sm_80
// SM80: .visible .func gpuos_task_bias_exp(
// SM89: .target sm_89
// SM100: .target sm_100
// SM100: .visible .func gpuos_task_bias_exp(
gpuos.graph @bias_exp(%x : !gpuos.tensor<32x1024xf32>, %b : !gpuos.tensor<1024xf32>)
    -> (y : !gpuos.tensor<32x1024xf32>) {
  %r = gpuos.task "bias_exp" ins(%a = %x : !gpuos.tensor<32x1024xf32>, %c = %b : !gpuos.tensor<1024xf32>)
      tile [1, 1024] -> (!gpuos.tensor<32x1024xf32>) {
    %0 = gpuos.add %a, %c : !gpuos.tensor<32x1024xf32>, !gpuos.tensor<1024xf32>
    %1 = gpuos.exp %0 : !gpuos.tensor<32x1024xf32>
    gpuos.yield %1 : !gpuos.tensor<32x1024xf32>
  }
  gpuos.yield %r : !gpuos.tensor<32x1024xf32>
}
