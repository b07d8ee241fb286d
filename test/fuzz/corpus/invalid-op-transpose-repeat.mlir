gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4x4xf32>) {
  %y = gpuos.transpose %x [1, 1] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4x4xf32>
}
