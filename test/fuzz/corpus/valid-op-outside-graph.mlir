%c = gpuos.constant dense<1.0> : tensor<4xf32>
