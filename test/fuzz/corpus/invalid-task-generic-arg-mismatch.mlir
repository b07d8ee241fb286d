gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = "gpuos.task"(%x) <{kind = "t", tile = array<i64: 4>}> ({
  ^bb0(%a: !gpuos.tensor<4xf16>, %b: !gpuos.tensor<4xf16>):
    "gpuos.yield"(%x) : (!gpuos.tensor<4xf32>) -> ()
  }) : (!gpuos.tensor<4xf32>) -> !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
