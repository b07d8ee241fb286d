gpuos.graph @g(%x : !gpuos.tensor<4xf32, strides = []>) -> (y : !gpuos.tensor<4xf32, strides = []>) {
  gpuos.yield %x : !gpuos.tensor<4xf32, strides = []>
}
