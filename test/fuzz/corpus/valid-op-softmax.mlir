gpuos.graph @s(%x : !gpuos.tensor<32x32xf32, strides = [1, 32]>) -> (y : !gpuos.tensor<32x32xf32>) {
  %y = gpuos.softmax %x axis 0 : !gpuos.tensor<32x32xf32, strides = [1, 32]>
  gpuos.yield %y : !gpuos.tensor<32x32xf32>
}
