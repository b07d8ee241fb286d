// Small-M matmuls whose lhs is a row op along K (softmax over the last
// axis, rms_norm, layer_norm; gpuos-fuse-matmul-prologues): each tile
// stages the row op's input in shared memory, folds each row's statistics
// from there (a warp per row of up to 256, the block for longer rows),
// then the row op's values replace the input in place ([M][K] f32 and [M][2] f32 of statistics; docs/codegen.md,
// "Small-M matmul", phase 0). Checked against the interpreter by
// gpuos-sim-check (test/Target/sim-check.mlir) and gpuos-gpu-check (GPU).
//
// The manifest's shared bytes show the staged rows were taken (not the
// serial evaluation of the row op per element, which needs no statistics):
// partials (n-lanes 8 x M x tn x 4, k-lanes M x tn x 4) + the staged lhs
// (M x K x 4) + the statistics (M x 8) and two slots of 32 warp partials
// (256), each rounded up to 16 bytes. Rows longer than 256 are folded by
// the whole block (the slots), shorter ones by a warp each.
// REQUIRES: libdevice, nvjitlink, runtime-device
// RUN: rm -rf %t && mkdir -p %t
// RUN: gpuos-jit %s --no-cache -o %t/rp
// RUN: gpuos-manifest-check %t/rp.manifest.json | FileCheck %s
// 8 x 1 x 16 x 4 + 129 x 4 (528) + 16 + 256:
// CHECK-DAG: rp_heads {{.*}} shared=1312 {{.*}}
// 8 x 3 x 8 x 4 + 3 x 200 x 4 + 32 + 256:
// CHECK-DAG: rp_rms_m3 {{.*}} shared=3456 {{.*}}
// 2 x 8 x 4 + 2 x 96 x 4 + 16 + 256:
// CHECK-DAG: rp_layer_kt {{.*}} shared=1104 {{.*}}
// two weights' partials + one staged lhs shared by both (256 x 4) + 16 + 256:
// CHECK-DAG: rp_two_reads {{.*}} shared=2320 {{.*}}
// 8 x 12 x 8 x 4 + 12 x 40 x 4 + 96 + 256:
// CHECK-DAG: rp_m12 {{.*}} shared=5344 {{.*}}
// 8 x 1 x 16 x 4 + 1000 x 4 + 16 + 256:
// CHECK-DAG: rp_long_softmax {{.*}} shared=4784 {{.*}}
// 8 x 3 x 8 x 4 + 3 x 1030 x 4 (12368) + 32 + 256:
// CHECK-DAG: rp_long_rms_m3 {{.*}} shared=13424 {{.*}}
// Rows as wide as the tile (the row strategy's shape too; the matvec
// strategy takes it, 8 x 2 x 64 x 4 + 2 x 64 x 4 + 16 + 256; the row
// strategy would declare 1024):
// CHECK-DAG: rp_row_shaped {{.*}} shared=4880 {{.*}}
// A constant lhs (no row op: staged as a computed lhs, 8 x 16 x 4 + 64 x 4):
// CHECK-DAG: rp_const_lhs {{.*}} shared=768 {{.*}}

// Decode's attention: the scaled scores' softmax is P for P x V, per head,
// K = 129 (not a multiple of the warp), a residual epilogue.
gpuos.graph @heads(%s : !gpuos.tensor<8x1x129xf32>, %v : !gpuos.tensor<8x129x128xf32>,
                   %r : !gpuos.tensor<8x1x128xf32>)
    -> (y : !gpuos.tensor<8x1x128xf32>) {
  %y = gpuos.task "rp_heads" ins(%a = %s : !gpuos.tensor<8x1x129xf32>, %b = %v : !gpuos.tensor<8x129x128xf32>,
                                 %c = %r : !gpuos.tensor<8x1x128xf32>)
      tile [1, 1, 16] -> (!gpuos.tensor<8x1x128xf32>) {
    %k = gpuos.constant dense<8.838835e-02> : tensor<f32>
    %0 = gpuos.mul %a, %k : !gpuos.tensor<8x1x129xf32>, !gpuos.tensor<f32>
    %1 = gpuos.softmax %0 axis 2 : !gpuos.tensor<8x1x129xf32>
    %2 = gpuos.matmul %1, %b : !gpuos.tensor<8x1x129xf32>, !gpuos.tensor<8x129x128xf32>
    %3 = gpuos.add %2, %c : !gpuos.tensor<8x1x128xf32>, !gpuos.tensor<8x1x128xf32>
    gpuos.yield %3 : !gpuos.tensor<8x1x128xf32>
  }
  gpuos.yield %y : !gpuos.tensor<8x1x128xf32>
}

// Three rows through rms_norm with its weight, after a residual add; N not
// a multiple of the tile.
gpuos.graph @rms_m3(%x : !gpuos.tensor<3x200xf32>, %h : !gpuos.tensor<3x200xf32>,
                    %g : !gpuos.tensor<200xf32>, %w : !gpuos.tensor<200x72xf32>)
    -> (y : !gpuos.tensor<3x72xf32>) {
  %y = gpuos.task "rp_rms_m3" ins(%a = %x : !gpuos.tensor<3x200xf32>, %b = %h : !gpuos.tensor<3x200xf32>,
                                  %c = %g : !gpuos.tensor<200xf32>, %d = %w : !gpuos.tensor<200x72xf32>)
      tile [3, 8] -> (!gpuos.tensor<3x72xf32>) {
    %0 = gpuos.add %a, %b : !gpuos.tensor<3x200xf32>, !gpuos.tensor<3x200xf32>
    %1 = gpuos.rms_norm %0 weight(%c : !gpuos.tensor<200xf32>) eps 1.0e-06 : !gpuos.tensor<3x200xf32>
    %2 = gpuos.matmul %1, %d : !gpuos.tensor<3x200xf32>, !gpuos.tensor<200x72xf32>
    gpuos.yield %2 : !gpuos.tensor<3x72xf32>
  }
  gpuos.yield %y : !gpuos.tensor<3x72xf32>
}

// f16: layer_norm with weight and bias, against an [N, K] weight (k-lanes
// read the staged rows V consecutive K at a time).
gpuos.graph @layer_kt(%x : !gpuos.tensor<2x96xf16>, %g : !gpuos.tensor<96xf16>, %bias : !gpuos.tensor<96xf16>,
                      %w : !gpuos.tensor<40x96xf16>)
    -> (y : !gpuos.tensor<2x40xf16>) {
  %y = gpuos.task "rp_layer_kt" ins(%a = %x : !gpuos.tensor<2x96xf16>, %b = %g : !gpuos.tensor<96xf16>,
                                    %c = %bias : !gpuos.tensor<96xf16>, %d = %w : !gpuos.tensor<40x96xf16>)
      tile [2, 8] -> (!gpuos.tensor<2x40xf16>) {
    %0 = gpuos.layer_norm %a weight(%b : !gpuos.tensor<96xf16>) bias(%c : !gpuos.tensor<96xf16>) eps 1.0e-05 : !gpuos.tensor<2x96xf16>
    %1 = gpuos.matmul %0, %d transpose_rhs : !gpuos.tensor<2x96xf16>, !gpuos.tensor<40x96xf16>
    gpuos.yield %1 : !gpuos.tensor<2x40xf16>
  }
  gpuos.yield %y : !gpuos.tensor<2x40xf16>
}

// One normalized row read by two projections: the first stages it, the
// second reads the same copy.
gpuos.graph @two_reads(%x : !gpuos.tensor<1x256xf32>, %g : !gpuos.tensor<256xf32>,
                       %wq : !gpuos.tensor<256x64xf32>, %wk : !gpuos.tensor<256x64xf32>)
    -> (q : !gpuos.tensor<1x64xf32>, k : !gpuos.tensor<1x64xf32>) {
  %q, %k = gpuos.task "rp_two_reads" ins(%a = %x : !gpuos.tensor<1x256xf32>, %b = %g : !gpuos.tensor<256xf32>,
                                         %c = %wq : !gpuos.tensor<256x64xf32>, %d = %wk : !gpuos.tensor<256x64xf32>)
      tile [1, 16] -> (!gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>) {
    %0 = gpuos.rms_norm %a weight(%b : !gpuos.tensor<256xf32>) eps 1.0e-06 : !gpuos.tensor<1x256xf32>
    %1 = gpuos.matmul %0, %c : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x64xf32>
    %2 = gpuos.matmul %0, %d : !gpuos.tensor<1x256xf32>, !gpuos.tensor<256x64xf32>
    gpuos.yield %1, %2 : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>
  }
  gpuos.yield %q, %k : !gpuos.tensor<1x64xf32>, !gpuos.tensor<1x64xf32>
}

// Twelve rows, more than a 64-thread block's two warps: each warp folds
// several rows in turn.
gpuos.graph @m12(%x : !gpuos.tensor<12x40xf32>, %w : !gpuos.tensor<40x24xf32>)
    -> (y : !gpuos.tensor<12x24xf32>) {
  %y = gpuos.task "rp_m12" ins(%a = %x : !gpuos.tensor<12x40xf32>, %b = %w : !gpuos.tensor<40x24xf32>)
      tile [12, 8] -> (!gpuos.tensor<12x24xf32>) {
    %0 = gpuos.softmax %a axis 1 : !gpuos.tensor<12x40xf32>
    %1 = gpuos.matmul %0, %b : !gpuos.tensor<12x40xf32>, !gpuos.tensor<40x24xf32>
    gpuos.yield %1 : !gpuos.tensor<12x24xf32>
  }
  gpuos.yield %y : !gpuos.tensor<12x24xf32>
}

// A long row (1000 positions: the block folds it, warp partials through
// the slots), per head as in decode with a long KV cache.
gpuos.graph @long_softmax(%s : !gpuos.tensor<2x1x1000xf32>, %v : !gpuos.tensor<2x1000x64xf32>)
    -> (y : !gpuos.tensor<2x1x64xf32>) {
  %y = gpuos.task "rp_long_softmax" ins(%a = %s : !gpuos.tensor<2x1x1000xf32>, %b = %v : !gpuos.tensor<2x1000x64xf32>)
      tile [1, 1, 16] -> (!gpuos.tensor<2x1x64xf32>) {
    %0 = gpuos.softmax %a axis 2 : !gpuos.tensor<2x1x1000xf32>
    %1 = gpuos.matmul %0, %b : !gpuos.tensor<2x1x1000xf32>, !gpuos.tensor<2x1000x64xf32>
    gpuos.yield %1 : !gpuos.tensor<2x1x64xf32>
  }
  gpuos.yield %y : !gpuos.tensor<2x1x64xf32>
}

// Three long rows through rms_norm, one statistic a row, so the slots
// alternate from row to row (a slot reused too early is a race the
// simulator reports: docs/codegen.md, "The GPU check").
gpuos.graph @long_rms_m3(%x : !gpuos.tensor<3x1030xf32>, %g : !gpuos.tensor<1030xf32>,
                         %w : !gpuos.tensor<1030x24xf32>)
    -> (y : !gpuos.tensor<3x24xf32>) {
  %y = gpuos.task "rp_long_rms_m3" ins(%a = %x : !gpuos.tensor<3x1030xf32>, %b = %g : !gpuos.tensor<1030xf32>,
                                       %c = %w : !gpuos.tensor<1030x24xf32>)
      tile [3, 8] -> (!gpuos.tensor<3x24xf32>) {
    %0 = gpuos.rms_norm %a weight(%b : !gpuos.tensor<1030xf32>) eps 1.0e-06 : !gpuos.tensor<3x1030xf32>
    %1 = gpuos.matmul %0, %c : !gpuos.tensor<3x1030xf32>, !gpuos.tensor<1030x24xf32>
    gpuos.yield %1 : !gpuos.tensor<3x24xf32>
  }
  gpuos.yield %y : !gpuos.tensor<3x24xf32>
}

// A lhs with no operands (a constant the partition copies into a task):
// not a row prologue; the lowering once read its first operand.
gpuos.graph @const_lhs(%w : !gpuos.tensor<64x16xf32>) -> (y : !gpuos.tensor<1x16xf32>) {
  %y = gpuos.task "rp_const_lhs" ins(%a = %w : !gpuos.tensor<64x16xf32>)
      tile [1, 16] -> (!gpuos.tensor<1x16xf32>) {
    %c = gpuos.constant dense<5.000000e-01> : tensor<1x64xf32>
    %0 = gpuos.matmul %c, %a : !gpuos.tensor<1x64xf32>, !gpuos.tensor<64x16xf32>
    gpuos.yield %0 : !gpuos.tensor<1x16xf32>
  }
  gpuos.yield %y : !gpuos.tensor<1x16xf32>
}

// N == K and a tile of whole rows: the row strategy could take this task
// too, and would evaluate the matmul per element; the matvec strategy
// takes it.
gpuos.graph @row_shaped(%x : !gpuos.tensor<2x64xf32>, %g : !gpuos.tensor<64xf32>, %w : !gpuos.tensor<64x64xf32>)
    -> (y : !gpuos.tensor<2x64xf32>) {
  %y = gpuos.task "rp_row_shaped" ins(%a = %x : !gpuos.tensor<2x64xf32>, %b = %g : !gpuos.tensor<64xf32>,
                                      %c = %w : !gpuos.tensor<64x64xf32>)
      tile [2, 64] -> (!gpuos.tensor<2x64xf32>) {
    %0 = gpuos.rms_norm %a weight(%b : !gpuos.tensor<64xf32>) eps 1.0e-06 : !gpuos.tensor<2x64xf32>
    %1 = gpuos.matmul %0, %c : !gpuos.tensor<2x64xf32>, !gpuos.tensor<64x64xf32>
    gpuos.yield %1 : !gpuos.tensor<2x64xf32>
  }
  gpuos.yield %y : !gpuos.tensor<2x64xf32>
}
