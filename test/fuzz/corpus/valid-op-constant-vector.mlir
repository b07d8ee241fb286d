gpuos.graph @c() -> (y : !gpuos.tensor<4xf64>) {
  %y = gpuos.constant dense<[1.0, 2.0, 0x7FF8000000000000, -0.0]> : vector<4xf64>
  gpuos.yield %y : !gpuos.tensor<4xf64>
}
