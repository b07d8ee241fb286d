gpuos.graph @g(%x : !gpuos.tensor<8xf32>) -> (y : !gpuos.tensor<?xf32>) {
  %y = gpuos.slice %x starts [0] sizes [?] steps [1] : !gpuos.tensor<8xf32>
  gpuos.yield %y : !gpuos.tensor<?xf32>
}
