// The GPU check's test graphs on the CPU simulation (tools/gpuos-gpu-check):
// every task of every image against the reference interpreter, aligned
// and misaligned, mostly with small blocks so the OS-thread simulation
// stays fast (the row chains also at the tuned 256 threads).
// scripts/gpu-check.sh runs the same vectors on a GPU.
// REQUIRES: nvjitlink, libdevice, runtime-device
// RUN: rm -rf %t && mkdir -p %t
// RUN: gpuos-jit %S/gpu-check/elementwise.mlir --no-cache -o %t/ew
// RUN: gpuos-check-gen %S/gpu-check/elementwise.mlir --manifest=%t/ew.manifest.json -o %t/ew.d
// RUN: gpuos-sim-check %S/gpu-check/elementwise.mlir %t/ew.d/check.txt --block=64 | FileCheck %s
// RUN: gpuos-sim-check %S/gpu-check/elementwise.mlir %t/ew.d/check.txt --block=32 --misalign | FileCheck %s
// RUN: gpuos-jit %S/gpu-check/views.mlir --no-cache -o %t/views
// RUN: gpuos-check-gen %S/gpu-check/views.mlir --manifest=%t/views.manifest.json -o %t/views.d
// RUN: gpuos-sim-check %S/gpu-check/views.mlir %t/views.d/check.txt --block=64 | FileCheck %s
// RUN: gpuos-sim-check %S/gpu-check/views.mlir %t/views.d/check.txt --block=32 --misalign | FileCheck %s
// Background tasks' L2-hinted accesses (inline PTX) run as plain ones here.
// RUN: gpuos-jit %S/gpu-check/background_l2.mlir --background-l2=evict-first --no-cache -o %t/bgl2
// RUN: gpuos-check-gen %S/gpu-check/background_l2.mlir --manifest=%t/bgl2.manifest.json -o %t/bgl2.d
// RUN: gpuos-sim-check %S/gpu-check/background_l2.mlir %t/bgl2.d/check.txt --background-l2=evict-first --block=64 | FileCheck %s
// RUN: gpuos-sim-check %S/gpu-check/background_l2.mlir %t/bgl2.d/check.txt --background-l2=evict-first --block=32 --misalign | FileCheck %s
// RUN: gpuos-jit %S/gpu-check/dtypes.mlir --no-cache -o %t/dtypes
// RUN: gpuos-check-gen %S/gpu-check/dtypes.mlir --manifest=%t/dtypes.manifest.json -o %t/dtypes.d
// RUN: gpuos-sim-check %S/gpu-check/dtypes.mlir %t/dtypes.d/check.txt --block=64 | FileCheck %s
// RUN: gpuos-sim-check %S/gpu-check/dtypes.mlir %t/dtypes.d/check.txt --block=32 --misalign | FileCheck %s
// RUN: gpuos-jit %S/gpu-check/reductions.mlir --no-cache -o %t/red
// RUN: gpuos-check-gen %S/gpu-check/reductions.mlir --manifest=%t/red.manifest.json -o %t/red.d
// RUN: gpuos-sim-check %S/gpu-check/reductions.mlir %t/red.d/check.txt --block=64 | FileCheck %s
// RUN: gpuos-sim-check %S/gpu-check/reductions.mlir %t/red.d/check.txt --block=32 --misalign | FileCheck %s
// RUN: gpuos-jit %S/gpu-check/matmul.mlir --no-cache -o %t/mm
// RUN: gpuos-check-gen %S/gpu-check/matmul.mlir --manifest=%t/mm.manifest.json -o %t/mm.d
// RUN: gpuos-sim-check %S/gpu-check/matmul.mlir %t/mm.d/check.txt --block=64 | FileCheck %s --check-prefixes=CHECK,ASYNC
// RUN: gpuos-sim-check %S/gpu-check/matmul.mlir %t/mm.d/check.txt --block=32 --misalign | FileCheck %s
// More than 8 warps: the partials' later slot rounds (jams included).
// RUN: gpuos-sim-check %S/gpu-check/matmul.mlir %t/mm.d/check.txt --block=512 | FileCheck %s --check-prefixes=CHECK,ASYNC
// RUN: gpuos-jit %S/gpu-check/prologues.mlir --no-cache -o %t/pro
// RUN: gpuos-check-gen %S/gpu-check/prologues.mlir --manifest=%t/pro.manifest.json -o %t/pro.d
// RUN: gpuos-sim-check %S/gpu-check/prologues.mlir %t/pro.d/check.txt --block=64 | FileCheck %s
// RUN: gpuos-sim-check %S/gpu-check/prologues.mlir %t/pro.d/check.txt --block=256 --misalign | FileCheck %s
// Row ops staged as matmul prologues: one warp (32), a few, the tuned
// block, and 32 warps (every slot of the block folds' warp partials).
// RUN: gpuos-jit %S/gpu-check/row_prologues.mlir --no-cache -o %t/rp
// RUN: gpuos-check-gen %S/gpu-check/row_prologues.mlir --manifest=%t/rp.manifest.json -o %t/rp.d
// RUN: gpuos-sim-check %S/gpu-check/row_prologues.mlir %t/rp.d/check.txt --block=32 | FileCheck %s
// RUN: gpuos-sim-check %S/gpu-check/row_prologues.mlir %t/rp.d/check.txt --block=64 | FileCheck %s
// RUN: gpuos-sim-check %S/gpu-check/row_prologues.mlir %t/rp.d/check.txt --block=256 --misalign | FileCheck %s
// RUN: gpuos-sim-check %S/gpu-check/row_prologues.mlir %t/rp.d/check.txt --block=1024 | FileCheck %s
// The race checks can fail: without its first barrier (after the staged
// input) the first task reads what other threads wrote in the same
// interval.
// RUN: not gpuos-sim-check %S/gpu-check/row_prologues.mlir %t/rp.d/check.txt --block=64 --drop-barrier=1 2>&1 | FileCheck %s --check-prefix=RACE
// (Which of the two conflicting threads reports it depends on timing.)
// RACE: task rp_heads, tile 0: shared-memory hazard: thread {{[0-9]+}} {{(read shared memory another thread wrote|wrote shared memory another thread read)}} with no barrier between
// gpuos-split-k's batched matmuls, staged prologue through a reshape, and
// the partial sums in a row task.
// RUN: gpuos-jit %S/gpu-check/split_k.mlir --no-cache -o %t/sk
// RUN: gpuos-check-gen %S/gpu-check/split_k.mlir --manifest=%t/sk.manifest.json -o %t/sk.d
// RUN: gpuos-sim-check %S/gpu-check/split_k.mlir %t/sk.d/check.txt --block=64 | FileCheck %s
// RUN: gpuos-sim-check %S/gpu-check/split_k.mlir %t/sk.d/check.txt --block=256 --misalign | FileCheck %s

// Tiled matmuls (more than 16 rows): a warp, a few, and 16 warps (rounds
// of outputs and staged copies that depend on the block size); a dropped
// barrier (the one after the stage) is a race the check reports.
// RUN: gpuos-jit %S/gpu-check/tiled_matmul.mlir --no-cache -o %t/tm
// RUN: gpuos-check-gen %S/gpu-check/tiled_matmul.mlir --manifest=%t/tm.manifest.json -o %t/tm.d
// RUN: gpuos-sim-check %S/gpu-check/tiled_matmul.mlir %t/tm.d/check.txt --block=32 --misalign | FileCheck %s
// RUN: gpuos-sim-check %S/gpu-check/tiled_matmul.mlir %t/tm.d/check.txt --block=64 | FileCheck %s
// RUN: gpuos-sim-check %S/gpu-check/tiled_matmul.mlir %t/tm.d/check.txt --block=512 | FileCheck %s
// RUN: not gpuos-sim-check %S/gpu-check/tiled_matmul.mlir %t/tm.d/check.txt --block=64 --drop-barrier=2 2>&1 | FileCheck %s --check-prefix=TILED-RACE
// TILED-RACE: task tm_scores, tile 0: shared-memory hazard

// The partitioned examples (snapshots of the graph pipeline's output).
// RUN: gpuos-jit %S/gpu-check/example_softmax_norm.mlir --no-cache -o %t/sn
// RUN: gpuos-check-gen %S/gpu-check/example_softmax_norm.mlir --manifest=%t/sn.manifest.json -o %t/sn.d
// RUN: gpuos-sim-check %S/gpu-check/example_softmax_norm.mlir %t/sn.d/check.txt --block=64 | FileCheck %s
// RUN: gpuos-jit %S/gpu-check/example_decode_step.mlir --no-cache -o %t/ds
// RUN: gpuos-check-gen %S/gpu-check/example_decode_step.mlir --manifest=%t/ds.manifest.json -o %t/ds.d
// RUN: gpuos-sim-check %S/gpu-check/example_decode_step.mlir %t/ds.d/check.txt --block=64 | FileCheck %s

// Row chains at the tuned 256 threads: the straight-line path (and its
// look-ahead), which smaller blocks do not take.
// RUN: gpuos-jit %S/gpu-check/long_chains.mlir --no-cache -o %t/lc
// RUN: gpuos-check-gen %S/gpu-check/long_chains.mlir --manifest=%t/lc.manifest.json -o %t/lc.d
// RUN: gpuos-sim-check %S/gpu-check/long_chains.mlir %t/lc.d/check.txt --block=256 | FileCheck %s --check-prefix=LC
// RUN: gpuos-sim-check %S/gpu-check/long_chains.mlir %t/lc.d/check.txt --block=256 --misalign | FileCheck %s --check-prefix=LC
// RUN: gpuos-jit %S/gpu-check/row_chains.mlir --no-cache -o %t/rc
// RUN: gpuos-check-gen %S/gpu-check/row_chains.mlir --manifest=%t/rc.manifest.json -o %t/rc.d
// RUN: gpuos-sim-check %S/gpu-check/row_chains.mlir %t/rc.d/check.txt --block=256 | FileCheck %s --check-prefix=RC
// RUN: gpuos-sim-check %S/gpu-check/row_chains.mlir %t/rc.d/check.txt --block=256 --misalign | FileCheck %s --check-prefix=RC
// Staged links (the loop path): another block size, misaligned at 256.
// RUN: gpuos-jit %S/gpu-check/staged_links.mlir --no-cache -o %t/sl
// RUN: gpuos-check-gen %S/gpu-check/staged_links.mlir --manifest=%t/sl.manifest.json -o %t/sl.d
// RUN: gpuos-sim-check %S/gpu-check/staged_links.mlir %t/sl.d/check.txt --block=96 | FileCheck %s --check-prefix=SL
// RUN: gpuos-sim-check %S/gpu-check/staged_links.mlir %t/sl.d/check.txt --block=256 | FileCheck %s --check-prefix=SL
// RUN: gpuos-sim-check %S/gpu-check/staged_links.mlir %t/sl.d/check.txt --block=256 --misalign | FileCheck %s --check-prefix=SL

// CHECK-NOT: FAIL
// CHECK: sim-check: {{[1-9][0-9]*}} passed, 0 failed
// The micro-batch jams stage their chunks (codegen.md, "Staged chunks").
// ASYNC-SAME: {{[1-9][0-9]*}} async copies, all waited for
// LC-NOT: FAIL
// LC: sim-check: 6 passed, 0 failed
// RC-NOT: FAIL
// RC: sim-check: 8 passed, 0 failed
// SL-NOT: FAIL
// SL: sim-check: 7 passed, 0 failed
