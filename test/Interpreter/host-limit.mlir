// The interpreter holds every value on the host as 8-byte elements, at most
// 2^30 per tensor: a larger input or result is an error naming it and its
// type, before anything is allocated (not an abort). Sizes known only at
// run time are checked where they are computed (InterpreterTest).

// RUN: not gpuos-interp %s --graph=huge_input 2>&1 | FileCheck %s --check-prefix=INPUT
// INPUT: error: graph @huge_input input 'x' of type !gpuos.tensor<1048576x1048576xf32> has more elements than the interpreter holds (1073741824)

gpuos.graph @huge_input(%x : !gpuos.tensor<1048576x1048576xf32>) -> (y : !gpuos.tensor<1048576x1048576xf32>) {
  gpuos.yield %x : !gpuos.tensor<1048576x1048576xf32>
}

// A result inside a task: the op is named at its place.

// RUN: not gpuos-interp %s --graph=huge_result 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: [[@LINE+5]]:{{[0-9]+}}: error: 'gpuos.add' op result #0 of type !gpuos.tensor<65536x65536xf32> has more elements than the interpreter holds (1073741824)

gpuos.graph @huge_result(%a : !gpuos.tensor<65536x1xf32>, %b : !gpuos.tensor<1x65536xf32>) -> (y : !gpuos.tensor<65536x65536xf32>) {
  %y = gpuos.task "outer" ins(%ta = %a : !gpuos.tensor<65536x1xf32>, %tb = %b : !gpuos.tensor<1x65536xf32>)
      tile [1, 65536] -> (!gpuos.tensor<65536x65536xf32>) {
    %s = gpuos.add %ta, %tb : !gpuos.tensor<65536x1xf32>, !gpuos.tensor<1x65536xf32>
    gpuos.yield %s : !gpuos.tensor<65536x65536xf32>
  }
  gpuos.yield %y : !gpuos.tensor<65536x65536xf32>
}
