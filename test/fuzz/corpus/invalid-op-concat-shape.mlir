gpuos.graph @g(%a : !gpuos.tensor<4x8xf32>, %b : !gpuos.tensor<3x2xf32>) -> (y : !gpuos.tensor<4x10xf32>) {
  %y = gpuos.concat %a, %b axis 1 : !gpuos.tensor<4x8xf32>, !gpuos.tensor<3x2xf32>
  gpuos.yield %y : !gpuos.tensor<4x10xf32>
}
