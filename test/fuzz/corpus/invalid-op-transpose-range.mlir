gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4x8xf32>) {
  %y = gpuos.transpose %x [0, 2] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4x8xf32>
}
