gpuos.graph @g(%x : !gpuos.tensor<4xi8>) -> (y : !gpuos.tensor<4xi8>) {
  %y = gpuos.softmax %x axis 0 : !gpuos.tensor<4xi8>
  gpuos.yield %y : !gpuos.tensor<4xi8>
}
