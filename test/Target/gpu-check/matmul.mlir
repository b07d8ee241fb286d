// Matmul. Tiles of at most 16 rows with M whole, batch dims tiled by 1 and
// power-of-two column blocks split K across the block ("matvec" strategy,
// docs/codegen.md "Small-M matmul"); other f32-compute tiles stage K
// chunks in shared memory ("tiled", more cases in tiled_matmul.mlir). Both
// fuse producers and consumers.
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s
// CHECK-DAG: .visible .func gpuos_task_mm_plain(
// CHECK-DAG: .visible .func gpuos_task_mm_gemv_t(
// CHECK-DAG: .visible .func gpuos_task_mm_batched(
// CHECK-DAG: .visible .func gpuos_task_mm_concat(
// CHECK-DAG: .visible .func gpuos_task_mm_scores(
// CHECK-DAG: .visible .func gpuos_task_mv_f16(
// CHECK-DAG: .visible .func gpuos_task_mv_edge(
// CHECK-DAG: .visible .func gpuos_task_mv_m3(
// CHECK-DAG: .visible .func gpuos_task_mv_m16(
// CHECK-DAG: .visible .func gpuos_task_mv_attn(
// CHECK-DAG: .visible .func gpuos_task_mv_attn_t(
// CHECK-DAG: .visible .func gpuos_task_mv_bcast(
// CHECK-DAG: .visible .func gpuos_task_mv_shared(
// CHECK-DAG: .visible .func gpuos_task_mv_kt_f16(
// CHECK-DAG: .visible .func gpuos_task_mv_tlhs(
// CHECK-DAG: .visible .func gpuos_task_mv_narrow(
// CHECK-DAG: .visible .func gpuos_task_mv_shared8(
// CHECK-DAG: .visible .func gpuos_task_mv_jam_chunks(
// CHECK-DAG: .visible .func gpuos_task_mv_jam_three_chunks(
// CHECK-DAG: .visible .func gpuos_task_mv_jam8(

gpuos.graph @plain(%x : !gpuos.tensor<8x64xf32>, %w : !gpuos.tensor<64x48xf32>, %b : !gpuos.tensor<48xf32>)
    -> (y : !gpuos.tensor<8x48xf32>) {
  %r = gpuos.task "mm_plain" ins(%a = %x : !gpuos.tensor<8x64xf32>, %c = %w : !gpuos.tensor<64x48xf32>,
                                 %d = %b : !gpuos.tensor<48xf32>)
      tile [2, 48] -> (!gpuos.tensor<8x48xf32>) {
    %0 = gpuos.matmul %a, %c : !gpuos.tensor<8x64xf32>, !gpuos.tensor<64x48xf32>
    %1 = gpuos.add %0, %d : !gpuos.tensor<8x48xf32>, !gpuos.tensor<48xf32>
    %2 = gpuos.silu %1 : !gpuos.tensor<8x48xf32>
    gpuos.yield %2 : !gpuos.tensor<8x48xf32>
  }
  gpuos.yield %r : !gpuos.tensor<8x48xf32>
}

// decode-style GEMV against a [N, K] weight (transpose_rhs) and a
// transposed lhs.
gpuos.graph @gemv_t(%x : !gpuos.tensor<256x1xf32>, %w : !gpuos.tensor<512x256xf32>)
    -> (y : !gpuos.tensor<1x512xf32>) {
  %r = gpuos.task "mm_gemv_t" ins(%a = %x : !gpuos.tensor<256x1xf32>, %c = %w : !gpuos.tensor<512x256xf32>)
      tile [1, 128] -> (!gpuos.tensor<1x512xf32>) {
    %0 = gpuos.matmul %a, %c transpose_lhs transpose_rhs : !gpuos.tensor<256x1xf32>, !gpuos.tensor<512x256xf32>
    gpuos.yield %0 : !gpuos.tensor<1x512xf32>
  }
  gpuos.yield %r : !gpuos.tensor<1x512xf32>
}

// Batched, with the rhs batch broadcast.
gpuos.graph @batched(%x : !gpuos.tensor<4x8x16xf32>, %w : !gpuos.tensor<1x16x12xf32>)
    -> (y : !gpuos.tensor<4x8x12xf32>) {
  %r = gpuos.task "mm_batched" ins(%a = %x : !gpuos.tensor<4x8x16xf32>, %c = %w : !gpuos.tensor<1x16x12xf32>)
      tile [1, 8, 12] -> (!gpuos.tensor<4x8x12xf32>) {
    %0 = gpuos.matmul %a, %c : !gpuos.tensor<4x8x16xf32>, !gpuos.tensor<1x16x12xf32>
    gpuos.yield %0 : !gpuos.tensor<4x8x12xf32>
  }
  gpuos.yield %r : !gpuos.tensor<4x8x12xf32>
}

// decode_step's KV-cache append (concat), then attention scores reading
// the appended keys: two tasks, the second depends on the first.
gpuos.graph @concat(%q : !gpuos.tensor<4x1x64xf32>, %cache : !gpuos.tensor<4x32x64xf32>, %k : !gpuos.tensor<4x1x64xf32>)
    -> (keys : !gpuos.tensor<4x33x64xf32>, s : !gpuos.tensor<4x1x33xf32>) {
  %keys = gpuos.task "mm_concat" ins(%c = %cache : !gpuos.tensor<4x32x64xf32>, %d = %k : !gpuos.tensor<4x1x64xf32>)
      tile [1, 33, 64] -> (!gpuos.tensor<4x33x64xf32>) {
    %0 = gpuos.concat %c, %d axis 1 : !gpuos.tensor<4x32x64xf32>, !gpuos.tensor<4x1x64xf32>
    gpuos.yield %0 : !gpuos.tensor<4x33x64xf32>
  }
  %s = gpuos.task "mm_scores" ins(%a = %q : !gpuos.tensor<4x1x64xf32>, %b = %keys : !gpuos.tensor<4x33x64xf32>)
      tile [1, 1, 33] -> (!gpuos.tensor<4x1x33xf32>) {
    %0 = gpuos.matmul %a, %b transpose_rhs : !gpuos.tensor<4x1x64xf32>, !gpuos.tensor<4x33x64xf32>
    gpuos.yield %0 : !gpuos.tensor<4x1x33xf32>
  }
  gpuos.yield %keys, %s : !gpuos.tensor<4x33x64xf32>, !gpuos.tensor<4x1x33xf32>
}

// Split-K small-M matmuls (the "matvec" strategy).
// A decode matvec, f16, fused bias and silu.
gpuos.graph @mv_f16(%x : !gpuos.tensor<1x256xf16>, %w : !gpuos.tensor<256x320xf16>, %b : !gpuos.tensor<320xf16>)
    -> (y : !gpuos.tensor<1x320xf16>) {
  %r = gpuos.task "mv_f16" ins(%a = %x : !gpuos.tensor<1x256xf16>, %c = %w : !gpuos.tensor<256x320xf16>,
                               %d = %b : !gpuos.tensor<320xf16>)
      tile [1, 32] -> (!gpuos.tensor<1x320xf16>) {
    %0 = gpuos.matmul %a, %c : !gpuos.tensor<1x256xf16>, !gpuos.tensor<256x320xf16>
    %1 = gpuos.add %0, %d : !gpuos.tensor<1x320xf16>, !gpuos.tensor<320xf16>
    %2 = gpuos.silu %1 : !gpuos.tensor<1x320xf16>
    gpuos.yield %2 : !gpuos.tensor<1x320xf16>
  }
  gpuos.yield %r : !gpuos.tensor<1x320xf16>
}

// An edge tile (200 = 6 * 32 + 8), K not a multiple of the block's slices.
gpuos.graph @mv_edge(%x : !gpuos.tensor<1x77xf32>, %w : !gpuos.tensor<77x200xf32>)
    -> (y : !gpuos.tensor<1x200xf32>) {
  %r = gpuos.task "mv_edge" ins(%a = %x : !gpuos.tensor<1x77xf32>, %c = %w : !gpuos.tensor<77x200xf32>)
      tile [1, 32] -> (!gpuos.tensor<1x200xf32>) {
    %0 = gpuos.matmul %a, %c : !gpuos.tensor<1x77xf32>, !gpuos.tensor<77x200xf32>
    gpuos.yield %0 : !gpuos.tensor<1x200xf32>
  }
  gpuos.yield %r : !gpuos.tensor<1x200xf32>
}

// M = 3 with an edge tile and a residual.
gpuos.graph @mv_m3(%x : !gpuos.tensor<3x100xf32>, %w : !gpuos.tensor<100x72xf32>, %res : !gpuos.tensor<3x72xf32>)
    -> (y : !gpuos.tensor<3x72xf32>) {
  %r = gpuos.task "mv_m3" ins(%a = %x : !gpuos.tensor<3x100xf32>, %c = %w : !gpuos.tensor<100x72xf32>,
                              %e = %res : !gpuos.tensor<3x72xf32>)
      tile [3, 32] -> (!gpuos.tensor<3x72xf32>) {
    %0 = gpuos.matmul %a, %c : !gpuos.tensor<3x100xf32>, !gpuos.tensor<100x72xf32>
    %1 = gpuos.add %0, %e : !gpuos.tensor<3x72xf32>, !gpuos.tensor<3x72xf32>
    gpuos.yield %1 : !gpuos.tensor<3x72xf32>
  }
  gpuos.yield %r : !gpuos.tensor<3x72xf32>
}

// M = 16, bf16.
gpuos.graph @mv_m16(%x : !gpuos.tensor<16x64xbf16>, %w : !gpuos.tensor<64x48xbf16>)
    -> (y : !gpuos.tensor<16x48xbf16>) {
  %r = gpuos.task "mv_m16" ins(%a = %x : !gpuos.tensor<16x64xbf16>, %c = %w : !gpuos.tensor<64x48xbf16>)
      tile [16, 16] -> (!gpuos.tensor<16x48xbf16>) {
    %0 = gpuos.matmul %a, %c : !gpuos.tensor<16x64xbf16>, !gpuos.tensor<64x48xbf16>
    gpuos.yield %0 : !gpuos.tensor<16x48xbf16>
  }
  gpuos.yield %r : !gpuos.tensor<16x48xbf16>
}

// Batched attention, [heads, 1, 64] x [heads, 64, S], with a scale.
gpuos.graph @mv_attn(%q : !gpuos.tensor<4x1x64xf16>, %k : !gpuos.tensor<4x64x40xf16>)
    -> (s : !gpuos.tensor<4x1x40xf16>) {
  %r = gpuos.task "mv_attn" ins(%a = %q : !gpuos.tensor<4x1x64xf16>, %c = %k : !gpuos.tensor<4x64x40xf16>)
      tile [1, 1, 32] -> (!gpuos.tensor<4x1x40xf16>) {
    %0 = gpuos.matmul %a, %c : !gpuos.tensor<4x1x64xf16>, !gpuos.tensor<4x64x40xf16>
    %s = gpuos.constant dense<0.125> : tensor<f16>
    %1 = gpuos.mul %0, %s : !gpuos.tensor<4x1x40xf16>, !gpuos.tensor<f16>
    gpuos.yield %1 : !gpuos.tensor<4x1x40xf16>
  }
  gpuos.yield %r : !gpuos.tensor<4x1x40xf16>
}

// Batched attention against [heads, S, 64] keys (transpose_rhs).
gpuos.graph @mv_attn_t(%q : !gpuos.tensor<4x1x64xf32>, %k : !gpuos.tensor<4x40x64xf32>)
    -> (s : !gpuos.tensor<4x1x40xf32>) {
  %r = gpuos.task "mv_attn_t" ins(%a = %q : !gpuos.tensor<4x1x64xf32>, %c = %k : !gpuos.tensor<4x40x64xf32>)
      tile [1, 1, 32] -> (!gpuos.tensor<4x1x40xf32>) {
    %0 = gpuos.matmul %a, %c transpose_rhs : !gpuos.tensor<4x1x64xf32>, !gpuos.tensor<4x40x64xf32>
    gpuos.yield %0 : !gpuos.tensor<4x1x40xf32>
  }
  gpuos.yield %r : !gpuos.tensor<4x1x40xf32>
}

// An lhs without batch dims broadcast over the rhs batch.
gpuos.graph @mv_bcast(%x : !gpuos.tensor<2x96xf32>, %w : !gpuos.tensor<3x96x64xf32>)
    -> (y : !gpuos.tensor<3x2x64xf32>) {
  %r = gpuos.task "mv_bcast" ins(%a = %x : !gpuos.tensor<2x96xf32>, %c = %w : !gpuos.tensor<3x96x64xf32>)
      tile [1, 2, 32] -> (!gpuos.tensor<3x2x64xf32>) {
    %0 = gpuos.matmul %a, %c : !gpuos.tensor<2x96xf32>, !gpuos.tensor<3x96x64xf32>
    gpuos.yield %0 : !gpuos.tensor<3x2x64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<3x2x64xf32>
}

// Micro-batches through one weight: two matmuls in one task.
gpuos.graph @mv_shared(%x : !gpuos.tensor<2x64xf16>, %z : !gpuos.tensor<2x64xf16>, %w : !gpuos.tensor<64x128xf16>)
    -> (y : !gpuos.tensor<2x128xf16>, u : !gpuos.tensor<2x128xf16>) {
  %r:2 = gpuos.task "mv_shared" ins(%a = %x : !gpuos.tensor<2x64xf16>, %b = %z : !gpuos.tensor<2x64xf16>,
                                    %c = %w : !gpuos.tensor<64x128xf16>)
      tile [2, 32] -> (!gpuos.tensor<2x128xf16>, !gpuos.tensor<2x128xf16>) {
    %0 = gpuos.matmul %a, %c : !gpuos.tensor<2x64xf16>, !gpuos.tensor<64x128xf16>
    %1 = gpuos.matmul %b, %c : !gpuos.tensor<2x64xf16>, !gpuos.tensor<64x128xf16>
    %2 = gpuos.relu %1 : !gpuos.tensor<2x128xf16>
    gpuos.yield %0, %2 : !gpuos.tensor<2x128xf16>, !gpuos.tensor<2x128xf16>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<2x128xf16>, !gpuos.tensor<2x128xf16>
}

// transpose_rhs with f16 vectors along K, M = 2, an edge tile.
gpuos.graph @mv_kt_f16(%x : !gpuos.tensor<2x72xf16>, %w : !gpuos.tensor<100x72xf16>)
    -> (y : !gpuos.tensor<2x100xf16>) {
  %r = gpuos.task "mv_kt_f16" ins(%a = %x : !gpuos.tensor<2x72xf16>, %c = %w : !gpuos.tensor<100x72xf16>)
      tile [2, 64] -> (!gpuos.tensor<2x100xf16>) {
    %0 = gpuos.matmul %a, %c transpose_rhs : !gpuos.tensor<2x72xf16>, !gpuos.tensor<100x72xf16>
    gpuos.yield %0 : !gpuos.tensor<2x100xf16>
  }
  gpuos.yield %r : !gpuos.tensor<2x100xf16>
}

// A transposed lhs, columns along N.
gpuos.graph @mv_tlhs(%x : !gpuos.tensor<64x2xf32>, %w : !gpuos.tensor<64x64xf32>)
    -> (y : !gpuos.tensor<2x64xf32>) {
  %r = gpuos.task "mv_tlhs" ins(%a = %x : !gpuos.tensor<64x2xf32>, %c = %w : !gpuos.tensor<64x64xf32>)
      tile [2, 32] -> (!gpuos.tensor<2x64xf32>) {
    %0 = gpuos.matmul %a, %c transpose_lhs : !gpuos.tensor<64x2xf32>, !gpuos.tensor<64x64xf32>
    gpuos.yield %0 : !gpuos.tensor<2x64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<2x64xf32>
}

// Narrow column tiles (the tile rule's 16 and, for micro-batches through
// one weight, 8 columns): f32 matvec over K = 1000 in tiles of 16 columns
// with a bias; four 4-row micro-batches in tiles of 8 columns.
gpuos.graph @mv_narrow(%x : !gpuos.tensor<1x1000xf32>, %w : !gpuos.tensor<1000x80xf32>, %b : !gpuos.tensor<80xf32>)
    -> (y : !gpuos.tensor<1x80xf32>) {
  %r = gpuos.task "mv_narrow" ins(%a = %x : !gpuos.tensor<1x1000xf32>, %c = %w : !gpuos.tensor<1000x80xf32>,
                                  %d = %b : !gpuos.tensor<80xf32>)
      tile [1, 16] -> (!gpuos.tensor<1x80xf32>) {
    %0 = gpuos.matmul %a, %c : !gpuos.tensor<1x1000xf32>, !gpuos.tensor<1000x80xf32>
    %1 = gpuos.add %0, %d : !gpuos.tensor<1x80xf32>, !gpuos.tensor<80xf32>
    gpuos.yield %1 : !gpuos.tensor<1x80xf32>
  }
  gpuos.yield %r : !gpuos.tensor<1x80xf32>
}

gpuos.graph @mv_shared8(%x : !gpuos.tensor<16x256xf32>, %w : !gpuos.tensor<256x40xf32>)
    -> (y0 : !gpuos.tensor<4x40xf32>, y1 : !gpuos.tensor<4x40xf32>, y2 : !gpuos.tensor<4x40xf32>, y3 : !gpuos.tensor<4x40xf32>) {
  %r:4 = gpuos.task "mv_shared8" ins(%a = %x : !gpuos.tensor<16x256xf32>, %c = %w : !gpuos.tensor<256x40xf32>)
      tile [4, 8] -> (!gpuos.tensor<4x40xf32>, !gpuos.tensor<4x40xf32>, !gpuos.tensor<4x40xf32>, !gpuos.tensor<4x40xf32>) {
    %s0 = gpuos.slice %a starts [0, 0] sizes [4, 256] steps [1, 1] : !gpuos.tensor<16x256xf32>
    %s1 = gpuos.slice %a starts [4, 0] sizes [4, 256] steps [1, 1] : !gpuos.tensor<16x256xf32>
    %s2 = gpuos.slice %a starts [8, 0] sizes [4, 256] steps [1, 1] : !gpuos.tensor<16x256xf32>
    %s3 = gpuos.slice %a starts [12, 0] sizes [4, 256] steps [1, 1] : !gpuos.tensor<16x256xf32>
    %0 = gpuos.matmul %s0, %c : !gpuos.tensor<4x256xf32>, !gpuos.tensor<256x40xf32>
    %1 = gpuos.matmul %s1, %c : !gpuos.tensor<4x256xf32>, !gpuos.tensor<256x40xf32>
    %2 = gpuos.matmul %s2, %c : !gpuos.tensor<4x256xf32>, !gpuos.tensor<256x40xf32>
    %3 = gpuos.matmul %s3, %c : !gpuos.tensor<4x256xf32>, !gpuos.tensor<256x40xf32>
    gpuos.yield %0, %1, %2, %3 : !gpuos.tensor<4x40xf32>, !gpuos.tensor<4x40xf32>, !gpuos.tensor<4x40xf32>, !gpuos.tensor<4x40xf32>
  }
  gpuos.yield %r#0, %r#1, %r#2, %r#3 : !gpuos.tensor<4x40xf32>, !gpuos.tensor<4x40xf32>, !gpuos.tensor<4x40xf32>, !gpuos.tensor<4x40xf32>
}

// Micro-batches sharing a K loop with the weight and lhs slices staged by
// cp.async in chunks: K = 1000 is three chunks of 256 rows and a last one
// of 232, N = 44 leaves an edge tile of 4 columns; the results take a
// bias, a relu or nothing in the epilogue, spread over thread groups.
gpuos.graph @mv_jam_chunks(%x : !gpuos.tensor<8x1000xf32>, %w : !gpuos.tensor<1000x44xf32>, %b : !gpuos.tensor<44xf32>)
    -> (y0 : !gpuos.tensor<2x44xf32>, y1 : !gpuos.tensor<2x44xf32>, y2 : !gpuos.tensor<2x44xf32>, y3 : !gpuos.tensor<2x44xf32>) {
  %r:4 = gpuos.task "mv_jam_chunks" ins(%a = %x : !gpuos.tensor<8x1000xf32>, %c = %w : !gpuos.tensor<1000x44xf32>,
                                       %d = %b : !gpuos.tensor<44xf32>)
      tile [2, 8] -> (!gpuos.tensor<2x44xf32>, !gpuos.tensor<2x44xf32>, !gpuos.tensor<2x44xf32>, !gpuos.tensor<2x44xf32>) {
    %s0 = gpuos.slice %a starts [0, 0] sizes [2, 1000] steps [1, 1] : !gpuos.tensor<8x1000xf32>
    %s1 = gpuos.slice %a starts [2, 0] sizes [2, 1000] steps [1, 1] : !gpuos.tensor<8x1000xf32>
    %s2 = gpuos.slice %a starts [4, 0] sizes [2, 1000] steps [1, 1] : !gpuos.tensor<8x1000xf32>
    %s3 = gpuos.slice %a starts [6, 0] sizes [2, 1000] steps [1, 1] : !gpuos.tensor<8x1000xf32>
    %0 = gpuos.matmul %s0, %c : !gpuos.tensor<2x1000xf32>, !gpuos.tensor<1000x44xf32>
    %1 = gpuos.matmul %s1, %c : !gpuos.tensor<2x1000xf32>, !gpuos.tensor<1000x44xf32>
    %2 = gpuos.matmul %s2, %c : !gpuos.tensor<2x1000xf32>, !gpuos.tensor<1000x44xf32>
    %3 = gpuos.matmul %s3, %c : !gpuos.tensor<2x1000xf32>, !gpuos.tensor<1000x44xf32>
    %4 = gpuos.add %0, %d : !gpuos.tensor<2x44xf32>, !gpuos.tensor<44xf32>
    %5 = gpuos.relu %1 : !gpuos.tensor<2x44xf32>
    gpuos.yield %4, %5, %2, %3 : !gpuos.tensor<2x44xf32>, !gpuos.tensor<2x44xf32>, !gpuos.tensor<2x44xf32>, !gpuos.tensor<2x44xf32>
  }
  gpuos.yield %r#0, %r#1, %r#2, %r#3 : !gpuos.tensor<2x44xf32>, !gpuos.tensor<2x44xf32>, !gpuos.tensor<2x44xf32>, !gpuos.tensor<2x44xf32>
}

// Three chunks, the bench's 96 bytes a K row: four 4-row micro-batches
// through a [352, 16] weight are chunks of 128 + 128 + 96 rows, so the
// last, short one reuses the first chunk's buffer.
gpuos.graph @mv_jam_three_chunks(%x : !gpuos.tensor<16x352xf32>, %w : !gpuos.tensor<352x16xf32>)
    -> (y0 : !gpuos.tensor<4x16xf32>, y1 : !gpuos.tensor<4x16xf32>, y2 : !gpuos.tensor<4x16xf32>, y3 : !gpuos.tensor<4x16xf32>) {
  %r:4 = gpuos.task "mv_jam_three_chunks" ins(%a = %x : !gpuos.tensor<16x352xf32>, %c = %w : !gpuos.tensor<352x16xf32>)
      tile [4, 8] -> (!gpuos.tensor<4x16xf32>, !gpuos.tensor<4x16xf32>, !gpuos.tensor<4x16xf32>, !gpuos.tensor<4x16xf32>) {
    %s0 = gpuos.slice %a starts [0, 0] sizes [4, 352] steps [1, 1] : !gpuos.tensor<16x352xf32>
    %s1 = gpuos.slice %a starts [4, 0] sizes [4, 352] steps [1, 1] : !gpuos.tensor<16x352xf32>
    %s2 = gpuos.slice %a starts [8, 0] sizes [4, 352] steps [1, 1] : !gpuos.tensor<16x352xf32>
    %s3 = gpuos.slice %a starts [12, 0] sizes [4, 352] steps [1, 1] : !gpuos.tensor<16x352xf32>
    %0 = gpuos.matmul %s0, %c : !gpuos.tensor<4x352xf32>, !gpuos.tensor<352x16xf32>
    %1 = gpuos.matmul %s1, %c : !gpuos.tensor<4x352xf32>, !gpuos.tensor<352x16xf32>
    %2 = gpuos.matmul %s2, %c : !gpuos.tensor<4x352xf32>, !gpuos.tensor<352x16xf32>
    %3 = gpuos.matmul %s3, %c : !gpuos.tensor<4x352xf32>, !gpuos.tensor<352x16xf32>
    gpuos.yield %0, %1, %2, %3 : !gpuos.tensor<4x16xf32>, !gpuos.tensor<4x16xf32>, !gpuos.tensor<4x16xf32>, !gpuos.tensor<4x16xf32>
  }
  gpuos.yield %r#0, %r#1, %r#2, %r#3 : !gpuos.tensor<4x16xf32>, !gpuos.tensor<4x16xf32>, !gpuos.tensor<4x16xf32>, !gpuos.tensor<4x16xf32>
}

// The bench's shape, smaller: eight 4-row micro-batches through one
// weight, two jams of four, one staged chunk each, bias and gelu.
gpuos.graph @mv_jam8(%x : !gpuos.tensor<32x128xf32>, %w : !gpuos.tensor<128x64xf32>, %b : !gpuos.tensor<64xf32>)
    -> (y0 : !gpuos.tensor<4x64xf32>, y1 : !gpuos.tensor<4x64xf32>, y2 : !gpuos.tensor<4x64xf32>, y3 : !gpuos.tensor<4x64xf32>,
        y4 : !gpuos.tensor<4x64xf32>, y5 : !gpuos.tensor<4x64xf32>, y6 : !gpuos.tensor<4x64xf32>, y7 : !gpuos.tensor<4x64xf32>) {
  %r:8 = gpuos.task "mv_jam8" ins(%a = %x : !gpuos.tensor<32x128xf32>, %c = %w : !gpuos.tensor<128x64xf32>,
                                  %d = %b : !gpuos.tensor<64xf32>)
      tile [4, 8] -> (!gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>,
                      !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>) {
    %s0 = gpuos.slice %a starts [0, 0] sizes [4, 128] steps [1, 1] : !gpuos.tensor<32x128xf32>
    %m0 = gpuos.matmul %s0, %c : !gpuos.tensor<4x128xf32>, !gpuos.tensor<128x64xf32>
    %p0 = gpuos.add %m0, %d : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64xf32>
    %g0 = gpuos.gelu %p0 : !gpuos.tensor<4x64xf32>
    %s1 = gpuos.slice %a starts [4, 0] sizes [4, 128] steps [1, 1] : !gpuos.tensor<32x128xf32>
    %m1 = gpuos.matmul %s1, %c : !gpuos.tensor<4x128xf32>, !gpuos.tensor<128x64xf32>
    %p1 = gpuos.add %m1, %d : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64xf32>
    %g1 = gpuos.gelu %p1 : !gpuos.tensor<4x64xf32>
    %s2 = gpuos.slice %a starts [8, 0] sizes [4, 128] steps [1, 1] : !gpuos.tensor<32x128xf32>
    %m2 = gpuos.matmul %s2, %c : !gpuos.tensor<4x128xf32>, !gpuos.tensor<128x64xf32>
    %p2 = gpuos.add %m2, %d : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64xf32>
    %g2 = gpuos.gelu %p2 : !gpuos.tensor<4x64xf32>
    %s3 = gpuos.slice %a starts [12, 0] sizes [4, 128] steps [1, 1] : !gpuos.tensor<32x128xf32>
    %m3 = gpuos.matmul %s3, %c : !gpuos.tensor<4x128xf32>, !gpuos.tensor<128x64xf32>
    %p3 = gpuos.add %m3, %d : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64xf32>
    %g3 = gpuos.gelu %p3 : !gpuos.tensor<4x64xf32>
    %s4 = gpuos.slice %a starts [16, 0] sizes [4, 128] steps [1, 1] : !gpuos.tensor<32x128xf32>
    %m4 = gpuos.matmul %s4, %c : !gpuos.tensor<4x128xf32>, !gpuos.tensor<128x64xf32>
    %p4 = gpuos.add %m4, %d : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64xf32>
    %g4 = gpuos.gelu %p4 : !gpuos.tensor<4x64xf32>
    %s5 = gpuos.slice %a starts [20, 0] sizes [4, 128] steps [1, 1] : !gpuos.tensor<32x128xf32>
    %m5 = gpuos.matmul %s5, %c : !gpuos.tensor<4x128xf32>, !gpuos.tensor<128x64xf32>
    %p5 = gpuos.add %m5, %d : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64xf32>
    %g5 = gpuos.gelu %p5 : !gpuos.tensor<4x64xf32>
    %s6 = gpuos.slice %a starts [24, 0] sizes [4, 128] steps [1, 1] : !gpuos.tensor<32x128xf32>
    %m6 = gpuos.matmul %s6, %c : !gpuos.tensor<4x128xf32>, !gpuos.tensor<128x64xf32>
    %p6 = gpuos.add %m6, %d : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64xf32>
    %g6 = gpuos.gelu %p6 : !gpuos.tensor<4x64xf32>
    %s7 = gpuos.slice %a starts [28, 0] sizes [4, 128] steps [1, 1] : !gpuos.tensor<32x128xf32>
    %m7 = gpuos.matmul %s7, %c : !gpuos.tensor<4x128xf32>, !gpuos.tensor<128x64xf32>
    %p7 = gpuos.add %m7, %d : !gpuos.tensor<4x64xf32>, !gpuos.tensor<64xf32>
    %g7 = gpuos.gelu %p7 : !gpuos.tensor<4x64xf32>
    gpuos.yield %g0, %g1, %g2, %g3, %g4, %g5, %g6, %g7 : !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>
  }
  gpuos.yield %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7 : !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>, !gpuos.tensor<4x64xf32>
}
