#!/usr/bin/env bash
# A shorter gpu-check.sh for measuring a change on a GPU machine: gpuos-bench
# variants (workers per SM 1/2/4, idle naps, without the settle fence, a
# traced round trip), the
# full benchmark with --json, then the GPU tests once (without the
# one-process recovery tests and the sanitizers; gpu-check.sh runs those).
#   usage: [BUILD=dir] [OLD=dir] [OUT=dir] runtime/scripts/gpu-quick.sh
#   BUILD: a build of runtime/ (default build-rt, built here if missing);
#   OLD: another build whose gpuos-bench --quick runs first (before/after).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build-rt}
out=${OUT:-/tmp/gpu-quick}
mkdir -p "$out"
if [ ! -x "$build/bin/gpuos-bench" ]; then
  cmake -S "$root/runtime" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null &&
    ninja -C "$build" > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
b=$build/bin/gpuos-bench
bench() { # name args...
  local name=$1; shift
  local s=$SECONDS
  timeout 90 "$@" > "$out/$name.log" 2>&1
  echo "=== $name: rc=$? $((SECONDS - s)) s: $*"
  sed -n '/^gpuos-bench on/,$p' "$out/$name.log" | grep -vE "^  (ld|atom|fence|st)\." 
  grep -E "^gpuos-bench: " "$out/$name.log"
}
if [ -n "${OLD:-}" ]; then bench old "$OLD/bin/gpuos-bench" --quick; fi
bench w1 "$b" --quick --short --workers-per-sm 1
bench w2 "$b" --quick --short --workers-per-sm 2
bench w4 "$b" --quick --short --workers-per-sm 4
bench w2nap "$b" --quick --short --workers-per-sm 2 --idle-sleep-ns 500
bench nosettle "$b" --quick --short --no-settle
bench trace "$b" --quick --short --trace
bench full "$b" --json "$out/bench.json"
s=$SECONDS
timeout "${TEST_LIMIT:-120}" "$build/bin/GpuosRuntimeTests" \
  --gtest_filter='-*RecoveryTest*gpu*:RuntimeMultiGpu.*' > "$out/tests.log" 2>&1
echo "=== tests: rc=$? $((SECONDS - s)) s"
grep -hE "^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ test|^\[  FAILED" "$out/tests.log" | head -20
grep -hE "Failure" -A5 "$out/tests.log" | head -30
