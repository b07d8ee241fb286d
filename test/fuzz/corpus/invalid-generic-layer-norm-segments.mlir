gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = "gpuos.layer_norm"(%x, %x) <{epsilon = 1.0 : f64, operandSegmentSizes = array<i32: 1, 2, 0>}> : (!gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>) -> !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
