// The random graph generator: the same seed gives the same graphs, they
// parse and verify in gpuos-opt, and graph i of a run uses seed + i.

// RUN: gpuos-difftest --count=5 --seed=42 --emit-graphs > %t.a
// RUN: gpuos-difftest --count=5 --seed=42 --emit-graphs > %t.b
// RUN: diff %t.a %t.b
// RUN: gpuos-opt %t.a | FileCheck %s
// CHECK: gpuos.graph @random_42(
// CHECK: gpuos.graph @random_43(
// CHECK: gpuos.graph @random_44(
// CHECK: gpuos.graph @random_45(
// CHECK: gpuos.graph @random_46(
// CHECK-NOT: gpuos.graph

// RUN: gpuos-difftest --count=1 --seed=44 --emit-graphs > %t.c
// RUN: grep -A100000 'gpuos.graph @random_44(' %t.a | sed -n '1,/^}/p' > %t.a44
// RUN: grep -A100000 'gpuos.graph @random_44(' %t.c | sed -n '1,/^}/p' > %t.c44
// RUN: diff %t.a44 %t.c44

// A pipeline given on the command line runs instead of gpuos-pipeline.
// RUN: gpuos-difftest --count=200 --seed=3 --pipeline='gpuos.graph(gpuos-fuse-elementwise,gpuos-fuse-reductions)' | FileCheck %s --check-prefix=CUSTOM
// CUSTOM: gpuos-difftest: 200 graphs, seeds 3 to 202: 0 failed;

// RUN: not gpuos-difftest --count=1 --pipeline='no-such-pass' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: gpuos-difftest: error: bad --pipeline 'no-such-pass'
