#!/usr/bin/env python3
"""Checks that each workload's PyTorch definition computes what its gpuos
graph computes, on the CPU, without a GPU: the same inputs go through
gpuos-interp (--inputs-dir/--outputs-dir, float64 files) and through the
PyTorch function in float64; every output must agree.

    python3 bench/suite/interp_check.py [--build build] [NAME ...]

Needs torch (CPU is enough) and the build's gpuos-interp. A development
check for whoever edits workloads.py or gen_workloads.py; the GPU run
checks gpuos against the same float64 reference.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from workloads import WORKLOADS, BY_NAME  # noqa: E402

# The interpreter rounds every op's result to its dtype; the reference does
# not round at all, so low-precision graphs differ by a few roundings.
TOL = {"f64": 1e-12, "f32": 2e-6, "f16": 4e-3, "bf16": 3e-2}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", "build"))
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    root = os.path.abspath(os.path.join(common.HERE, "..", ".."))
    interp = os.path.join(root, args.build, "bin", "gpuos-interp")
    names = args.names or [w.name for w in WORKLOADS]
    failed = 0
    for name in names:
        w = BY_NAME[name]
        sig = common.signature(w)
        t0 = time.time()
        inputs = common.make_inputs(w, sig, 0, "cpu")
        refs = common.reference(w, inputs)
        with tempfile.TemporaryDirectory() as d:
            ind, outd = os.path.join(d, "in"), os.path.join(d, "out")
            os.makedirs(ind)
            os.makedirs(outd)
            for t, v in zip(sig.inputs, inputs):
                v = v.to(torch.float64) if t.dtype in common.FLOAT else v.to(torch.int64)
                v.contiguous().numpy().tofile(os.path.join(ind, t.name + ".bin"))
            cmd = [interp, os.path.join(common.WORKLOAD_DIR, w.mlir), "--graph=" + w.graph,
                   "--inputs-dir=" + ind, "--outputs-dir=" + outd, "--print-values=0"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print("%-16s gpuos-interp failed:\n%s" % (name, r.stderr[-2000:]))
                failed += 1
                continue
            msgs, ok = [], True
            for t, ref in zip(sig.outputs, refs):
                raw = open(os.path.join(outd, t.name + ".bin"), "rb").read()
                dt = torch.float64 if t.dtype in common.FLOAT else torch.int64
                got = torch.frombuffer(bytearray(raw), dtype=dt).reshape(t.shape)
                if t.dtype in common.FLOAT:
                    rel = (torch.linalg.vector_norm(got - ref) / torch.linalg.vector_norm(ref)).item()
                    good = rel <= TOL[t.dtype]
                    msgs.append("%s %.2g" % (t.name, rel))
                else:
                    good = bool((got == ref.to(torch.int64)).all())
                    msgs.append("%s %s" % (t.name, "exact" if good else "DIFFERS"))
                ok &= good
        failed += not ok
        print("%-16s %s  %.1fs  %s" % (name, "ok  " if ok else "FAIL", time.time() - t0,
                                       ", ".join(msgs[:6]) + (" ..." if len(msgs) > 6 else "")))
    print("%d passed, %d failed" % (len(names) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
