gpuos.graph @p(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) priority #gpuos.priority<background, deadline_us = 10> {
  %y = gpuos.neg %x : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
