gpuos.graph @g(%a : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<8xf32>) {
  %y = gpuos.concat %a, %a axis 1 : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<8xf32>
}
