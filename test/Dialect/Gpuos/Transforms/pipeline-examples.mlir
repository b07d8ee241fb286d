// The shipped examples through gpuos-pipeline: the structure fusion should
// reach, and the same interpreter outputs before and after.

// The 64-op elementwise chain is one task; the per-column scale and bias are
// broadcast inputs.
// RUN: gpuos-opt %S/../../../../examples/elementwise_chain.mlir --gpuos-pipeline | FileCheck %s --check-prefix=CHAIN
// CHAIN: gpuos.task "elementwise_chain_t0_mul_add_tanh_sub_sigmoid_silu_max" ins(%{{.+}} = %x : !gpuos.tensor<32x1024xf32>, %{{.+}} = %scale : !gpuos.tensor<1024xf32>, %{{.+}} = %bias : !gpuos.tensor<1024xf32>) tile [1, 256] priority #gpuos.priority<urgent>
// CHAIN-COUNT-64: = gpuos.
// CHAIN-NEXT: gpuos.yield
// CHAIN-NOT: gpuos.task
// RUN: gpuos-interp %S/../../../../examples/elementwise_chain.mlir --seed=2 > %t.chain.before
// RUN: gpuos-opt %S/../../../../examples/elementwise_chain.mlir --gpuos-pipeline | gpuos-interp --seed=2 > %t.chain.after
// RUN: diff %t.chain.before %t.chain.after

// Scale and mask are the softmax's prologue; the residual add, which both
// norms read, is the layer_norm's prologue, and the rms_norm joins that
// task as a row chain link reading the same residual.
// RUN: gpuos-opt %S/../../../../examples/softmax_norm.mlir --gpuos-pipeline | FileCheck %s --check-prefix=NORM
// NORM-DAG: gpuos.task "softmax_norm_t{{[0-9]+}}_add_layer_norm_rms_norm" ins(%{{.+}} = %x : !gpuos.tensor<32x1024xf32>, %{{.+}} = %h : !gpuos.tensor<32x1024xf32>, {{.+}} tile [1, 1024]
// NORM-DAG: gpuos.task "softmax_norm_t{{[0-9]+}}_mul_select_softmax" ins(%{{.+}} = %scores : !gpuos.tensor<16x32x32xf32>, %{{.+}} = %mask : !gpuos.tensor<32x32xi1>) tile [1, 8, 32]
// RUN: gpuos-opt %S/../../../../examples/softmax_norm.mlir --gpuos-pipeline | grep -c ' = gpuos.task ' | FileCheck %s --check-prefix=NORM-TASKS
// NORM-TASKS: {{^2$}}
// RUN: gpuos-interp %S/../../../../examples/softmax_norm.mlir --seed=2 > %t.norm.before
// RUN: gpuos-opt %S/../../../../examples/softmax_norm.mlir --gpuos-pipeline | gpuos-interp --seed=2 > %t.norm.after
// RUN: diff %t.norm.before %t.norm.after

// The decode step: the down projections (N = 256, 16 tiles) split K into
// 2 slices (gpuos-split-k); each silu-gated product stays the split down
// projection's prologue, and the sum of the slices with the residual add
// is the prologue of the rms_norm that follows, which writes the residual
// out for the next add (but for the final norm's, which only it reads);
// the residual adds after the output projections are their epilogues;
// the scaled scores' softmax is the prologue of P x V
// (gpuos-fuse-matmul-prologues); the KV cache appends
// (concats of two inputs) go into the attention matmuls that read them;
// the body is tasks only. The split sums round differently, so the
// logits match the graph's within 1e-5 rather than bit for bit.
// RUN: gpuos-opt %S/../../../../examples/decode_step.mlir --gpuos-pipeline | grep -o 'gpuos.task "[a-z0-9_]*"' | sed -E 's/_t[0-9]+_/_/' | sort | uniq -c | FileCheck %s --check-prefix=DECODE
// DECODE: {{^ *}}2 gpuos.task "decode_step_add_rms_norm"
// DECODE-NEXT: {{^ *}}1 gpuos.task "decode_step_argmax"
// DECODE-NEXT: {{^ *}}13 gpuos.task "decode_step_matmul"
// DECODE-NEXT: {{^ *}}2 gpuos.task "decode_step_matmul_add"
// DECODE-NEXT: {{^ *}}2 gpuos.task "decode_step_mul_softmax_matmul"
// DECODE-NEXT: {{^ *}}3 gpuos.task "decode_step_rms_norm"
// DECODE-NEXT: {{^ *}}2 gpuos.task "decode_step_silu_mul_matmul"
// RUN: gpuos-opt %S/../../../../examples/decode_step.mlir --gpuos-pipeline | grep -E '^    %' | not grep -v ' = gpuos.task '
// RUN: rm -rf %t.decode && mkdir -p %t.decode/before %t.decode/after
// RUN: gpuos-interp %S/../../../../examples/decode_step.mlir --seed=2 --outputs-dir=%t.decode/before > /dev/null
// RUN: gpuos-opt %S/../../../../examples/decode_step.mlir --gpuos-pipeline | gpuos-interp --seed=2 --outputs-dir=%t.decode/after > /dev/null
// RUN: %python %S/../../../Inputs/allclose.py %t.decode/before %t.decode/after --exact token.bin | FileCheck %s --check-prefix=VALUES
// VALUES: logits.bin: ok
// VALUES-NEXT: token.bin: ok
