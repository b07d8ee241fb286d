gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = "gpuos.cast"(%x) <{dtype = !gpuos.tensor<f32>}> : (!gpuos.tensor<4xf32>) -> !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
