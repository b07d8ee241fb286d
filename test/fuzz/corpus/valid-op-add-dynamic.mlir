gpuos.graph @dyn(%a : !gpuos.tensor<?x1xf32>, %b : !gpuos.tensor<1x?xf32>) -> (y : !gpuos.tensor<?x?xf32>) {
  %y = gpuos.add %a, %b : !gpuos.tensor<?x1xf32>, !gpuos.tensor<1x?xf32>
  gpuos.yield %y : !gpuos.tensor<?x?xf32>
}
