gpuos.graph @rms(%x : !gpuos.tensor<1x4096xbf16>, %w : !gpuos.tensor<4096xbf16>) -> (y : !gpuos.tensor<1x4096xbf16>) {
  %y = gpuos.rms_norm %x weight(%w : !gpuos.tensor<4096xbf16>) eps 1.0e-06 : !gpuos.tensor<1x4096xbf16>
  gpuos.yield %y : !gpuos.tensor<1x4096xbf16>
}
