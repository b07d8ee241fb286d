gpuos.graph @sel(%m : !gpuos.tensor<32x32xi1>, %x : !gpuos.tensor<32x32xf32>, %n : !gpuos.tensor<f32>) -> (y : !gpuos.tensor<32x32xf32>) {
  %y = gpuos.select %m, %x, %n : !gpuos.tensor<32x32xi1>, !gpuos.tensor<32x32xf32>, !gpuos.tensor<f32>
  gpuos.yield %y : !gpuos.tensor<32x32xf32>
}
