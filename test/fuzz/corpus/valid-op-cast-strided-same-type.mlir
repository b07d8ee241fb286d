gpuos.graph @cast(%x : !gpuos.tensor<4x2xf32, strides = [1, 4]>) -> (y : !gpuos.tensor<4x2xf32>) {
  %y = gpuos.cast %x : !gpuos.tensor<4x2xf32, strides = [1, 4]> to f32
  gpuos.yield %y : !gpuos.tensor<4x2xf32>
}
