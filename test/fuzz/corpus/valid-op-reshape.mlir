gpuos.graph @r(%x : !gpuos.tensor<2048xf32>) -> (y : !gpuos.tensor<32x64xf32>) {
  %y = gpuos.reshape %x to [32, 64] : !gpuos.tensor<2048xf32>
  gpuos.yield %y : !gpuos.tensor<32x64xf32>
}
