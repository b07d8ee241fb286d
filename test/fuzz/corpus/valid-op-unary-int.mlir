gpuos.graph @chain(%x : !gpuos.tensor<4x8xi32>) -> (y : !gpuos.tensor<4x8xi32>) {
  %v0 = gpuos.neg %x : !gpuos.tensor<4x8xi32>
  %v1 = gpuos.abs %v0 : !gpuos.tensor<4x8xi32>
  %v2 = gpuos.relu %v1 : !gpuos.tensor<4x8xi32>
  gpuos.yield %v2 : !gpuos.tensor<4x8xi32>
}
