gpuos.graph @t(%x : !gpuos.tensor<2x3xf32>) -> (y : !gpuos.tensor<2x3xf32>) {
  %y = gpuos.transpose %x [0, 1] : !gpuos.tensor<2x3xf32>
  gpuos.yield %y : !gpuos.tensor<2x3xf32>
}
