gpuos.graph @g(%x : !gpuos.tensor<4xi32>) -> (y : !gpuos.tensor<i32>) {
  %y = gpuos.reduce mean %x axes [0] : !gpuos.tensor<4xi32>
  gpuos.yield %y : !gpuos.tensor<i32>
}
