"""Compares the outputs gpuos-interp --outputs-dir wrote for two runs.

usage: allclose.py EXPECTED_DIR ACTUAL_DIR [--rtol R]

Every <name>.bin of EXPECTED_DIR (float64 or int64, row-major) must exist in
ACTUAL_DIR with as many elements, each within rtol of the expected value
relative to max(1, |expected|) (a rewrite that reassociates a sum, such as
gpuos-split-k, rounds differently). Prints one line per output and exits 1
on any mismatch, so a lit RUN line fails with it.
"""
import glob
import os
import struct
import sys


def values(path):
    data = open(path, "rb").read()
    return struct.unpack("<%dd" % (len(data) // 8), data)


def main(argv):
    expected_dir, actual_dir = argv[1], argv[2]
    rtol = float(argv[argv.index("--rtol") + 1]) if "--rtol" in argv else 1e-5
    names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(expected_dir, "*.bin")))
    if not names:
        print("allclose: no outputs in", expected_dir)
        return 1
    failed = False
    for name in names:
        want = values(os.path.join(expected_dir, name))
        got = values(os.path.join(actual_dir, name))
        if len(got) != len(want):
            print("%s: %d elements, expected %d" % (name, len(got), len(want)))
            failed = True
            continue
        worst = max(abs(a - b) / max(1.0, abs(b)) for a, b in zip(got, want))
        ok = worst <= rtol
        failed |= not ok
        print("%s: %s" % (name, "ok" if ok else "differs by %.3g" % worst))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
