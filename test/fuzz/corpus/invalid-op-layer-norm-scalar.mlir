gpuos.graph @g(%x : !gpuos.tensor<f32>) -> (y : !gpuos.tensor<f32>) {
  %y = gpuos.layer_norm %x eps 1.0 : !gpuos.tensor<f32>
  gpuos.yield %y : !gpuos.tensor<f32>
}
