// RUN: gpuos-interp %s --print-values=4 | FileCheck %s

gpuos.graph @reductions() -> (sum : !gpuos.tensor<2x1xf32>, mean : !gpuos.tensor<4xf32>,
                              max : !gpuos.tensor<f32>, min : !gpuos.tensor<2xf32>,
                              arg : !gpuos.tensor<2xi64>) {
  %x = gpuos.constant dense<[[1.0, 3.0, 3.0, 2.0], [-1.0, -2.0, 0.5, 4.0]]> : tensor<2x4xf32>
  %sum = gpuos.reduce sum %x axes [1] keepdim : !gpuos.tensor<2x4xf32>
  %mean = gpuos.reduce mean %x axes [0] : !gpuos.tensor<2x4xf32>
  %max = gpuos.reduce max %x axes [1, 0] : !gpuos.tensor<2x4xf32>
  %min = gpuos.reduce min %x axes [1] : !gpuos.tensor<2x4xf32>
  %arg = gpuos.argmax %x axis 1 : !gpuos.tensor<2x4xf32>
  gpuos.yield %sum, %mean, %max, %min, %arg
      : !gpuos.tensor<2x1xf32>, !gpuos.tensor<4xf32>, !gpuos.tensor<f32>,
        !gpuos.tensor<2xf32>, !gpuos.tensor<2xi64>
}

// CHECK-LABEL: graph @reductions
// CHECK:      output sum : !gpuos.tensor<2x1xf32>
// CHECK-NEXT:   min 1.5 max 9 mean 5.25 sum 10.5
// CHECK-NEXT:   values: 9 1.5
// CHECK-NEXT: output mean : !gpuos.tensor<4xf32>
// CHECK-NEXT:   min 0 max 3 mean 1.3125 sum 5.25
// CHECK-NEXT:   values: 0 0.5 1.75 3
// CHECK-NEXT: output max : !gpuos.tensor<f32>
// CHECK-NEXT:   min 4 max 4 mean 4 sum 4
// CHECK-NEXT:   values: 4
// CHECK-NEXT: output min : !gpuos.tensor<2xf32>
// CHECK-NEXT:   min -2 max 1 mean -0.5 sum -1
// CHECK-NEXT:   values: 1 -2
// The tie between the two 3s resolves to the first.
// CHECK-NEXT: output arg : !gpuos.tensor<2xi64>
// CHECK-NEXT:   min 1 max 3 mean 2 sum 4
// CHECK-NEXT:   values: 1 3
