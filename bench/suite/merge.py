#!/usr/bin/env python3
"""Merges one GPU run of the suite into docs/results/.

    python3 bench/suite/merge.py DIR     # DIR: the run's $OUT (h200.json, results.md, *.png)

docs/results/h200.json keeps its other sections ("runtime", "compile") and
takes "workloads", "sharing", "bandwidth" and the run's device, versions,
date and command; the per-mode distributions go to
docs/results/bench-suite-raw-h200.json, the tables to
docs/results/benchmarks-h200.md, the plots beside them.
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
path.write_text(json.dumps(doc, indent=2) + "\n")
(results / "bench-suite-raw-h200.json").write_text(json.dumps(new.get("raw", {}), indent=1) + "\n")
shutil.copy(run / "results.md", results / "benchmarks-h200.md")
for png in run.glob("*.png"):
    shutil.copy(png, results / png.name)
print(f"merged {run} into {results}")
