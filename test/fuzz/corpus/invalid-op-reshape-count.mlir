gpuos.graph @g(%x : !gpuos.tensor<8xf32>) -> (y : !gpuos.tensor<3x3xf32>) {
  %y = gpuos.reshape %x to [3, 3] : !gpuos.tensor<8xf32>
  gpuos.yield %y : !gpuos.tensor<3x3xf32>
}
