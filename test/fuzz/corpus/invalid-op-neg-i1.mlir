gpuos.graph @g(%x : !gpuos.tensor<4xi1>) -> (y : !gpuos.tensor<4xi1>) {
  %y = gpuos.neg %x : !gpuos.tensor<4xi1>
  gpuos.yield %y : !gpuos.tensor<4xi1>
}
