gpuos.graph @bin(%a : !gpuos.tensor<4x8xf32>, %b : !gpuos.tensor<8xf32>) -> (y : !gpuos.tensor<4x8xf32>) {
  %v0 = gpuos.add %a, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
  %v1 = gpuos.sub %v0, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
  %v2 = gpuos.mul %v1, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
  %v3 = gpuos.div %v2, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
  %v4 = gpuos.max %v3, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
  %v5 = gpuos.min %v4, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
  %v6 = gpuos.pow %v5, %b : !gpuos.tensor<4x8xf32>, !gpuos.tensor<8xf32>
  gpuos.yield %v6 : !gpuos.tensor<4x8xf32>
}
