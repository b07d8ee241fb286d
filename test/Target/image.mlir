// gpuos-jit --emit=image: nvJitLink links the PTX with the runtime's device
// library into <out>.cubin (the resident kernel, gpuos_dispatch, the tasks
// and their test kernels) and the manifest describes the tasks
// (docs/abi.md). A second compile of the unchanged graph is a cache hit and
// writes the same files.
// REQUIRES: nvjitlink, libdevice, runtime-device
// RUN: rm -rf %t.cache %t.out*
// RUN: gpuos-jit %s -o %t.out --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: od -A n -t x1 -N 4 %t.out.cubin | FileCheck %s --check-prefix=ELF
// RUN: FileCheck %s --input-file=%t.out.manifest.json
// Compiled functions check their vector buffers' alignment themselves and
// take a scalar copy otherwise: they require nothing the runtime enforces
// (`vector_align`), only say what the fast path wants (`fast_align`).
// RUN: FileCheck %s --input-file=%t.out.manifest.json --check-prefix=NOREQ
// NOREQ-NOT: "vector_align"
// RUN: gpuos-jit %s -o %t.again --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: cmp %t.out.cubin %t.again.cubin
// RUN: cmp %t.out.manifest.json %t.again.manifest.json
// The symbols the runtime and the launcher look up are in the cubin.
// RUN: llvm-nm %t.out.cubin | FileCheck %s --check-prefix=SYMS
// A different architecture is a different image; the runtime library of
// this build holds sm_90 code only, so an sm_80 image needs another one.
// RUN: not gpuos-jit %s -o %t.sm80 --arch=sm_80 --cache-dir=%t.cache 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: gpuos-jit %s -o %t.sm80 --arch=sm_80 --runtime-lib=none --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: FileCheck %s --input-file=%t.sm80.manifest.json --check-prefix=NONE
// RUN: llvm-nm %t.sm80.cubin | FileCheck %s --check-prefix=NONESYMS
// A runtime library that is not there is named with where it came from.
// RUN: not gpuos-jit %s -o %t.bad --runtime-lib=%t.missing.o --no-cache 2>&1 | FileCheck %s --check-prefix=NOLIB -DLIB=%t.missing.o
// RUN: env GPUOS_RUNTIME_LIB=%t.missing.o not gpuos-jit %s -o %t.bad --no-cache 2>&1 | FileCheck %s --check-prefix=NOLIBENV -DLIB=%t.missing.o
// A truncated runtime library is refused by name before nvJitLink reads it
// (nvJitLink trusts its ELF tables and crashed on such files).
// RUN: head -c 5000 %gpuos_runtime_lib > %t.half.o
// RUN: not gpuos-jit %s -o %t.bad --runtime-lib=%t.half.o --no-cache 2>&1 | FileCheck %s --check-prefix=HALFLIB -DLIB=%t.half.o
// An unpartitioned graph cannot become an image.
// --nvjitlink=NAME without a '/' is a file in the working directory when
// one is there (dlopen alone searched only the loader path), else a name
// for the loader; what was tried is listed.
// RUN: rm -rf %t.nvdir && mkdir -p %t.nvdir && cp %nvjitlink_lib %t.nvdir/mylink.so
// RUN: cd %t.nvdir && gpuos-jit %s -o %t.bare --no-cache --nvjitlink=mylink.so
// RUN: od -A n -t x1 -N 4 %t.bare.cubin | FileCheck %s --check-prefix=ELF
// RUN: not gpuos-jit %s -o %t.bare2 --no-cache --nvjitlink=no-such-link.so 2>&1 | FileCheck %s --check-prefix=NOLINK
// NOLINK: cannot load libnvJitLink.so.13 (nvJitLink of CUDA 13) to link the image; tried:
// NOLINK-NEXT: no-such-link.so: {{.*}}No such file
// RUN: not gpuos-jit %S/Inputs/unpartitioned.mlir -o %t.bad --no-cache 2>&1 | FileCheck %s --check-prefix=PARTITION

// MISS: cache: miss
// MISS: ptxas info
// HIT: cache: hit
// HIT-NOT: ptxas
// ELF: 7f 45 4c 46

// SYMS-DAG: T gpuos_dispatch
// SYMS-DAG: T gpuos_launch_gate
// SYMS-DAG: T gpuos_launch_norm_rows
// SYMS-DAG: T gpuos_resident
// SYMS-DAG: D gpuos_runtime_protocol
// SYMS-DAG: T gpuos_task_gate
// SYMS-DAG: T gpuos_task_norm_rows

// ARCH: gpuos-jit: {{.*}}image.mlir: linking the runtime device library '{{.*}}gpuos_runtime_device.o' for sm_80 (it must hold code for sm_80

// NONE:      "runtime": null,
// NONESYMS-NOT: gpuos_resident
// NONESYMS:     T gpuos_launch_gate
// NONESYMS-NOT: gpuos_resident

// NOLIB: gpuos-jit: {{.*}}image.mlir: the runtime device library '[[LIB]]' (from --runtime-lib) does not exist
// HALFLIB: gpuos-jit: {{.*}}image.mlir: the runtime device library '[[LIB]]' is not well-formed: its section header table lies past the end of the file (the file has 5000 bytes): truncated?
// NOLIBENV: gpuos-jit: {{.*}}image.mlir: the runtime device library '[[LIB]]' (from $GPUOS_RUNTIME_LIB) does not exist

// CHECK:      "abi": 0,
// CHECK-NEXT: "arch": "sm_90",
// CHECK-NEXT: "content_hash": "{{[0-9a-f]+}}",
// CHECK-NEXT: "dispatch": "gpuos_dispatch",
// CHECK-NEXT: "runtime": {
// CHECK-NEXT:   "library": "gpuos_runtime_device.o",
// CHECK-NEXT:   "sha256": "{{[0-9a-f]+}}"
// CHECK-NEXT: },
// CHECK-NEXT: "tasks": [
// CHECK:        "kind": "norm_rows",
// CHECK-NEXT:   "function": "gpuos_task_norm_rows",
// CHECK-NEXT:   "launcher": "gpuos_launch_norm_rows",
// CHECK-NEXT:   "graph": "block",
// CHECK-NEXT:   "priority": "urgent",
// CHECK-NEXT:   "deadline_us": 200,
// CHECK-NEXT:   "block_size": 256,
// CHECK-NEXT:   "shared_bytes": 0,
// CHECK-NEXT:   "tile": [
// CHECK-NEXT:     2,
// CHECK-NEXT:     256
// CHECK-NEXT:   ],
// CHECK-NEXT:   "num_tiles": 4,
// CHECK-NEXT:   "lanes": 4,
// CHECK-NEXT:   "strategy": "rows",
// CHECK-NEXT:   "buffers": [
// CHECK-NEXT:     {
// CHECK-NEXT:       "name": "x",
// CHECK-NEXT:       "role": "input",
// CHECK-NEXT:       "dtype": "f32",
// CHECK:            "fast_align": 16
// CHECK:            "name": "w",
// CHECK:            "name": "tmp_norm_rows_0",
// CHECK-NEXT:       "role": "output",
// CHECK:          "dynamic": [],
// CHECK-NEXT:     "depends_on": [],
// The ops the task was compiled from, with their source locations (runtime
// errors about the task name them).
// CHECK-NEXT:     "ops": [
// CHECK-NEXT:       {
// CHECK-NEXT:         "name": "gpuos.rms_norm",
// CHECK-NEXT:         "loc": "{{.*}}image.mlir:{{[0-9]+}}:10"
// CHECK-NEXT:       }
// CHECK-NEXT:     ]
// The second task reads the first's output: a dependency, and the same
// buffer name on both sides.
// CHECK:        "kind": "gate",
// CHECK:        "priority": "background",
// CHECK-NEXT:   "deadline_us": null,
// CHECK:        "shared_bytes": 0,
// CHECK:        "strategy": "elementwise",
// CHECK:            "name": "tmp_norm_rows_0",
// CHECK-NEXT:       "role": "input",
// CHECK:            "name": "m",
// CHECK-NEXT:       "role": "input",
// CHECK-NEXT:       "dtype": "i1",
// CHECK-NEXT:       "shape": [
// CHECK:            "strides": [
// CHECK-NEXT:         0,
// CHECK-NEXT:         1
// CHECK-NEXT:       ],
// CHECK-NEXT:       "elem_bytes": 1,
// CHECK-NEXT:       "fast_align": 16
// CHECK:            "name": "y",
// CHECK-NEXT:       "role": "output",
// CHECK:          "depends_on": [
// CHECK-NEXT:       0
// CHECK-NEXT:     ],
// Compute ops only: the constant is left out.
// CHECK-NEXT:     "ops": [
// CHECK-NEXT:       {
// CHECK-NEXT:         "name": "gpuos.select",
// CHECK-NEXT:         "loc": "{{.*}}image.mlir:{{[0-9]+}}:10"
// CHECK-NEXT:       }
// CHECK-NEXT:     ]

// PARTITION: unpartitioned.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'gpuos.neg' op is outside a gpuos.task in graph @loose; an image holds task functions only, so partition the graph into tasks first
gpuos.graph @block(%x : !gpuos.tensor<8x256xf32>, %w : !gpuos.tensor<256xf32>, %m : !gpuos.tensor<8x256xi1, strides = [0, 1]>)
    -> (y : !gpuos.tensor<8x256xf32>) priority #gpuos.priority<urgent, deadline_us = 200> {
  // Written consumer first: a graph body is a graph region.
  %y = gpuos.task "gate" ins(%n = %t : !gpuos.tensor<8x256xf32>, %mm = %m : !gpuos.tensor<8x256xi1, strides = [0, 1]>)
      tile [8, 256] priority #gpuos.priority<background> -> (!gpuos.tensor<8x256xf32>) {
    %zero = gpuos.constant dense<0.0> : tensor<f32>
    %0 = gpuos.select %mm, %n, %zero : !gpuos.tensor<8x256xi1, strides = [0, 1]>, !gpuos.tensor<8x256xf32>, !gpuos.tensor<f32>
    gpuos.yield %0 : !gpuos.tensor<8x256xf32>
  }
  %t = gpuos.task "norm_rows" ins(%a = %x : !gpuos.tensor<8x256xf32>, %b = %w : !gpuos.tensor<256xf32>)
      tile [2, 256] -> (!gpuos.tensor<8x256xf32>) {
    %0 = gpuos.rms_norm %a weight(%b : !gpuos.tensor<256xf32>) eps 1.0e-06 : !gpuos.tensor<8x256xf32>
    gpuos.yield %0 : !gpuos.tensor<8x256xf32>
  }
  gpuos.yield %y : !gpuos.tensor<8x256xf32>
}
