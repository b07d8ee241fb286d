#!/usr/bin/env python3
"""Merges one GPU run of the suite into docs/results/.

    python3 bench/suite/merge.py DIR     # DIR: the run's $OUT (h200.json, results.md, *.png)

docs/results/h200.json keeps its "compile" section, takes "runtime" from
docs/results/runtime-bench-h200.json (gpuos-bench --json), and
takes "workloads", "sharing", "bandwidth" and the run's device, versions,
date and command; the per-mode distributions go to
docs/results/bench-suite-raw-h200.json, the tables to
docs/results/benchmarks-h200.md (what follows its KEEP marker there is
kept: sections written by hand), the plots beside them.
"""
import json
import shutil
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[2]
results = root / "docs" / "results"
run = Path(sys.argv[1])
new = json.loads((run / "h200.json").read_text())
path = results / "h200.json"
doc = json.loads(path.read_text()) if path.exists() else {}
for key in ("workloads", "sharing", "bandwidth"):
    doc[key] = new[key]
doc["suite"] = {k: new[k] for k in ("device", "versions", "date", "command", "method", "targets", "failures", "notes")
                if k in new}
doc["date"] = new["date"]
doc["device"] = new["device"]["name"]
doc["driver"] = new["device"].get("driver", doc.get("driver"))
# "runtime" (the runtime issue's keys) from the runtime's own benchmark
# record, gpuos-bench --json, so the two files never disagree.
rt_path = results / "runtime-bench-h200.json"
if rt_path.exists():
    rt = json.loads(rt_path.read_text())
    r = rt["results"]
    p50 = lambda key: r.get(key, {}).get("p50")
    doc["runtime"] = {
        "command": rt.get("command"), "date": rt.get("date"), "device": rt.get("device"),
        "driver": rt.get("driver"),
        "round_trip_p50_us": p50("roundtrip_us"), "round_trip_p99_us": r.get("roundtrip_us", {}).get("p99"),
        "task_throughput_us": p50("throughput_us_per_task"), "swap_pause_p50_us": p50("swap_pause_us"),
        "park_relaunch_p50_us": p50("relaunch_us"), "eager_launch_sync_p50_us": p50("eager_launch_sync_us"),
        "graph_node_us": p50("cuda_graph_us_per_node"), "pcie_pingpong_p50_us": p50("pcie_pingpong_us"),
        "chain_us_per_hop": p50("chain_us_per_hop"),
        "source": "docs/results/runtime-bench-h200.json",
    }
path.write_text(json.dumps(doc, indent=2) + "\n")
(results / "bench-suite-raw-h200.json").write_text(json.dumps(new.get("raw", {}), indent=1) + "\n")
# The run's tables replace the file; what was written by hand after the
# KEEP marker (analyses, same-session comparisons, each with its own
# command and date) is kept below them.
KEEP = "<!-- written by hand below this line: bench/suite/merge.py keeps it -->"
tables = (run / "results.md").read_text().rstrip("\n") + "\n"
md = results / "benchmarks-h200.md"
old_md = md.read_text() if md.exists() else ""
if KEEP in old_md:
    tables += "\n" + KEEP + old_md.split(KEEP, 1)[1]
md.write_text(tables)
for png in run.glob("*.png"):
    shutil.copy(png, results / png.name)
print(f"merged {run} into {results}")
