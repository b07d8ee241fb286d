// Inputs named by path must be regular files: a device such as /dev/zero
// was read until memory ran out ("LLVM ERROR: out of memory"), and a FIFO
// blocked for good. Each tool refuses them by name, also as an input tensor
// of gpuos-interp --inputs-dir (a link to /dev/zero).
// RUN: not gpuos-opt /dev/zero 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not gpuos-interp /dev/zero 2>&1 | FileCheck %s --check-prefix=INTERP
// RUN: not gpuos-jit /dev/zero --emit=ptx -o %t.ptx 2>&1 | FileCheck %s --check-prefix=JIT
// RUN: rm -rf %t.fifo && mkfifo %t.fifo
// RUN: not gpuos-opt %t.fifo 2>&1 | FileCheck %s --check-prefix=FIFO
// RUN: rm -rf %t.in && mkdir -p %t.in && ln -s /dev/zero %t.in/x.bin
// RUN: not gpuos-interp %s --inputs-dir=%t.in 2>&1 | FileCheck %s --check-prefix=TENSOR

// OPT: gpuos-opt: error: cannot read '/dev/zero': not a regular file (a device or a pipe would be read without end)
// INTERP: gpuos-interp: error: cannot read '/dev/zero': not a regular file
// JIT: gpuos-jit: cannot read '/dev/zero': not a regular file
// FIFO: gpuos-opt: error: cannot read '{{.*}}.fifo': not a regular file
// TENSOR: gpuos-interp: error: input 'x': cannot read {{.*}}x.bin: not a regular file

gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.neg %x : !gpuos.tensor<4xf32>
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
