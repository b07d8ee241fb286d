gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<f32>) {
  %y = gpuos.reduce prod %x axes [0] : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<f32>
}
