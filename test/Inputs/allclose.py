"""Compares the outputs gpuos-interp --outputs-dir wrote for two runs.

usage: allclose.py EXPECTED_DIR ACTUAL_DIR [--rtol R] [--exact NAME.bin ...]

Every <name>.bin of EXPECTED_DIR must exist in ACTUAL_DIR with as many
bytes. Outputs named after --exact (integer outputs: the files hold int64
then, which read as float64 would all look alike) must match byte for
byte; the others are float64, each element within rtol of the expected
value relative to max(1, |expected|) (a rewrite that reassociates a sum,
such as gpuos-split-k, rounds differently), NaN only where NaN is
expected. Prints one line per output and exits 1 on any mismatch, so a lit
RUN line fails with it.
"""
import glob
import math
import os
import struct
import sys


def values(data):
    return struct.unpack("<%dd" % (len(data) // 8), data)


def worst(got, want):
    """The largest relative difference; infinity for a NaN mismatch."""
    result = 0.0
    for a, b in zip(values(got), values(want)):
        if math.isnan(a) or math.isnan(b):
            if not (math.isnan(a) and math.isnan(b)):
                return math.inf
            continue
        result = max(result, abs(a - b) / max(1.0, abs(b)))
    return result


def main(argv):
    expected_dir, actual_dir = argv[1], argv[2]
    rtol = float(argv[argv.index("--rtol") + 1]) if "--rtol" in argv else 1e-5
    exact = {argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "--exact"}
    names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(expected_dir, "*.bin")))
    if not names:
        print("allclose: no outputs in", expected_dir)
        return 1
    failed = False
    for name in names:
        want = open(os.path.join(expected_dir, name), "rb").read()
        got = open(os.path.join(actual_dir, name), "rb").read()
        if len(got) != len(want):
            message = "%d bytes, expected %d" % (len(got), len(want))
        elif name in exact:
            message = "ok" if got == want else "differs (exact)"
        else:
            difference = worst(got, want)
            message = "ok" if difference <= rtol else "differs by %.3g" % difference
        failed |= message != "ok"
        print("%s: %s" % (name, message))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
