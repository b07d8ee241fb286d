gpuos.graph @r(%x : !gpuos.tensor<?xf32>) -> (y : !gpuos.tensor<?x4xf32>) {
  %y = gpuos.reshape %x to [?, 4] : !gpuos.tensor<?xf32>
  gpuos.yield %y : !gpuos.tensor<?x4xf32>
}
