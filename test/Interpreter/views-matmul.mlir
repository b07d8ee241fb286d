// RUN: gpuos-interp %s | FileCheck %s

// a = [[1, 2, 3], [4, 5, 6]], b = [[1, 0], [0, 1], [1, 1]].
gpuos.graph @views_matmul() -> (mm : !gpuos.tensor<2x2xf32>, sum : !gpuos.tensor<2x2xf32>,
                                cat : !gpuos.tensor<4x2xf32>) {
  %a = gpuos.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = gpuos.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %mm = gpuos.matmul %a, %b : !gpuos.tensor<2x3xf32>, !gpuos.tensor<3x2xf32>
  // a * a^T = [[14, 32], [32, 77]].
  %gram = gpuos.matmul %a, %a transpose_rhs : !gpuos.tensor<2x3xf32>, !gpuos.tensor<2x3xf32>
  // Rows 0 and 2 of a^T: [[1, 4], [3, 6]].
  %t = gpuos.transpose %a [1, 0] : !gpuos.tensor<2x3xf32>
  %s = gpuos.slice %t starts [0, 0] sizes [2, 2] steps [2, 1] : !gpuos.tensor<3x2xf32, strides = [1, 3]>
  %sum = gpuos.add %s, %mm : !gpuos.tensor<2x2xf32, strides = [2, 3]>, !gpuos.tensor<2x2xf32>
  %cat = gpuos.concat %mm, %gram axis 0 : !gpuos.tensor<2x2xf32>, !gpuos.tensor<2x2xf32>
  gpuos.yield %mm, %sum, %cat : !gpuos.tensor<2x2xf32>, !gpuos.tensor<2x2xf32>, !gpuos.tensor<4x2xf32>
}

// CHECK:      output mm : !gpuos.tensor<2x2xf32>
// CHECK-NEXT:   min 4 max 11 mean 7.5 sum 30
// CHECK-NEXT:   values: 4 5 10 11
// CHECK-NEXT: output sum : !gpuos.tensor<2x2xf32>
// CHECK-NEXT:   min 5 max 17 mean 11 sum 44
// CHECK-NEXT:   values: 5 9 13 17
// CHECK-NEXT: output cat : !gpuos.tensor<4x2xf32>
// CHECK-NEXT:   min 4 max 77 mean 23.125 sum 185
// CHECK-NEXT:   values: 4 5 10 11 14 32 32 77
