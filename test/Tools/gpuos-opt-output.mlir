// gpuos-opt refuses to write its result over its input: the input is mapped
// and the output truncated on open, which killed the process (SIGBUS) and
// left the input empty. The input is unchanged afterwards.

// RUN: cp %s %t.mlir
// RUN: not gpuos-opt %t.mlir -o %t.mlir 2>&1 | FileCheck %s
// RUN: cmp %s %t.mlir
// CHECK: gpuos-opt: error: the output '{{.*}}.mlir' is the input file; write to another file

// Another output file is fine.
// RUN: gpuos-opt %t.mlir -o %t.out.mlir
// RUN: gpuos-opt %t.out.mlir | FileCheck %s --check-prefix=OUT
// OUT: gpuos.graph @g
gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.exp %x : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
