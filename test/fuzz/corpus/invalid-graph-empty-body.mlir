gpuos.graph @g() -> (y : !gpuos.tensor<4xf32>) {
}
