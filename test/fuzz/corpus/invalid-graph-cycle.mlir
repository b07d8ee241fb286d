gpuos.graph @cycle(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %a = gpuos.add %x, %b : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  %b = gpuos.exp %a : !gpuos.tensor<4xf32>
  %y = gpuos.neg %b : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
