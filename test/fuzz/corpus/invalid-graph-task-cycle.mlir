gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.task "t" ins(%a = %z : !gpuos.tensor<4xf32>) tile [4] -> (!gpuos.tensor<4xf32>) {
    gpuos.yield %a : !gpuos.tensor<4xf32>
  }
  %z = gpuos.add %x, %y : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
