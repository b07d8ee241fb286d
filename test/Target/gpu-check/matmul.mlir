// Matmul, correctness first: each thread computes its lanes of one output
// row with a serial loop over K, fused with producers and consumers.
// REQUIRES: libdevice
// RUN: gpuos-jit %s --emit=ptx -o - | FileCheck %s
// CHECK-DAG: .visible .func gpuos_task_mm_plain(
// CHECK-DAG: .visible .func gpuos_task_mm_gemv_t(
// CHECK-DAG: .visible .func gpuos_task_mm_batched(
// CHECK-DAG: .visible .func gpuos_task_mm_concat(
// CHECK-DAG: .visible .func gpuos_task_mm_scores(

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
