// Evaluating a value nests one call per producer or view on its chain: a
// task body deeper than 1,024 (TaskEmitter::kMaxEvalDepth) is refused with
// a diagnostic at the task instead of overflowing the stack (a 5,000-op
// task crashed gpuos-jit). The fusion passes keep their tasks far below
// (test/Dialect/Gpuos/Transforms/op-cap.mlir); this is a hand-written task
// from test/Inputs/long_chain.py.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../../Inputs/long_chain.py 1000 --task > %t/ok.mlir
// RUN: %python %S/../../Inputs/long_chain.py 5000 --task > %t/deep.mlir

// 1,000 ops lower.
// RUN: gpuos-opt %t/ok.mlir --gpuos-lower-tasks-to-nvvm | FileCheck %s --check-prefix=OK
// OK: llvm.func @gpuos_task_deep(

// 5,000 do not: the error names the task, a note the op where the chain
// passed the limit.
// RUN: not gpuos-opt %t/deep.mlir --gpuos-lower-tasks-to-nvvm 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: deep.mlir:2:8: error: 'gpuos.task' op body is too deep to lower: a value depends on a chain of more than 1024 ops and views; split the task or shorten the chain
// DEEP: deep.mlir:{{[0-9]+}}:{{[0-9]+}}: note: the chain is this deep here
