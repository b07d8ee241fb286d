#!/usr/bin/env bash
# What urgent calls pay right after a background graph (docs/runtime.md,
# "Shorter background tiles", the end): the suite's sharing urgent graph
# beside three backgrounds, to tell the background's code from its
# footprint:
#   bulk   the suite's own (four tasks, 49 KB of code, about 200 MB);
#   small  the same four tasks over about 25 MB (footprint/background_small.mlir);
#   code   its elementwise chain alone over 256 MB (footprint/background_code.mlir).
#
# HERE:   bash bench/suite/footprint.sh prepare
#   compiles the urgent graph of workloads/sharing.mlir with each variant
#   into .bench-small and .bench-code (images/sharing.*, specs/ as run.sh
#   prepare writes them) and checks each spec against its manifest
#   (suite-driver validate). The bulk set
#   is .bench (bash bench/suite/run.sh prepare).
# THERE:  bash bench/suite/footprint.sh run
#   (device tool: carry [".bench", ".bench-small", ".bench-code"])
#   `run.sh share --urgent-exclusive 1 --after-bg 200 --trace-runs 131072`
#   per set, sets interleaved over ROUNDS (2): urgent latency alone, right
#   after a background graph and shared, split into pickup, poller and
#   tiles. Then the remedy if it is per-SM state: the bulk set's sharing
#   pair with workers on K SMs reserved for urgent work (`--urgent-sms K`,
#   RuntimeOptions::urgentSMs, docs/runtime.md "Urgent SMs") for each K of
#   URGENT_SMS (default "0 8 16"), with and without --urgent-exclusive,
#   interleaved over the same rounds. Logs and JSON in $OUT (default
#   /tmp/gpuos-bench/footprint); a table of all of it last.
#
# Environment: BUILD_DIR (default build), ARCH (sm_90), FOOTPRINT_DIR
# (where the .bench-<variant> sets go; default the repository root),
# VALIDATE (the validating driver; default $BUILD_DIR/bin/suite-driver-sim).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sets_dir=${FOOTPRINT_DIR:-$root}
variants=(small code)

prepare() {
  local build=${BUILD_DIR:-$root/build} arch=${ARCH:-sm_90}
  local validate=${VALIDATE:-$build/bin/suite-driver-sim} v set urgent
  # The urgent graph exactly as the suite has it: sharing.mlir up to its
  # background graph.
  urgent=$(sed '/^\/\/ GPU sharing, the background work/,$d' "$here/workloads/sharing.mlir")
  [[ $urgent == *"@urgent_step"* ]] || { echo "prepare: no urgent_step in workloads/sharing.mlir" >&2; exit 1; }
  for v in "${variants[@]}"; do
    set=$sets_dir/.bench-$v
    rm -rf "$set" && mkdir -p "$set/images" "$set/specs" "$set/logs"
    printf '%s\n%s\n' "$urgent" "$(cat "$here/footprint/background_$v.mlir")" > "$set/logs/sharing.mlir"
    if ! "$build/bin/gpuos-opt" "$set/logs/sharing.mlir" --gpuos-pipeline -o "$set/logs/pipeline.mlir" \
        2> "$set/logs/opt.log" ||
       ! "$build/bin/gpuos-jit" "$set/logs/pipeline.mlir" --emit=image --arch="$arch" --no-cache \
        -o "$set/images/sharing" > "$set/logs/jit.log" 2>&1; then
      echo "prepare: $v failed to compile (logs in $set/logs):" >&2
      tail -5 "$set/logs/opt.log" "$set/logs/jit.log" >&2
      exit 1
    fi
    python3 "$here/common.py" specs "$set/specs" "$set/logs/sharing.mlir" > /dev/null
    for spec in "$set"/specs/*.spec; do
      "$validate" validate --manifest "$set/images/sharing.manifest.json" --spec "$spec" |
        sed "s/^/  $v: /"
    done
    git -C "$root" rev-parse HEAD 2>/dev/null > "$set/commit" || echo unknown > "$set/commit"
  done
  echo "prepared ${variants[*]/#/.bench-}; on the GPU machine: bash bench/suite/footprint.sh run"
}

# One sharing run of set DIR as NAME: run.sh share with the given options,
# its log and JSON in $out; exits naming it when it fails.
share_run() { # NAME DIR option...
  local name=$1 dir=$2
  shift 2
  BENCH_DIR=$dir SHARE_JSON=$out/$name.json bash "$here/run.sh" share "$@" \
    > "$out/$name.log" 2>&1 ||
    { echo "run: $name ($*) failed:"; tail -5 "$out/$name.log"; exit 1; }
}

run() {
  local out=${OUT:-/tmp/gpuos-bench/footprint} r v dir k x
  mkdir -p "$out"
  for r in $(seq 1 "${ROUNDS:-2}"); do
    for v in bulk "${variants[@]}"; do
      dir=$sets_dir/.bench-$v
      [[ $v == bulk ]] && dir=$root/.bench
      [[ -f $dir/images/sharing.cubin ]] || { echo "run: no $dir/images/sharing.cubin (prepare, carry)" >&2; exit 1; }
      share_run "$v.$r" "$dir" --urgent-exclusive 1 --after-bg 200 --duration-s 0.5 \
        --trace-runs 131072
      echo "== $v, round $r"
      grep -E "^(phase|alone|after-bg|shared) |^gpuos" "$out/$v.$r.log"
    done
    for k in ${URGENT_SMS-0 8 16}; do
      for x in 1 0; do
        share_run "sms$k-x$x.$r" "$root/.bench" --urgent-exclusive $x --urgent-sms "$k" \
          --after-bg 200 --duration-s 0.5
      done
    done
  done
  table "$out"
}

# One row per JSON the rounds wrote: urgent p50 / p99 alone, right after a
# background graph and shared; the shared p99 over the solo one; the
# background's throughput kept.
table() {
  python3 - "$1" <<'PY'
import glob, json, os, sys
files = sorted(glob.glob(os.path.join(sys.argv[1], "*.json")))
if not files:
    sys.exit("footprint.sh table: no *.json in %s (footprint.sh run writes them)" % sys.argv[1])
print("| run | urgent SMs | exclusive | alone | after bg | shared | p99 ratio | bg kept |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for f in files:
    try:
        r = json.load(open(f))
        d = lambda k: "%.1f / %.1f" % (r[k]["p50"], r[k]["p99"]) if k in r else "-"
        row = (os.path.basename(f)[:-5], r.get("urgent_sms", 0), r.get("urgent_exclusive", "-"),
               d("urgent_solo_us"), d("urgent_after_bg_us"), d("urgent_shared_us"),
               r["urgent_shared_us"]["p99"] / r["urgent_solo_us"]["p99"],
               100 * r["background_shared_per_s"] / r["background_solo_per_s"])
    except (OSError, ValueError, KeyError, TypeError, ZeroDivisionError) as e:
        sys.exit("footprint.sh table: %s is not a share-gpuos result: %s: %s"
                 % (f, type(e).__name__, e))
    print("| %s | %s | %s | %s | %s | %s | %.2f | %.1f%% |" % row)
PY
}

case ${1:-} in
  prepare) prepare ;;
  run) run ;;
  table) table "${2:-${OUT:-/tmp/gpuos-bench/footprint}}" ;;
  *) echo "usage: bash bench/suite/footprint.sh prepare | run | table [DIR]" >&2; exit 2 ;;
esac
