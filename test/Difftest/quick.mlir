// Quick mode of the differential test, run by check-gpuos and CI: 1000
// random graphs through gpuos-pipeline, each interpreted before and after on
// the same inputs, every output within the tolerances of docs/passes.md,
// every body after the pipeline in the documented task forms. It takes
// about a second; the long mode is a larger --count (docs/passes.md).
// The op counts show the generator covers every op of the dialect.

// RUN: gpuos-difftest --count=1000 --seed=1 --op-stats | FileCheck %s
// CHECK: ops generated: abs={{[1-9][0-9]*}} add={{[1-9][0-9]*}} argmax={{[1-9][0-9]*}} broadcast={{[1-9][0-9]*}} cast={{[1-9][0-9]*}} cmp={{[1-9][0-9]*}} concat={{[1-9][0-9]*}} constant={{[1-9][0-9]*}} div={{[1-9][0-9]*}} erf={{[1-9][0-9]*}} exp={{[1-9][0-9]*}} gelu={{[1-9][0-9]*}} layer_norm={{[1-9][0-9]*}} log={{[1-9][0-9]*}} matmul={{[1-9][0-9]*}} max={{[1-9][0-9]*}} min={{[1-9][0-9]*}} mul={{[1-9][0-9]*}} neg={{[1-9][0-9]*}} pow={{[1-9][0-9]*}} reduce={{[1-9][0-9]*}} relu={{[1-9][0-9]*}} reshape={{[1-9][0-9]*}} rms_norm={{[1-9][0-9]*}} rsqrt={{[1-9][0-9]*}} select={{[1-9][0-9]*}} sigmoid={{[1-9][0-9]*}} silu={{[1-9][0-9]*}} slice={{[1-9][0-9]*}} softmax={{[1-9][0-9]*}} sqrt={{[1-9][0-9]*}} sub={{[1-9][0-9]*}} tanh={{[1-9][0-9]*}} transpose={{[1-9][0-9]*}}{{$}}
// CHECK-NEXT: gpuos-difftest: 1000 graphs, seeds 1 to 1000: 0 failed; [[N:[0-9]+]] outputs compared, [[N]] bit-identical, max abs error 0;

// gpuos-split-k reassociates a split matmul's K sum: this graph's output
// differs by 4e-6 relative (more than f32's 1e-6), and passes because it is
// within the reassociation bound (1e-4) and the same graph without the
// split is within 1e-6 (docs/passes.md, "Differential testing: gpuos-difftest").
// RUN: gpuos-difftest --count=1 --seed=3065415 --max-steps=24 | FileCheck %s --check-prefix=SPLIT
// SPLIT: gpuos-difftest: 1 graphs, seeds 3065415 to 3065415: 0 failed; {{[0-9]+}} outputs compared, {{[0-9]+}} bit-identical, 1 graphs within gpuos-split-k's reassociation bound
