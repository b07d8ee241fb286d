gpuos.graph @g(%a : !gpuos.tensor<4xf32>, %b : !gpuos.tensor<1x4xf32>) -> (y : !gpuos.tensor<8xf32>) {
  %y = gpuos.concat %a, %b axis 0 : !gpuos.tensor<4xf32>, !gpuos.tensor<1x4xf32>
  gpuos.yield %y : !gpuos.tensor<8xf32>
}
