gpuos.graph @g(%a : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xi1>) {
  %y = gpuos.cmp approx, %a, %a : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xi1>
}
