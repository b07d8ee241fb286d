// The lowering's block size is a multiple of 32 from 32 to 1024: other
// values are refused by name (block-size=0 divided by zero in the unroll
// choice, a SIGFPE; 33 and 2048 were lowered as if valid).
// RUN: not gpuos-opt %s --gpuos-lower-tasks-to-nvvm=block-size=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not gpuos-opt %s --gpuos-lower-tasks-to-nvvm=block-size=33 2>&1 | FileCheck %s --check-prefix=ODD
// RUN: not gpuos-opt %s --gpuos-lower-tasks-to-nvvm=block-size=2048 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: gpuos-opt %s --gpuos-lower-tasks-to-nvvm=block-size=64 | FileCheck %s --check-prefix=OK

// ZERO: block-size.mlir:{{[0-9]+}}:{{[0-9]+}}: error: block size 0 is not a multiple of 32 from 32 to 1024 (option block-size)
// ODD: error: block size 33 is not a multiple of 32 from 32 to 1024 (option block-size)
// BIG: error: block size 2048 is not a multiple of 32 from 32 to 1024 (option block-size)
// OK: llvm.func @gpuos_task_neg(

gpuos.graph @g(%x : !gpuos.tensor<4x64xf32>) -> (y : !gpuos.tensor<4x64xf32>) {
  %r = gpuos.task "neg" ins(%a = %x : !gpuos.tensor<4x64xf32>) tile [1, 64] -> (!gpuos.tensor<4x64xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<4x64xf32>
    gpuos.yield %0 : !gpuos.tensor<4x64xf32>
  }
  gpuos.yield %r : !gpuos.tensor<4x64xf32>
}
