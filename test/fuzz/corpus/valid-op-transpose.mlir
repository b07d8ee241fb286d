gpuos.graph @t(%x : !gpuos.tensor<2x3x4xf32>) -> (y : !gpuos.tensor<4x2x3xf32, strides = [1, 12, 4]>) {
  %y = gpuos.transpose %x [2, 0, 1] : !gpuos.tensor<2x3x4xf32>
  gpuos.yield %y : !gpuos.tensor<4x2x3xf32, strides = [1, 12, 4]>
}
