gpuos.graph @mm(%x : !gpuos.tensor<4x1024xf32>, %w : !gpuos.tensor<4096x1024xf32>) -> (y : !gpuos.tensor<4x4096xf32>) {
  %y = gpuos.matmul %x, %w transpose_rhs : !gpuos.tensor<4x1024xf32>, !gpuos.tensor<4096x1024xf32>
  gpuos.yield %y : !gpuos.tensor<4x4096xf32>
}
