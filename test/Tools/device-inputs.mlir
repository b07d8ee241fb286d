// Inputs named by path must not be devices: /dev/zero was read until
// memory ran out ("LLVM ERROR: out of memory"). Each tool refuses them by
// name, also as an input tensor of gpuos-interp --inputs-dir (a link to
// /dev/zero). Pipes end, and are read (`cat x | gpuos-jit /dev/stdin`,
// test/Target/source-key.mlir).
// RUN: not gpuos-opt /dev/zero 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not gpuos-interp /dev/zero 2>&1 | FileCheck %s --check-prefix=INTERP
// RUN: not gpuos-jit /dev/zero --emit=ptx -o %t.ptx 2>&1 | FileCheck %s --check-prefix=JIT
// RUN: cat %s | gpuos-opt /dev/stdin | FileCheck %s --check-prefix=PIPE
// RUN: rm -rf %t.in && mkdir -p %t.in && ln -s /dev/zero %t.in/x.bin
// RUN: not gpuos-interp %s --inputs-dir=%t.in 2>&1 | FileCheck %s --check-prefix=TENSOR

// OPT: gpuos-opt: error: cannot read '/dev/zero': it is a device, not a file (it would be read without end)
// INTERP: gpuos-interp: error: cannot read '/dev/zero': it is a device, not a file
// JIT: gpuos-jit: cannot read '/dev/zero': it is a device, not a file
// PIPE: gpuos.graph @g
// TENSOR: gpuos-interp: error: input 'x': cannot read {{.*}}x.bin: it is a device, not a file

gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.neg %x : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
