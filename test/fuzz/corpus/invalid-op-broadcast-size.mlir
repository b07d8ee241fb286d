gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<3x5xf32>) {
  %y = gpuos.broadcast %x to [3, 5] : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<3x5xf32>
}
