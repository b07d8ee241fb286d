gpuos.graph @pow(%a : !gpuos.tensor<?x8xf32>, %b : !gpuos.tensor<f32>) -> (y : !gpuos.tensor<?x8xf32>) {
  %y = gpuos.pow %a, %b : !gpuos.tensor<?x8xf32>, !gpuos.tensor<f32>
  gpuos.yield %y : !gpuos.tensor<?x8xf32>
}
