gpuos.graph @g(%a : !gpuos.tensor<9223372036854775807xf32>, %b : !gpuos.tensor<1xf32>) -> (y : !gpuos.tensor<?xf32>) {
  %y = gpuos.concat %a, %b axis 0 : !gpuos.tensor<9223372036854775807xf32>, !gpuos.tensor<1xf32>
  gpuos.yield %y : !gpuos.tensor<?xf32>
}
