gpuos.graph @g(%a : !gpuos.tensor<4xf32>, %b : !gpuos.tensor<4xf16>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.add %a, %b : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf16>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
