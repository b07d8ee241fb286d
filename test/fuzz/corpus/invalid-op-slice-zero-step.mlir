gpuos.graph @g(%x : !gpuos.tensor<8xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.slice %x starts [0] sizes [4] steps [0] : !gpuos.tensor<8xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
