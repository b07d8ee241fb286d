gpuos.graph @b(%c : !gpuos.tensor<?x1xf32, strides = [?, 0]>) -> (y : !gpuos.tensor<2x?x5xf32, strides = [0, ?, 0]>) {
  %y = gpuos.broadcast %c to [2, ?, 5] : !gpuos.tensor<?x1xf32, strides = [?, 0]>
  gpuos.yield %y : !gpuos.tensor<2x?x5xf32, strides = [0, ?, 0]>
}
