gpuos.graph @g(%a : !gpuos.tensor<4xi1>) -> (y : !gpuos.tensor<4xi1>) {
  %y = gpuos.cmp eq, %a, %a : !gpuos.tensor<4xi1>, !gpuos.tensor<4xi1>
  gpuos.yield %y : !gpuos.tensor<4xi1>
}
