// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-shared-weights))' | FileCheck %s
// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-shared-weights{max-matmuls=3}))' | FileCheck %s --check-prefix=MAX3
// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-shared-weights{one-wave=false}))' | FileCheck %s --check-prefix=JAM

// Eight micro-batches (row slices of one activation) through one weight:
// one task, one matmul per micro-batch, all reading the same weight
// argument; the slices are cloned in, so the task reads %x once. The tile
// keeps each product's whole M (4) and takes 64 columns: each 64-column block
// of the weight is read by one tile for all eight.
// CHECK-LABEL: gpuos.graph @micro_batches
// CHECK: %[[T:.+]]:8 = gpuos.task "micro_batches_t0_matmul" ins(%[[X:.+]] = %x : !gpuos.tensor<32x64xf32>, %[[W:.+]] = %w : !gpuos.tensor<64x256xf32>) tile [4, 8]
// CHECK-COUNT-8: gpuos.matmul %{{.+}}, %[[W]] : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x256xf32>
// CHECK-NEXT: gpuos.yield
// CHECK-NOT: gpuos.matmul
// CHECK: gpuos.yield %[[T]]#0, %[[T]]#1, %[[T]]#2, %[[T]]#3, %[[T]]#4, %[[T]]#5, %[[T]]#6, %[[T]]#7
// MAX3-LABEL: gpuos.graph @micro_batches
// MAX3: gpuos.task "micro_batches_t0_matmul" {{.+}} -> (!gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>)
// MAX3: gpuos.task "micro_batches_t1_matmul" {{.+}} -> (!gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>)
// MAX3: gpuos.task "micro_batches_t2_matmul" {{.+}} -> (!gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>)
gpuos.graph @micro_batches(%x : !gpuos.tensor<32x64xf32>, %w : !gpuos.tensor<64x256xf32>)
    -> (y0 : !gpuos.tensor<4x256xf32>, y1 : !gpuos.tensor<4x256xf32>, y2 : !gpuos.tensor<4x256xf32>, y3 : !gpuos.tensor<4x256xf32>,
        y4 : !gpuos.tensor<4x256xf32>, y5 : !gpuos.tensor<4x256xf32>, y6 : !gpuos.tensor<4x256xf32>, y7 : !gpuos.tensor<4x256xf32>) {
  %x0 = gpuos.slice %x starts [0, 0] sizes [4, 64] steps [1, 1] : !gpuos.tensor<32x64xf32>
  %x1 = gpuos.slice %x starts [4, 0] sizes [4, 64] steps [1, 1] : !gpuos.tensor<32x64xf32>
  %x2 = gpuos.slice %x starts [8, 0] sizes [4, 64] steps [1, 1] : !gpuos.tensor<32x64xf32>
  %x3 = gpuos.slice %x starts [12, 0] sizes [4, 64] steps [1, 1] : !gpuos.tensor<32x64xf32>
  %x4 = gpuos.slice %x starts [16, 0] sizes [4, 64] steps [1, 1] : !gpuos.tensor<32x64xf32>
  %x5 = gpuos.slice %x starts [20, 0] sizes [4, 64] steps [1, 1] : !gpuos.tensor<32x64xf32>
  %x6 = gpuos.slice %x starts [24, 0] sizes [4, 64] steps [1, 1] : !gpuos.tensor<32x64xf32>
  %x7 = gpuos.slice %x starts [28, 0] sizes [4, 64] steps [1, 1] : !gpuos.tensor<32x64xf32>
  %y0 = gpuos.matmul %x0, %w : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x256xf32>
  %y1 = gpuos.matmul %x1, %w : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x256xf32>
  %y2 = gpuos.matmul %x2, %w : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x256xf32>
  %y3 = gpuos.matmul %x3, %w : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x256xf32>
  %y4 = gpuos.matmul %x4, %w : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x256xf32>
  %y5 = gpuos.matmul %x5, %w : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x256xf32>
  %y6 = gpuos.matmul %x6, %w : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x256xf32>
  %y7 = gpuos.matmul %x7, %w : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64x256xf32>
  gpuos.yield %y0, %y1, %y2, %y3, %y4, %y5, %y6, %y7
      : !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>,
        !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>
}

// Batched micro-batches with a transposed weight (graph inputs this time).
// CHECK-LABEL: gpuos.graph @batched_transposed
// CHECK: %[[T:.+]]:2 = gpuos.task "batched_transposed_t0_matmul" ins(%[[A:.+]] = %a : !gpuos.tensor<2x3x16xf32>, %[[W:.+]] = %w : !gpuos.tensor<8x16xf32>, %[[B:.+]] = %b : !gpuos.tensor<2x3x16xf32>) tile [1, 3, 8]
// CHECK-NEXT: gpuos.matmul %[[A]], %[[W]] transpose_rhs
// CHECK-NEXT: gpuos.matmul %[[B]], %[[W]] transpose_rhs
gpuos.graph @batched_transposed(%a : !gpuos.tensor<2x3x16xf32>, %b : !gpuos.tensor<2x3x16xf32>, %w : !gpuos.tensor<8x16xf32>)
    -> (ya : !gpuos.tensor<2x3x8xf32>, yb : !gpuos.tensor<2x3x8xf32>) {
  %ya = gpuos.matmul %a, %w transpose_rhs : !gpuos.tensor<2x3x16xf32>, !gpuos.tensor<8x16xf32>
  %yb = gpuos.matmul %b, %w transpose_rhs : !gpuos.tensor<2x3x16xf32>, !gpuos.tensor<8x16xf32>
  gpuos.yield %ya, %yb : !gpuos.tensor<2x3x8xf32>, !gpuos.tensor<2x3x8xf32>
}

// Must not fuse: the second matmul reads the first one's result (through a
// tanh), so one task would read its own output.
// CHECK-LABEL: gpuos.graph @chained
// CHECK-NOT: gpuos.task
// CHECK: gpuos.yield
gpuos.graph @chained(%x : !gpuos.tensor<4x16xf32>, %w : !gpuos.tensor<16x16xf32>) -> (y : !gpuos.tensor<4x16xf32>) {
  %a = gpuos.matmul %x, %w : !gpuos.tensor<4x16xf32>, !gpuos.tensor<16x16xf32>
  %t = gpuos.tanh %a : !gpuos.tensor<4x16xf32>
  %b = gpuos.matmul %t, %w : !gpuos.tensor<4x16xf32>, !gpuos.tensor<16x16xf32>
  gpuos.yield %b : !gpuos.tensor<4x16xf32>
}

// Must not fuse: different weights; lhs of different shapes; different
// transpose flags.
// CHECK-LABEL: gpuos.graph @no_match
// CHECK-NOT: gpuos.task
// CHECK: gpuos.yield
gpuos.graph @no_match(%x : !gpuos.tensor<4x16xf32>, %z : !gpuos.tensor<2x16xf32>, %s : !gpuos.tensor<16x16xf32>,
                      %w : !gpuos.tensor<16x16xf32>, %u : !gpuos.tensor<16x16xf32>)
    -> (a : !gpuos.tensor<4x16xf32>, b : !gpuos.tensor<4x16xf32>, c : !gpuos.tensor<2x16xf32>,
        d : !gpuos.tensor<16x16xf32>, e : !gpuos.tensor<16x16xf32>) {
  %a = gpuos.matmul %x, %w : !gpuos.tensor<4x16xf32>, !gpuos.tensor<16x16xf32>
  %b = gpuos.matmul %x, %u : !gpuos.tensor<4x16xf32>, !gpuos.tensor<16x16xf32>
  %c = gpuos.matmul %z, %w : !gpuos.tensor<2x16xf32>, !gpuos.tensor<16x16xf32>
  %d = gpuos.matmul %s, %w : !gpuos.tensor<16x16xf32>, !gpuos.tensor<16x16xf32>
  %e = gpuos.matmul %s, %w transpose_lhs : !gpuos.tensor<16x16xf32>, !gpuos.tensor<16x16xf32>
  gpuos.yield %a, %b, %c, %d, %e : !gpuos.tensor<4x16xf32>, !gpuos.tensor<4x16xf32>, !gpuos.tensor<2x16xf32>,
      !gpuos.tensor<16x16xf32>, !gpuos.tensor<16x16xf32>
}

// one-wave: eight 4 x 1024 micro-batches through a 1024 x 1024 weight would
// be one task of 128 tiles, each reading 128 KiB of lhs rows beside 32 KiB
// of weight. Two tasks of four (256 tiles, one wave on 264 worker blocks,
// 64 KiB of lhs a tile) finish sooner; four would need two waves. Without
// the option: one task of eight.
// CHECK-LABEL: gpuos.graph @wave_of_two
// CHECK: gpuos.task "wave_of_two_t0_matmul" {{.+}} tile [4, 8] -> (!gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>)
// CHECK-COUNT-4: gpuos.matmul
// CHECK-NEXT: gpuos.yield
// CHECK: gpuos.task "wave_of_two_t1_matmul" {{.+}} tile [4, 8] -> (!gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>)
// CHECK-COUNT-4: gpuos.matmul
// CHECK-NEXT: gpuos.yield
// CHECK-NOT: gpuos.task
// JAM-LABEL: gpuos.graph @wave_of_two
// JAM: gpuos.task "wave_of_two_t0_matmul" {{.+}} -> (!gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>)
// JAM-NOT: gpuos.task
// JAM: gpuos.yield
gpuos.graph @wave_of_two(%x : !gpuos.tensor<32x1024xf32>, %w : !gpuos.tensor<1024x1024xf32>)
    -> (y0 : !gpuos.tensor<4x1024xf32>, y1 : !gpuos.tensor<4x1024xf32>, y2 : !gpuos.tensor<4x1024xf32>, y3 : !gpuos.tensor<4x1024xf32>, y4 : !gpuos.tensor<4x1024xf32>, y5 : !gpuos.tensor<4x1024xf32>, y6 : !gpuos.tensor<4x1024xf32>, y7 : !gpuos.tensor<4x1024xf32>) {
  %x0 = gpuos.slice %x starts [0, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
  %x1 = gpuos.slice %x starts [4, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
  %x2 = gpuos.slice %x starts [8, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
  %x3 = gpuos.slice %x starts [12, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
  %x4 = gpuos.slice %x starts [16, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
  %x5 = gpuos.slice %x starts [20, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
  %x6 = gpuos.slice %x starts [24, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
  %x7 = gpuos.slice %x starts [28, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
  %y0 = gpuos.matmul %x0, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %y1 = gpuos.matmul %x1, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %y2 = gpuos.matmul %x2, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %y3 = gpuos.matmul %x3, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %y4 = gpuos.matmul %x4, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %y5 = gpuos.matmul %x5, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %y6 = gpuos.matmul %x6, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %y7 = gpuos.matmul %x7, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
  gpuos.yield %y0, %y1, %y2, %y3, %y4, %y5, %y6, %y7
      : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>
}

// A weight of 4096 columns already gives one task 256 tiles (of 16
// columns): no split.
// CHECK-LABEL: gpuos.graph @wide_weight
// CHECK: gpuos.task "wide_weight_t0_matmul" {{.+}} -> (!gpuos.tensor<4x4096xf32>, !gpuos.tensor<4x4096xf32>, !gpuos.tensor<4x4096xf32>, !gpuos.tensor<4x4096xf32>, !gpuos.tensor<4x4096xf32>, !gpuos.tensor<4x4096xf32>, !gpuos.tensor<4x4096xf32>, !gpuos.tensor<4x4096xf32>)
// CHECK-NOT: gpuos.task
// CHECK: gpuos.yield
gpuos.graph @wide_weight(%x : !gpuos.tensor<32x1024xf32>, %w : !gpuos.tensor<1024x4096xf32>)
    -> (y0 : !gpuos.tensor<4x4096xf32>, y1 : !gpuos.tensor<4x4096xf32>, y2 : !gpuos.tensor<4x4096xf32>, y3 : !gpuos.tensor<4x4096xf32>, y4 : !gpuos.tensor<4x4096xf32>, y5 : !gpuos.tensor<4x4096xf32>, y6 : !gpuos.tensor<4x4096xf32>, y7 : !gpuos.tensor<4x4096xf32>) {
  %x0 = gpuos.slice %x starts [0, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
  %x1 = gpuos.slice %x starts [4, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
  %x2 = gpuos.slice %x starts [8, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
  %x3 = gpuos.slice %x starts [12, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
  %x4 = gpuos.slice %x starts [16, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
  %x5 = gpuos.slice %x starts [20, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
  %x6 = gpuos.slice %x starts [24, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
  %x7 = gpuos.slice %x starts [28, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<32x1024xf32>
  %y0 = gpuos.matmul %x0, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x4096xf32>
  %y1 = gpuos.matmul %x1, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x4096xf32>
  %y2 = gpuos.matmul %x2, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x4096xf32>
  %y3 = gpuos.matmul %x3, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x4096xf32>
  %y4 = gpuos.matmul %x4, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x4096xf32>
  %y5 = gpuos.matmul %x5, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x4096xf32>
  %y6 = gpuos.matmul %x6, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x4096xf32>
  %y7 = gpuos.matmul %x7, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x4096xf32>
  gpuos.yield %y0, %y1, %y2, %y3, %y4, %y5, %y6, %y7
      : !gpuos.tensor<4x4096xf32>, !gpuos.tensor<4x4096xf32>, !gpuos.tensor<4x4096xf32>, !gpuos.tensor<4x4096xf32>, !gpuos.tensor<4x4096xf32>, !gpuos.tensor<4x4096xf32>, !gpuos.tensor<4x4096xf32>, !gpuos.tensor<4x4096xf32>
}
