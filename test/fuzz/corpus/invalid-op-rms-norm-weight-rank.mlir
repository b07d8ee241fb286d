gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>, %w : !gpuos.tensor<1x8xf32>) -> (y : !gpuos.tensor<4x8xf32>) {
  %y = gpuos.rms_norm %x weight(%w : !gpuos.tensor<1x8xf32>) eps 1.0 : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4x8xf32>
}
