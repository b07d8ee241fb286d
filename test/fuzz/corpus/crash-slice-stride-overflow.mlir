gpuos.graph @g(%x : !gpuos.tensor<?xf32, strides = [4611686018427387904]>) -> (y : !gpuos.tensor<1xf32>) {
  %y = gpuos.slice %x starts [0] sizes [1] steps [4] : !gpuos.tensor<?xf32, strides = [4611686018427387904]>
  gpuos.yield %y : !gpuos.tensor<1xf32>
}
