gpuos.graph @g() -> (y : !gpuos.tensor<?xf32>) {
  %y = gpuos.constant dense<1.0> : tensor<?xf32>
  gpuos.yield %y : !gpuos.tensor<?xf32>
}
