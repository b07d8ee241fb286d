gpuos.graph @g(%a : !gpuos.tensor<2x4x4xf32>, %b : !gpuos.tensor<3x4x4xf32>) -> (y : !gpuos.tensor<2x4x4xf32>) {
  %y = gpuos.matmul %a, %b : !gpuos.tensor<2x4x4xf32>, !gpuos.tensor<3x4x4xf32>
  gpuos.yield %y : !gpuos.tensor<2x4x4xf32>
}
