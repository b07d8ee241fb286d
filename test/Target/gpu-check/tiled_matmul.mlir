// Matmul tiles the split-K strategy does not take (more than 16 rows, or
// rows cut across tiles): K chunks of the tile's operands staged in shared
// memory, products folded there ("tiled" strategy, docs/codegen.md "Tiled
// matmul"). Each graph runs against the interpreter on the CPU simulation
// (test/Target/sim-check.mlir) and on the GPU (scripts/gpu-check.sh).
// REQUIRES: nvjitlink, libdevice, runtime-device
// RUN: gpuos-jit %s --emit=image --no-cache -o %t
// RUN: FileCheck %s --input-file=%t.manifest.json
// CHECK: "kind": "tm_scores",
// CHECK: "strategy": "tiled",
// CHECK: "kind": "tm_pv",
// CHECK: "strategy": "tiled",
// CHECK: "kind": "tm_chunks",
// CHECK: "strategy": "tiled",
// CHECK: "kind": "tm_tlhs_f16",
// CHECK: "strategy": "tiled",
// CHECK: "kind": "tm_prologue",
// CHECK: "strategy": "tiled",
// CHECK: "kind": "tm_gate_up",
// CHECK: "strategy": "tiled",
// CHECK: "kind": "tm_bcast",
// CHECK: "strategy": "tiled",
// CHECK: "kind": "tm_odd_k",
// CHECK: "strategy": "tiled",
// CHECK: "kind": "tm_serial_f64",
// CHECK: "strategy": "elementwise",

// Attention scores per head: [h, 32, 64] x [h, 32, 64]^T, scaled; the
// keys are read along K (transpose_rhs).
gpuos.graph @scores(%q : !gpuos.tensor<2x32x64xf32>, %k : !gpuos.tensor<2x32x64xf32>)
    -> (s : !gpuos.tensor<2x32x32xf32>) {
  %r = gpuos.task "tm_scores" ins(%a = %q : !gpuos.tensor<2x32x64xf32>, %b = %k : !gpuos.tensor<2x32x64xf32>)
      tile [1, 32, 32] -> (!gpuos.tensor<2x32x32xf32>) {
    %c = gpuos.constant dense<1.250000e-01> : tensor<f32>
    %0 = gpuos.matmul %a, %b transpose_rhs : !gpuos.tensor<2x32x64xf32>, !gpuos.tensor<2x32x64xf32>
    %1 = gpuos.mul %0, %c : !gpuos.tensor<2x32x32xf32>, !gpuos.tensor<f32>
    gpuos.yield %1 : !gpuos.tensor<2x32x32xf32>
  }
  gpuos.yield %r : !gpuos.tensor<2x32x32xf32>
}

// Probabilities times values: [h, 32, 32] x [h, 32, 64].
gpuos.graph @pv(%p : !gpuos.tensor<2x32x32xf32>, %v : !gpuos.tensor<2x32x64xf32>)
    -> (o : !gpuos.tensor<2x32x64xf32>) {
  %r = gpuos.task "tm_pv" ins(%a = %p : !gpuos.tensor<2x32x32xf32>, %b = %v : !gpuos.tensor<2x32x64xf32>)
      tile [1, 32, 64] -> (!gpuos.tensor<2x32x64xf32>) {
    %0 = gpuos.matmul %a, %b : !gpuos.tensor<2x32x32xf32>, !gpuos.tensor<2x32x64xf32>
    gpuos.yield %0 : !gpuos.tensor<2x32x64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<2x32x64xf32>
}

// K = 300 in chunks of 64 (the last one 44 long), edge tiles on both axes
// (40 = 2 * 16 + 8 rows, 72 = 64 + 8 columns), bias and relu.
gpuos.graph @chunks(%x : !gpuos.tensor<40x300xf32>, %w : !gpuos.tensor<300x72xf32>, %bias : !gpuos.tensor<72xf32>)
    -> (y : !gpuos.tensor<40x72xf32>) {
  %r = gpuos.task "tm_chunks" ins(%a = %x : !gpuos.tensor<40x300xf32>, %b = %w : !gpuos.tensor<300x72xf32>,
                                  %c = %bias : !gpuos.tensor<72xf32>)
      tile [16, 64] -> (!gpuos.tensor<40x72xf32>) {
    %0 = gpuos.matmul %a, %b : !gpuos.tensor<40x300xf32>, !gpuos.tensor<300x72xf32>
    %1 = gpuos.add %0, %c : !gpuos.tensor<40x72xf32>, !gpuos.tensor<72xf32>
    %2 = gpuos.relu %1 : !gpuos.tensor<40x72xf32>
    gpuos.yield %2 : !gpuos.tensor<40x72xf32>
  }
  gpuos.yield %r : !gpuos.tensor<40x72xf32>
}

// A transposed f16 lhs ([K, M] in memory), f16 result.
gpuos.graph @tlhs(%x : !gpuos.tensor<64x24xf16>, %w : !gpuos.tensor<64x40xf16>)
    -> (y : !gpuos.tensor<24x40xf16>) {
  %r = gpuos.task "tm_tlhs_f16" ins(%a = %x : !gpuos.tensor<64x24xf16>, %b = %w : !gpuos.tensor<64x40xf16>)
      tile [24, 40] -> (!gpuos.tensor<24x40xf16>) {
    %0 = gpuos.matmul %a, %b transpose_lhs : !gpuos.tensor<64x24xf16>, !gpuos.tensor<64x40xf16>
    gpuos.yield %0 : !gpuos.tensor<24x40xf16>
  }
  gpuos.yield %r : !gpuos.tensor<24x40xf16>
}

// A computed lhs, silu(x) * g, staged once per chunk.
gpuos.graph @prologue(%x : !gpuos.tensor<20x96xf32>, %g : !gpuos.tensor<20x96xf32>, %w : !gpuos.tensor<96x32xf32>)
    -> (y : !gpuos.tensor<20x32xf32>) {
  %r = gpuos.task "tm_prologue" ins(%a = %x : !gpuos.tensor<20x96xf32>, %b = %g : !gpuos.tensor<20x96xf32>,
                                    %c = %w : !gpuos.tensor<96x32xf32>)
      tile [20, 32] -> (!gpuos.tensor<20x32xf32>) {
    %0 = gpuos.silu %a : !gpuos.tensor<20x96xf32>
    %1 = gpuos.mul %0, %b : !gpuos.tensor<20x96xf32>, !gpuos.tensor<20x96xf32>
    %2 = gpuos.matmul %1, %c : !gpuos.tensor<20x96xf32>, !gpuos.tensor<96x32xf32>
    gpuos.yield %2 : !gpuos.tensor<20x32xf32>
  }
  gpuos.yield %r : !gpuos.tensor<20x32xf32>
}

// Two matmuls of one lhs in one task (gate and up), each with its own
// products, combined in the epilogue; both results yielded.
gpuos.graph @gate_up(%x : !gpuos.tensor<24x64xf32>, %wg : !gpuos.tensor<64x48xf32>, %wu : !gpuos.tensor<64x48xf32>)
    -> (y : !gpuos.tensor<24x48xf32>, g : !gpuos.tensor<24x48xf32>) {
  %r:2 = gpuos.task "tm_gate_up" ins(%a = %x : !gpuos.tensor<24x64xf32>, %b = %wg : !gpuos.tensor<64x48xf32>,
                                     %c = %wu : !gpuos.tensor<64x48xf32>)
      tile [24, 32] -> (!gpuos.tensor<24x48xf32>, !gpuos.tensor<24x48xf32>) {
    %0 = gpuos.matmul %a, %b : !gpuos.tensor<24x64xf32>, !gpuos.tensor<64x48xf32>
    %1 = gpuos.matmul %a, %c : !gpuos.tensor<24x64xf32>, !gpuos.tensor<64x48xf32>
    %2 = gpuos.silu %0 : !gpuos.tensor<24x48xf32>
    %3 = gpuos.mul %2, %1 : !gpuos.tensor<24x48xf32>, !gpuos.tensor<24x48xf32>
    gpuos.yield %3, %0 : !gpuos.tensor<24x48xf32>, !gpuos.tensor<24x48xf32>
  }
  gpuos.yield %r#0, %r#1 : !gpuos.tensor<24x48xf32>, !gpuos.tensor<24x48xf32>
}

// An lhs without batch dims broadcast over the rhs batch.
gpuos.graph @bcast(%x : !gpuos.tensor<32x16xf32>, %w : !gpuos.tensor<3x16x24xf32>)
    -> (y : !gpuos.tensor<3x32x24xf32>) {
  %r = gpuos.task "tm_bcast" ins(%a = %x : !gpuos.tensor<32x16xf32>, %b = %w : !gpuos.tensor<3x16x24xf32>)
      tile [1, 32, 24] -> (!gpuos.tensor<3x32x24xf32>) {
    %0 = gpuos.matmul %a, %b : !gpuos.tensor<32x16xf32>, !gpuos.tensor<3x16x24xf32>
    gpuos.yield %0 : !gpuos.tensor<3x32x24xf32>
  }
  gpuos.yield %r : !gpuos.tensor<3x32x24xf32>
}

// K = 30 staged whole: a chunk that is not a multiple of four folds one K
// position at a time with scalar loads. 40 x 96 products are more than a
// 256-thread block's units of 8 rows (480 units: two rounds), with a
// relu epilogue.
gpuos.graph @odd_k(%x : !gpuos.tensor<40x30xf32>, %w : !gpuos.tensor<30x96xf32>)
    -> (y : !gpuos.tensor<40x96xf32>) {
  %r = gpuos.task "tm_odd_k" ins(%a = %x : !gpuos.tensor<40x30xf32>, %b = %w : !gpuos.tensor<30x96xf32>)
      tile [40, 96] -> (!gpuos.tensor<40x96xf32>) {
    %0 = gpuos.matmul %a, %b : !gpuos.tensor<40x30xf32>, !gpuos.tensor<30x96xf32>
    %1 = gpuos.relu %0 : !gpuos.tensor<40x96xf32>
    gpuos.yield %1 : !gpuos.tensor<40x96xf32>
  }
  gpuos.yield %r : !gpuos.tensor<40x96xf32>
}

// f64 accumulates in f64: the serial loop, not the f32 stage.
gpuos.graph @serial_f64(%x : !gpuos.tensor<20x16xf64>, %w : !gpuos.tensor<16x8xf64>)
    -> (y : !gpuos.tensor<20x8xf64>) {
  %r = gpuos.task "tm_serial_f64" ins(%a = %x : !gpuos.tensor<20x16xf64>, %b = %w : !gpuos.tensor<16x8xf64>)
      tile [20, 8] -> (!gpuos.tensor<20x8xf64>) {
    %0 = gpuos.matmul %a, %b : !gpuos.tensor<20x16xf64>, !gpuos.tensor<16x8xf64>
    gpuos.yield %0 : !gpuos.tensor<20x8xf64>
  }
  gpuos.yield %r : !gpuos.tensor<20x8xf64>
}
