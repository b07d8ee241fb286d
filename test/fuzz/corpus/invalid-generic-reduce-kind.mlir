gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<f32>) {
  %y = "gpuos.reduce"(%x) <{axes = array<i64: 0>, kind = 9 : i32}> : (!gpuos.tensor<4xf32>) -> !gpuos.tensor<f32>
  gpuos.yield %y : !gpuos.tensor<f32>
}
