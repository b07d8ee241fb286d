gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xi16>) {
  %y = gpuos.cast %x : !gpuos.tensor<4xf32> to i16
  gpuos.yield %y : !gpuos.tensor<4xi16>
}
