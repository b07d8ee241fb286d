// RUN: gpuos-opt %s --split-input-file --gpuos-unique-kinds | FileCheck %s
// RUN: gpuos-opt %s --split-input-file --gpuos-pipeline | FileCheck %s --check-prefix=PIPE

// Graph @h was written with the kind @g's generated task has: the written
// one keeps it, the generated one takes the first free suffix (_1 is a
// third task's, so _2).
// CHECK-LABEL: gpuos.graph @g
// CHECK: gpuos.task "g_t0_add_2"
// CHECK-LABEL: gpuos.graph @h
// CHECK: gpuos.task "g_t0_add" ins
// CHECK: gpuos.task "g_t0_add_1" ins
gpuos.graph @g(%x : !gpuos.tensor<64xf32>) -> (o : !gpuos.tensor<64xf32>) {
  %r = gpuos.task "g_t0_add" ins(%a = %x : !gpuos.tensor<64xf32>) tile [64] -> (!gpuos.tensor<64xf32>) {
    %0 = gpuos.add %a, %a : !gpuos.tensor<64xf32>, !gpuos.tensor<64xf32>
    gpuos.yield %0 : !gpuos.tensor<64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<64xf32>
}
gpuos.graph @h(%x : !gpuos.tensor<64xf32>) -> (o : !gpuos.tensor<64xf32>, p : !gpuos.tensor<64xf32>) {
  %r = gpuos.task "g_t0_add" ins(%a = %x : !gpuos.tensor<64xf32>) tile [64] -> (!gpuos.tensor<64xf32>) {
    %0 = gpuos.exp %a : !gpuos.tensor<64xf32>
    gpuos.yield %0 : !gpuos.tensor<64xf32>
  }
  %s = gpuos.task "g_t0_add_1" ins(%a = %x : !gpuos.tensor<64xf32>) tile [64] -> (!gpuos.tensor<64xf32>) {
    %0 = gpuos.tanh %a : !gpuos.tensor<64xf32>
    gpuos.yield %0 : !gpuos.tensor<64xf32>
  }
  gpuos.yield %r, %s : !gpuos.tensor<64xf32>, !gpuos.tensor<64xf32>
}

// -----

// Through the pipeline: @p's fusion makes the kind @q was written with.
// PIPE-LABEL: gpuos.graph @p
// PIPE: gpuos.task "p_t0_add_mul_1"
// PIPE-LABEL: gpuos.graph @q
// PIPE: gpuos.task "p_t0_add_mul" ins
gpuos.graph @p(%x : !gpuos.tensor<64xf32>) -> (o : !gpuos.tensor<64xf32>) {
  %0 = gpuos.add %x, %x : !gpuos.tensor<64xf32>, !gpuos.tensor<64xf32>
  %1 = gpuos.mul %0, %x : !gpuos.tensor<64xf32>, !gpuos.tensor<64xf32>
  gpuos.yield %1 : !gpuos.tensor<64xf32>
}
gpuos.graph @q(%x : !gpuos.tensor<64xf32>) -> (o : !gpuos.tensor<64xf32>) {
  %r = gpuos.task "p_t0_add_mul" ins(%a = %x : !gpuos.tensor<64xf32>) tile [64] -> (!gpuos.tensor<64xf32>) {
    %0 = gpuos.exp %a : !gpuos.tensor<64xf32>
    gpuos.yield %0 : !gpuos.tensor<64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<64xf32>
}

// -----

// Two written tasks of one kind are the user's names: left as they are
// (the lowering refuses them, naming both).
// CHECK-LABEL: gpuos.graph @a
// CHECK: gpuos.task "dup"
// CHECK-LABEL: gpuos.graph @b
// CHECK: gpuos.task "dup"
gpuos.graph @a(%x : !gpuos.tensor<64xf32>) -> (o : !gpuos.tensor<64xf32>) {
  %r = gpuos.task "dup" ins(%a = %x : !gpuos.tensor<64xf32>) tile [64] -> (!gpuos.tensor<64xf32>) {
    %0 = gpuos.exp %a : !gpuos.tensor<64xf32>
    gpuos.yield %0 : !gpuos.tensor<64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<64xf32>
}
gpuos.graph @b(%x : !gpuos.tensor<64xf32>) -> (o : !gpuos.tensor<64xf32>) {
  %r = gpuos.task "dup" ins(%a = %x : !gpuos.tensor<64xf32>) tile [64] -> (!gpuos.tensor<64xf32>) {
    %0 = gpuos.tanh %a : !gpuos.tensor<64xf32>
    gpuos.yield %0 : !gpuos.tensor<64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<64xf32>
}
