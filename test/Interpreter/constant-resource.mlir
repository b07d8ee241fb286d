// dense_resource constants are read from their blob (docs/interpreter.md):
// x + [1, 2] on the seeded input, checked against the same sum written as a
// dense constant.

// RUN: gpuos-interp %s --graph=blob --print-values=8 | grep 'values:' > %t.blob
// RUN: gpuos-interp %s --graph=dense --print-values=8 | grep 'values:' > %t.dense
// RUN: diff %t.blob %t.dense

gpuos.graph @blob(%x : !gpuos.tensor<2xi32>) -> (a : !gpuos.tensor<2xi32>) {
  %c = gpuos.constant dense_resource<blob1> : tensor<2xi32>
  %a = gpuos.add %x, %c : !gpuos.tensor<2xi32>, !gpuos.tensor<2xi32>
  gpuos.yield %a : !gpuos.tensor<2xi32>
}

gpuos.graph @dense(%x : !gpuos.tensor<2xi32>) -> (a : !gpuos.tensor<2xi32>) {
  %c = gpuos.constant dense<[1, 2]> : tensor<2xi32>
  %a = gpuos.add %x, %c : !gpuos.tensor<2xi32>, !gpuos.tensor<2xi32>
  gpuos.yield %a : !gpuos.tensor<2xi32>
}

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000100000002000000"
    }
  }
#-}
