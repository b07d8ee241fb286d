gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  gpuos.yield %x : !gpuos.tensor<4xf32>
}
gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  gpuos.yield %x : !gpuos.tensor<4xf32>
}
