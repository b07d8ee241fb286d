gpuos.graph @c() -> (y : !gpuos.tensor<2x2xi32>, z : !gpuos.tensor<bf16>, b : !gpuos.tensor<3xi1>) {
  %y = gpuos.constant dense<[[1, 2], [3, -4]]> : tensor<2x2xi32>
  %z = gpuos.constant dense<0x3F80> : tensor<bf16>
  %b = gpuos.constant dense<[true, false, true]> : tensor<3xi1>
  gpuos.yield %y, %z, %b : !gpuos.tensor<2x2xi32>, !gpuos.tensor<bf16>, !gpuos.tensor<3xi1>
}
