%y = gpuos.matmul %a, %b : !gpuos.tensor<4x4xf32>, tuple<>
