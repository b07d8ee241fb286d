#!/usr/bin/env bash
# GPU check of the code generator: compiled task functions against the CPU
# reference interpreter, on a real GPU.
#
# HERE (the LLVM/MLIR machine):   bash scripts/gpu-check.sh prepare
#   builds gpuos-jit, gpuos-check-gen and the launcher gpuos-gpu-check,
#   compiles test/Target/gpu-check/*.mlir (including snapshots of the
#   partitioned examples) and the examples as gpuos-opt --gpuos-pipeline
#   partitions them today into images (<name>.cubin +
#   <name>.manifest.json), and writes inputs and expected outputs from the
#   interpreter next to each image, all under .gpu-check/ (gitignored);
#   runs the same vectors on the CPU simulation (gpuos-sim-check) as a
#   pre-check.
#
# THERE (the GPU machine, no LLVM/MLIR):   bash scripts/gpu-check.sh run
#   runs the launcher on every image: each task with the manifest's block
#   size, 32 and 1024 threads, and misaligned buffers; exit 1 on any
#   mismatch. With the device tool: carry [".gpu-check"]. The log also goes
#   to $OUT/gpu-check.log when $OUT is set.
#
# Environment: BUILD_DIR (default build), GPU_CHECK_DIR (default
# .gpu-check), ARCH (default sm_90).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${GPU_CHECK_DIR:-$root/.gpu-check}
mode=${1:-run}

prepare() {
  local build=${BUILD_DIR:-$root/build} arch=${ARCH:-sm_90}
  bash "$root/scripts/build.sh" --target gpuos-jit gpuos-check-gen gpuos-gpu-check \
    gpuos-sim-check gpuos-opt
  rm -rf "$dir"
  mkdir -p "$dir/src" "$dir/inputs"
  local f name
  for f in "$root"/test/Target/gpu-check/*.mlir; do
    cp "$f" "$dir/inputs/"
  done
  # The shipped examples as the graph pipeline partitions them now (the
  # snapshots example_*.mlir above are what it produced when they were
  # taken).
  for f in "$root"/examples/*.mlir; do
    name=pipeline_$(basename "$f" .mlir)
    if ! "$build/bin/gpuos-opt" "$f" --gpuos-pipeline -o "$dir/inputs/$name.mlir" 2>"$dir/$name.pipeline.log"; then
      echo "skip $name: gpuos-opt --gpuos-pipeline failed (see $dir/$name.pipeline.log)"
      rm -f "$dir/inputs/$name.mlir"
    fi
  done
  for f in "$dir"/inputs/*.mlir; do
    name=$(basename "$f" .mlir)
    "$build/bin/gpuos-jit" "$f" --arch="$arch" --no-cache -v -o "$dir/$name" 2>"$dir/$name.jit.log"
    "$build/bin/gpuos-check-gen" "$f" --manifest="$dir/$name.manifest.json" \
      --image="../$name.cubin" -o "$dir/$name"
    # The same vectors on the CPU simulation first (64 threads keep it fast).
    local sim
    sim=$("$build/bin/gpuos-sim-check" "$f" "$dir/$name/check.txt" --block=64 | tail -1) || true
    printf '%-28s %3d tasks  %-44s %s\n' "$name" "$(grep -c '^task ' "$dir/$name/check.txt")" \
      "${sim%% (*}" "$(grep -h '^time:' "$dir/$name.jit.log" | sed 's/.*total/compile/')"
  done
  cp "$build/bin/gpuos-gpu-check" "$dir/"
  cp "$root/tools/gpuos-gpu-check/gpuos-gpu-check.cpp" \
     "$root/tools/gpuos-gpu-check/CheckFile.h" "$dir/src/"
  # ptxas' report, per function that uses local memory for spills.
  local spills
  spills=$(for log in "$dir"/*.jit.log; do
    awk -v image="$(basename "$log" .jit.log)" \
      '/Function properties for/ {fn = $NF}
       /spill stores/ && $0 !~ / 0 bytes spill stores/ {sub(/^ptxas *\. */, ""); print "  " image ": " fn ": " $0}' "$log"
  done)
  if [[ -n $spills ]]; then printf 'ptxas spills:\n%s\n' "$spills"; else echo "ptxas spills: none"; fi
  echo "prepared $dir ($(du -sh "$dir" | cut -f1)); on the GPU machine run:"
  echo "  bash scripts/gpu-check.sh run      (device tool: carry [\".gpu-check\"])"
}

run() {
  [[ -d $dir ]] || { echo "no $dir: run 'bash scripts/gpu-check.sh prepare' on the build machine" >&2; exit 1; }
  local launcher=$dir/gpuos-gpu-check
  chmod +x "$launcher" 2>/dev/null || true
  # The prebuilt launcher prints its usage and exits 2 when it can start.
  local status=0
  "$launcher" >/dev/null 2>&1 || status=$?
  if [[ $status -ne 2 ]]; then
    echo "rebuilding the launcher from source (prebuilt one exited $status)"
    launcher=$dir/gpuos-gpu-check.local
    ${CXX:-c++} -std=c++17 -O2 -o "$launcher" "$dir/src/gpuos-gpu-check.cpp" -ldl
  fi
  local log failures=0 images=0 check
  log=$(mktemp)
  for check in "$dir"/*/check.txt; do
    images=$((images + 1))
    # pipefail: the launcher's status survives the tee; a kernel that hangs
    # (a barrier not every thread reaches) fails its image after 5 minutes.
    if ! timeout 300 "$launcher" "$check" 2>&1 | tee -a "$log"; then
      failures=$((failures + 1))
    fi
  done
  [[ -n ${OUT:-} ]] && cp "$log" "$OUT/gpu-check.log"
  rm -f "$log"
  echo "gpu-check: $images images, $failures with failures"
  [[ $failures -eq 0 ]]
}

case $mode in
  prepare) prepare ;;
  run) run ;;
  *) echo "usage: $0 prepare|run" >&2; exit 2 ;;
esac
