// The differential test reports a wrong pipeline: --self-test-corrupt
// negates the first result of the first task after the pipeline. The failing
// seed, the output, a command that reproduces it and the IR before and after
// are printed, the files written, and the exit status is 1.

// RUN: rm -rf %t.failures
// RUN: not gpuos-difftest --count=20 --seed=1 --self-test-corrupt --print-failures=1 --dump-failures=%t.failures | FileCheck %s
// CHECK: FAIL seed 1: output 'out{{[0-9]+}}' ({{.+}}) differs: {{[0-9]+}} of {{[0-9]+}} elements differ
// CHECK-NEXT: reproduce: gpuos-difftest --count=1 --seed=1 --self-test-corrupt{{$}}
// CHECK-NEXT: // ----- graph before the pipeline
// CHECK-NEXT: module {
// CHECK-NEXT: gpuos.graph @random_1(
// CHECK: // ----- after the pipeline
// CHECK: gpuos.task
// CHECK: gpuos.neg
// Only one graph's IR is printed.
// CHECK-NOT: // ----- graph before
// CHECK: gpuos-difftest: 20 graphs, seeds 1 to 20: {{[1-9][0-9]*}} failed;

// RUN: ls %t.failures | FileCheck %s --check-prefix=FILES
// FILES: seed-1.after.mlir
// FILES-NEXT: seed-1.mlir
// The dumped graphs parse and verify.
// RUN: gpuos-opt %t.failures/seed-1.mlir | FileCheck %s --check-prefix=DUMP
// RUN: gpuos-opt %t.failures/seed-1.after.mlir | FileCheck %s --check-prefix=DUMP
// DUMP: gpuos.graph @random_1(

// The reproduce line carries the options that change the graph, so it
// makes the same graph again (here a larger one).
// RUN: not gpuos-difftest --count=1 --seed=5 --max-steps=200 --self-test-corrupt --print-failures=0 | FileCheck %s --check-prefix=STEPS
// STEPS: reproduce: gpuos-difftest --count=1 --seed=5 --max-steps=200 --self-test-corrupt{{$}}
