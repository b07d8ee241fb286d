// RUN: gpuos-opt %s --pass-pipeline='builtin.module(gpuos.graph(gpuos-topological-sort))' | FileCheck %s

// Uses written before their definitions are reordered def-before-use;
// independent ops keep their written order.

// CHECK-LABEL: gpuos.graph @reversed
// CHECK: %[[A:.+]] = gpuos.neg %x
// CHECK-NEXT: %[[B:.+]] = gpuos.exp %[[A]]
// CHECK-NEXT: %[[C:.+]] = gpuos.add %[[B]], %[[A]]
// CHECK-NEXT: gpuos.yield %[[C]]
gpuos.graph @reversed(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %c = gpuos.add %b, %a : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  %b = gpuos.exp %a : !gpuos.tensor<4xf32>
  %a = gpuos.neg %x : !gpuos.tensor<4xf32>
  gpuos.yield %c : !gpuos.tensor<4xf32>
}

// CHECK-LABEL: gpuos.graph @independent
// CHECK: gpuos.tanh %x
// CHECK-NEXT: gpuos.sqrt %x
// CHECK-NEXT: gpuos.exp %x
gpuos.graph @independent(%x : !gpuos.tensor<4xf32>)
    -> (a : !gpuos.tensor<4xf32>, b : !gpuos.tensor<4xf32>, c : !gpuos.tensor<4xf32>) {
  %a = gpuos.tanh %x : !gpuos.tensor<4xf32>
  %b = gpuos.sqrt %x : !gpuos.tensor<4xf32>
  %c = gpuos.exp %x : !gpuos.tensor<4xf32>
  gpuos.yield %a, %b, %c : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
}

// An op that uses one value twice waits for that producer once.
// CHECK-LABEL: gpuos.graph @repeated_use
// CHECK: %[[A:.+]] = gpuos.neg %x
// CHECK-NEXT: %[[B:.+]] = gpuos.exp %[[A]]
// CHECK-NEXT: %[[C:.+]] = gpuos.mul %[[B]], %[[B]]
// CHECK-NEXT: %[[D:.+]] = gpuos.add %[[C]], %[[A]]
// CHECK-NEXT: gpuos.yield %[[D]]
gpuos.graph @repeated_use(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %d = gpuos.add %c, %a : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  %c = gpuos.mul %b, %b : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  %b = gpuos.exp %a : !gpuos.tensor<4xf32>
  %a = gpuos.neg %x : !gpuos.tensor<4xf32>
  gpuos.yield %d : !gpuos.tensor<4xf32>
}
