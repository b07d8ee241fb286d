#!/usr/bin/env bash
# GPU check of the code generator: compiled task functions against the CPU
# reference interpreter, on a real GPU.
#
# HERE (the LLVM/MLIR machine):   bash scripts/gpu-check.sh prepare
#   builds gpuos-jit, gpuos-check-gen and the launcher gpuos-gpu-check,
#   compiles test/Target/gpu-check/*.mlir (including snapshots of the
#   partitioned examples) and the examples as gpuos-opt --gpuos-pipeline
#   partitions them today into images (<name>.cubin +
#   <name>.manifest.json: the runtime's resident kernel, gpuos_dispatch,
#   the tasks and their test kernels), and writes inputs and expected
#   outputs from the interpreter next to each image (per task and per
#   graph), all under .gpu-check/ (gitignored); checks every manifest with
#   the runtime's parser and runs the task vectors on the CPU simulation
#   (gpuos-sim-check) as a pre-check. Copies the two GPU-side checkers,
#   prebuilt, and their sources (with the runtime's host library) there.
#
# THERE (the GPU machine, no LLVM/MLIR):   bash scripts/gpu-check.sh run
#   checks every image two ways: the launcher runs each task's test kernel
#   with the manifest's block size, 32 and 1024 threads, and misaligned
#   buffers; gpuos-runtime-check loads the image into the runtime and runs
#   each task as a one-task graph and each graph as a whole through the
#   resident kernel. Exit 1 on any mismatch. With the device tool: carry
#   [".gpu-check"]. The log also goes to $OUT/gpu-check.log when $OUT is
#   set.
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
    gpuos-sim-check gpuos-opt gpuos-runtime-check gpuos-manifest-check
  rm -rf "$dir"
  mkdir -p "$dir/src/runtime-check" "$dir/src/rt" "$dir/inputs"
  local f name
  for f in "$root"/test/Target/gpu-check/*.mlir "$root"/test/Target/gpu-check/*.cu; do
    cp "$f" "$dir/inputs/"
  done
  # The shipped examples as the graph pipeline partitions them now (the
  # snapshots example_*.mlir above are what it produced when they were
  # taken).
  for f in "$root"/examples/*.mlir; do
    name=pipeline_$(basename "$f" .mlir)
    if ! "$build/bin/gpuos-opt" "$f" --gpuos-pipeline --mlir-print-debuginfo -o "$dir/inputs/$name.mlir" 2>"$dir/$name.pipeline.log"; then
      echo "skip $name: gpuos-opt --gpuos-pipeline failed (see $dir/$name.pipeline.log)"
      rm -f "$dir/inputs/$name.mlir"
    fi
  done
  for f in "$dir"/inputs/*.mlir; do
    name=$(basename "$f" .mlir)
    # <name>.cu beside an input defines its gpuos.custom ops' functions.
    local custom=()
    [[ -f ${f%.mlir}.cu ]] && custom=(--custom-source="${f%.mlir}.cu")
    # A "// gpu-check jit flags: ..." line asks for lowering options (both
    # gpuos-jit and the simulation take them).
    local flags=()
    read -r -a flags <<< "$(sed -n 's|^// gpu-check jit flags: ||p' "$f" | head -1)"
    if ! "$build/bin/gpuos-jit" "$f" --arch="$arch" --no-cache -v "${custom[@]}" "${flags[@]}" \
        -o "$dir/$name" 2>"$dir/$name.jit.log"; then
      echo "gpu-check: gpuos-jit failed on $f${flags[*]:+ (flags: ${flags[*]})}:" >&2
      tail -20 "$dir/$name.jit.log" >&2
      exit 1
    fi
    "$build/bin/gpuos-check-gen" "$f" --manifest="$dir/$name.manifest.json" \
      --image="../$name.cubin" -o "$dir/$name"
    # The runtime must accept the manifest (its own parser).
    "$build/bin/gpuos-manifest-check" "$dir/$name.manifest.json" >/dev/null
    # The same vectors on the CPU simulation first (64 threads keep it fast).
    local sim
    sim=$("$build/bin/gpuos-sim-check" "$f" "$dir/$name/check.txt" --block=64 "${flags[@]}" | tail -1) || true
    printf '%-28s %3d tasks  %-44s %s\n' "$name" "$(grep -c '^task ' "$dir/$name/check.txt")" \
      "${sim%% (*}" "$(grep -h '^time:' "$dir/$name.jit.log" | sed 's/.*total/compile/')"
  done
  cp "$build/bin/gpuos-gpu-check" "$build/bin/gpuos-runtime-check" "$dir/"
  cp "$root/tools/gpuos-gpu-check/gpuos-gpu-check.cpp" \
     "$root/tools/gpuos-gpu-check/CheckFile.h" "$dir/src/"
  cp "$root/tools/gpuos-gpu-check/runtime/gpuos-runtime-check.cpp" "$dir/src/runtime-check/"
  # The runtime's host library (plain C++, driver via dlopen) for a rebuild.
  cp -r "$root/runtime/include" "$root/runtime/lib" "$root/runtime/device" "$dir/src/rt/"
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

# A prebuilt checker if it starts (it prints its usage and exits 2 without
# arguments), else one built from .gpu-check/src with the local compiler.
checker() {
  local name=$1 status=0
  shift
  chmod +x "$dir/$name" 2>/dev/null || true
  "$dir/$name" >/dev/null 2>&1 || status=$?
  if [[ $status -eq 2 ]]; then echo "$dir/$name"; return; fi
  echo "rebuilding $name from source (prebuilt one exited $status)" >&2
  ${CXX:-c++} -std=c++17 -O2 -o "$dir/$name.local" "$@" -ldl -lpthread >&2
  echo "$dir/$name.local"
}

run() {
  [[ -d $dir ]] || { echo "no $dir: run 'bash scripts/gpu-check.sh prepare' on the build machine" >&2; exit 1; }
  local launcher runtime_check
  launcher=$(checker gpuos-gpu-check "$dir/src/gpuos-gpu-check.cpp")
  runtime_check=$(checker gpuos-runtime-check -I"$dir/src/rt/include" \
    -I"$dir/src/rt/device" -I"$dir/src/rt/lib" "$dir"/src/rt/lib/*.cpp \
    "$dir/src/runtime-check/gpuos-runtime-check.cpp")
  local log failures=0 images=0 check
  log=$(mktemp)
  for check in "$dir"/*/check.txt; do
    images=$((images + 1))
    # pipefail: each checker's status survives the tee; a kernel that hangs
    # (a barrier not every thread reaches) fails its image after 5 minutes.
    if ! timeout 300 "$launcher" "$check" 2>&1 | tee -a "$log"; then
      failures=$((failures + 1))
    fi
    if ! timeout 300 "$runtime_check" "$check" 2>&1 | tee -a "$log"; then
      failures=$((failures + 1))
    fi
  done
  [[ -n ${OUT:-} ]] && cp "$log" "$OUT/gpu-check.log"
  rm -f "$log"
  echo "gpu-check: $images images, checked by the launcher and the runtime; $failures failing runs"
  [[ $failures -eq 0 ]]
}

case $mode in
  prepare) prepare ;;
  run) run ;;
  *) echo "usage: $0 prepare|run" >&2; exit 2 ;;
esac
