gpuos.graph @b(%c : !gpuos.tensor<?x1xf32, strides = [?, 0]>) -> (y : !gpuos.tensor<?x?x5xf32, strides = [0, ?, 0]>) {
  %y = gpuos.broadcast %c to [?, ?, 5] : !gpuos.tensor<?x1xf32, strides = [?, 0]>
  gpuos.yield %y : !gpuos.tensor<?x?x5xf32, strides = [0, ?, 0]>
}
