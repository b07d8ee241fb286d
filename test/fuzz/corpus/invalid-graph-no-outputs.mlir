gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> () {
  gpuos.yield
}
