gpuos.graph @s(%x : !gpuos.tensor<?x8xf32, strides = [?, 3]>) -> (y : !gpuos.tensor<2x2xf32, strides = [?, 12]>) {
  %y = gpuos.slice %x starts [5, 1] sizes [2, 2] steps [7, 4] : !gpuos.tensor<?x8xf32, strides = [?, 3]>
  gpuos.yield %y : !gpuos.tensor<2x2xf32, strides = [?, 12]>
}
