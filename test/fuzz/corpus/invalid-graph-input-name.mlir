gpuos.graph @g(%0 : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  gpuos.yield %0 : !gpuos.tensor<4xf32>
}
