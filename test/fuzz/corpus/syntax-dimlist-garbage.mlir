gpuos.graph @b(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.broadcast %x to [4, x] : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
