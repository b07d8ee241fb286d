// A write that fails (a full disk; /dev/full here) is an error naming the
// file, not "LLVM ERROR: IO failure on output stream" (an abort without a
// name) and not a silent success.
// RUN: not gpuos-jit %s --emit=ptx -o /dev/full 2>&1 | FileCheck %s --check-prefix=JIT
// RUN: not gpuos-opt %s -o /dev/full 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not gpuos-opt %s 2>&1 > /dev/full | FileCheck %s --check-prefix=OPTOUT
// RUN: rm -rf %t.out && mkdir -p %t.out && ln -s /dev/full %t.out/y.bin
// RUN: not gpuos-interp %s --outputs-dir=%t.out 2>&1 | FileCheck %s --check-prefix=INTERP
// JIT: gpuos-jit: cannot write '/dev/full': No space left on device
// OPT: gpuos-opt: error: cannot write '/dev/full': IO failure on output stream: No space left on device
// OPTOUT: gpuos-opt: error: cannot write standard output: IO failure on output stream
// INTERP: gpuos-interp: error: output 'y': cannot write {{.*}}y.bin: No space left on device

gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %r = gpuos.task "neg" ins(%a = %x : !gpuos.tensor<4xf32>) tile [4] -> (!gpuos.tensor<4xf32>) {
    %0 = gpuos.neg %a : !gpuos.tensor<4xf32>
    gpuos.yield %0 : !gpuos.tensor<4xf32>
  }
  gpuos.yield %r : !gpuos.tensor<4xf32>
}
