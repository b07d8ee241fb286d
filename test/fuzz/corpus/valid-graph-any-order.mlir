gpuos.graph @any_order(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.add %b, %a : !gpuos.tensor<4xf32>, !gpuos.tensor<4xf32>
  %b = gpuos.exp %a : !gpuos.tensor<4xf32>
  %a = gpuos.neg %x : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
