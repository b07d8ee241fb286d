gpuos.graph @add(%a : !gpuos.tensor<4x1xi64>, %b : !gpuos.tensor<8xi64>) -> (y : !gpuos.tensor<4x8xi64>) {
  %y = gpuos.add %a, %b : !gpuos.tensor<4x1xi64>, !gpuos.tensor<8xi64>
  gpuos.yield %y : !gpuos.tensor<4x8xi64>
}
