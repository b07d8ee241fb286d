gpuos.graph @cmp(%a : !gpuos.tensor<4x8xi8>, %b : !gpuos.tensor<8xi8>) -> (eq : !gpuos.tensor<4x8xi1>, ne : !gpuos.tensor<4x8xi1>, lt : !gpuos.tensor<4x8xi1>, le : !gpuos.tensor<4x8xi1>, gt : !gpuos.tensor<4x8xi1>, ge : !gpuos.tensor<4x8xi1>) {
  %eq = gpuos.cmp eq, %a, %b : !gpuos.tensor<4x8xi8>, !gpuos.tensor<8xi8>
  %ne = gpuos.cmp ne, %a, %b : !gpuos.tensor<4x8xi8>, !gpuos.tensor<8xi8>
  %lt = gpuos.cmp lt, %a, %b : !gpuos.tensor<4x8xi8>, !gpuos.tensor<8xi8>
  %le = gpuos.cmp le, %a, %b : !gpuos.tensor<4x8xi8>, !gpuos.tensor<8xi8>
  %gt = gpuos.cmp gt, %a, %b : !gpuos.tensor<4x8xi8>, !gpuos.tensor<8xi8>
  %ge = gpuos.cmp ge, %a, %b : !gpuos.tensor<4x8xi8>, !gpuos.tensor<8xi8>
  gpuos.yield %eq, %ne, %lt, %le, %gt, %ge : !gpuos.tensor<4x8xi1>, !gpuos.tensor<4x8xi1>, !gpuos.tensor<4x8xi1>, !gpuos.tensor<4x8xi1>, !gpuos.tensor<4x8xi1>, !gpuos.tensor<4x8xi1>
}
