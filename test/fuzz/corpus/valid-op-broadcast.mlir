gpuos.graph @b(%c : !gpuos.tensor<4x1xf32>) -> (y : !gpuos.tensor<2x4x3xf32, strides = [0, 1, 0]>) {
  %y = gpuos.broadcast %c to [2, 4, 3] : !gpuos.tensor<4x1xf32>
  gpuos.yield %y : !gpuos.tensor<2x4x3xf32, strides = [0, 1, 0]>
}
