gpuos.graph @g(%x : !gpuos.tensor<4x4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.reduce sum %x axes [1, 1] : !gpuos.tensor<4x4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
