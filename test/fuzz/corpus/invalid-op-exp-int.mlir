gpuos.graph @g(%x : !gpuos.tensor<4xi32>) -> (y : !gpuos.tensor<4xi32>) {
  %y = gpuos.exp %x : !gpuos.tensor<4xi32>
  gpuos.yield %y : !gpuos.tensor<4xi32>
}
