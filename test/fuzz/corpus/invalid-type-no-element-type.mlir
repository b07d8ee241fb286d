gpuos.graph @g(%x : !gpuos.tensor<4x8>) -> (y : !gpuos.tensor<4x8>) {
  gpuos.yield %x : !gpuos.tensor<4x8>
}
