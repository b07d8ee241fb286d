gpuos.graph @rms(%x : !gpuos.tensor<7xf64>) -> (y : !gpuos.tensor<7xf64>) {
  %y = gpuos.rms_norm %x eps 3.0 : !gpuos.tensor<7xf64>
  gpuos.yield %y : !gpuos.tensor<7xf64>
}
