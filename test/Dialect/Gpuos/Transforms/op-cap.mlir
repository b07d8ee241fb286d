// A fused task holds at most 512 compute ops (kMaxTaskComputeOps): the
// lowering nests one evaluation per op on a chain, and a 5,000-op chain in
// one task overflowed gpuos-jit's stack. The chains come from
// test/Inputs/long_chain.py; this file holds only the RUN lines.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../../../Inputs/long_chain.py 1100 > %t/chain.mlir
// RUN: %python %S/../../../Inputs/long_chain.py 600 --reduce > %t/reduce.mlir
// RUN: %python %S/../../../Inputs/long_chain.py 5000 > %t/chain5000.mlir
// RUN: %python %S/../../../Inputs/long_chain.py 200000 --views > %t/views.mlir

// 1,100 negs in a row: elementwise fusion cuts them 512, 512, 76.
// RUN: gpuos-opt %t/chain.mlir --pass-pipeline='builtin.module(gpuos.graph(gpuos-fuse-elementwise))' \
// RUN:   | FileCheck %s --check-prefix=EW
// EW:            gpuos.task "chain_t0_neg"
// EW-COUNT-512:  gpuos.neg
// EW-NEXT:       gpuos.yield
// EW:            gpuos.task "chain_t1_neg"
// EW-COUNT-512:  gpuos.neg
// EW-NEXT:       gpuos.yield
// EW:            gpuos.task "chain_t2_neg"
// EW-COUNT-76:   gpuos.neg
// EW-NEXT:       gpuos.yield
// EW-NOT:        gpuos.task

// A reduce takes its elementwise prologue only while the task stays within
// the cap: 600 negs then a sum become 512 negs, then 88 negs and the sum.
// RUN: gpuos-opt %t/reduce.mlir --gpuos-pipeline | FileCheck %s --check-prefix=RED
// RED:           gpuos.task "chain_t0_neg"
// RED-COUNT-512: gpuos.neg
// RED-NEXT:      gpuos.yield
// RED:           gpuos.task "chain_t2_neg_reduce"
// RED-COUNT-88:  gpuos.neg
// RED-NEXT:      gpuos.reduce sum
// RED-NEXT:      gpuos.yield
// RED-NOT:       gpuos.task

// 5,000 negs become ten tasks, and every one lowers.
// RUN: gpuos-opt %t/chain5000.mlir --gpuos-pipeline -o %t/chain5000.tasks.mlir
// RUN: grep -c 'gpuos.task "' %t/chain5000.tasks.mlir | FileCheck %s --check-prefix=TEN
// TEN: {{^}}10{{$}}
// RUN: gpuos-opt %t/chain5000.tasks.mlir --gpuos-lower-tasks-to-nvvm | FileCheck %s --check-prefix=LOWER
// LOWER-COUNT-10: llvm.func @gpuos_task_chain_t{{[0-9]+}}_neg(

// 200,000 views in a row outline into one task without recursing per view
// (they are cloned in; the neg is the one compute op).
// RUN: gpuos-opt %t/views.mlir --gpuos-pipeline | FileCheck %s --check-prefix=VIEWS
// VIEWS:     gpuos.task "chain_t0_neg" ins(%{{.+}} = %x
// VIEWS-NOT: gpuos.task
