gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.cast %x : !gpuos.tensor<4xf32> to 3
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
