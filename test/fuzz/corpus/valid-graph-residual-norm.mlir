gpuos.graph @residual_norm(%x : !gpuos.tensor<1x4096xf32>,
                           %w : !gpuos.tensor<4096xf32>)
    -> (y : !gpuos.tensor<1x4096xf32>)
    priority #gpuos.priority<urgent, deadline_us = 200> {
  %n = gpuos.rms_norm %x weight(%w : !gpuos.tensor<4096xf32>) eps 1.0e-06
      : !gpuos.tensor<1x4096xf32>
  %y = gpuos.add %x, %n : !gpuos.tensor<1x4096xf32>, !gpuos.tensor<1x4096xf32>
  gpuos.yield %y : !gpuos.tensor<1x4096xf32>
}
