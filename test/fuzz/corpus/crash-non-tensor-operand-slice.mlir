%y = gpuos.slice %x starts [0] sizes [1] steps [1] : tensor<4xf32>
