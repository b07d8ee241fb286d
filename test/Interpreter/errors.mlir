// RUN: not gpuos-interp %s --graph=nope 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not gpuos-interp %s --graph=dynamic 2>&1 | FileCheck %s --check-prefix=DYNAMIC

// NAME: gpuos-interp: error: no graph named 'nope' in {{.*}}errors.mlir; it has @dynamic

// DYNAMIC: {{.*}}errors.mlir:[[@LINE+1]]:1: error: input 'x' of graph @dynamic has the dynamic type '!gpuos.tensor<?x4xf32>'; gpuos-interp generates inputs only for static shapes
gpuos.graph @dynamic(%x : !gpuos.tensor<?x4xf32>) -> (y : !gpuos.tensor<?x4xf32>) {
  %y = gpuos.exp %x : !gpuos.tensor<?x4xf32>
  gpuos.yield %y : !gpuos.tensor<?x4xf32>
}
