gpuos.graph @mm(%a : !gpuos.tensor<?x2x?x8xf16>, %b : !gpuos.tensor<3x1x8x?xf16>) -> (y : !gpuos.tensor<3x2x?x?xf16>) {
  %y = gpuos.matmul %a, %b : !gpuos.tensor<?x2x?x8xf16>, !gpuos.tensor<3x1x8x?xf16>
  gpuos.yield %y : !gpuos.tensor<3x2x?x?xf16>
}
