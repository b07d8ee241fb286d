// gpuos-jit --background-l2=evict-first is part of the image's cache key:
// the same source built with and without it are two images, and each is
// found again (through the launcher's index too). A bad value is refused.
// REQUIRES: nvjitlink, libdevice, runtime-device
// RUN: rm -rf %t.cache
// RUN: gpuos-jit %s -o %t.plain --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: gpuos-jit %s -o %t.ef --background-l2=evict-first --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: not cmp -s %t.plain.cubin %t.ef.cubin
// RUN: gpuos-jit %s -o %t.ef2 --background-l2=evict-first --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: cmp %t.ef.cubin %t.ef2.cubin
// RUN: gpuos-jit %s -o %t.plain2 --background-l2=normal --cache-dir=%t.cache -v 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: cmp %t.plain.cubin %t.plain2.cubin
// RUN: not gpuos-jit %s -o %t.bad --background-l2=last --no-cache 2>&1 | FileCheck %s --check-prefix=BAD

// MISS: cache: miss
// HIT: cache: hit
// BAD: for the --background-l2 option: Cannot find option named 'last'

gpuos.graph @bulk(%x : !gpuos.tensor<64x256xf32>) -> (y : !gpuos.tensor<64x256xf32>)
    priority #gpuos.priority<background> {
  %r = gpuos.task "bulk" ins(%a = %x : !gpuos.tensor<64x256xf32>)
      tile [8, 256] -> (!gpuos.tensor<64x256xf32>) {
    %0 = gpuos.relu %a : !gpuos.tensor<64x256xf32>
    gpuos.yield %0 : !gpuos.tensor<64x256xf32>
  }
  gpuos.yield %r : !gpuos.tensor<64x256xf32>
}
