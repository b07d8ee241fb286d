// RUN: not gpuos-interp %s 2>&1 | FileCheck %s
// CHECK: gpuos-interp: error: {{.*}}no-graph.mlir contains no gpuos.graph
module {
}
