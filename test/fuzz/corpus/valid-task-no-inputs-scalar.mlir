gpuos.graph @g() -> (y : !gpuos.tensor<f32>) {
  %y = gpuos.task "const" ins() tile [] -> (!gpuos.tensor<f32>) {
    %c = gpuos.constant dense<1.0> : tensor<f32>
    gpuos.yield %c : !gpuos.tensor<f32>
  }
  gpuos.yield %y : !gpuos.tensor<f32>
}
