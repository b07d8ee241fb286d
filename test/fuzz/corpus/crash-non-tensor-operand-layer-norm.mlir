%y = gpuos.layer_norm %x bias(%b : f32) eps 1.0 : !gpuos.tensor<4xf32>
