gpuos.graph @ln(%x : !gpuos.tensor<4x64xf16>, %w : !gpuos.tensor<64xf16>, %b : !gpuos.tensor<64xf16>) -> (y : !gpuos.tensor<4x64xf16>) {
  %y = gpuos.layer_norm %x weight(%w : !gpuos.tensor<64xf16>) bias(%b : !gpuos.tensor<64xf16>) eps 1.0e-05 : !gpuos.tensor<4x64xf16>
  gpuos.yield %y : !gpuos.tensor<4x64xf16>
}
