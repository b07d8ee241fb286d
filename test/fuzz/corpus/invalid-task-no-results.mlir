gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  gpuos.task "t" ins(%a = %x : !gpuos.tensor<4xf32>) tile [] -> () {
    gpuos.yield
  }
  gpuos.yield %x : !gpuos.tensor<4xf32>
}
