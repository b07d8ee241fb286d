gpuos.graph @mm(%q : !gpuos.tensor<16x64x32xbf16>, %k : !gpuos.tensor<1x32x64xbf16>) -> (y : !gpuos.tensor<16x32x32xbf16>) {
  %y = gpuos.matmul %q, %k transpose_lhs transpose_rhs : !gpuos.tensor<16x64x32xbf16>, !gpuos.tensor<1x32x64xbf16>
  gpuos.yield %y : !gpuos.tensor<16x32x32xbf16>
}
