gpuos.graph @c(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4x8xf32>) {
  %c = gpuos.constant dense<1.0e-05> : tensor<4x8xf32>
  %y = gpuos.add %x, %c : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4x8xf32>
}
