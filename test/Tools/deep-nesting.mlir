// Brackets nested thousands deep overflowed the parser's stack (a crash in
// every tool); past 512 levels the input is refused at the place, before
// parsing. Strings, comments and `->` do not count.
// RUN: python3 -c "print('gpuos.graph @g(%%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) attributes {a = ' + '['*8000 + ']'*8000 + '} {\n  gpuos.yield %%x : !gpuos.tensor<4xf32>\n}')" > %t.mlir
// RUN: not gpuos-opt %t.mlir 2>&1 | FileCheck %s -DFILE=%t.mlir
// RUN: not gpuos-interp %t.mlir 2>&1 | FileCheck %s -DFILE=%t.mlir
// RUN: not gpuos-jit %t.mlir --emit=ptx -o %t.ptx 2>&1 | FileCheck %s -DFILE=%t.mlir
// RUN: gpuos-opt %s | FileCheck %s --check-prefix=OK
// CHECK: [[FILE]]:1:600: error: brackets nest deeper than 512 levels; the parser would run out of stack
// OK: gpuos.graph @shallow

// Six levels, a string full of brackets and a comment full of them: fine.
// (((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((
gpuos.graph @shallow(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>)
    attributes {note = "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["} {
  gpuos.yield %x : !gpuos.tensor<4xf32>
}
