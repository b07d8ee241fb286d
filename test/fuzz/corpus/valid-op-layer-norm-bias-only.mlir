gpuos.graph @ln(%x : !gpuos.tensor<4x?xf32>, %b : !gpuos.tensor<64xf32>) -> (y : !gpuos.tensor<4x?xf32>) {
  %y = gpuos.layer_norm %x bias(%b : !gpuos.tensor<64xf32>) eps 1.0e-05 : !gpuos.tensor<4x?xf32>
  gpuos.yield %y : !gpuos.tensor<4x?xf32>
}
