gpuos.graph @strided(%t : !gpuos.tensor<8x4xf32, strides = [1, 8]>, %b : !gpuos.tensor<4x1024xbf16, strides = [0, 1]>, %d : !gpuos.tensor<?x8xf16, strides = [?, 1]>, %r : !gpuos.tensor<4x8xf32, strides = [8, 1]>) -> (t_o : !gpuos.tensor<8x4xf32, strides = [1, 8]>, b_o : !gpuos.tensor<4x1024xbf16, strides = [0, 1]>, d_o : !gpuos.tensor<?x8xf16, strides = [?, 1]>, r_o : !gpuos.tensor<4x8xf32>) {
  gpuos.yield %t, %b, %d, %r : !gpuos.tensor<8x4xf32, strides = [1, 8]>, !gpuos.tensor<4x1024xbf16, strides = [0, 1]>, !gpuos.tensor<?x8xf16, strides = [?, 1]>, !gpuos.tensor<4x8xf32>
}
