"""Shared pieces of the suite's Python side: graph signatures read from the
.mlir files, dtypes, raw buffer files, inputs, references and the checks."""

import math
import os
import re
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOAD_DIR = os.path.join(HERE, "workloads")

DTYPES = ("f32", "f16", "bf16", "f64", "i64", "i32", "i8", "i1")


def torch_dtype(name):
    import torch
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64,
            "i64": torch.int64, "i32": torch.int32, "i8": torch.int8, "i1": torch.bool}[name]


ELEM_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8, "i64": 8, "i32": 4, "i8": 1, "i1": 1}
FLOAT = {"f32", "f16", "bf16", "f64"}

# Norm-wise relative error ||out - ref|| / ||ref|| allowed per output dtype
# against the float64 reference (METHOD.md: float32 lands far under 1e-3).
TOLERANCE = {"f64": 1e-10, "f32": 1e-4, "f16": 5e-3, "bf16": 2e-2}


class Tensor:
    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype

    @property
    def numel(self):
        return math.prod(self.shape)

    @property
    def nbytes(self):
        return self.numel * ELEM_BYTES[self.dtype]

    def __repr__(self):
        return "%s:%s%s" % (self.name, "x".join(map(str, self.shape)), self.dtype)


class Signature:
    def __init__(self, graph, inputs, outputs):
        self.graph, self.inputs, self.outputs = graph, inputs, outputs

    @property
    def input_bytes(self):
        return sum(t.nbytes for t in self.inputs)

    @property
    def output_bytes(self):
        return sum(t.nbytes for t in self.outputs)


_TYPE = re.compile(r"!gpuos\.tensor<([^>]*)>")


def _parse_type(body):
    dims = body.split(",")[0].strip().split("x")
    dtype = dims[-1]
    shape = [int(d) for d in dims[:-1]]
    if dtype not in DTYPES:
        raise ValueError("unknown element type in !gpuos.tensor<%s>" % body)
    if "strides" in body:
        raise ValueError("strided graph inputs/outputs are not supported by the suite: %s" % body)
    return shape, dtype


def parse_signatures(path):
    """{graph name: Signature} of every gpuos.graph in an .mlir file."""
    text = open(path).read()
    sigs = {}
    for m in re.finditer(r"gpuos\.graph\s+@(\w+)\s*\((.*?)\)\s*->\s*\((.*?)\)\s*(priority[^{]*)?\{", text, re.S):
        name, ins, outs = m.group(1), m.group(2), m.group(3)
        inputs = [Tensor(n, *_parse_type(t)) for n, t in
                  re.findall(r"%(\w+)\s*:\s*!gpuos\.tensor<([^>]*)>", ins)]
        outputs = [Tensor(n, *_parse_type(t)) for n, t in
                   re.findall(r"(\w+)\s*:\s*!gpuos\.tensor<([^>]*)>", outs)]
        sigs[name] = Signature(name, inputs, outputs)
    return sigs


def signature(workload):
    path = os.path.join(WORKLOAD_DIR, workload.mlir)
    sigs = parse_signatures(path)
    if workload.graph not in sigs:
        raise KeyError("%s has no graph @%s (has %s)" % (path, workload.graph, ", ".join(sigs)))
    return sigs[workload.graph]


def write_spec(path, sig):
    with open(path, "w") as f:
        f.write("graph %s\n" % sig.graph)
        for t in sig.inputs:
            f.write("input %s %d\n" % (t.name, t.nbytes))
        for t in sig.outputs:
            f.write("output %s %d\n" % (t.name, t.nbytes))


# ---------------------------------------------------------------- raw files
# (everything below needs torch; the signatures above do not)


def to_bytes(t):
    import torch
    t = t.detach().contiguous().cpu()
    if t.dtype in (torch.bfloat16, torch.float16):
        return t.view(torch.int16).numpy().tobytes()
    if t.dtype == torch.bool:
        return t.to(torch.uint8).numpy().tobytes()
    return t.numpy().tobytes()


def from_bytes(data, spec):
    """A CPU tensor of `spec`'s shape and dtype from raw device bytes."""
    import torch
    if len(data) != spec.nbytes:
        raise ValueError("%s: %d bytes, expected %d" % (spec.name, len(data), spec.nbytes))
    dt = torch_dtype(spec.dtype)
    if spec.dtype == "i1":
        t = torch.frombuffer(bytearray(data), dtype=torch.uint8) != 0
    elif spec.dtype in ("bf16", "f16"):
        t = torch.frombuffer(bytearray(data), dtype=torch.int16).view(dt)
    else:
        t = torch.frombuffer(bytearray(data), dtype=dt)
    return t.reshape(spec.shape)


# ---------------------------------------------------------------- inputs


def seed_of(name, k):
    return zlib.crc32(("%s/%d" % (name, k)).encode()) & 0x7FFFFFFF


def make_inputs(workload, sig, k, device):
    """Input set `k` of a workload, on `device`, in the graph's dtypes."""
    import torch
    from workloads import uniform
    gen = torch.Generator(device=device)
    gen.manual_seed(seed_of(workload.name, k))
    out = []
    for t in sig.inputs:
        draw = workload.init.get(t.name, uniform())
        v = draw(t.shape, gen, device)
        if t.dtype == "i1":
            v = v.to(torch.bool) if v.dtype == torch.bool else v > 0
        else:
            v = v.to(torch_dtype(t.dtype))
        out.append(v.contiguous())
    return out


def upcast(ts):
    import torch
    return [t.to(torch.float64) if t.is_floating_point() else t for t in ts]


def reference(workload, inputs):
    """The float64 reference: the PyTorch function on float64 copies."""
    import torch
    with torch.no_grad():
        return [r for r in workload.fn(*upcast(inputs))]


# ---------------------------------------------------------------- checks


def compare(out, ref, spec, tie_source=None):
    """(ok, rel_err, message) for one output against its float64 reference.

    Floats: ||out - ref||_2 / ||ref||_2 within TOLERANCE[dtype], no NaN (a
    poisoned, unwritten element reads as NaN). Integers: exact; an argmax
    output may differ only on a near tie of `tie_source` (the reference
    values it picks from, the row's maximum within 1e-4 relative).
    """
    import torch
    out = out.to(ref.device)
    if spec.dtype in FLOAT:
        o = out.to(torch.float64)
        if torch.isnan(o).any() or torch.isinf(o).any():
            bad = int((~torch.isfinite(o)).sum())
            return False, float("inf"), "%d non-finite elements (unwritten or overflow)" % bad
        num = torch.linalg.vector_norm(o - ref).item()
        den = torch.linalg.vector_norm(ref).item()
        rel = num / den if den > 0 else num
        tol = TOLERANCE[spec.dtype]
        return rel <= tol, rel, "rel err %.3g (tol %.0e)" % (rel, tol)
    o = out.to(torch.int64)
    r = ref.to(torch.int64)
    diff = o != r
    if not diff.any():
        return True, 0.0, "exact"
    if tie_source is not None:
        vals = tie_source.reshape(-1, tie_source.shape[-1])
        rowmax = vals.max(-1).values
        picked = torch.gather(vals, 1, o.reshape(-1, 1).clamp(0, vals.shape[-1] - 1)).reshape(-1)
        inrange = (o.reshape(-1) >= 0) & (o.reshape(-1) < vals.shape[-1])
        near = inrange & (picked >= rowmax - 1e-4 * rowmax.abs() - 1e-6)
        if bool(near.all()):
            return True, 0.0, "equal up to near ties"
    return False, 1.0, "%d of %d elements differ" % (int(diff.sum()), diff.numel())


def check_outputs(sig, outs, refs):
    """Checks every output; returns (ok, max_rel_err, messages)."""
    ok, worst, msgs = True, 0.0, []
    float_outs = {t.name: r for t, r in zip(sig.outputs, refs) if t.dtype in FLOAT}
    for t, o, r in zip(sig.outputs, outs, refs):
        tie = None
        if t.dtype == "i64" and len(float_outs) == 1:
            tie = next(iter(float_outs.values()))
        good, rel, msg = compare(o, r, t, tie)
        ok &= good
        worst = max(worst, rel)
        msgs.append("%s: %s%s" % (t.name, msg, "" if good else "  FAIL"))
    return ok, worst, msgs


def main():
    """python3 common.py specs OUTDIR [FILE.mlir ...]: the driver's spec file
    of every graph (OUTDIR/<graph>.spec) of the workloads, or of the files
    named, without torch; run.sh prepare and footprint.sh prepare use it."""
    import sys
    if len(sys.argv) < 3 or sys.argv[1] != "specs":
        print("usage: common.py specs OUTDIR [FILE.mlir ...]", file=sys.stderr)
        return 2
    os.makedirs(sys.argv[2], exist_ok=True)
    files = sys.argv[3:] or [os.path.join(WORKLOAD_DIR, f)
                             for f in sorted(os.listdir(WORKLOAD_DIR)) if f.endswith(".mlir")]
    for path in files:
        for name, sig in parse_signatures(path).items():
            write_spec(os.path.join(sys.argv[2], name + ".spec"), sig)
            print(os.path.splitext(os.path.basename(path))[0], name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
