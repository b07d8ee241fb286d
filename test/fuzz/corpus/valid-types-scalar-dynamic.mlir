gpuos.graph @shapes(%s : !gpuos.tensor<f32>, %d : !gpuos.tensor<?x?x8xf32>, %z : !gpuos.tensor<0x4xi8>) -> (s_o : !gpuos.tensor<f32>, d_o : !gpuos.tensor<?x?x8xf32>, z_o : !gpuos.tensor<0x4xi8>) {
  gpuos.yield %s, %d, %z : !gpuos.tensor<f32>, !gpuos.tensor<?x?x8xf32>, !gpuos.tensor<0x4xi8>
}
