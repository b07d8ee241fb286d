// --help lists a tool's own options (gpuos-opt: MLIR's and the passes), not
// the ~450 lines of every LLVM backend's options that the shared libLLVM
// registers; those stay accepted and are listed by --help-hidden.
// RUN: gpuos-opt --help | FileCheck %s --check-prefix=HELP
// RUN: gpuos-opt --help-hidden | FileCheck %s --check-prefix=HIDDEN
// RUN: gpuos-opt %s --amdgpu-dpp-combine=false --gpuos-topological-sort | FileCheck %s --check-prefix=RUNS
// RUN: gpuos-interp --help | FileCheck %s --check-prefix=INTERP
// RUN: gpuos-difftest --help | FileCheck %s --check-prefix=DIFF
// RUN: gpuos-check-gen --help | FileCheck %s --check-prefix=GEN
// RUN: gpuos-sim-check --help | FileCheck %s --check-prefix=SIM
// INTERP-NOT: --amdgpu-
// INTERP: --inputs-dir
// INTERP-NOT: --amdgpu-
// DIFF-NOT: --amdgpu-
// DIFF: --count
// DIFF-NOT: --amdgpu-
// GEN-NOT: --amdgpu-
// GEN: --manifest
// GEN-NOT: --amdgpu-
// SIM-NOT: --amdgpu-
// SIM: --misalign
// SIM-NOT: --amdgpu-
// HELP-NOT: --amdgpu-
// HELP: --gpuos-fuse-elementwise
// HELP: --gpuos-pipeline
// HELP-NOT: --amdgpu-
// HELP: --split-input-file
// HELP-NOT: --x86-
// HIDDEN: --amdgpu-dpp-combine
// RUNS: gpuos.graph @g

gpuos.graph @g(%x : !gpuos.tensor<4xf32>) -> (y : !gpuos.tensor<4xf32>) {
  %0 = gpuos.neg %x : !gpuos.tensor<4xf32>
  gpuos.yield %0 : !gpuos.tensor<4xf32>
}
