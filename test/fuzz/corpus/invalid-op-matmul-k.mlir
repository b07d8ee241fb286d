gpuos.graph @g(%a : !gpuos.tensor<4x8xf32>, %b : !gpuos.tensor<4x4xf32>) -> (y : !gpuos.tensor<4x4xf32>) {
  %y = gpuos.matmul %a, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x4xf32>
  gpuos.yield %y : !gpuos.tensor<4x4xf32>
}
