// Bulk L2 prefetch of a tile's streamed inputs (docs/codegen.md, "Tile
// prefetch"): thread 0 asks for each dense row-major input's chunk of the
// tile (tile t = elements [t T, (t + 1) T)) with one
// cp.async.bulk.prefetch, widened to 16-byte boundaries and clipped at the
// buffer's end, when the tile reads at least 16 KB. Broadcast inputs,
// strided buffers, inputs read through a view, tiles that are not one
// chunk and small tiles get none.
// The ranges are checked against the buffers by gpuos-sim-check
// (test/Target/sim-check.mlir).
// RUN: gpuos-opt %s --gpuos-lower-tasks-to-nvvm=convert-to-llvm=false | FileCheck %s

// 4 x 1024 f32 = 16 KB of x per tile; the broadcast row s is not prefetched.
// CHECK-LABEL: llvm.func @gpuos_task_stream(
// CHECK:         %[[LEAD:.+]] = arith.cmpi eq, %{{.+}}, %c0_i32 : i32
// CHECK:         scf.if %[[LEAD]] {
// CHECK:           %[[OFF:.+]] = arith.muli %{{.+}}, %c16384_i64 : i64
// CHECK:           %[[BEGIN:.+]] = arith.addi %{{.+}}, %[[OFF]] : i64
// CHECK-DAG:       %[[LIMIT:.+]] = arith.addi %{{.+}}, %c65536_i64 : i64
// CHECK-DAG:       %[[END:.+]] = arith.addi %[[BEGIN]], %c16384_i64 : i64
// CHECK:           arith.minui %[[END]], %[[LIMIT]] : i64
// CHECK:           arith.andi %[[BEGIN]], %c-16_i64 : i64
// CHECK:           %[[SIZE:.+]] = arith.trunci %{{.+}} : i64 to i32
// CHECK:           nvvm.cp.async.bulk.prefetch %{{.+}}, %[[SIZE]] : <1>
// CHECK-NOT:       nvvm.cp.async.bulk.prefetch
// CHECK:         }
gpuos.graph @stream(%x : !gpuos.tensor<16x1024xf32>, %s : !gpuos.tensor<1024xf32>)
    -> (y : !gpuos.tensor<16x1024xf32>) {
  %r = gpuos.task "stream" ins(%a = %x : !gpuos.tensor<16x1024xf32>, %c = %s : !gpuos.tensor<1024xf32>)
      tile [4, 1024] -> (!gpuos.tensor<16x1024xf32>) {
    %0 = gpuos.mul %a, %c : !gpuos.tensor<16x1024xf32>, !gpuos.tensor<1024xf32>
    gpuos.yield %0 : !gpuos.tensor<16x1024xf32>
  }
  gpuos.yield %r : !gpuos.tensor<16x1024xf32>
}

// Two streams of 8 KB each per tile: 16 KB together, one prefetch each.
// CHECK-LABEL: llvm.func @gpuos_task_two_halves(
// CHECK-COUNT-2: nvvm.cp.async.bulk.prefetch
// CHECK-NOT:     nvvm.cp.async.bulk.prefetch
gpuos.graph @two_halves(%x : !gpuos.tensor<16x1024xf32>, %z : !gpuos.tensor<16x1024xf32>)
    -> (y : !gpuos.tensor<16x1024xf32>) {
  %r = gpuos.task "two_halves" ins(%a = %x : !gpuos.tensor<16x1024xf32>, %b = %z : !gpuos.tensor<16x1024xf32>)
      tile [2, 1024] -> (!gpuos.tensor<16x1024xf32>) {
    %0 = gpuos.add %a, %b : !gpuos.tensor<16x1024xf32>, !gpuos.tensor<16x1024xf32>
    gpuos.yield %0 : !gpuos.tensor<16x1024xf32>
  }
  gpuos.yield %r : !gpuos.tensor<16x1024xf32>
}

// None: 8 KB tiles; tiles that cut the inner axis (rows of 4096, tiles of
// [4, 1024], not one chunk); a transposed (column-major) view.
// CHECK-LABEL: llvm.func @gpuos_task_small(
// CHECK-NOT:     nvvm.cp.async.bulk.prefetch
// CHECK-LABEL: llvm.func @gpuos_task_cut(
// CHECK-NOT:     nvvm.cp.async.bulk.prefetch
// CHECK-LABEL: llvm.func @gpuos_task_transposed(
// CHECK-NOT:     nvvm.cp.async.bulk.prefetch
gpuos.graph @none(%x : !gpuos.tensor<16x1024xf32>, %w : !gpuos.tensor<16x4096xf32>,
                  %t : !gpuos.tensor<64x64xf32, strides = [1, 64]>)
    -> (a : !gpuos.tensor<16x1024xf32>, b : !gpuos.tensor<16x4096xf32>, c : !gpuos.tensor<64x64xf32>) {
  %a = gpuos.task "small" ins(%i = %x : !gpuos.tensor<16x1024xf32>) tile [2, 1024] -> (!gpuos.tensor<16x1024xf32>) {
    %0 = gpuos.neg %i : !gpuos.tensor<16x1024xf32>
    gpuos.yield %0 : !gpuos.tensor<16x1024xf32>
  }
  %b = gpuos.task "cut" ins(%i = %w : !gpuos.tensor<16x4096xf32>) tile [4, 1024] -> (!gpuos.tensor<16x4096xf32>) {
    %0 = gpuos.neg %i : !gpuos.tensor<16x4096xf32>
    gpuos.yield %0 : !gpuos.tensor<16x4096xf32>
  }
  %c = gpuos.task "transposed" ins(%i = %t : !gpuos.tensor<64x64xf32, strides = [1, 64]>) tile [64, 64] -> (!gpuos.tensor<64x64xf32>) {
    %0 = gpuos.neg %i : !gpuos.tensor<64x64xf32, strides = [1, 64]>
    gpuos.yield %0 : !gpuos.tensor<64x64xf32>
  }
  gpuos.yield %a, %b, %c : !gpuos.tensor<16x1024xf32>, !gpuos.tensor<16x4096xf32>, !gpuos.tensor<64x64xf32>
}

// A cut axis with a partial tile inside (10 rows in tiles of 4, under an
// outer axis): tile t does not start at t * T, so none. A square input read
// through a transpose is not a stream; the one read directly is: one.
// CHECK-LABEL: llvm.func @gpuos_task_partial(
// CHECK-NOT:     nvvm.cp.async.bulk.prefetch
// CHECK-LABEL: llvm.func @gpuos_task_transposed_square(
// CHECK-COUNT-1: nvvm.cp.async.bulk.prefetch
// CHECK-NOT:     nvvm.cp.async.bulk.prefetch
// CHECK-LABEL: llvm.func @gpuos_dispatch(
gpuos.graph @rules(%x : !gpuos.tensor<3x10x1024xf32>, %m : !gpuos.tensor<64x64xf32>,
                   %n : !gpuos.tensor<64x64xf32>)
    -> (o : !gpuos.tensor<3x10x1024xf32>, p : !gpuos.tensor<64x64xf32>) {
  %r = gpuos.task "partial" ins(%a = %x : !gpuos.tensor<3x10x1024xf32>)
      tile [1, 4, 1024] -> (!gpuos.tensor<3x10x1024xf32>) {
    %0 = gpuos.mul %a, %a : !gpuos.tensor<3x10x1024xf32>, !gpuos.tensor<3x10x1024xf32>
    gpuos.yield %0 : !gpuos.tensor<3x10x1024xf32>
  }
  %s = gpuos.task "transposed_square" ins(%a = %m : !gpuos.tensor<64x64xf32>, %b = %n : !gpuos.tensor<64x64xf32>)
      tile [64, 64] -> (!gpuos.tensor<64x64xf32>) {
    %0 = gpuos.transpose %a [1, 0] : !gpuos.tensor<64x64xf32>
    %1 = gpuos.sub %0, %b : !gpuos.tensor<64x64xf32, strides = [1, 64]>, !gpuos.tensor<64x64xf32>
    gpuos.yield %1 : !gpuos.tensor<64x64xf32>
  }
  gpuos.yield %r, %s : !gpuos.tensor<3x10x1024xf32>, !gpuos.tensor<64x64xf32>
}
