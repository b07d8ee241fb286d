// The shipped examples parse, verify, survive the pass pipeline, and keep
// their signatures.

// RUN: gpuos-opt %S/../../examples/elementwise_chain.mlir --canonicalize | FileCheck %s --check-prefix=CHAIN
// CHAIN: gpuos.graph @elementwise_chain(%x: !gpuos.tensor<32x1024xf32>, %scale: !gpuos.tensor<1024xf32>, %bias: !gpuos.tensor<1024xf32>) -> (y : !gpuos.tensor<32x1024xf32>) priority #gpuos.priority<urgent>
// CHAIN-COUNT-64: = gpuos.

// RUN: gpuos-opt %S/../../examples/softmax_norm.mlir --canonicalize | FileCheck %s --check-prefix=NORM
// NORM: -> (probs : !gpuos.tensor<16x32x32xf32>, ln : !gpuos.tensor<32x1024xf32>, rms : !gpuos.tensor<32x1024xf32>)
// NORM: gpuos.softmax
// NORM: gpuos.layer_norm
// NORM: gpuos.rms_norm

// RUN: gpuos-opt %S/../../examples/decode_step.mlir --pass-pipeline='builtin.module(canonicalize,gpuos.graph(gpuos-topological-sort))' | FileCheck %s --check-prefix=DECODE
// DECODE: -> (logits : !gpuos.tensor<1x1024xf32>, token : !gpuos.tensor<1xi64>) priority #gpuos.priority<urgent, deadline_us = 500>
// DECODE-COUNT-2: gpuos.softmax
// DECODE: gpuos.argmax
