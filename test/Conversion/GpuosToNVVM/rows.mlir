// Reductions along rows a tile holds whole are shared by the block: each
// thread folds a strided part of the row (vector loads), warp shuffles
// combine a warp, shared memory and one barrier combine the warps. Other
// reductions loop serially in each thread.
// RUN: gpuos-opt %s --gpuos-lower-tasks-to-nvvm=convert-to-llvm=false | FileCheck %s

// CHECK: llvm.mlir.global external @__gpuos_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>

// softmax: rows this long (32 elements per thread) are walked by loops
// strided by the block, and the max and the sum of exp(x - max) come from
// one pass: each thread keeps a running (max, sum), exponents taken against
// 0 while its max is -inf; the pairs merge over the warp's butterfly, then
// the block (one shared slot, one barrier). The row's elements follow in a
// second pass; one fold per row is odd, so the row ends with a barrier.
// CHECK-LABEL: llvm.func @gpuos_task_softmax_rows
// CHECK:         %[[SMEM:.+]] = llvm.mlir.addressof @__gpuos_shared : !llvm.ptr<3>
// CHECK:         scf.for %[[ROW:.+]] = %c0_i32 to %c2_i32 step %c1_i32 : i32 {
// CHECK:           %[[PART:.+]]:2 = scf.for {{.*}} iter_args(%[[M:.+]] = %cst{{.*}}, %[[S:.+]] = %cst{{.*}}) -> (f32, f32) : i32 {
// CHECK:             llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:             %[[NM:.+]] = arith.maximumf %[[M]], %{{.+}} : f32
// CHECK:             arith.cmpf oeq, %[[NM]], %{{.+}} : f32
// CHECK:             llvm.call @__nv_expf
// CHECK:             arith.mulf %[[S]], %{{.+}} : f32
// CHECK-NOT:       nvvm.barrier0
// CHECK:           nvvm.shfl.sync bfly %c-1_i32, %[[PART]]#1, %c16_i32, %c31_i32 : f32 -> f32
// CHECK:           nvvm.shfl.sync bfly %c-1_i32, %[[PART]]#0, %c16_i32, %c31_i32 : f32 -> f32
// CHECK:           scf.if
// CHECK:             llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : f32, !llvm.ptr<3>
// CHECK:             llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : f32, !llvm.ptr<3>
// CHECK:           nvvm.barrier0
// CHECK:           %[[STATS:.+]]:2 = scf.for %{{.+}} = %c0_i32 to %{{.+}} step %c1_i32 iter_args
// CHECK:             llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<3> -> f32
// CHECK:             llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<3> -> f32
// CHECK-NOT:       nvvm.barrier0
// CHECK:           scf.for
// CHECK:             arith.subf %{{.+}}, %[[STATS]]#0 : f32
// CHECK:             llvm.call @__nv_expf
// CHECK:             arith.divf %{{.+}}, %[[STATS]]#1 : f32
// CHECK:             llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK:           nvvm.barrier0
// The aligned-buffer fallback repeats the rows with scalar accesses.
// CHECK:       } else {
// CHECK:         nvvm.shfl.sync
// CHECK:         llvm.load %{{.+}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-LABEL: llvm.func @gpuos_launch_softmax_rows
gpuos.graph @softmax(%x : !gpuos.tensor<8x8192xf32>) -> (p : !gpuos.tensor<8x8192xf32>) {
  %r = gpuos.task "softmax_rows" ins(%a = %x : !gpuos.tensor<8x8192xf32>) tile [2, 8192] -> (!gpuos.tensor<8x8192xf32>) {
    %0 = gpuos.softmax %a axis 1 : !gpuos.tensor<8x8192xf32>
    gpuos.yield %0 : !gpuos.tensor<8x8192xf32>
  }
  gpuos.yield %r : !gpuos.tensor<8x8192xf32>
}

// Short rows (at most 16 elements per thread at the tuned 256 threads) get a
// straight-line copy when blockDim is 256: each thread's two chunks of the
// row are loaded together, the second norm's pass and the stores reuse the
// values in registers, and the warp partials fold in a loop of a constant 8.
// Look-ahead: what the next stage reads without waiting for a statistic is
// loaded before this stage's barrier. Before the first one: %a (the first
// norm's pass), the residual %c and the first norm's weight %b (the second
// norm's pass reads both); before the second: the second norm's weight %e
// (the stores read it). No global load follows the second barrier. Other
// block sizes, and misaligned buffers, take the loop.
// CHECK-LABEL: llvm.func @gpuos_task_norm_chain
// CHECK:         %[[A:.+]] = llvm.inttoptr
// CHECK:         %[[B:.+]] = llvm.inttoptr
// CHECK:         %[[C:.+]] = llvm.inttoptr
// CHECK:         %[[E:.+]] = llvm.inttoptr
// CHECK:         %[[TUNED:.+]] = arith.cmpi eq, %{{.+}}, %c256_i32 : i32
// CHECK:         %[[BOTH:.+]] = arith.andi %[[TUNED]], %{{.+}} : i1
// CHECK:         scf.if %[[BOTH]] {
// CHECK-NOT:       scf.for
// CHECK:           llvm.getelementptr %[[B]][
// CHECK-NEXT:      llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:       nvvm.barrier0
// CHECK:           llvm.getelementptr %[[C]][
// CHECK-NEXT:      llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:       nvvm.barrier0
// CHECK:           llvm.getelementptr %[[B]][
// CHECK-NEXT:      llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:       nvvm.barrier0
// CHECK:           llvm.getelementptr %[[C]][
// CHECK-NEXT:      llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:       nvvm.barrier0
// CHECK:           llvm.getelementptr %[[A]][
// CHECK-NEXT:      llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:       nvvm.barrier0
// CHECK:           llvm.getelementptr %[[A]][
// CHECK-NEXT:      llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:       nvvm.barrier0
// CHECK-NOT:       llvm.load {{.*}}!llvm.ptr<1>
// CHECK:           nvvm.shfl.sync
// CHECK:           nvvm.barrier0
// CHECK:           scf.for %{{.+}} = %c0_i32 to %c8_i32 step %c1_i32 iter_args
// CHECK:           llvm.getelementptr %[[E]][
// CHECK-NEXT:      llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:       nvvm.barrier0
// CHECK:           llvm.getelementptr %[[E]][
// CHECK-NEXT:      llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:       nvvm.barrier0
// CHECK-NOT:       llvm.load {{.*}}!llvm.ptr<1>
// CHECK:           nvvm.barrier0
// CHECK-NOT:       llvm.load {{.*}}!llvm.ptr<1>
// CHECK-COUNT-2:   llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK:         } else {
// CHECK:           scf.for
// CHECK-LABEL: llvm.func @gpuos_launch_norm_chain
gpuos.graph @chain(%x : !gpuos.tensor<2x2048xf32>, %w : !gpuos.tensor<2048xf32>, %res : !gpuos.tensor<2x2048xf32>,
                   %w2 : !gpuos.tensor<2048xf32>) -> (y : !gpuos.tensor<2x2048xf32>) {
  %r = gpuos.task "norm_chain" ins(%a = %x : !gpuos.tensor<2x2048xf32>, %b = %w : !gpuos.tensor<2048xf32>,
                                   %c = %res : !gpuos.tensor<2x2048xf32>, %e = %w2 : !gpuos.tensor<2048xf32>) tile [1, 2048] -> (!gpuos.tensor<2x2048xf32>) {
    %0 = gpuos.rms_norm %a weight(%b : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<2x2048xf32>
    %1 = gpuos.add %0, %c : !gpuos.tensor<2x2048xf32>, !gpuos.tensor<2x2048xf32>
    %2 = gpuos.rms_norm %1 weight(%e : !gpuos.tensor<2048xf32>) eps 1.0e-6 : !gpuos.tensor<2x2048xf32>
    gpuos.yield %2 : !gpuos.tensor<2x2048xf32>
  }
  gpuos.yield %r : !gpuos.tensor<2x2048xf32>
}

// A residual broadcast along the rows ([1, N]) is read at row 0 whatever
// the row: the look-ahead's load of it is the one the second norm uses (a
// constant index is one memo entry however often it is built), so no global
// load follows the first barrier.
// CHECK-LABEL: llvm.func @gpuos_task_norm_bcast
// CHECK:         %[[A:.+]] = llvm.inttoptr
// CHECK:         %[[C:.+]] = llvm.inttoptr
// CHECK:         scf.if
// CHECK:           llvm.getelementptr %[[C]][
// CHECK-NEXT:      llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:       nvvm.barrier0
// CHECK:           llvm.getelementptr %[[C]][
// CHECK-NEXT:      llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:       nvvm.barrier0
// CHECK:           llvm.getelementptr %[[A]][
// CHECK-NEXT:      llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:       nvvm.barrier0
// CHECK:           llvm.getelementptr %[[A]][
// CHECK-NEXT:      llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:       nvvm.barrier0
// CHECK-NOT:       llvm.load {{.*}}!llvm.ptr<1>
// CHECK:           nvvm.barrier0
// CHECK-NOT:       llvm.load {{.*}}!llvm.ptr<1>
// CHECK:           nvvm.barrier0
// CHECK-NOT:       llvm.load {{.*}}!llvm.ptr<1>
// CHECK:           llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-LABEL: llvm.func @gpuos_launch_norm_bcast
gpuos.graph @bcast(%x : !gpuos.tensor<2x2048xf32>, %res : !gpuos.tensor<1x2048xf32>) -> (y : !gpuos.tensor<2x2048xf32>) {
  %r = gpuos.task "norm_bcast" ins(%a = %x : !gpuos.tensor<2x2048xf32>, %c = %res : !gpuos.tensor<1x2048xf32>) tile [1, 2048] -> (!gpuos.tensor<2x2048xf32>) {
    %0 = gpuos.rms_norm %a eps 1.0e-6 : !gpuos.tensor<2x2048xf32>
    %1 = gpuos.add %0, %c : !gpuos.tensor<2x2048xf32>, !gpuos.tensor<1x2048xf32>
    %2 = gpuos.rms_norm %1 eps 1.0e-6 : !gpuos.tensor<2x2048xf32>
    gpuos.yield %2 : !gpuos.tensor<2x2048xf32>
  }
  gpuos.yield %r : !gpuos.tensor<2x2048xf32>
}

// Rows of at most 512 elements are shared by a warp: warp w takes rows w,
// w + numWarps, ... of the tile (here 4 rows of 100), its lanes' chunks are
// straight-line code at any block size, and the shuffles alone combine them:
// no shared memory, no barrier. A reduced result is stored by lane 0 of the
// row's warp; an i64 partial crosses the shuffles as two 32-bit halves.
// CHECK-LABEL: llvm.func @gpuos_task_sum_rows
// CHECK-NOT:     nvvm.barrier0
// CHECK:         %[[LANE:.+]] = arith.andi %{{.+}}, %c31_i32 : i32
// CHECK:         %[[WARP:.+]] = arith.shrui %{{.+}}, %c5_i32 : i32
// CHECK:         %[[WARPS:.+]] = arith.shrui %{{.+}}, %c5_i32 : i32
// CHECK:         scf.for %{{.+}} = %[[WARP]] to %c4_i32 step %[[WARPS]] : i32 {
// CHECK:           %[[LO:.+]] = arith.trunci %{{.+}} : i64 to i32
// CHECK:           nvvm.shfl.sync bfly %c-1_i32, %[[LO]], %c16_i32, %c31_i32 : i32 -> i32
// CHECK-NOT:       nvvm.barrier0
// CHECK:           %[[FIRST:.+]] = arith.cmpi eq, %[[LANE]], %c0_i32 : i32
// CHECK:           scf.if %[[FIRST]] {
// CHECK:             llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
// CHECK-NOT:     nvvm.barrier0
// CHECK-LABEL: llvm.func @gpuos_launch_sum_rows
gpuos.graph @sum(%x : !gpuos.tensor<4x100xi64>) -> (s : !gpuos.tensor<4xi64>) {
  %r = gpuos.task "sum_rows" ins(%a = %x : !gpuos.tensor<4x100xi64>) tile [4] -> (!gpuos.tensor<4xi64>) {
    %0 = gpuos.reduce sum %a axes [1] : !gpuos.tensor<4x100xi64>
    gpuos.yield %0 : !gpuos.tensor<4xi64>
  }
  gpuos.yield %r : !gpuos.tensor<4xi64>
}

// Over the leading axis each thread loops over the 24 rows itself, eight
// rows per iteration (the eight loads are issued before the first add).
// CHECK-LABEL: llvm.func @gpuos_task_sum_columns
// CHECK-NOT:     nvvm.barrier0
// CHECK:         scf.for %{{.+}} = %c0_i32 to %c24_i32 step %c8_i32 iter_args
// CHECK-COUNT-8:   llvm.load %{{.+}} invariant
// CHECK:           scf.yield
// CHECK-NOT:     nvvm.barrier0
// CHECK-LABEL: llvm.func @gpuos_launch_sum_columns
gpuos.graph @columns(%x : !gpuos.tensor<24x64xf32>) -> (s : !gpuos.tensor<64xf32>) {
  %r = gpuos.task "sum_columns" ins(%a = %x : !gpuos.tensor<24x64xf32>) tile [64] -> (!gpuos.tensor<64xf32>) {
    %0 = gpuos.reduce sum %a axes [0] : !gpuos.tensor<24x64xf32>
    gpuos.yield %0 : !gpuos.tensor<64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<64xf32>
}

// Narrow rows (40 f32: ten chunks of 4) take 16 lanes each, so a warp works
// on two rows at once: lanes 0-15 on one, 16-31 on the next. The butterfly
// stops at offset 8 (within the 16 lanes); warp w's rows are 2w + slot,
// then 2 * numWarps further. Tiles of 7 rows leave the last slot without a
// row, and 1000 rows leave the last tile short: such a lane reads a clamped
// row and stores nothing (its warp's shuffles need it).
// CHECK-LABEL: llvm.func @gpuos_task_narrow_rows
// CHECK:         %[[LANE:.+]] = arith.andi %{{.+}}, %c31_i32 : i32
// CHECK:         %[[SLOT:.+]] = arith.shrui %[[LANE]], %c4_i32 : i32
// CHECK:         scf.for %[[R:.+]] = %{{.+}} to %c7_i32 step %{{.+}} : i32 {
// CHECK:           %[[LOCAL:.+]] = arith.addi %[[R]], %[[SLOT]] : i32
// CHECK:           %[[HAS:.+]] = arith.cmpi ult, %[[LOCAL]], %c7_i32 : i32
// CHECK:           arith.minui %[[LOCAL]], %c6_i32 : i32
// CHECK:           %[[INSIDE:.+]] = arith.cmpi ult, %{{.+}}, %c1000_i32 : i32
// CHECK:           %[[MASK:.+]] = arith.andi %[[HAS]], %[[INSIDE]] : i1
// CHECK:           arith.minui %{{.+}}, %c999_i32 : i32
// CHECK-NOT:       %c16_i32, %c31_i32
// CHECK:           nvvm.shfl.sync bfly %c-1_i32, %{{.+}}, %c8_i32, %c31_i32 : f32 -> f32
// CHECK:           arith.andi %{{.+}}, %[[MASK]] : i1
// CHECK:           scf.if
// CHECK:             llvm.store %{{.+}} : vector<4xf32>, !llvm.ptr<1>
// CHECK:           arith.andi %{{.+}}, %[[MASK]] : i1
// CHECK:           scf.if
// CHECK:             llvm.store %{{.+}} : f32, !llvm.ptr<1>
// CHECK-LABEL: llvm.func @gpuos_launch_narrow_rows
gpuos.graph @narrow_rows(%x : !gpuos.tensor<1000x40xf32>)
    -> (s : !gpuos.tensor<1000xf32>, p : !gpuos.tensor<1000x40xf32>) {
  %r:2 = gpuos.task "narrow_rows" ins(%a = %x : !gpuos.tensor<1000x40xf32>) tile [7]
      -> (!gpuos.tensor<1000xf32>, !gpuos.tensor<1000x40xf32>) {
    %0 = gpuos.reduce sum %a axes [1] : !gpuos.tensor<1000x40xf32>
    %1 = gpuos.softmax %a axis 1 : !gpuos.tensor<1000x40xf32>
    gpuos.yield %0, %1 : !gpuos.tensor<1000xf32>, !gpuos.tensor<1000x40xf32>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<1000xf32>, !gpuos.tensor<1000x40xf32>
}

// Sibling reduces on the loop path: a row's sum, max and mean read the same
// operand and wait for no statistics, so one pass folds all three (one load
// a chunk, three accumulators); each then folds over the block in turn.
// CHECK-LABEL: llvm.func @gpuos_task_sibling_rows
// CHECK:           %[[ACC:.+]]:3 = scf.for %{{.+}} = %{{.+}} to %c16384_i32 step %{{.+}} iter_args({{.+}}) -> (f32, f32, f32) : i32 {
// CHECK:             llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:         llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:             arith.addf
// CHECK:             arith.maximumf
// CHECK:             arith.addf
// CHECK:             llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:           nvvm.shfl.sync bfly %c-1_i32, %[[ACC]]#0, %c16_i32, %c31_i32 : f32 -> f32
// CHECK:           nvvm.barrier0
// CHECK:           nvvm.shfl.sync bfly %c-1_i32, %[[ACC]]#1, %c16_i32, %c31_i32 : f32 -> f32
// CHECK:           nvvm.barrier0
// CHECK:           nvvm.shfl.sync bfly %c-1_i32, %[[ACC]]#2, %c16_i32, %c31_i32 : f32 -> f32
// CHECK:           nvvm.barrier0
// CHECK:           arith.divf %{{.+}}, %cst{{.*}} : f32
// CHECK-NOT:       scf.for %{{.+}} to %c16384_i32
// CHECK:       } else {
// CHECK-LABEL: llvm.func @gpuos_launch_sibling_rows
gpuos.graph @sibling_rows(%x : !gpuos.tensor<16x16384xf32>)
    -> (s : !gpuos.tensor<16xf32>, m : !gpuos.tensor<16xf32>, n : !gpuos.tensor<16xf32>) {
  %r:3 = gpuos.task "sibling_rows" ins(%a = %x : !gpuos.tensor<16x16384xf32>) tile [1]
      -> (!gpuos.tensor<16xf32>, !gpuos.tensor<16xf32>, !gpuos.tensor<16xf32>) {
    %0 = gpuos.reduce sum %a axes [1] : !gpuos.tensor<16x16384xf32>
    %1 = gpuos.reduce max %a axes [1] : !gpuos.tensor<16x16384xf32>
    %2 = gpuos.reduce mean %a axes [1] : !gpuos.tensor<16x16384xf32>
    gpuos.yield %0, %1, %2 : !gpuos.tensor<16xf32>, !gpuos.tensor<16xf32>, !gpuos.tensor<16xf32>
  }
  gpuos.yield %r#0, %r#1, %r#2 : !gpuos.tensor<16xf32>, !gpuos.tensor<16xf32>, !gpuos.tensor<16xf32>
}

// Long rows, a row per warp or more in the tile: warps still take rows of
// their own, each lane looping over the row strided by 32 lanes of 4, eight
// chunks an iteration (their loads in flight together; all but the first
// masked past the row's end: clamped to its last chunk, 2044).
// CHECK-LABEL: llvm.func @gpuos_task_sum_long_rows
// CHECK-NOT:     nvvm.barrier0
// CHECK:         scf.for %{{.+}} = %{{.+}} to %c16_i32 step %{{.+}} : i32 {
// CHECK:           scf.for %{{.+}} = %{{.+}} to %c2048_i32 step %c1024_i32 iter_args
// CHECK:             llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:             arith.cmpi ule, %{{.+}}, %c2044_i32
// CHECK:             arith.minui %{{.+}}, %c2044_i32
// CHECK:             llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:           nvvm.shfl.sync bfly
// CHECK-NOT:     nvvm.barrier0
// CHECK-LABEL: llvm.func @gpuos_launch_sum_long_rows
gpuos.graph @long_rows(%x : !gpuos.tensor<64x2048xf32>) -> (s : !gpuos.tensor<64xf32>) {
  %r = gpuos.task "sum_long_rows" ins(%a = %x : !gpuos.tensor<64x2048xf32>) tile [16] -> (!gpuos.tensor<64xf32>) {
    %0 = gpuos.reduce sum %a axes [1] : !gpuos.tensor<64x2048xf32>
    gpuos.yield %0 : !gpuos.tensor<64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<64xf32>
}
