#!/usr/bin/env bash
# Compile time of the 64-op elementwise chain example, fused by the
# pipeline, to an image (tasks + gpuos_dispatch + the runtime's device
# library), on this machine. Medians of N runs:
#   cold CLI     gpuos-jit --no-cache, whole process (launcher + core)
#   warm CLI     gpuos-jit with a cache hit, whole process (the launcher
#                serves it from the source index, docs/codegen.md)
#   content hit  gpuos-jit-core alone with a cache hit (what the command
#                cost before the launcher: start-up, nvJitLink, parse, hash)
#   process start  gpuos-jit-core --version (loading libLLVM), and
#                /bin/true (what starting any process costs here)
#   in-process   gpuos::jit::Compiler, as a front-end embeds it
#                (bench/compile/gpuos-compile-bench): cold, disk-cache hit,
#                memory hit
# Usage: bench/compile-time.sh [N]   (default 15; BUILD_DIR, default build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
n=${1:-15}
bash "$root/scripts/build.sh" --target gpuos-opt gpuos-jit gpuos-compile-bench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/gpuos-opt" "$root/examples/elementwise_chain.mlir" --gpuos-pipeline -o "$work/chain.mlir"

# Milliseconds of one run of "$@".
# $EPOCHREALTIME (bash 5): no process is started inside the timed span.
ms() {
  local t0 t1
  t0=$EPOCHREALTIME; "$@" >/dev/null 2>&1; t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", (b - a) * 1e3 }'
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

jit=("$build/bin/gpuos-jit" "$work/chain.mlir" --emit=image -o "$work/out")
cold=$(for _ in $(seq "$n"); do ms "${jit[@]}" --no-cache; done | median)
"${jit[@]}" --cache-dir="$work/cache" >/dev/null 2>&1   # fill the cache
warm=$(for _ in $(seq "$n"); do ms "${jit[@]}" --cache-dir="$work/cache"; done | median)
core=("$build/bin/gpuos-jit-core" "${jit[@]:1}")
content=$(for _ in $(seq "$n"); do ms "${core[@]}" --cache-dir="$work/cache"; done | median)
phases=$("${jit[@]}" --no-cache -v 2>&1 | grep '^time:' || true)
startup=$(for _ in $(seq "$n"); do ms "$build/bin/gpuos-jit-core" --version; done | median)
floor=$(for _ in $(seq "$n"); do ms /bin/true; done | median)
inproc=$("$build/bin/gpuos-compile-bench" "$work/chain.mlir" "$n" --cache-dir="$work/cache-inproc")

printf 'gpuos-jit, examples/elementwise_chain.mlir (64 ops) after --gpuos-pipeline, %s runs, %s cores, load %s\n' \
  "$n" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %8s\n' "case" "median ms"
printf '%-28s %8s\n' "cold CLI (no cache)" "$cold"
printf '%-28s %8s\n' "warm CLI (cache hit)" "$warm"
printf '%-28s %8s\n' "core alone, content hit" "$content"
printf '%-28s %8s\n' "core start (--version)" "$startup"
printf '%-28s %8s\n' "any process (/bin/true)" "$floor"
echo "$inproc"
[[ -n $phases ]] && echo "one cold CLI run: $phases"
