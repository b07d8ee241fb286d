// RUN: gpuos-interp %s --print-values=6 | FileCheck %s

// Constant inputs make every value exact. Broadcasting: %r (3) runs along
// rows, %c (2x1) along columns.
gpuos.graph @elementwise() -> (p : !gpuos.tensor<2x3xf32>, m : !gpuos.tensor<2x3xf32>,
                               q : !gpuos.tensor<2x3xi32>) {
  %a = gpuos.constant dense<[[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]]> : tensor<2x3xf32>
  %r = gpuos.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %c = gpuos.constant dense<[[0.5], [2.0]]> : tensor<2x1xf32>
  %s = gpuos.add %a, %r : !gpuos.tensor<2x3xf32>, !gpuos.tensor<3xf32>
  %p = gpuos.mul %s, %c : !gpuos.tensor<2x3xf32>, !gpuos.tensor<2x1xf32>
  %n = gpuos.neg %a : !gpuos.tensor<2x3xf32>
  %k = gpuos.min %n, %c : !gpuos.tensor<2x3xf32>, !gpuos.tensor<2x1xf32>
  %m = gpuos.relu %k : !gpuos.tensor<2x3xf32>
  %i = gpuos.constant dense<[[7, -7, 100], [3, 0, -9]]> : tensor<2x3xi32>
  %d = gpuos.constant dense<[2, 0, -3]> : tensor<3xi32>
  %q = gpuos.div %i, %d : !gpuos.tensor<2x3xi32>, !gpuos.tensor<3xi32>
  gpuos.yield %p, %m, %q : !gpuos.tensor<2x3xf32>, !gpuos.tensor<2x3xf32>, !gpuos.tensor<2x3xi32>
}

// CHECK:      graph @elementwise seed 0
// CHECK-NEXT: output p : !gpuos.tensor<2x3xf32>
// CHECK-NEXT:   min 5.5 max 50 mean 23.5 sum 141
// CHECK-NEXT:   values: 5.5 9 16.5 12 50 48
// CHECK-NEXT: output m : !gpuos.tensor<2x3xf32>
// CHECK-NEXT:   min 0 max 2 mean 0.75 sum 4.5
// CHECK-NEXT:   values: 0 0.5 0 2 0 2
// Integer division truncates toward zero; x / 0 is defined as 0.
// CHECK-NEXT: output q : !gpuos.tensor<2x3xi32>
// CHECK-NEXT:   min -33 max 3 mean -4.33333 sum -26
// CHECK-NEXT:   values: 3 0 -33 1 0 3
