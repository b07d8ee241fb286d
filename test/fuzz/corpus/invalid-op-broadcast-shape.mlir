gpuos.graph @g(%x : !gpuos.tensor<4x2xf32>, %x2 : !gpuos.tensor<3xf32>) -> (y : !gpuos.tensor<4x3xf32>) {
  %y = gpuos.add %x, %x2 : !gpuos.tensor<4x2xf32>, !gpuos.tensor<3xf32>
  gpuos.yield %y : !gpuos.tensor<4x3xf32>
}
