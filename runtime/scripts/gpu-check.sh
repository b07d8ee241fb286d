#!/usr/bin/env bash
# Builds the runtime on its own and runs everything on a GPU machine, in one
# go: all tests (simulator and GPU), the fault test in its own process, the
# GPU correctness tests under compute-sanitizer memcheck, and gpuos-bench.
# Logs and bench.json go to $OUT (default /tmp/gpu-check); a summary table
# is printed last.   usage: runtime/scripts/gpu-check.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-/tmp/rt}
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out"
t0=$SECONDS
cmake -S "$root/runtime" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  > "$build.configure.log" 2>&1 || { tail -20 "$build.configure.log"; exit 1; }
ninja -C "$build" > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
bin=$build/bin
echo "build: $((SECONDS - t0)) s"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
"$bin/gpuos-info"
"$bin/gpuos-link" -v -o "$build/relink.cubin" "$build/device/test_tasks.o" \
  "$build/device/gpuos_runtime_device.o" 2>&1 | grep -A1 "'gpuos_resident'" | tail -1

step() { # name timeout command...
  local name=$1 limit=$2; shift 2
  local s=$SECONDS
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  printf '%-10s rc=%-3s %4ss  ' "$name" "$rc" "$((SECONDS - s))" >> "$out/summary.txt"
  grep -hE "^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ test|ERROR SUMMARY" "$out/$name.log" \
    | tr '\n' ' ' >> "$out/summary.txt"
  echo >> "$out/summary.txt"
}
: > "$out/summary.txt"
step tests 100 "$bin/GpuosRuntimeTests" --gtest_filter='-RuntimeGpuFault.*' --gtest_repeat=3
grep -hE "Failure|^\[  FAILED|info \]" -A3 "$out/tests.log" | head -40
step fault 40 "$bin/GpuosRuntimeTests" --gtest_filter='RuntimeGpuFault.*'
grep -hE "Failure" -A4 "$out/fault.log" | head -12
step memcheck 70 compute-sanitizer --tool memcheck "$bin/GpuosRuntimeTests" \
  --gtest_filter='*ChainComputes*gpu*:*ManifestGraph*gpu*'
tail -4 "$out/memcheck.log"
step bench 60 "$bin/gpuos-bench" --json "$out/bench.json"
step bench2 60 bash -c "'$bin/gpuos-bench' --quick --workers-per-sm 2; \
  '$bin/gpuos-bench' --quick --no-inline --no-continue"
echo "=================== summary ($((SECONDS - t0)) s) ==================="
cat "$out/summary.txt"
echo "--- gpuos-bench --quick variants (2 workers/SM; without inline singletons and continuations):"
grep -E "^gpuos-bench on|^submit|^tiny|^dependent" "$out/bench2.log"
echo "--- gpuos-bench:"
sed -n '/^gpuos-bench on/,$p' "$out/bench.log"
