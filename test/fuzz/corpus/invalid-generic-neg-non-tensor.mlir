gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %c = "gpuos.neg"(%x) : (!gpuos.tensor<4xf32>) -> f32
  gpuos.yield %x : !gpuos.tensor<4xf32>
}
