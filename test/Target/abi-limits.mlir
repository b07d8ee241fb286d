// Views the device ABI cannot address are refused at the task, with the
// type: an element count or offset past int64 wrapped below 2^30 and
// picked 32-bit indexing with truncated strides (a reduction compiled to
// a constant zero).
// RUN: not gpuos-jit %s --emit=llvm -o /dev/null 2>&1 | FileCheck %s
gpuos.graph @g(%x : !gpuos.tensor<4x4xf32, strides = [3074457345618258603, 1]>) -> (y : !gpuos.tensor<4x4xf32>) {
  // CHECK: abi-limits.mlir:[[@LINE+1]]:8: error: 'gpuos.task' op input #0 has type '!gpuos.tensor<4x4xf32, strides = [3074457345618258603, 1]>'; its elements or offsets do not fit in 64 bits
  %r = gpuos.task "k" ins(%a = %x : !gpuos.tensor<4x4xf32, strides = [3074457345618258603, 1]>) tile [4, 4] -> (!gpuos.tensor<4x4xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<4x4xf32, strides = [3074457345618258603, 1]>
    gpuos.yield %0 : !gpuos.tensor<4x4xf32>
  }
  gpuos.yield %r : !gpuos.tensor<4x4xf32>
}
