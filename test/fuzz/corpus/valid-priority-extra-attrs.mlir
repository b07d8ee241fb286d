gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>)
    priority #gpuos.priority<urgent, deadline_us = 9223372036854775807> attributes {gpuos.origin = "torch", n = 3 : i64} {
  %y = gpuos.neg %x : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
