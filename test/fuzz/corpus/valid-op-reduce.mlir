gpuos.graph @r(%x : !gpuos.tensor<4x8x16xf32>, %i : !gpuos.tensor<4x8xi64>) -> (s : !gpuos.tensor<4x1x16xf32>, m : !gpuos.tensor<8xf32>, x_max : !gpuos.tensor<f32>, mn : !gpuos.tensor<8xi64>) {
  %s = gpuos.reduce sum %x axes [1] keepdim : !gpuos.tensor<4x8x16xf32>
  %m = gpuos.reduce mean %x axes [2, 0] : !gpuos.tensor<4x8x16xf32>
  %x_max = gpuos.reduce max %x axes [0, 1, 2] : !gpuos.tensor<4x8x16xf32>
  %mn = gpuos.reduce min %i axes [0] : !gpuos.tensor<4x8xi64>
  gpuos.yield %s, %m, %x_max, %mn : !gpuos.tensor<4x1x16xf32>, !gpuos.tensor<8xf32>, !gpuos.tensor<f32>, !gpuos.tensor<8xi64>
}
