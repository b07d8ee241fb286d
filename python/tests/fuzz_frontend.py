"""A differential fuzz of the front-end against eager PyTorch (CPU, the
interpreter executor): random short programs of the ops the importer
lowers, run through gpuos.capture, gpuos.jit and (with --compile)
torch.compile, compared with the same program in eager PyTorch.

    python fuzz_frontend.py [--seed N] [--programs N] [--compile] [--runtime-path]

Needs the gpuos package and GPUOS_BIN_DIR (as the tests do). Prints each
mismatch or exception with the program that made it and exits 1 if there
was one. A program that gpuos runs partly in PyTorch (a logged fallback)
must still match. docs/testing.md, "The front-end's differential fuzz".
"""

import argparse
import logging
import random
import sys
import traceback

import torch
import torch.nn.functional as F

import gpuos

from conftest import TOLERANCE

TOL = {**TOLERANCE, torch.float64: 1e-9}
DTYPES = [torch.float32, torch.float32, torch.float64, torch.float16, torch.bfloat16,
          torch.int32, torch.int64]

# Ops by name, each a function of one or two tensors. One that eager
# refuses for its operands (a dtype mix, a shape) drops the program.
UNARY = {
    "exp": lambda x: torch.exp(x.clamp(max=10) if x.is_floating_point() else x.float()),
    "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu,
    "abs": torch.abs, "neg": torch.neg, "silu": F.silu,
    "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "sqrt_abs": lambda x: torch.sqrt(x.abs()),
    "rsqrt": lambda x: torch.rsqrt(x.abs() + 1),
    "log1": lambda x: torch.log(x.abs() + 1),
    "recip": lambda x: torch.reciprocal(x.abs() + 0.5),
    "erf": torch.erf,
    "square": lambda x: x * x,
    "pow3": lambda x: x ** 3,
    "scale": lambda x: x * 2.5,
    "shift": lambda x: x + 1,
    "rsub": lambda x: 1 - x,
    "div_s": lambda x: x / 3,
    "clamp": lambda x: x.clamp(-0.5, 0.75),
    "t": lambda x: x.t() if x.dim() == 2 else x.transpose(-1, -2),
    "slice": lambda x: x[..., ::2] if x.shape[-1] > 1 else x,
    "contig": lambda x: x.contiguous(),
    "clone": lambda x: x.clone(),
    "sum_last": lambda x: x.sum(-1, keepdim=True),
    "sum_first": lambda x: x.sum(0),
    "mean_last": lambda x: x.mean(-1, keepdim=True),
    "amax": lambda x: x.amax(-1, keepdim=True),
    "amin0": lambda x: x.amin(0, keepdim=True),
    "softmax": lambda x: torch.softmax(x, -1),
    "log_softmax": lambda x: torch.log_softmax(x, -1),
    "softmax0": lambda x: torch.softmax(x, 0),
    "softmax_mid": lambda x: torch.softmax(x, 1) if x.dim() == 3 else x,
    "sum_mid": lambda x: x.sum(1) if x.dim() == 3 else x,
    "permute": lambda x: x.permute(2, 0, 1) if x.dim() == 3 else x,
    "var": lambda x: x.var(-1, keepdim=True) if x.shape[-1] > 1 else x,
    "layer_norm": lambda x: F.layer_norm(x, x.shape[-1:]),
    "rms": lambda x: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6),
    "to_f32": lambda x: x.float(),
    "to_f16": lambda x: x.half(),
    "to_bf16": lambda x: x.bfloat16(),
    "to_f64": lambda x: x.double(),
    "gt0": lambda x: (x > 0).to(x.dtype),
    "unsq_exp": lambda x: x.unsqueeze(0).expand(2, *x.shape).sum(0),
    "argmax_f": lambda x: x.argmax(-1, keepdim=True).to(x.dtype),
    "max_dim": lambda x: x.max(-1, keepdim=True).values,
    "reshape": lambda x: x.reshape(-1).reshape(x.shape),
    "flip_view": lambda x: x.t().contiguous().t() if x.dim() == 2 else x,
    "mul_": lambda x: x.mul_(2),  # in place: earlier names of x see it
    "relu_": lambda x: x.relu_(),
    "select0": lambda x: x.select(0, 0) if x.dim() > 1 else x,
    "narrow": lambda x: x.narrow(-1, 0, max(1, x.shape[-1] // 2)),
    "expand_row": lambda x: x[..., :1].expand(*x.shape),
    "to_i32": lambda x: x.to(torch.int32),
    "to_i64": lambda x: (x * 4).to(torch.int64),
    "int_div": lambda x: x / 2,
    "gt_bool": lambda x: x > 0.25,
    "where_s": lambda x: torch.where(x > 0, x, 0.5),
    "scalar_t": lambda x: x * torch.tensor(1.5, dtype=x.dtype) if x.is_floating_point() else x,
    "sum_all": lambda x: x.sum(),
    "mean_all": lambda x: x.float().mean() if not x.is_floating_point() else x.mean(),
    "bool_not": lambda x: (x > 0).logical_not().to(x.dtype),
}
BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (b.abs() + 0.5),
    "maximum": torch.maximum, "minimum": torch.minimum,
    "where": lambda a, b: torch.where(a > b, a, b),
    "masked_fill": lambda a, b: a.masked_fill(b > 0, -1.5),
    "add_alpha": lambda a, b: torch.add(a, b, alpha=0.5),
    "pow_t": lambda a, b: torch.pow(a.abs() + 0.5, b.clamp(-2, 2)),
    "cat": lambda a, b: torch.cat([a, b], -1),
    "mm": lambda a, b: a @ b.transpose(-1, -2) if a.dim() >= 2 else a * b,
    "linear": lambda a, b: F.linear(a, b) if b.dim() == 2 else a * b,
    "add_": lambda a, b: a.add_(b),  # in place
    "copy_": lambda a, b: a.copy_(b),
}


IN_PLACE = {"mul_", "relu_", "add_", "copy_"}


def make_program(rng: random.Random):
    """(input tensors, a function of them, its text)."""
    rows, cols = rng.randint(1, 6), rng.choice([1, 2, 3, 5, 8, 16])
    dtype = rng.choice(DTYPES)
    n_in = rng.randint(1, 3)
    shapes = [(rows, cols)] + [rng.choice([(rows, cols), (cols,), (1, cols), (rows, 1)])
                               for _ in range(n_in - 1)]
    if rng.random() < 0.2:  # a leading batch dim
        b = rng.randint(1, 3)
        shapes = [(b,) + s if len(s) == 2 else s for s in shapes]

    # Permuted inputs: gpuos's results of them are row-major where eager's
    # keep their layout, so .contiguous() and .reshape() alias differently
    # (docs/python.md, "Layouts"); such programs make no in-place ops.
    permuted = rng.random() < 0.25

    # Some inputs start one element into their storage (a view x[1:]), off
    # the 16 bytes the generated code's vector path wants: the runtime path
    # must bind them (--runtime-path). Drawn from a generator of its own, so
    # the programs of a seed stay what they were before this was added.
    offsets = random.Random(hash(rng.getstate()[1]))

    def draw(s):
        t = (torch.randn(*s, generator=torch.Generator().manual_seed(rng.randrange(1 << 30)))
             * (4 if not dtype.is_floating_point else 1)).to(dtype)
        if len(s) >= 2 and permuted:
            t = t.transpose(-1, -2).contiguous().transpose(-1, -2)
        elif offsets.random() < 0.3:
            t = _at_offset(t, 1)
        return t
    inputs = [draw(s) for s in shapes]
    steps = []
    unary = sorted(n for n in UNARY if not (permuted and n in IN_PLACE))
    binary = sorted(n for n in BINARY if not (permuted and n in IN_PLACE))
    for _ in range(rng.randint(1, 8)):
        if rng.random() < 0.35:
            steps.append(("b", rng.choice(binary), rng.random(), rng.random()))
        else:
            steps.append(("u", rng.choice(unary), rng.random(), None))

    def operand(u: float, step: int) -> int:
        """The value a step reads: one of the inputs and earlier results."""
        return int(u * (len(shapes) + step))

    def fn(*xs):
        vals = list(xs)
        for i, (kind, name, p, q) in enumerate(steps):
            a = vals[operand(p, i)]
            vals.append(UNARY[name](a) if kind == "u" else BINARY[name](a, vals[operand(q, i)]))
        fn.dtypes = {v.dtype for v in vals}  # what the program computes in
        return tuple(vals[len(xs):])  # every value: none is dead code
    text = f"inputs {[tuple(t.shape) for t in inputs]} {dtype}; " + ", ".join(
        f"{name}(v{operand(p, i)}" + (f", v{operand(q, i)}" if kind == "b" else "") + ")"
        for i, (kind, name, p, q) in enumerate(steps))
    return inputs, fn, text


def close(got, want, dtypes) -> str:
    if not isinstance(got, torch.Tensor):
        return f"not a tensor: {type(got).__name__}"
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"shape/dtype {tuple(got.shape)} {got.dtype} vs eager {tuple(want.shape)} {want.dtype}"
    if not want.is_floating_point():
        return "" if torch.equal(got, want) else f"values differ: {got} vs {want}"
    g, w = got.double(), want.double()
    if not torch.equal(g.isnan(), w.isnan()):
        return f"NaN pattern differs: {got} vs {want}"
    g, w = g.nan_to_num(0, 1e300, -1e300), w.nan_to_num(0, 1e300, -1e300)
    # Values computed in a lower precision and then widened are only as
    # close as that precision.
    tol = max(TOL.get(d, 0) for d in dtypes | {want.dtype})
    # Lower-precision intermediates may differ by a rounding; allow a few.
    bad = (g - w).abs() > 8 * tol * (1 + w.abs())
    return f"values differ: {got} vs {want}" if bad.any() else ""


def run(entry: str, fn, inputs, runtime_path: bool = False):
    # The runtime path: compiled images through a stand-in of the runtime
    # that checks the bindings as it does (stub_runtime.py).
    opts = {} if runtime_path else dict(executor="interpreter")
    if entry == "capture":
        with gpuos.capture(**opts):
            out = fn(*inputs)
        return out
    if entry == "jit":
        f = gpuos.jit(fn, **opts)
        f(*[t.clone() for t in inputs])  # records (in-place ops write its copies)
        return f(*inputs)  # the second call runs the recorded runner
    torch._dynamo.reset()
    return torch.compile(fn, backend="gpuos", options=opts, dynamic=False)(*inputs)


def _at_offset(t: torch.Tensor, offset: int) -> torch.Tensor:
    """A contiguous copy of t starting `offset` elements into a storage of
    its own."""
    return torch.empty(offset + t.numel(), dtype=t.dtype)[offset:].view(t.shape).copy_(t)


def _same_layout(t: torch.Tensor) -> torch.Tensor:
    """A copy of t at the same offset into its storage (clone() would start
    it at offset 0; offset inputs are contiguous)."""
    return t.clone() if t.storage_offset() == 0 else _at_offset(t, t.storage_offset())


def fuzz(seed: int, programs: int, entries, runtime_path: bool = False) -> list:
    """The findings of `programs` random programs: one text per mismatch or
    exception, naming the program. runtime_path: stub_runtime is installed."""
    findings = []
    for k in range(programs):
        rng = random.Random(seed * 1_000_003 + k)
        inputs, fn, text = make_program(rng)
        try:
            want = fn(*[t.clone() for t in inputs])
            dtypes = fn.dtypes
        except Exception:
            continue  # eager refuses it (a dtype mix, a shape): not a program
        for entry in entries:
            try:
                got = run(entry, fn, [_same_layout(t) for t in inputs], runtime_path)
                why = "; ".join(filter(None, (close(g, w, dtypes) for g, w in zip(got, want))))
            except Exception as e:  # noqa: BLE001 -- every escape is a finding
                why = f"raised {type(e).__name__}: {e}\n{traceback.format_exc(limit=4)}"
            if why:
                findings.append(f"[seed {seed}, program {k}] {entry}: {text}\n    {why}")
    return findings


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--programs", type=int, default=300)
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--runtime-path", action="store_true",
                    help="compiled images through stub_runtime's stand-in of the runtime")
    args = ap.parse_args()
    logging.getLogger("gpuos").setLevel(logging.ERROR)
    if args.runtime_path:
        import stub_runtime
        stub_runtime.install()
    entries = ["capture", "jit"] + (["compile"] if args.compile else [])
    findings = fuzz(args.seed, args.programs, entries, args.runtime_path)
    for f in findings:
        print(f, flush=True)
    print(f"{args.programs} programs, {len(findings)} failures; {gpuos.stats()}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
