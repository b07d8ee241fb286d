gpuos.graph @c() -> (y : !gpuos.tensor<2xi32>) {
  %y = gpuos.constant dense_resource<blob1> : tensor<2xi32>
  gpuos.yield %y : !gpuos.tensor<2xi32>
}

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000100000002000000"
    }
  }
#-}
