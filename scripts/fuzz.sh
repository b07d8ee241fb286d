#!/usr/bin/env bash
# Builds the libFuzzer target gpuos-fuzz-parse (clang-22, ASan + UBSan +
# coverage on the gpuos libraries) into ${BUILD_DIR:-build-fuzz} and fuzzes
# parse + verify of gpuos IR for ${FUZZ_SECONDS:-600} seconds, starting from a
# copy of test/fuzz/corpus. See docs/fuzzing.md.
#
#   FUZZ_SECONDS  run time in seconds (default 600)
#   FUZZ_JOBS     build parallelism (default 2)
#   FUZZ_OUT      work directory (default fuzz-out/, gitignored): corpus/ is
#                 the growing corpus, artifacts/ the crashers, fuzz.log the log
#   FUZZ_ARGS     extra libFuzzer flags
#
# Exit status: 0 for a clean run, non-zero when the fuzzer found something
# (the input lies in $FUZZ_OUT/artifacts/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
out=${FUZZ_OUT:-$root/fuzz-out}
seconds=${FUZZ_SECONDS:-600}
jobs=${FUZZ_JOBS:-2}

GPUOS_FUZZ=1 bash "$root/scripts/setup.sh"

if [[ ! -f "$build/build.ninja" ]]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DGPUOS_ENABLE_FUZZER=ON \
    -DGPUOS_ENABLE_UNITTESTS=OFF
fi
cmake --build "$build" -j "$jobs" --target gpuos-fuzz-parse gpuos-fuzz-replay

mkdir -p "$out/corpus" "$out/artifacts"
cp -n "$root"/test/fuzz/corpus/* "$out/corpus/" 2>/dev/null || true

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-22/bin/llvm-symbolizer}

echo "fuzz: $build/bin/gpuos-fuzz-parse for ${seconds}s, log in $out/fuzz.log"
status=0
# shellcheck disable=SC2086
"$build/bin/gpuos-fuzz-parse" "$out/corpus" \
  -dict="$root/test/fuzz/gpuos.dict" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=4096 \
  -artifact_prefix="$out/artifacts/" -print_final_stats=1 \
  ${FUZZ_ARGS:-} 2>&1 | tee "$out/fuzz.log" || status=$?

echo "fuzz: final stats"
grep -E '^(stat::|#[0-9]+ +DONE)' "$out/fuzz.log" || true
echo "fuzz: corpus $(find "$out/corpus" -type f | wc -l) files," \
  "artifacts: $(find "$out/artifacts" -type f | wc -l)"
exit "$status"
