%y = gpuos.concat %a, %b axis 0 : !gpuos.tensor<4xf32>, i8
