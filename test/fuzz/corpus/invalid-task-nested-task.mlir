gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4x8xf32>) {
  %y = gpuos.task "t" ins(%a = %x : !gpuos.tensor<4x8xf32>) tile [1, 8] -> (!gpuos.tensor<4x8xf32>) {
    %i = gpuos.task "i" ins(%b = %a : !gpuos.tensor<4x8xf32>) tile [1, 8] -> (!gpuos.tensor<4x8xf32>) {
      gpuos.yield %b : !gpuos.tensor<4x8xf32>
    }
    gpuos.yield %i : !gpuos.tensor<4x8xf32>
  }
  gpuos.yield %y : !gpuos.tensor<4x8xf32>
}
