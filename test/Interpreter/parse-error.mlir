// RUN: not gpuos-interp %s 2>&1 | FileCheck %s
// RUN: not gpuos-interp %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING

// MISSING: gpuos-interp: error: {{.*}}parse-error.mlir.missing

gpuos.graph @bad(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  // CHECK: {{.*}}parse-error.mlir:[[@LINE+1]]:{{[0-9]+}}: error: use of undeclared SSA value name
  %y = gpuos.exp %nope : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
