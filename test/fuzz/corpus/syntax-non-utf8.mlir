gpuos.graph @gÿþ(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {}
