// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-shared-weights))' | FileCheck %s
// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-shared-weights{max-matmuls=3}))' | FileCheck %s --check-prefix=MAX3
// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-shared-weights{one-wave=false}))' | FileCheck %s --check-prefix=JAM
// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-shared-weights{max-matmuls=20}))' | FileCheck %s --check-prefix=MAX20

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

// More micro-batches than max-matmuls: 32 through a 1024 x 256 weight (32
// tiles a task) make eight tasks of four (256 tiles, 64 KiB of lhs rows a
// tile), not two of sixteen.
// CHECK-LABEL: gpuos.graph @many_micro_batches
// CHECK-COUNT-8: = gpuos.task "many_micro_batches_t{{[0-9]+}}_matmul" {{.+}} tile [4, 8] -> (!gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>)
// CHECK-NOT: gpuos.task
// CHECK: gpuos.yield
gpuos.graph @many_micro_batches(%x : !gpuos.tensor<128x1024xf32>, %w : !gpuos.tensor<1024x256xf32>)
    -> (y0 : !gpuos.tensor<4x256xf32>, y1 : !gpuos.tensor<4x256xf32>, y2 : !gpuos.tensor<4x256xf32>, y3 : !gpuos.tensor<4x256xf32>, y4 : !gpuos.tensor<4x256xf32>, y5 : !gpuos.tensor<4x256xf32>, y6 : !gpuos.tensor<4x256xf32>, y7 : !gpuos.tensor<4x256xf32>, y8 : !gpuos.tensor<4x256xf32>, y9 : !gpuos.tensor<4x256xf32>, y10 : !gpuos.tensor<4x256xf32>, y11 : !gpuos.tensor<4x256xf32>, y12 : !gpuos.tensor<4x256xf32>, y13 : !gpuos.tensor<4x256xf32>, y14 : !gpuos.tensor<4x256xf32>, y15 : !gpuos.tensor<4x256xf32>, y16 : !gpuos.tensor<4x256xf32>, y17 : !gpuos.tensor<4x256xf32>, y18 : !gpuos.tensor<4x256xf32>, y19 : !gpuos.tensor<4x256xf32>, y20 : !gpuos.tensor<4x256xf32>, y21 : !gpuos.tensor<4x256xf32>, y22 : !gpuos.tensor<4x256xf32>, y23 : !gpuos.tensor<4x256xf32>, y24 : !gpuos.tensor<4x256xf32>, y25 : !gpuos.tensor<4x256xf32>, y26 : !gpuos.tensor<4x256xf32>, y27 : !gpuos.tensor<4x256xf32>, y28 : !gpuos.tensor<4x256xf32>, y29 : !gpuos.tensor<4x256xf32>, y30 : !gpuos.tensor<4x256xf32>, y31 : !gpuos.tensor<4x256xf32>) {
  %x0 = gpuos.slice %x starts [0, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x1 = gpuos.slice %x starts [4, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x2 = gpuos.slice %x starts [8, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x3 = gpuos.slice %x starts [12, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x4 = gpuos.slice %x starts [16, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x5 = gpuos.slice %x starts [20, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x6 = gpuos.slice %x starts [24, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x7 = gpuos.slice %x starts [28, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x8 = gpuos.slice %x starts [32, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x9 = gpuos.slice %x starts [36, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x10 = gpuos.slice %x starts [40, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x11 = gpuos.slice %x starts [44, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x12 = gpuos.slice %x starts [48, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x13 = gpuos.slice %x starts [52, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x14 = gpuos.slice %x starts [56, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x15 = gpuos.slice %x starts [60, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x16 = gpuos.slice %x starts [64, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x17 = gpuos.slice %x starts [68, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x18 = gpuos.slice %x starts [72, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x19 = gpuos.slice %x starts [76, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x20 = gpuos.slice %x starts [80, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x21 = gpuos.slice %x starts [84, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x22 = gpuos.slice %x starts [88, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x23 = gpuos.slice %x starts [92, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x24 = gpuos.slice %x starts [96, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x25 = gpuos.slice %x starts [100, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x26 = gpuos.slice %x starts [104, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x27 = gpuos.slice %x starts [108, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x28 = gpuos.slice %x starts [112, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x29 = gpuos.slice %x starts [116, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x30 = gpuos.slice %x starts [120, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %x31 = gpuos.slice %x starts [124, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<128x1024xf32>
  %y0 = gpuos.matmul %x0, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y1 = gpuos.matmul %x1, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y2 = gpuos.matmul %x2, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y3 = gpuos.matmul %x3, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y4 = gpuos.matmul %x4, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y5 = gpuos.matmul %x5, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y6 = gpuos.matmul %x6, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y7 = gpuos.matmul %x7, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y8 = gpuos.matmul %x8, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y9 = gpuos.matmul %x9, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y10 = gpuos.matmul %x10, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y11 = gpuos.matmul %x11, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y12 = gpuos.matmul %x12, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y13 = gpuos.matmul %x13, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y14 = gpuos.matmul %x14, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y15 = gpuos.matmul %x15, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y16 = gpuos.matmul %x16, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y17 = gpuos.matmul %x17, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y18 = gpuos.matmul %x18, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y19 = gpuos.matmul %x19, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y20 = gpuos.matmul %x20, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y21 = gpuos.matmul %x21, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y22 = gpuos.matmul %x22, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y23 = gpuos.matmul %x23, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y24 = gpuos.matmul %x24, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y25 = gpuos.matmul %x25, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y26 = gpuos.matmul %x26, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y27 = gpuos.matmul %x27, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y28 = gpuos.matmul %x28, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y29 = gpuos.matmul %x29, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y30 = gpuos.matmul %x30, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  %y31 = gpuos.matmul %x31, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x256xf32>
  gpuos.yield %y0, %y1, %y2, %y3, %y4, %y5, %y6, %y7, %y8, %y9, %y10, %y11, %y12, %y13, %y14, %y15, %y16, %y17, %y18, %y19, %y20, %y21, %y22, %y23, %y24, %y25, %y26, %y27, %y28, %y29, %y30, %y31
      : !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>, !gpuos.tensor<4x256xf32>
}

// One weight at two dependent levels: each level is a group of eight, cut
// into two tasks of four (not one group of sixteen counted as one). A
// matmul never joins the task of the matmul whose result it reads: without
// one-wave, one task per level, the second reading the first's results.
// JAM-LABEL: gpuos.graph @two_levels
// JAM: %[[L1:.+]]:8 = gpuos.task "two_levels_t0_matmul" ins(%{{.+}} = %x : {{.+}}, %{{.+}} = %w
// JAM-COUNT-8: gpuos.matmul
// JAM-NEXT: gpuos.yield
// JAM: gpuos.task "two_levels_t1_matmul" ins(%{{.+}} = %[[L1]]#0
// JAM-COUNT-8: gpuos.matmul
// JAM-NEXT: gpuos.yield
// CHECK-LABEL: gpuos.graph @two_levels
// CHECK-COUNT-4: = gpuos.task "two_levels_t{{[0-9]+}}_matmul" {{.+}} tile [4, 8] -> (!gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>)
// CHECK-NOT: gpuos.task
// CHECK: gpuos.yield
gpuos.graph @two_levels(%x : !gpuos.tensor<32x1024xf32>, %w : !gpuos.tensor<1024x1024xf32>)
    -> (z0 : !gpuos.tensor<4x1024xf32>, z1 : !gpuos.tensor<4x1024xf32>, z2 : !gpuos.tensor<4x1024xf32>, z3 : !gpuos.tensor<4x1024xf32>, z4 : !gpuos.tensor<4x1024xf32>, z5 : !gpuos.tensor<4x1024xf32>, z6 : !gpuos.tensor<4x1024xf32>, z7 : !gpuos.tensor<4x1024xf32>) {
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
  %z0 = gpuos.matmul %y0, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %z1 = gpuos.matmul %y1, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %z2 = gpuos.matmul %y2, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %z3 = gpuos.matmul %y3, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %z4 = gpuos.matmul %y4, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %z5 = gpuos.matmul %y5, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %z6 = gpuos.matmul %y6, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
  %z7 = gpuos.matmul %y7, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x1024xf32>
  gpuos.yield %z0, %z1, %z2, %z3, %z4, %z5, %z6, %z7
      : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4x1024xf32>
}

// An empty N: nothing to split (and no division by its zero tiles).
// CHECK-LABEL: gpuos.graph @empty_columns
// CHECK: gpuos.task "empty_columns_t0_matmul"
// CHECK-NOT: gpuos.task
// CHECK: gpuos.yield
gpuos.graph @empty_columns(%x : !gpuos.tensor<8x1024xf32>, %w : !gpuos.tensor<1024x0xf32>)
    -> (y0 : !gpuos.tensor<4x0xf32>, y1 : !gpuos.tensor<4x0xf32>) {
  %x0 = gpuos.slice %x starts [0, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<8x1024xf32>
  %x1 = gpuos.slice %x starts [4, 0] sizes [4, 1024] steps [1, 1] : !gpuos.tensor<8x1024xf32>
  %y0 = gpuos.matmul %x0, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x0xf32>
  %y1 = gpuos.matmul %x1, %w : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<1024x0xf32>
  gpuos.yield %y0, %y1
      : !gpuos.tensor<4x0xf32>, !gpuos.tensor<4x0xf32>
}

// max-matmuls above 16 still keeps a task within 16 results (every fused
// task's cap): twenty matmuls of one weight become tasks of 16 and 4.
// MAX20-LABEL: gpuos.graph @twenty
// MAX20: = gpuos.task "twenty_t0_matmul"
// MAX20-COUNT-16: gpuos.matmul
// MAX20-NEXT: gpuos.yield
// MAX20: = gpuos.task "twenty_t1_matmul"
// MAX20-COUNT-4: gpuos.matmul
// MAX20-NEXT: gpuos.yield
gpuos.graph @twenty(%x : !gpuos.tensor<640x64xf32>, %w : !gpuos.tensor<64x64xf32>)
    -> (y0 : !gpuos.tensor<32x64xf32>, y1 : !gpuos.tensor<32x64xf32>, y2 : !gpuos.tensor<32x64xf32>, y3 : !gpuos.tensor<32x64xf32>, y4 : !gpuos.tensor<32x64xf32>, y5 : !gpuos.tensor<32x64xf32>, y6 : !gpuos.tensor<32x64xf32>, y7 : !gpuos.tensor<32x64xf32>, y8 : !gpuos.tensor<32x64xf32>, y9 : !gpuos.tensor<32x64xf32>, y10 : !gpuos.tensor<32x64xf32>, y11 : !gpuos.tensor<32x64xf32>, y12 : !gpuos.tensor<32x64xf32>, y13 : !gpuos.tensor<32x64xf32>, y14 : !gpuos.tensor<32x64xf32>, y15 : !gpuos.tensor<32x64xf32>, y16 : !gpuos.tensor<32x64xf32>, y17 : !gpuos.tensor<32x64xf32>, y18 : !gpuos.tensor<32x64xf32>, y19 : !gpuos.tensor<32x64xf32>) {
  %x0 = gpuos.slice %x starts [0, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x1 = gpuos.slice %x starts [32, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x2 = gpuos.slice %x starts [64, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x3 = gpuos.slice %x starts [96, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x4 = gpuos.slice %x starts [128, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x5 = gpuos.slice %x starts [160, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x6 = gpuos.slice %x starts [192, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x7 = gpuos.slice %x starts [224, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x8 = gpuos.slice %x starts [256, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x9 = gpuos.slice %x starts [288, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x10 = gpuos.slice %x starts [320, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x11 = gpuos.slice %x starts [352, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x12 = gpuos.slice %x starts [384, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x13 = gpuos.slice %x starts [416, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x14 = gpuos.slice %x starts [448, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x15 = gpuos.slice %x starts [480, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x16 = gpuos.slice %x starts [512, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x17 = gpuos.slice %x starts [544, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x18 = gpuos.slice %x starts [576, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %x19 = gpuos.slice %x starts [608, 0] sizes [32, 64] steps [1, 1] : !gpuos.tensor<640x64xf32>
  %y0 = gpuos.matmul %x0, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y1 = gpuos.matmul %x1, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y2 = gpuos.matmul %x2, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y3 = gpuos.matmul %x3, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y4 = gpuos.matmul %x4, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y5 = gpuos.matmul %x5, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y6 = gpuos.matmul %x6, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y7 = gpuos.matmul %x7, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y8 = gpuos.matmul %x8, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y9 = gpuos.matmul %x9, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y10 = gpuos.matmul %x10, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y11 = gpuos.matmul %x11, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y12 = gpuos.matmul %x12, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y13 = gpuos.matmul %x13, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y14 = gpuos.matmul %x14, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y15 = gpuos.matmul %x15, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y16 = gpuos.matmul %x16, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y17 = gpuos.matmul %x17, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y18 = gpuos.matmul %x18, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  %y19 = gpuos.matmul %x19, %w : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
  gpuos.yield %y0, %y1, %y2, %y3, %y4, %y5, %y6, %y7, %y8, %y9, %y10, %y11, %y12, %y13, %y14, %y15, %y16, %y17, %y18, %y19
      : !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>, !gpuos.tensor<32x64xf32>
}
