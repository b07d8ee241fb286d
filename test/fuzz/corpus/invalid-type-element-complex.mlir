gpuos.graph @g(%x : !gpuos.tensor<4xcomplex<f32>>) -> (y : !gpuos.tensor<4xcomplex<f32>>) {
  gpuos.yield %x : !gpuos.tensor<4xcomplex<f32>>
}
