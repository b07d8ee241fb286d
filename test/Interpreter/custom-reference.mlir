// A custom op's reference graph must be of built-in ops: one that holds a
// gpuos.custom (here itself) is an error naming both, not a recursion that
// overflows the stack once per element.

// RUN: not gpuos-interp %s --graph=self 2>&1 | FileCheck %s --check-prefix=SELF
// SELF: error: 'gpuos.custom' op failed at run time: @f's reference @self holds a gpuos.custom; a reference is of built-in ops

gpuos.graph @self(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %y = gpuos.custom @f(%x) reference @self : !gpuos.tensor<4xf32> -> f32
  gpuos.yield %y : !gpuos.tensor<4xf32>
}
