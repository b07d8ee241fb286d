gpuos.graph @g(%x : !gpuos.tensor<8xf32>) -> (y : !gpuos.tensor<-1x8xf32>) {
  %y = gpuos.reshape %x to [-1, 8] : !gpuos.tensor<8xf32>
  gpuos.yield %y : !gpuos.tensor<-1x8xf32>
}
