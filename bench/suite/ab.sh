#!/usr/bin/env bash
# A/B of prepared image sets on the GPU machine: the suite's gpuos modes
# (no torch.compile, no CUDA graph, no sharing) for each set in turn,
# interleaved over rounds, then one line per set, round and workload.
#
# HERE:  BENCH_DIR=.bench-a bash bench/suite/run.sh prepare   (at change A)
#        BENCH_DIR=.bench-b bash bench/suite/run.sh prepare   (at change B)
# THERE: bash bench/suite/ab.sh a b        (device tool: carry [".bench-a", ".bench-b"])
#
# Environment: ONLY (workloads, comma-separated; default five short ones and
# bandwidth; "none": no workloads), ROUNDS (2), BUDGET (seconds per mode and
# workload, 0.5), OUT; SHARE_ARGS, when set, also runs the sharing pair of
# each set (`run.sh share $SHARE_ARGS`, e.g. "--urgent-exclusive 1
# --after-bg 300") and prints one line per set and round.
# The driver is built from this tree's runtime/ once and serves every set:
# sets must share the runtime protocol (Protocol.h).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[[ $# -ge 1 ]] || { echo "usage: bash bench/suite/ab.sh SET... (image sets .bench-SET)" >&2; exit 2; }
only=${ONLY:-bandwidth,ew_chain,layernorm_chain,broadcast_views,softmax_widths}
out=${OUT:-/tmp/gpuos-bench/ab}
mkdir -p "$out"
for set in "$@"; do
  [[ -d $root/.bench-$set/images ]] || { echo "ab: no .bench-$set/images: prepare it and carry it" >&2; exit 1; }
done
failed=0
for r in $(seq 1 "${ROUNDS:-2}"); do
  for set in "$@"; do
    if [[ $only != none ]] && ! BENCH_DIR=$root/.bench-$set OUT=$out/$set.$r bash "$here/run.sh" run --only "$only" \
        --no-compile --no-graph --no-sharing --budget-s "${BUDGET:-0.5}" > "$out/$set.$r.log" 2>&1; then
      echo "ab: set $set round $r failed:"; tail -20 "$out/$set.$r.log"; failed=1
    fi
    if [[ -n ${SHARE_ARGS:-} ]]; then
      # shellcheck disable=SC2086 # SHARE_ARGS is a list of driver options
      if ! BENCH_DIR=$root/.bench-$set SHARE_JSON=$out/$set.$r.share.json bash "$here/run.sh" share $SHARE_ARGS \
          > "$out/$set.$r.share.log" 2>&1; then
        echo "ab: set $set round $r sharing failed:"; tail -20 "$out/$set.$r.share.log"; failed=1
      fi
    fi
  done
done
python3 - "$out" "$@" <<'PY'
import json, os, sys
out, sets = sys.argv[1], sys.argv[2:]
print("| set.round | workload | pipelined us | sync p50 us | max rel err |")
print("| --- | --- | ---: | ---: | ---: |")
runs = sorted((d for d in os.listdir(out) if os.path.isfile(os.path.join(out, d, "h200.json"))),
              key=lambda d: (d.split(".")[-1], sets.index(d.rsplit(".", 1)[0]) if d.rsplit(".", 1)[0] in sets else 0))
for d in runs:
    j = json.load(open(os.path.join(out, d, "h200.json")))
    for w in j["workloads"]:
        print("| %s | %s | %.1f | %.1f | %.1e |" % (d, w["name"], w["gpuos_us"], w["gpuos_sync_p50"], w["max_rel_err"]))
    b = j.get("bandwidth") or {}
    if b.get("gpuos_tb_s"):
        print("| %s | bandwidth: %.2f TB/s, copy %.2f, ratio %.3f | | | |" % (d, b["gpuos_tb_s"], b["copy_tb_s"], b["ratio"]))
shares = sorted((f for f in os.listdir(out) if f.endswith(".share.json")),
                key=lambda f: (f.split(".")[-3], sets.index(f.split(".")[0]) if f.split(".")[0] in sets else 0))
if shares:
    print("\n| set.round | urgent p50 / p99 alone (us) | right after background | shared | background kept |")
    print("| --- | ---: | ---: | ---: | ---: |")
    pp = lambda d: "%.1f / %.1f" % (d["p50"], d["p99"]) if d else "-"
    for f in shares:
        j = json.load(open(os.path.join(out, f)))
        kept = j["background_shared_per_s"] / j["background_solo_per_s"] if j["background_solo_per_s"] else 0
        print("| %s | %s | %s | %s | %.1f%% |" % (f[:-len(".share.json")], pp(j["urgent_solo_us"]),
                                                  pp(j.get("urgent_after_bg_us")), pp(j["urgent_shared_us"]), 100 * kept))
PY
exit $failed
