gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4x3xf32>) {
  %y = gpuos.slice %x starts [0, 4] sizes [4, 3] steps [1, 2] : !gpuos.tensor<4x8xf32>
  gpuos.yield %y : !gpuos.tensor<4x3xf32>
}
