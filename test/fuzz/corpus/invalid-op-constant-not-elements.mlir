gpuos.graph @g() -> (y : !gpuos.tensor<f32>) {
  %y = gpuos.constant 1.0 : f32
  gpuos.yield %y : !gpuos.tensor<f32>
}
