gpuos.graph @a(%x : !gpuos.tensor<1x32000xf32>) -> (i : !gpuos.tensor<1xi64>, k : !gpuos.tensor<1x1xi64>) {
  %i = gpuos.argmax %x axis 1 : !gpuos.tensor<1x32000xf32>
  %k = gpuos.argmax %x axis 1 keepdim : !gpuos.tensor<1x32000xf32>
  gpuos.yield %i, %k : !gpuos.tensor<1xi64>, !gpuos.tensor<1x1xi64>
}
