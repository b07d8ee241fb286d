// Small-M matmul tiles (M whole, at most 16 rows, batch dims tiled by 1,
// power-of-two column blocks) split K across the block: f32 partials in
// registers, warp shuffles, shared memory, one barrier, then the element
// loop reads the matmul's value from shared memory and applies the fused
// epilogue (docs/codegen.md, "Small-M matmul").
// RUN: gpuos-opt %s --gpuos-lower-tasks-to-nvvm=convert-to-llvm=false | FileCheck %s

// CHECK: llvm.mlir.global external @__gpuos_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>

// rhs [K, N]: 4 column groups of 8 f16 (16-byte loads), K sliced by
// thread / 4, four copies of the K loop body per iteration.
// CHECK-LABEL: llvm.func @gpuos_task_matvec_nlanes
// CHECK:         %[[SMEM:.+]] = llvm.mlir.addressof @__gpuos_shared : !llvm.ptr<3>
// CHECK:         scf.if
// CHECK:           %[[SLICE:.+]] = arith.divui %{{.+}}, %c4_i32 : i32
// CHECK:           scf.for %{{.+}} = %[[SLICE]] to %{{.+}} step %{{.+}} iter_args({{.*}}) -> (i32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-COUNT-4:     llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
// CHECK:             llvm.intr.fma
// The remainder of the K loop, one copy.
// CHECK:           scf.for
// CHECK:             llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
// Lanes of a warp holding the same columns: xor 4, 8, 16.
// CHECK:           nvvm.shfl.sync  bfly %c-1_i32, %{{.+}}, %c4_i32, %c31_i32 : f32 -> f32
// CHECK:           nvvm.shfl.sync  bfly %c-1_i32, %{{.+}}, %c8_i32, %c31_i32 : f32 -> f32
// CHECK:           nvvm.shfl.sync  bfly %c-1_i32, %{{.+}}, %c16_i32, %c31_i32 : f32 -> f32
// CHECK:           scf.if
// CHECK:             llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// Rounds for blocks of more than 8 warps.
// CHECK:           scf.for
// CHECK:             nvvm.barrier0
// CHECK:           nvvm.barrier0
// The element loop, one element a thread (the tile's 32 outputs would be
// 4 threads of 8 lanes): warp partials summed in slot order, then the bias.
// CHECK:           scf.for
// CHECK:             scf.for {{.*}} -> (f32)
// CHECK:               llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK:             arith.addf
// CHECK:             llvm.store %{{.+}}, %{{.+}} {alignment = 2 : i64} : f16, !llvm.ptr<1>
// The misaligned fallback repeats both phases with scalar accesses.
// CHECK:         } else {
// CHECK:           nvvm.shfl.sync
// CHECK:           llvm.load %{{.+}} invariant {alignment = 2 : i64} : !llvm.ptr<1> -> f16
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.return
// CHECK-LABEL: llvm.func @gpuos_launch_matvec_nlanes
gpuos.graph @nlanes(%x : !gpuos.tensor<1x256xf16>, %w : !gpuos.tensor<256x512xf16>, %b : !gpuos.tensor<512xf16>)
    -> (y : !gpuos.tensor<1x512xf16>) {
  %r = gpuos.task "matvec_nlanes" ins(%a = %x : !gpuos.tensor<1x256xf16>, %c = %w : !gpuos.tensor<256x512xf16>,
                                      %d = %b : !gpuos.tensor<512xf16>)
      tile [1, 32] -> (!gpuos.tensor<1x512xf16>) {
    %0 = gpuos.matmul %a, %c : !gpuos.tensor<1x256xf16>, !gpuos.tensor<256x512xf16>
    %1 = gpuos.add %0, %d : !gpuos.tensor<1x512xf16>, !gpuos.tensor<512xf16>
    gpuos.yield %1 : !gpuos.tensor<1x512xf16>
  }
  gpuos.yield %r : !gpuos.tensor<1x512xf16>
}

// transpose_rhs, rhs [N, K]: 16 lanes share a column and read 4 f32 of K
// each, from both operands; shuffles xor 8..1 reduce it, its first lane
// writes shared memory; column passes over the tile.
// CHECK-LABEL: llvm.func @gpuos_task_matvec_klanes
// CHECK:         scf.for
// CHECK:           scf.if %{{.+}} -> (f32, f32)
// CHECK:             scf.for {{.*}} -> (i32, f32, f32)
// CHECK:               llvm.load %{{.+}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:               llvm.intr.fma
// CHECK:           nvvm.shfl.sync  bfly %c-1_i32, %{{.+}}, %c8_i32, %c31_i32 : f32 -> f32
// CHECK:           nvvm.shfl.sync  bfly %c-1_i32, %{{.+}}, %c1_i32, %c31_i32 : f32 -> f32
// CHECK:           scf.if
// CHECK:             llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         scf.for
// CHECK:           llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-LABEL: llvm.func @gpuos_launch_matvec_klanes
gpuos.graph @klanes(%q : !gpuos.tensor<4x2x64xf32>, %k : !gpuos.tensor<4x40x64xf32>)
    -> (s : !gpuos.tensor<4x2x40xf32>) {
  %r = gpuos.task "matvec_klanes" ins(%a = %q : !gpuos.tensor<4x2x64xf32>, %c = %k : !gpuos.tensor<4x40x64xf32>)
      tile [1, 2, 32] -> (!gpuos.tensor<4x2x40xf32>) {
    %0 = gpuos.matmul %a, %c transpose_rhs : !gpuos.tensor<4x2x64xf32>, !gpuos.tensor<4x40x64xf32>
    gpuos.yield %0 : !gpuos.tensor<4x2x40xf32>
  }
  gpuos.yield %r : !gpuos.tensor<4x2x40xf32>
}

// Larger M: the tiled strategy (TiledMatmulEmitter.h). The products are
// zeroed, then per K chunk (here one: all 64 positions fit) the lhs and
// the rhs are staged, eight loads in flight before their stores, a
// barrier, the fold from shared memory into the products, a barrier; the
// element loop reads the products. No shuffles. The fold: 256 units of one
// column and 8 rows (2048 products at 256 threads); per four K positions
// four rhs loads and one 16-byte lhs load a row feed 8 x 4 FMAs.
// CHECK-LABEL: llvm.func @gpuos_task_matmul_large_m
// CHECK-NOT:     nvvm.shfl.sync
// CHECK:         scf.for
// CHECK:           llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK:         scf.for %{{.+}} to %c2048
// CHECK-COUNT-8:     llvm.load %{{.+}} : !llvm.ptr<1> -> f32
// CHECK-COUNT-8:     llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK:         scf.for %{{.+}} to %c4096
// CHECK:         nvvm.barrier0
// CHECK:         scf.for %{{.+}} to %c256_i32
// CHECK:           scf.for %{{.+}} = %c0_i32 to %c64_i32 step %c4_i32 iter_args({{.+}}) -> (f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-COUNT-4:     llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK:             llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-COUNT-4:     llvm.intr.fma
// CHECK:         nvvm.barrier0
// CHECK:         llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NOT:     nvvm.shfl.sync
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.return
gpuos.graph @large_m(%x : !gpuos.tensor<32x64xf32>, %w : !gpuos.tensor<64x64xf32>)
    -> (y : !gpuos.tensor<32x64xf32>) {
  %r = gpuos.task "matmul_large_m" ins(%a = %x : !gpuos.tensor<32x64xf32>, %c = %w : !gpuos.tensor<64x64xf32>)
      tile [32, 64] -> (!gpuos.tensor<32x64xf32>) {
    %0 = gpuos.matmul %a, %c : !gpuos.tensor<32x64xf32>, !gpuos.tensor<64x64xf32>
    gpuos.yield %0 : !gpuos.tensor<32x64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<32x64xf32>
}

// A prologue (gpuos-fuse-matmul-prologues): the lhs silu(a) * b is
// evaluated once per tile into shared memory after the 512 bytes of
// partials ([M][K] f32), a barrier, then the K loop reads it from there
// instead of evaluating it per K position.
// CHECK-LABEL: llvm.func @gpuos_task_matvec_prologue
// CHECK:         scf.if
// CHECK:           scf.for %[[E:.+]] = %{{.+}} to %c256_i32 step %{{.+}} : i32 {
// CHECK:             llvm.call @__nv_expf
// CHECK:             %[[V:.+]] = arith.mulf
// CHECK:             %[[B:.+]] = arith.muli %[[E]], %c4_i32 : i32
// CHECK:             %[[O:.+]] = arith.addi %[[B]], %c512_i32 : i32
// CHECK:             %[[P:.+]] = llvm.getelementptr %{{.+}}[%[[O]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK:             llvm.store %[[V]], %[[P]] {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK:           }
// CHECK-NEXT:      nvvm.barrier0
// CHECK:           scf.for
// CHECK-NOT:         llvm.call @__nv_expf
// CHECK:             llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK:             llvm.intr.fma
gpuos.graph @prologue(%g : !gpuos.tensor<1x256xf32>, %u : !gpuos.tensor<1x256xf32>, %w : !gpuos.tensor<256x64xf32>)
    -> (y : !gpuos.tensor<1x64xf32>) {
  %r = gpuos.task "matvec_prologue" ins(%a = %g : !gpuos.tensor<1x256xf32>, %b = %u : !gpuos.tensor<1x256xf32>,
                                        %c = %w : !gpuos.tensor<256x64xf32>)
      tile [1, 16] -> (!gpuos.tensor<1x64xf32>) {
    %0 = gpuos.silu %a : !gpuos.tensor<1x256xf32>
    %1 = gpuos.mul %0, %b : !gpuos.tensor<1x256xf32>, !gpuos.tensor<1x256xf32>
    %2 = gpuos.matmul %1, %c : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x64xf32>
    gpuos.yield %2 : !gpuos.tensor<1x64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<1x64xf32>
}

// A prologue whose lhs does not fit shared memory beside the partials
// (1 x 9000 f32): evaluated in the K loop, no staging loop or barrier
// before it.
// CHECK-LABEL: llvm.func @gpuos_task_matvec_prologue_big
// CHECK:         scf.if
// CHECK-NOT:       !llvm.ptr<3>
// CHECK:           scf.for {{.+}} iter_args
// CHECK:             arith.negf
// CHECK:             llvm.intr.fma
gpuos.graph @prologue_big(%x : !gpuos.tensor<1x9000xf32>, %w : !gpuos.tensor<9000x64xf32>)
    -> (y : !gpuos.tensor<1x64xf32>) {
  %r = gpuos.task "matvec_prologue_big" ins(%a = %x : !gpuos.tensor<1x9000xf32>, %c = %w : !gpuos.tensor<9000x64xf32>)
      tile [1, 16] -> (!gpuos.tensor<1x64xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<1x9000xf32>
    %1 = gpuos.matmul %0, %c : !gpuos.tensor<1x9000xf32>, !gpuos.tensor<9000x64xf32>
    gpuos.yield %1 : !gpuos.tensor<1x64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<1x64xf32>
}

// Micro-batches through one weight: the four matmuls share one K loop (a
// jam: 4 x 2 rows x 4 lanes = 32 accumulators), and their lhs rows (32
// bytes a K row) are no less than the weight's (32 bytes), so the tile's
// slices of both are staged in shared memory by cp.async, here in one
// chunk (256 K rows of 64 bytes). The jam loads the weight once per K
// position for all four. The epilogue spreads the four results over four
// groups of threads.
// CHECK-LABEL: llvm.func @gpuos_task_matvec_jam
// CHECK:         scf.for
// CHECK:           nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 16, cache =  cg
// CHECK-COUNT-4:   nvvm.cp.async.shared.global
// CHECK:         nvvm.cp.async.commit.group
// CHECK-NEXT:    nvvm.cp.async.wait.group 0
// CHECK-NEXT:    nvvm.barrier0
// CHECK:         scf.for {{.*}} -> (i32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// Two copies of the body: two weight loads, not one per member.
// CHECK-NOT:       !llvm.ptr<1>
// CHECK-COUNT-2:   llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT:       -> vector<4xf32>
// CHECK-NOT:       !llvm.ptr<1>
// CHECK:           llvm.intr.fma
// CHECK:         nvvm.barrier0
// The 16 lanes that share columns sum the jam's 32 accumulators by a
// reduce-scatter: 16 + 8 + 4 + 2 shuffles, each lane storing 2 sums.
// CHECK-COUNT-16: nvvm.shfl.sync  bfly %c-1_i32, %{{.+}}, %c2_i32, %c31_i32
// CHECK-COUNT-8:  nvvm.shfl.sync  bfly %c-1_i32, %{{.+}}, %c4_i32, %c31_i32
// CHECK-COUNT-4:  nvvm.shfl.sync  bfly %c-1_i32, %{{.+}}, %c8_i32, %c31_i32
// CHECK-COUNT-2:  nvvm.shfl.sync  bfly %c-1_i32, %{{.+}}, %c16_i32, %c31_i32
// CHECK-NOT:      nvvm.shfl.sync
// CHECK:         nvvm.barrier0
// CHECK:         scf.index_switch
// CHECK:         case 3 {
// CHECK-LABEL: llvm.func @gpuos_launch_matvec_jam
gpuos.graph @jam(%x : !gpuos.tensor<8x256xf32>, %w : !gpuos.tensor<256x64xf32>)
    -> (y0 : !gpuos.tensor<2x64xf32>, y1 : !gpuos.tensor<2x64xf32>, y2 : !gpuos.tensor<2x64xf32>, y3 : !gpuos.tensor<2x64xf32>) {
  %r:4 = gpuos.task "matvec_jam" ins(%a = %x : !gpuos.tensor<8x256xf32>, %c = %w : !gpuos.tensor<256x64xf32>)
      tile [2, 8] -> (!gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>) {
    %s0 = gpuos.slice %a starts [0, 0] sizes [2, 256] steps [1, 1] : !gpuos.tensor<8x256xf32>
    %s1 = gpuos.slice %a starts [2, 0] sizes [2, 256] steps [1, 1] : !gpuos.tensor<8x256xf32>
    %s2 = gpuos.slice %a starts [4, 0] sizes [2, 256] steps [1, 1] : !gpuos.tensor<8x256xf32>
    %s3 = gpuos.slice %a starts [6, 0] sizes [2, 256] steps [1, 1] : !gpuos.tensor<8x256xf32>
    %0 = gpuos.matmul %s0, %c : !gpuos.tensor<2x256xf32>, !gpuos.tensor<256x64xf32>
    %1 = gpuos.matmul %s1, %c : !gpuos.tensor<2x256xf32>, !gpuos.tensor<256x64xf32>
    %2 = gpuos.matmul %s2, %c : !gpuos.tensor<2x256xf32>, !gpuos.tensor<256x64xf32>
    %3 = gpuos.matmul %s3, %c : !gpuos.tensor<2x256xf32>, !gpuos.tensor<256x64xf32>
    gpuos.yield %0, %1, %2, %3 : !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>
  }
  gpuos.yield %r#0, %r#1, %r#2, %r#3 : !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>
}

// The same with K = 2048: 128 KB of chunk rows, so chunks of 256 rows in
// two buffers. Chunk c + 1 is copied (when there is one) while the block
// computes on chunk c, whose group is then all but the newest.
// CHECK-LABEL: llvm.func @gpuos_task_matvec_chunks
// CHECK:         nvvm.cp.async.commit.group
// CHECK:         scf.for %{{.+}} = %c0_i32 to %c8_i32 step %c1_i32 iter_args
// CHECK:           %[[NEXT:.+]] = arith.addi %{{.+}}, %c1_i32 : i32
// CHECK:           %[[MORE:.+]] = arith.cmpi ult, %[[NEXT]], %c8_i32 : i32
// CHECK:           scf.if %[[MORE]] {
// CHECK:             nvvm.cp.async.shared.global
// CHECK:           nvvm.cp.async.commit.group
// CHECK-NEXT:      nvvm.cp.async.wait.group 1
// CHECK-NEXT:      nvvm.barrier0
// CHECK:           nvvm.barrier0
// CHECK-NEXT:      scf.yield
// CHECK-LABEL: llvm.func @gpuos_launch_matvec_chunks
gpuos.graph @chunks(%x : !gpuos.tensor<8x2048xf32>, %w : !gpuos.tensor<2048x64xf32>)
    -> (y0 : !gpuos.tensor<2x64xf32>, y1 : !gpuos.tensor<2x64xf32>, y2 : !gpuos.tensor<2x64xf32>, y3 : !gpuos.tensor<2x64xf32>) {
  %r:4 = gpuos.task "matvec_chunks" ins(%a = %x : !gpuos.tensor<8x2048xf32>, %c = %w : !gpuos.tensor<2048x64xf32>)
      tile [2, 8] -> (!gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>) {
    %s0 = gpuos.slice %a starts [0, 0] sizes [2, 2048] steps [1, 1] : !gpuos.tensor<8x2048xf32>
    %s1 = gpuos.slice %a starts [2, 0] sizes [2, 2048] steps [1, 1] : !gpuos.tensor<8x2048xf32>
    %s2 = gpuos.slice %a starts [4, 0] sizes [2, 2048] steps [1, 1] : !gpuos.tensor<8x2048xf32>
    %s3 = gpuos.slice %a starts [6, 0] sizes [2, 2048] steps [1, 1] : !gpuos.tensor<8x2048xf32>
    %0 = gpuos.matmul %s0, %c : !gpuos.tensor<2x2048xf32>, !gpuos.tensor<2048x64xf32>
    %1 = gpuos.matmul %s1, %c : !gpuos.tensor<2x2048xf32>, !gpuos.tensor<2048x64xf32>
    %2 = gpuos.matmul %s2, %c : !gpuos.tensor<2x2048xf32>, !gpuos.tensor<2048x64xf32>
    %3 = gpuos.matmul %s3, %c : !gpuos.tensor<2x2048xf32>, !gpuos.tensor<2048x64xf32>
    gpuos.yield %0, %1, %2, %3 : !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>
  }
  gpuos.yield %r#0, %r#1, %r#2, %r#3 : !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>, !gpuos.tensor<2x64xf32>
}
