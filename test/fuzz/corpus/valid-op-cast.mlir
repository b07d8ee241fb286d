gpuos.graph @cast(%x : !gpuos.tensor<4xbf16>) -> (y : !gpuos.tensor<4xi1>) {
  %y = gpuos.cast %x : !gpuos.tensor<4xbf16> to i1
  gpuos.yield %y : !gpuos.tensor<4xi1>
}
