gpuos.graph @g() -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.concat axis 0 :
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
