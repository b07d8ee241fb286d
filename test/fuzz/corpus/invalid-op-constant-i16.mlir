gpuos.graph @g() -> (y : !gpuos.tensor<4xi16>) {
  %y = gpuos.constant dense<1> : tensor<4xi16>
  gpuos.yield %y : !gpuos.tensor<4xi16>
}
