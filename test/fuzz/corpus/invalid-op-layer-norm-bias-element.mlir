gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>, %b : !gpuos.tensor<8xf16>) -> (y : !gpuos.tensor<4x8xf32>) {
  %y = gpuos.layer_norm %x bias(%b : !gpuos.tensor<8xf16>) eps 1.0 : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4x8xf32>
}
