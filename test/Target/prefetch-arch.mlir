// The tile prefetch (cp.async.bulk.prefetch, docs/codegen.md "Tile
// prefetch") needs sm_90 or later: gpuos-jit emits it for sm_90 and sm_100
// and leaves it out for sm_80 and sm_89 (instead of a backend abort).
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx --arch=sm_90 -o - | FileCheck %s --check-prefix=BULK
// RUN: gpuos-jit %s --emit=ptx --arch=sm_100 -o - | FileCheck %s --check-prefix=BULK
// RUN: gpuos-jit %s --emit=ptx --arch=sm_80 -o - | FileCheck %s --check-prefix=NONE
// RUN: gpuos-jit %s --emit=ptx --arch=sm_89 -o - | FileCheck %s --check-prefix=NONE

// BULK: .target sm_{{90|100}}
// BULK: cp.async.bulk.prefetch.L2.global
// NONE: .target sm_{{80|89}}
// NONE: .visible .func gpuos_task_stream(
// NONE-NOT: cp.async.bulk
gpuos.graph @stream(%x : !gpuos.tensor<16x1024xf32>) -> (y : !gpuos.tensor<16x1024xf32>) {
  %r = gpuos.task "stream" ins(%a = %x : !gpuos.tensor<16x1024xf32>) tile [4, 1024] -> (!gpuos.tensor<16x1024xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<16x1024xf32>
    gpuos.yield %0 : !gpuos.tensor<16x1024xf32>
  }
  gpuos.yield %r : !gpuos.tensor<16x1024xf32>
}
