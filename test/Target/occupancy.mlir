// gpuos-jit --occupancy: an image built for throughput links the runtime
// device library compiled at 80 registers and its tasks at 80, so the
// resident kernel fits three 256-thread workers per SM; the default
// (latency) keeps the 128-register library. The choice is part of the
// image (the manifest names the library) and of its cache key.
// REQUIRES: nvjitlink, libdevice, runtime-device
// The task (eight micro-batches through one weight, one K loop) needs more
// than 80 registers at 128: capped at 80 it spills, and the kernel stays at
// 80. A task cap above the library's fails to link, naming both.
// RUN: rm -rf %t.cache
// RUN: gpuos-jit %s -o %t.thr --occupancy=throughput --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=THROUGHPUT
// RUN: FileCheck %s --input-file=%t.thr.manifest.json --check-prefix=THRLIB
// RUN: gpuos-jit %s -o %t.lat --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=LATENCY
// RUN: FileCheck %s --input-file=%t.lat.manifest.json --check-prefix=LATLIB
// RUN: gpuos-jit %s -o %t.thr2 --occupancy=throughput --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: cmp %t.thr.cubin %t.thr2.cubin
// RUN: not gpuos-jit %s -o %t.bad --occupancy=fast --no-cache 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not gpuos-jit %s -o %t.bad --occupancy=throughput --maxrregcount=128 --no-cache 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: env GPUOS_RUNTIME_THROUGHPUT_LIB=%gpuos_runtime_lib gpuos-jit %s -o %t.lib --occupancy=throughput --no-cache
// RUN: FileCheck %s --input-file=%t.lib.manifest.json --check-prefix=LATLIB
// $GPUOS_RUNTIME_LIB names the latency library only; throughput has its own,
// and the launcher's cache index keys on it (no hit with another library).
// RUN: env GPUOS_RUNTIME_THROUGHPUT_LIB=%t.missing.o not gpuos-jit %s -o %t.env --occupancy=throughput --cache-dir=%t.cache 2>&1 | FileCheck %s --check-prefix=NOLIB -DLIB=%t.missing.o
// RUN: env GPUOS_RUNTIME_LIB=%t.missing.o gpuos-jit %s -o %t.env --occupancy=throughput --no-cache
// RUN: env GPUOS_RUNTIME_THROUGHPUT_LIB=%t.missing.o not gpuos-jit %s -o %t.env --occupancy=throughput --no-cache 2>&1 | FileCheck %s --check-prefix=NOLIB -DLIB=%t.missing.o

// THROUGHPUT: cache: miss
// THROUGHPUT: Function properties for gpuos_task_jam8
// THROUGHPUT-NEXT: {{[0-9]+}} bytes stack frame, {{[1-9][0-9]*}} bytes spill stores
// THROUGHPUT: Function properties for 'gpuos_resident':
// THROUGHPUT-NEXT: used {{[1-7]?[0-9]|80}} registers
// THRLIB: "library": "gpuos_runtime_device_throughput.o"

// LATENCY: cache: miss
// LATENCY: Function properties for 'gpuos_resident':
// LATENCY-NEXT: used {{8[1-9]|9[0-9]|1[0-9][0-9]}} registers
// LATLIB: "library": "gpuos_runtime_device.o"

// HIT: cache: hit

// BAD: for the --occupancy option: Cannot find option named 'fast'
// MISMATCH: 'gpuos_resident' with max regcount of 80 calls function 'gpuos_task_jam8'
// MISMATCH: the task functions' register limit (--maxrregcount=128) is above the runtime device library's 'gpuos_runtime_device_throughput.o'
// NOLIB: the runtime device library '[[LIB]]' (from $GPUOS_RUNTIME_THROUGHPUT_LIB) does not exist

gpuos.graph @jam(%x : !gpuos.tensor<32x1024xf32>, %w : !gpuos.tensor<1024x1024xf32>)
    -> (y0 : !gpuos.tensor<4x1024xf32>, y1 : !gpuos.tensor<4x1024xf32>, y2 : !gpuos.tensor<4x1024xf32>, y3 : !gpuos.tensor<4x1024xf32>, y4 : !gpuos.tensor<4x1024xf32>, y5 : !gpuos.tensor<4x1024xf32>, y6 : !gpuos.tensor<4x1024xf32>, y7 : !gpuos.tensor<4x1024xf32>) {
  %y:8 = gpuos.task "jam8" ins(%a = %x : !gpuos.tensor<32x1024xf32>, %b = %w : !gpuos.tensor<1024x1024xf32>)
      tile [4, 8] -> (!gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>) {
    %s0 = gpuos.slice %a starts [0, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
    %m0 = gpuos.matmul %s0, %b : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
    %s1 = gpuos.slice %a starts [4, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
    %m1 = gpuos.matmul %s1, %b : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
    %s2 = gpuos.slice %a starts [8, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
    %m2 = gpuos.matmul %s2, %b : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
    %s3 = gpuos.slice %a starts [12, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
    %m3 = gpuos.matmul %s3, %b : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
    %s4 = gpuos.slice %a starts [16, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
    %m4 = gpuos.matmul %s4, %b : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
    %s5 = gpuos.slice %a starts [20, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
    %m5 = gpuos.matmul %s5, %b : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
    %s6 = gpuos.slice %a starts [24, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
    %m6 = gpuos.matmul %s6, %b : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
    %s7 = gpuos.slice %a starts [28, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
    %m7 = gpuos.matmul %s7, %b : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
    gpuos.yield %m0, %m1, %m2, %m3, %m4, %m5, %m6, %m7 : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>
  }
  gpuos.yield %y#0, %y#1, %y#2, %y#3, %y#4, %y#5, %y#6, %y#7 : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>
}
