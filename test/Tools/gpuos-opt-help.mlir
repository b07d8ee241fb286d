// gpuos-opt --help lists MLIR's options and the passes, not the ~450 lines
// of every LLVM backend's options that the shared libLLVM registers; those
// stay accepted and are listed by --help-hidden.
// RUN: gpuos-opt --help | FileCheck %s --check-prefix=HELP
// RUN: gpuos-opt --help-hidden | FileCheck %s --check-prefix=HIDDEN
// RUN: gpuos-opt %s --amdgpu-dpp-combine=false --gpuos-topological-sort | FileCheck %s --check-prefix=RUNS
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
