// Unroll-and-jam of pure elementwise tasks (docs/codegen.md, "Memory-level
// parallelism"): 4096-element tiles of one input and one output at the
// tuned block size (256 threads x 4 lanes per copy) run 4 copies per
// iteration, all loads and compute first, then the 4 stores, in a loop
// bounded so that every copy is inside the tile; a one-copy loop finishes
// what is left (other block sizes). The numerics are checked by
// test/Target/gpu-check/elementwise.mlir (@unrolled) on the simulation.
// RUN: gpuos-opt %s --gpuos-lower-tasks-to-nvvm=convert-to-llvm=false | FileCheck %s

// CHECK-LABEL: llvm.func @gpuos_task_unroll(
// CHECK:         scf.if
// 3 copies past the first, 4 lanes each: 12 x blockDim elements.
// CHECK:           %[[LAST:.+]] = arith.muli %{{.+}}, %c12_i32 : i32
// CHECK:           %[[UPPER:.+]] = arith.subi %c4096_i32, %[[LAST]] : i32
// CHECK:           %[[END:.+]] = scf.for %{{.+}} = %[[LOWER:.+]] to %[[UPPER]] step %{{.+}} iter_args(%{{.+}} = %[[LOWER]]) -> (i32)
// CHECK-COUNT-4:     llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:         llvm.load
// CHECK-COUNT-4:     llvm.store %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT:         llvm.store
// CHECK:             scf.yield
// CHECK:           scf.for %{{.+}} = %[[END]] to %c4096_i32 step
// CHECK-COUNT-1:     llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:             llvm.store
// CHECK:         } else {
gpuos.graph @unroll(%x : !gpuos.tensor<16x1024xf32>) -> (y : !gpuos.tensor<16x1024xf32>) {
  %r = gpuos.task "unroll" ins(%a = %x : !gpuos.tensor<16x1024xf32>) tile [4, 1024] -> (!gpuos.tensor<16x1024xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<16x1024xf32>
    gpuos.yield %0 : !gpuos.tensor<16x1024xf32>
  }
  gpuos.yield %r : !gpuos.tensor<16x1024xf32>
}

// Broadcast inputs (a per-column scale and bias, read from cache) are not
// streams: one streaming input and one output still get 4 copies, each
// loading x, scale and bias. Two full-size inputs get 2.
// CHECK-LABEL: llvm.func @gpuos_task_scale_bias(
// CHECK:           %[[LAST:.+]] = arith.muli %{{.+}}, %c12_i32 : i32
// CHECK-LABEL: llvm.func @gpuos_task_two_streams(
// CHECK:           %[[LAST:.+]] = arith.muli %{{.+}}, %c4_i32 : i32
gpuos.graph @broadcast_inputs(%x : !gpuos.tensor<16x1024xf32>, %s : !gpuos.tensor<1024xf32>,
                              %b : !gpuos.tensor<1024xf32>, %z : !gpuos.tensor<16x1024xf32>)
    -> (y : !gpuos.tensor<16x1024xf32>, w : !gpuos.tensor<16x1024xf32>) {
  %r = gpuos.task "scale_bias" ins(%a = %x : !gpuos.tensor<16x1024xf32>, %c = %s : !gpuos.tensor<1024xf32>,
                                   %d = %b : !gpuos.tensor<1024xf32>) tile [4, 1024] -> (!gpuos.tensor<16x1024xf32>) {
    %0 = gpuos.mul %a, %c : !gpuos.tensor<16x1024xf32>, !gpuos.tensor<1024xf32>
    %1 = gpuos.add %0, %d : !gpuos.tensor<16x1024xf32>, !gpuos.tensor<1024xf32>
    gpuos.yield %1 : !gpuos.tensor<16x1024xf32>
  }
  %t = gpuos.task "two_streams" ins(%a = %x : !gpuos.tensor<16x1024xf32>, %c = %z : !gpuos.tensor<16x1024xf32>)
      tile [4, 1024] -> (!gpuos.tensor<16x1024xf32>) {
    %0 = gpuos.sub %a, %c : !gpuos.tensor<16x1024xf32>, !gpuos.tensor<16x1024xf32>
    gpuos.yield %0 : !gpuos.tensor<16x1024xf32>
  }
  gpuos.yield %r, %t : !gpuos.tensor<16x1024xf32>, !gpuos.tensor<16x1024xf32>
}

// Not unrolled: an edge tile (17 rows in tiles of 4), a tile of one copy's
// size, and a reduction. One element loop each (no loop carrying the
// position as the unrolled loop does).
// CHECK-LABEL: llvm.func @gpuos_task_edge(
// CHECK-NOT:     -> (i32)
// CHECK-LABEL: llvm.func @gpuos_task_small(
// CHECK-NOT:     -> (i32)
// CHECK-LABEL: llvm.func @gpuos_task_reduce(
// CHECK-NOT:     -> (i32)
// CHECK-LABEL: llvm.func @gpuos_dispatch(
gpuos.graph @no_unroll(%x : !gpuos.tensor<17x1024xf32>, %y : !gpuos.tensor<16x1024xf32>)
    -> (e : !gpuos.tensor<17x1024xf32>, s : !gpuos.tensor<16x1024xf32>, r : !gpuos.tensor<16xf32>) {
  %e = gpuos.task "edge" ins(%a = %x : !gpuos.tensor<17x1024xf32>) tile [4, 1024] -> (!gpuos.tensor<17x1024xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<17x1024xf32>
    gpuos.yield %0 : !gpuos.tensor<17x1024xf32>
  }
  %s = gpuos.task "small" ins(%a = %y : !gpuos.tensor<16x1024xf32>) tile [1, 1024] -> (!gpuos.tensor<16x1024xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<16x1024xf32>
    gpuos.yield %0 : !gpuos.tensor<16x1024xf32>
  }
  %r = gpuos.task "reduce" ins(%a = %y : !gpuos.tensor<16x1024xf32>) tile [8] -> (!gpuos.tensor<16xf32>) {
    %0 = gpuos.reduce sum %a axes [1] : !gpuos.tensor<16x1024xf32>
    gpuos.yield %0 : !gpuos.tensor<16xf32>
  }
  gpuos.yield %e, %s, %r : !gpuos.tensor<17x1024xf32>, !gpuos.tensor<16x1024xf32>, !gpuos.tensor<16xf32>
}
