#!/usr/bin/env bash
# Builds the runtime on its own and runs everything on a GPU machine, in one
# go: all tests (simulator and GPU), the fault/hang/deadline tests in their
# own process (they recreate contexts), the multi-GPU test (skipped visibly
# below 2 GPUs), compute-sanitizer memcheck, racecheck and synccheck over a
# representative subset, and gpuos-bench. Logs and bench.json go to $OUT
# (default /tmp/gpu-check); a summary table is printed last.
#   usage: runtime/scripts/gpu-check.sh
#   SKIP_BUILD=1 BUILD=dir: use an existing build (e.g. one built elsewhere
#   with the same source path).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-/tmp/rt}
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out"
t0=$SECONDS
if [ -z "${SKIP_BUILD:-}" ]; then
  cmake -S "$root/runtime" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    > "$build.configure.log" 2>&1 || { tail -20 "$build.configure.log"; exit 1; }
  ninja -C "$build" > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
fi
bin=$build/bin
echo "build: $((SECONDS - t0)) s"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
gpus=$(nvidia-smi -L | wc -l)
"$bin/gpuos-info"
"$bin/gpuos-link" -v -o "$build/relink.cubin" "$build/device/test_tasks.o" \
  "$build/device/gpuos_runtime_device.o" 2>&1 | grep -A1 "'gpuos_resident'" | tail -1

step() { # name timeout command...
  local name=$1 limit=$2; shift 2
  local s=$SECONDS
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  printf '%-10s rc=%-3s %4ss  ' "$name" "$rc" "$((SECONDS - s))" >> "$out/summary.txt"
  grep -hE "^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ test|ERROR SUMMARY|RACECHECK SUMMARY" \
    "$out/$name.log" | tr '\n' ' ' >> "$out/summary.txt"
  echo >> "$out/summary.txt"
}
: > "$out/summary.txt"
recovery='*RecoveryTest*gpu*'
step tests 240 "$bin/GpuosRuntimeTests" --gtest_filter="-$recovery:*gpuhost*" --gtest_repeat=3
grep -hE "Failure|^\[  FAILED|info \]" -A3 "$out/tests.log" | head -40
# The same scenarios with the context in a device host process
# (RuntimeOptions::isolateDevice), once.
step hosted 240 "$bin/GpuosRuntimeTests" --gtest_filter="*gpuhost*:-$recovery"
grep -hE "Failure|^\[  FAILED|info \]" -A3 "$out/hosted.log" | head -20
# One process per test: after an illegal address the driver may refuse any
# new context in that process, and a wedged tile keeps running until exit.
recovery_cases=(DeadlineNamesTheRunningTile HungTileRecoversTheKernel
  FaultFailsWhatWasInFlightAndRecovers WithoutRecoveryTheFaultIsSticky
  WedgedTileLeavesTheRuntimeFaultedNotHung FaultInAGangFailsItAndRecovers)
for t in "${recovery_cases[@]}"; do
  step "rec-${t:0:12}" 60 "$bin/GpuosRuntimeTests" --gtest_filter="*RecoveryTest.$t/gpu"
done
# In a device host, a fault ends that process (this one holds no context)
# and recovery starts another: one test process serves them all.
step host-recov 240 "$bin/GpuosRuntimeTests" --gtest_filter="*RecoveryTest.*/gpuhost"
cat "$out"/rec-*.log "$out"/host-recov.log > "$out/recovery.log"
grep -hE "Failure|info \]" -A4 "$out/recovery.log" | head -30
if [ "$gpus" -ge 2 ]; then
  step multigpu 60 "$bin/GpuosRuntimeTests" --gtest_filter='RuntimeMultiGpu.*'
  grep -hE "Failure" -A4 "$out/multigpu.log" | head -12
fi
# In-process cases only ("/gpu", not "/gpuhost": the kernels the
# sanitizers watch run in this process).
subset='*ChainComputes*/gpu:*ManifestGraph*/gpu:*RebindsKinds*/gpu:*GangTest.Failing*/gpu'
step memcheck 120 compute-sanitizer --tool memcheck "$bin/GpuosRuntimeTests" \
  --gtest_filter="$subset"
tail -4 "$out/memcheck.log"
kernels='*ChainComputes*/gpu:*GangTest.OneTile*/gpu:*GangTest.Failing*/gpu'
step racecheck 150 compute-sanitizer --tool racecheck "$bin/GpuosRuntimeTests" \
  --gtest_filter="$kernels"
tail -4 "$out/racecheck.log"
step synccheck 150 compute-sanitizer --tool synccheck "$bin/GpuosRuntimeTests" \
  --gtest_filter="$kernels"
tail -4 "$out/synccheck.log"
step bench 90 "$bin/gpuos-bench" --json "$out/bench.json"
step bench2 90 bash -c "'$bin/gpuos-bench' --quick --workers-per-sm 2; \
  '$bin/gpuos-bench' --quick --no-inline --no-continue; \
  '$bin/gpuos-bench' --quick --no-record; \
  '$bin/gpuos-bench' --quick --ring-acquire-gpu; \
  '$bin/gpuos-bench' --quick --isolate"
echo "=================== summary ($((SECONDS - t0)) s) ==================="
cat "$out/summary.txt"
echo "--- gpuos-bench --quick variants (2 workers/SM; without inline singletons and continuations; without job records; GPU-scope ring acquire; the context in a device host):"
grep -E "^gpuos-bench on|^submit|^tiny|^dependent|^image swap" "$out/bench2.log"
echo "--- gpuos-bench:"
sed -n '/^gpuos-bench on/,$p' "$out/bench.log"
