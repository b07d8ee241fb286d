gpuos.graph @g(%x : !gpuos.tensor<4x8xf32>) -> (y : !gpuos.tensor<4x8xf32>) {
  %y = gpuos.task "t" ins(%a = %x : !gpuos.tensor<4x8xf32>) tile [1, 8] -> (!gpuos.tensor<4x8xf32>) {
    %n = gpuos.cast %a : !gpuos.tensor<4x8xf32> to f16
    gpuos.yield %n : !gpuos.tensor<4x8xf16>
  }
  gpuos.yield %y : !gpuos.tensor<4x8xf32>
}
