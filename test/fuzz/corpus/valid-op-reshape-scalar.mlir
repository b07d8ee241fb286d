gpuos.graph @r(%x : !gpuos.tensor<1x1xi8>) -> (y : !gpuos.tensor<i8>) {
  %y = gpuos.reshape %x to [] : !gpuos.tensor<1x1xi8>
  gpuos.yield %y : !gpuos.tensor<i8>
}
