gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = "gpuos.task"(%x) <{kind = "t", tile = [4]}> ({
  ^bb0(%a: !gpuos.tensor<4xf32>):
    "gpuos.yield"(%a) : (!gpuos.tensor<4xf32>) -> ()
  }) : (!gpuos.tensor<4xf32>) -> !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
