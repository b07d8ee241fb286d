gpuos.graph @chain(%x : !gpuos.tensor<8x4xf16, strides = [1, 8]>) -> (y : !gpuos.tensor<8x4xf16>) {
  %v0 = gpuos.exp %x : !gpuos.tensor<8x4xf16, strides = [1, 8]>
  %v1 = gpuos.log %v0 : !gpuos.tensor<8x4xf16>
  %v2 = gpuos.sqrt %v1 : !gpuos.tensor<8x4xf16>
  %v3 = gpuos.rsqrt %v2 : !gpuos.tensor<8x4xf16>
  %v4 = gpuos.tanh %v3 : !gpuos.tensor<8x4xf16>
  %v5 = gpuos.sigmoid %v4 : !gpuos.tensor<8x4xf16>
  %v6 = gpuos.gelu %v5 : !gpuos.tensor<8x4xf16>
  %v7 = gpuos.silu %v6 : !gpuos.tensor<8x4xf16>
  %v8 = gpuos.erf %v7 : !gpuos.tensor<8x4xf16>
  %v9 = gpuos.neg %v8 : !gpuos.tensor<8x4xf16>
  %v10 = gpuos.abs %v9 : !gpuos.tensor<8x4xf16>
  %v11 = gpuos.relu %v10 : !gpuos.tensor<8x4xf16>
  gpuos.yield %v11 : !gpuos.tensor<8x4xf16>
}
