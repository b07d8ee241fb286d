gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  gpuos.yield %x, %x : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
}
