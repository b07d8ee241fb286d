// gpuos-jit --occupancy: an image built for throughput links the runtime
// device library compiled at 80 registers and its tasks at 80, so the
// resident kernel fits three 256-thread workers per SM; the default
// (latency) keeps the 128-register library. The choice is part of the
// image (the manifest names the library) and of its cache key.
// REQUIRES: nvjitlink, libdevice, runtime-device
// RUN: rm -rf %t.cache
// RUN: gpuos-jit %s -o %t.thr --occupancy=throughput --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=THROUGHPUT
// RUN: FileCheck %s --input-file=%t.thr.manifest.json --check-prefix=THRLIB
// RUN: gpuos-jit %s -o %t.lat --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=LATENCY
// RUN: FileCheck %s --input-file=%t.lat.manifest.json --check-prefix=LATLIB
// RUN: gpuos-jit %s -o %t.thr2 --occupancy=throughput --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: cmp %t.thr.cubin %t.thr2.cubin
// RUN: not gpuos-jit %s -o %t.bad --occupancy=fast --no-cache 2>&1 | FileCheck %s --check-prefix=BAD
// $GPUOS_RUNTIME_LIB names the latency library only; throughput has its own,
// and the launcher's cache index keys on it (no hit with another library).
// RUN: env GPUOS_RUNTIME_THROUGHPUT_LIB=%t.missing.o not gpuos-jit %s -o %t.env --occupancy=throughput --cache-dir=%t.cache 2>&1 | FileCheck %s --check-prefix=NOLIB -DLIB=%t.missing.o
// RUN: env GPUOS_RUNTIME_LIB=%t.missing.o gpuos-jit %s -o %t.env --occupancy=throughput --no-cache
// RUN: env GPUOS_RUNTIME_THROUGHPUT_LIB=%t.missing.o not gpuos-jit %s -o %t.env --occupancy=throughput --no-cache 2>&1 | FileCheck %s --check-prefix=NOLIB -DLIB=%t.missing.o

// THROUGHPUT: cache: miss
// THROUGHPUT: Function properties for 'gpuos_resident':
// THROUGHPUT-NEXT: used {{[1-7]?[0-9]|80}} registers
// THRLIB: "library": "gpuos_runtime_device_throughput.o"

// LATENCY: cache: miss
// LATENCY: Function properties for 'gpuos_resident':
// LATENCY-NEXT: used {{8[1-9]|9[0-9]|1[0-9][0-9]}} registers
// LATLIB: "library": "gpuos_runtime_device.o"

// HIT: cache: hit

// BAD: for the --occupancy option: Cannot find option named 'fast'
// NOLIB: the runtime device library '[[LIB]]' (from $GPUOS_RUNTIME_THROUGHPUT_LIB) does not exist

gpuos.graph @block(%x : !gpuos.tensor<8x256xf32>, %w : !gpuos.tensor<256xf32>)
    -> (y : !gpuos.tensor<8x256xf32>) {
  %y = gpuos.task "norm_rows" ins(%a = %x : !gpuos.tensor<8x256xf32>, %b = %w : !gpuos.tensor<256xf32>)
      tile [2, 256] -> (!gpuos.tensor<8x256xf32>) {
    %0 = gpuos.rms_norm %a weight(%b : !gpuos.tensor<256xf32>) eps 1.0e-06 : !gpuos.tensor<8x256xf32>
    gpuos.yield %0 : !gpuos.tensor<8x256xf32>
  }
  gpuos.yield %y : !gpuos.tensor<8x256xf32>
}
