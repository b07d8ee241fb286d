#!/usr/bin/env bash
# Compile time of gpuos-jit on this machine: the 64-op elementwise chain
# example, fused by the pipeline, to an image. Cold = --no-cache (lowering,
# PTX, nvJitLink); warm = a cache hit. Whole-process wall time, medians of
# N runs. Usage: bench/compile-time.sh [N]   (default 15)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
n=${1:-15}
bash "$root/scripts/build.sh" --target gpuos-opt gpuos-jit >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/gpuos-opt" "$root/examples/elementwise_chain.mlir" --gpuos-pipeline -o "$work/chain.mlir"

# Milliseconds of one run of "$@".
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

jit=("$build/bin/gpuos-jit" "$work/chain.mlir" --emit=image -o "$work/out")
cold=$(for _ in $(seq "$n"); do ms "${jit[@]}" --no-cache; done | median)
"${jit[@]}" --cache-dir="$work/cache" >/dev/null 2>&1   # fill the cache
warm=$(for _ in $(seq "$n"); do ms "${jit[@]}" --cache-dir="$work/cache"; done | median)
phases=$("${jit[@]}" --no-cache -v 2>&1 | grep '^time:' || true)
startup=$(for _ in $(seq "$n"); do ms "$build/bin/gpuos-jit" --version; done | median)

printf 'gpuos-jit, examples/elementwise_chain.mlir (64 ops) after --gpuos-pipeline, %s runs, %s cores\n' "$n" "$(nproc)"
printf '%-28s %8s\n' "case" "median ms"
printf '%-28s %8s\n' "cold (no cache)" "$cold"
printf '%-28s %8s\n' "warm (cache hit)" "$warm"
printf '%-28s %8s\n' "process start (--version)" "$startup"
[[ -n $phases ]] && echo "$phases"
