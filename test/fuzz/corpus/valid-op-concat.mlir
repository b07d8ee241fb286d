gpuos.graph @c(%a : !gpuos.tensor<4x8xf32>, %b : !gpuos.tensor<4x2xf32>, %c : !gpuos.tensor<4x?xf32>) -> (y : !gpuos.tensor<4x?xf32>) {
  %y = gpuos.concat %a, %b, %c axis 1 : !gpuos.tensor<4x8xf32>, !gpuos.tensor<4x2xf32>, !gpuos.tensor<4x?xf32>
  gpuos.yield %y : !gpuos.tensor<4x?xf32>
}
