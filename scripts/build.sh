#!/usr/bin/env bash
# Configures and builds gpuos into ${BUILD_DIR:-build}. Extra arguments go to
# `cmake --build` (for example `--target gpuos-opt`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}

if [[ ! -f "$build/build.ninja" ]]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-Release} \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    ${GPUOS_CMAKE_ARGS:-}
fi
cmake --build "$build" "$@"
