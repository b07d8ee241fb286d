gpuos.graph @g(%x : !gpuos.tensor<2x4xf32, strides = [1, 2]>) -> (y : !gpuos.tensor<8xf32>) {
  %y = gpuos.reshape %x to [8] : !gpuos.tensor<2x4xf32, strides = [1, 2]>
  gpuos.yield %y : !gpuos.tensor<8xf32>
}
