#!/usr/bin/env bash
# The gpuos benchmark suite (docs/benchmarks.md): gpuos against PyTorch
# eager, CUDA graphs and torch.compile, GPU sharing, bandwidth.
#
# HERE (the LLVM/MLIR machine):   bash bench/suite/run.sh prepare
#   compiles every workload (bench/suite/workloads/*.mlir) with
#   gpuos-opt --gpuos-pipeline and gpuos-jit --emit=image into
#   .bench/images/<name>.cubin + <name>.manifest.json (gitignored).
#   Environment: BUILD_DIR (default build), ARCH (sm_90), GPUOS_JIT_FLAGS.
#
# THERE (the GPU machine):        bash bench/suite/run.sh run [bench.py options]
#   builds the C++ driver against runtime/ (cmake, in /tmp/gpuos-bench/build),
#   runs every workload in every mode, checks gpuos against float64
#   PyTorch, and writes h200.json, results.md, PNG plots and bench.log into
#   $OUT (default /tmp/gpuos-bench/out). With the device tool: carry
#   [".bench"]. Exit 1 on any correctness failure or error.
#
#   bash bench/suite/run.sh build-driver     only the driver (run calls it)
#   bash bench/suite/run.sh profile decode rmsnorm_chain ...
#     each task of a workload's graph alone, sync latency p50/p99 per task
#     (where a graph's latency goes); JSON in $OUT/profile-<name>.json;
#     then the same tasks as plain kernel launches (profile-launch: the
#     tasks' own time without the runtime), $OUT/launch-<name>.json.
#     PROFILE_FLAGS: more driver options for the first, e.g.
#     "--trace-tiles 64 --priority urgent".
#   bash bench/suite/run.sh share [suite-driver options]
#     the sharing phase through the runtime alone, on zero-filled inputs,
#     e.g. --trace-runs 131072 (where urgent latency goes) or
#     --urgent-exclusive 1; the driver's JSON goes to $SHARE_JSON (default
#     /tmp/gpuos-bench/share/gpuos.json).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bench_dir=${BENCH_DIR:-$root/.bench}
# suite-driver, built by build-driver (run builds it itself).
default_driver=${BENCH_DRIVER:-/tmp/gpuos-bench/build/suite-driver}
mode=${1:-}
[[ $# -gt 0 ]] && shift

prepare() {
  local build=${BUILD_DIR:-$root/build} arch=${ARCH:-sm_90}
  local opt=$build/bin/gpuos-opt jit=$build/bin/gpuos-jit
  if [[ -f $build/build.ninja ]]; then
    ninja -C "$build" -j"${JOBS:-1}" gpuos-opt gpuos-jit >/dev/null
  fi
  [[ -x $opt && -x $jit ]] || { echo "prepare: no $opt / $jit (build them first)" >&2; exit 1; }
  python3 "$here/gen_workloads.py" --check
  rm -rf "$bench_dir"
  mkdir -p "$bench_dir/images" "$bench_dir/pipeline" "$bench_dir/logs"
  local f name failed=0 start
  for f in "$here"/workloads/*.mlir; do
    name=$(basename "$f" .mlir)
    start=$(date +%s%N)
    if ! "$opt" "$f" --gpuos-pipeline --mlir-print-debuginfo -o "$bench_dir/pipeline/$name.mlir" 2>"$bench_dir/logs/$name.opt.log"; then
      echo "prepare: gpuos-opt --gpuos-pipeline failed on $name:"; head -20 "$bench_dir/logs/$name.opt.log"
      failed=1; continue
    fi
    # shellcheck disable=SC2086
    if ! "$jit" "$bench_dir/pipeline/$name.mlir" --emit=image --arch="$arch" --no-cache -v \
        ${GPUOS_JIT_FLAGS:-} -o "$bench_dir/images/$name" >"$bench_dir/logs/$name.jit.log" 2>&1; then
      echo "prepare: gpuos-jit failed on $name:"; tail -20 "$bench_dir/logs/$name.jit.log"
      failed=1; continue
    fi
    python3 - "$bench_dir/images/$name.manifest.json" "$name" "$(( ($(date +%s%N) - start) / 1000000 ))" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
tasks = m["tasks"]
graphs = sorted({t["graph"] for t in tasks})
print("%-16s %3d tasks %6d tiles  graphs %-28s %5s ms  runtime: %s" % (
    sys.argv[2], len(tasks), sum(t.get("num_tiles") or 0 for t in tasks), ",".join(graphs), sys.argv[3],
    "linked" if m.get("runtime") else "NOT linked (the runtime cannot run this image yet)"))
EOF
  done
  # ptxas' report of spills, per image: in the linked image the task
  # functions are compiled under the resident kernel's register budget.
  local spills
  spills=$(for log in "$bench_dir"/logs/*.jit.log; do
    awk -v image="$(basename "$log" .jit.log)" \
      '/Function properties for/ {fn = $NF}
       /spill stores/ && $0 !~ / 0 bytes spill stores/ && fn ~ /^gpuos_task_/ {
         n++; b = $0; sub(/ bytes spill stores.*/, "", b); sub(/.*, /, "", b)
         if (b + 0 > max) {max = b + 0; worst = fn}}
       END {if (n) printf "  %-16s %3d task functions spill; most: %d bytes (%s)\n", image, n, max, worst}' "$log"
  done)
  if [[ -n $spills ]]; then printf 'ptxas spills (details in %s/logs/*.jit.log):\n%s\n' "$bench_dir" "$spills"
  else echo "ptxas spills: none in task functions"; fi
  [[ $failed -eq 0 ]] || { echo "prepare: some workloads failed to compile" >&2; exit 1; }
  # Pre-check without a GPU: every graph through the runtime's own host-side
  # validation and layout, bound as the driver binds it (suite-driver
  # validate, built here in build-bench).
  python3 "$here/common.py" specs "$bench_dir/specs" >/dev/null
  local local_build=${BENCH_LOCAL_BUILD:-$root/build-bench} spec graph image
  if command -v cmake >/dev/null && cmake -S "$here/driver" -B "$local_build" -G Ninja \
        -DCMAKE_BUILD_TYPE=Release >"$bench_dir/logs/driver-cmake.log" 2>&1 &&
      cmake --build "$local_build" --target suite-driver -j "${JOBS:-1}" >"$bench_dir/logs/driver-build.log" 2>&1; then
    for spec in "$bench_dir"/specs/*.spec; do
      graph=$(basename "$spec" .spec)
      image=$graph
      case $graph in urgent_step|background_bulk) image=sharing ;; esac
      "$local_build/suite-driver" validate --manifest "$bench_dir/images/$image.manifest.json" \
        --spec "$spec" | sed 's/^/  validate /' || failed=1
    done
    [[ $failed -eq 0 ]] || { echo "prepare: the runtime rejects some graphs (above)" >&2; exit 1; }
  else
    echo "prepare: skipped the runtime validation (could not build the driver here; see $bench_dir/logs)"
  fi
  # The commit the images come from, for the results (the GPU machine's
  # copy of the tree may carry a stale .git); "-dirty" with local changes.
  if git -C "$root" rev-parse HEAD 2>/dev/null | tr -d '\n' > "$bench_dir/commit"; then
    git -C "$root" diff --quiet HEAD -- 2>/dev/null || printf -- '-dirty' >> "$bench_dir/commit"
  else
    echo unknown > "$bench_dir/commit"
  fi
  echo "prepared $bench_dir ($(du -sh "$bench_dir" | cut -f1)); on the GPU machine run:"
  echo "  bash bench/suite/run.sh run        (device tool: carry [\".bench\"])"
}

build_driver() {
  local driver=$default_driver
  local build
  build=$(dirname "$driver")
  local gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  cmake -S "$here/driver" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$build" --target suite-driver -j "$(nproc)"
  [[ -x $build/suite-driver ]] || { echo "build-driver: no $build/suite-driver" >&2; exit 1; }
  [[ $build/suite-driver -ef $driver ]] || cp "$build/suite-driver" "$driver"
}

# Exits naming what is missing when the prepared images are not there
# (`$2`: -d for a directory, -f for a file).
require_bench() { # what -d|-f path
  test "$2" "$3" || {
    echo "$1: no $3: run 'bash bench/suite/run.sh prepare' on the build machine" \
         "and carry .bench" >&2; exit 1; }
}

run() {
  require_bench run -d "$bench_dir/images"
  local out=${OUT:-/tmp/gpuos-bench/out}
  mkdir -p "$out"
  export PYTHONUNBUFFERED=1 OUT="$out"
  # The Python path needs the compiler tools there (scripts/gpu-tools.sh,
  # carried as .gpu-tools) and the gpuos package built with its python.
  local extra=()
  if [[ -d $root/.gpu-tools ]]; then
    local tools images
    tools=$(cat "$root/.gpu-tools/commit" 2>/dev/null || echo "an unknown commit")
    images=$(cat "$bench_dir/commit" 2>/dev/null || echo "an unknown commit")
    if [[ $tools != "$images" || $tools == unknown* || $tools == "an unknown commit" ]]; then
      echo "run: the compiler tools in .gpu-tools are from $tools, the images in" \
           "$bench_dir from $images: the Python path would time another compiler." \
           "Run 'bash bench/suite/run.sh prepare' and 'bash scripts/gpu-tools.sh pack'" \
           "at one clean commit, or leave .gpu-tools out." >&2
      exit 1
    fi
    [[ $tools != *-dirty ]] || echo "run: tools and images both come from uncommitted" \
      "changes at $tools; nothing shows they are the same changes" >&2
    eval "$(bash "$root/scripts/gpu-tools.sh" unpack)"
    if GPUOS_VENV_PYTHON=python3 bash "$root/scripts/setup-python.sh" >/dev/null; then
      extra+=(--python-path)
    else
      echo "run: the gpuos Python package did not build; the Python path is skipped" >&2
    fi
  fi
  set +e
  python3 "$here/bench.py" run --images "$bench_dir/images" --out "$out" "${extra[@]}" "$@" 2>&1 | tee "$out/bench.log"
  local rc=${PIPESTATUS[0]}
  set -e
  return "$rc"
}

# Runs suite-driver on each named workload's image and graph: `$1` the
# usage word, `$2` the driver's step (a function of the driver and the
# workload's name); builds the driver first if needed.
for_workloads() {
  local what=$1 step=$2 driver=$default_driver name
  shift 2
  [[ $# -gt 0 ]] || { echo "usage: bash bench/suite/run.sh $what WORKLOAD..." >&2; exit 2; }
  require_bench "$what" -d "$bench_dir/images"
  for name in "$@"; do
    [[ -f $bench_dir/images/$name.cubin ]] || {
      echo "$what: no workload '$name' in $bench_dir/images (there:" \
           "$(cd "$bench_dir/images" && ls -- *.cubin 2>/dev/null | sed 's/\.cubin$//' | tr '\n' ' '))" >&2
      exit 1; }
  done
  [[ -x $driver ]] || build_driver >/dev/null
  for name in "$@"; do
    echo "=== $what $name"
    "$step" "$driver" "$name" --image "$bench_dir/images/$name.cubin" \
      --manifest "$bench_dir/images/$name.manifest.json" --graph "$name"
  done
}

# Per-task synchronous latency of workloads' graphs (suite-driver profile):
# where a graph's sync latency goes; then the same tasks as plain launches.
profile_step() { # driver name image-args...
  local driver=$1 name=$2
  shift 2
  # shellcheck disable=SC2086
  "$driver" profile "$@" --reps "${REPS:-100}" --json "${OUT:-/tmp}/profile-$name.json" \
    ${PROFILE_FLAGS:-}
  "$driver" profile-launch "$@" --reps "${REPS:-100}" --json "${OUT:-/tmp}/launch-$name.json"
}

# One run of each workload's whole graph with every tile traced
# (suite-driver timeline): per task when it was ready, started and ended,
# and the critical path's waiting against running.
timeline_step() { # driver name image-args...
  local driver=$1 name=$2
  shift 2
  # shellcheck disable=SC2086
  "$driver" timeline "$@" --reps "${REPS:-50}" --json "${OUT:-/tmp}/timeline-$name.json" \
    ${PROFILE_FLAGS:-}
}

# The sharing phase through the runtime alone (share-gpuos; the two-stream
# baseline runs in `run`), on zero-filled inputs (no PyTorch needed), one
# urgent input set, with the given suite-driver options (e.g. --trace-runs
# 131072, --urgent-exclusive 1).
share() {
  local driver=$default_driver work=/tmp/gpuos-bench/share
  require_bench share -f "$bench_dir/images/sharing.cubin"
  require_bench share -d "$bench_dir/specs"
  [[ -x $driver ]] || build_driver >/dev/null
  local spec name bytes
  for spec in urgent_step background_bulk; do
    rm -rf "${work:?}/$spec" && mkdir -p "$work/$spec/set0"
    while read -r kind name bytes; do
      [[ $kind == input ]] && head -c "$bytes" /dev/zero > "$work/$spec/set0/$name.bin"
    done < "$bench_dir/specs/$spec.spec"
  done
  local common=(--image "$bench_dir/images/sharing.cubin" --manifest "$bench_dir/images/sharing.manifest.json"
                --urgent-spec "$bench_dir/specs/urgent_step.spec" --urgent-data "$work/urgent_step"
                --urgent-sets 1 --bg-spec "$bench_dir/specs/background_bulk.spec"
                --bg-data "$work/background_bulk" --out "$work/out")
  echo "=== share-gpuos $*"
  local json=${SHARE_JSON:-$work/gpuos.json}
  "$driver" share-gpuos "${common[@]}" "$@" --json "$json"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('gpuos: urgent p50/p99 alone %.1f/%.1f shared %.1f/%.1f us; background %.0f/s alone, %.0f/s shared' % (r['urgent_solo_us']['p50'], r['urgent_solo_us']['p99'], r['urgent_shared_us']['p50'], r['urgent_shared_us']['p99'], r['background_solo_per_s'], r['background_shared_per_s'])); a=r.get('urgent_after_bg_us'); a and print('gpuos: urgent right after a background graph p50/p99 %.1f/%.1f us' % (a['p50'], a['p99']))" "$json"
}

case $mode in
  prepare) prepare ;;
  run) run "$@" ;;
  build-driver) build_driver ;;
  profile) for_workloads profile profile_step "$@" ;;
  timeline) for_workloads timeline timeline_step "$@" ;;
  share) share "$@" ;;
  *) echo "usage: $0 prepare | run [bench.py run options] | build-driver | profile WORKLOAD... | timeline WORKLOAD... | share [driver options]" >&2; exit 2 ;;
esac
