gpuos.graph @g(%x : !gpuos.vector<4xf32>) -> (y : !gpuos.vector<4xf32>) {
  gpuos.yield %x : !gpuos.vector<4xf32>
}
