// Malformed input: a diagnostic with file:line:col and exit 1. Bad
// options: a message and exit 2.
// RUN: not gpuos-jit %s --emit=ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: bash -c 'gpuos-jit %s --arch=sm_75 --emit=ptx; test $? -eq 2' 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: bash -c 'gpuos-jit %s -O9 --emit=ptx; test $? -eq 2' 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: bash -c 'gpuos-jit %s --emit=cubin; test $? -eq 2' 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: bash -c 'gpuos-jit %s --no-such-flag; test $? -eq 2' 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: bash -c 'gpuos-jit %s.missing --emit=ptx; test $? -eq 1' 2>&1 | FileCheck %s --check-prefix=MISSING

// ARCH: gpuos-jit: unsupported --arch=sm_75; use sm_80, sm_89, sm_90 or sm_100
// OPT: gpuos-jit: unsupported -O9; use -O0 to -O3
// EMIT: Cannot find option named 'cubin'
// FLAG: Unknown command line argument '--no-such-flag'
// MISSING: gpuos-jit: cannot open input file
gpuos.graph @bad(%x : !gpuos.tensor<4x8xf32>, %y : !gpuos.tensor<3xf32>) -> (z : !gpuos.tensor<4x8xf32>) {
  // CHECK: errors.mlir:[[@LINE+1]]:8: error: 'gpuos.add' cannot broadcast operand shapes 4x8 and 3
  %z = gpuos.add %x, %y : !gpuos.tensor<4x8xf32>, !gpuos.tensor<3xf32>
  gpuos.yield %z : !gpuos.tensor<4x8xf32>
}
