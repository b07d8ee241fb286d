gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<-2x4xf32>) {
  %y = gpuos.broadcast %x to [-2, 4] : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<-2x4xf32>
}
