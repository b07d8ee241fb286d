"""aten ops -> gpuos micro-ops.

One table serves both entry points: torch.compile hands us FX graphs of aten
ops, the capture mode records aten ops as they are dispatched. `lower` emits
the ops for one aten call into a GraphBuilder, or raises Unsupported with the
reason, and the caller splits the graph there (never silently).

Dtypes follow PyTorch: the result dtype of every call is taken from PyTorch's
own answer (the FX node's meta value or the meta tensor the capture mode
computed), and operands are cast to it first, because gpuos ops take one
element type (mixing needs an explicit cast, docs/dialect.md).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Sequence

import torch

from ._graph import DTYPES, FLOAT_DTYPES, GraphBuilder, TensorType, Unsupported, Value, exact_in
from ._patterns import emit_norm, emit_softmax, fuse

aten = torch.ops.aten


def gpuos_dtype(dtype: torch.dtype) -> str:
    name = str(dtype).replace("torch.", "")
    if name not in DTYPES:
        raise Unsupported(f"dtype {dtype} (gpuos has {', '.join(DTYPES)})")
    return DTYPES[name]


def torch_dtype(dtype: str) -> torch.dtype:
    for name, short in DTYPES.items():
        if short == dtype:
            return getattr(torch, name)
    raise ValueError(dtype)


def meta_type(t: torch.Tensor) -> TensorType:
    """The gpuos type of a real or fake tensor, with its strides."""
    return TensorType.make(t.shape, gpuos_dtype(t.dtype), t.stride())


class Ctx:
    """What a lowering needs: the builder and PyTorch's result."""

    def __init__(self, b: GraphBuilder, out: Any):
        self.b = b
        self.out = out  # a tensor, or a tuple of tensors

    @property
    def out_dtype(self) -> str:
        out = self.out[0] if isinstance(self.out, (tuple, list)) else self.out
        return gpuos_dtype(out.dtype)

    # --- helpers -----------------------------------------------------------
    def cast(self, v: Value, dtype: str) -> Value:
        if v.type.dtype == dtype:
            return v
        return self.b.op(f"gpuos.cast {v.name} : {v.type} to {dtype}",
                         v.type.with_dtype(dtype), [v], kind="cast", attrs=(dtype,))

    def copy(self, v: Value) -> Value:
        """A contiguous copy of a strided view (a same-dtype cast)."""
        if v.type.contiguous:
            return v
        return self._cast_copy(v)

    def reshapeable(self, v: Value) -> Value:
        """v, or a copy of it where gpuos.reshape could not read it as it is
        (elements not in row-major order)."""
        return v if v.type.row_major_order else self._cast_copy(v)

    def _cast_copy(self, v: Value) -> Value:
        return self.b.op(f"gpuos.cast {v.name} : {v.type} to {v.type.dtype}",
                         v.type.with_dtype(v.type.dtype), [v], kind="cast",
                         attrs=(v.type.dtype,))

    def operand(self, x: Any, dtype: str) -> Value:
        if isinstance(x, Value):
            return self.cast(x, dtype)
        if isinstance(x, (bool, int, float)):
            return self.b.constant(x, dtype)
        raise Unsupported(f"operand {x!r} of type {type(x).__name__}")

    def result(self, shape: Sequence[int], dtype: str) -> TensorType:
        return TensorType.make(shape, dtype)


def _axis(axis: int, rank: int) -> int:
    return axis + rank if axis < 0 else axis


def _out_shape(ctx: Ctx) -> List[int]:
    return list(ctx.out.shape)


# --- elementwise -------------------------------------------------------------

UNARY = {
    aten.neg.default: "neg", aten.abs.default: "abs", aten.relu.default: "relu",
    aten.exp.default: "exp", aten.log.default: "log", aten.sqrt.default: "sqrt",
    aten.rsqrt.default: "rsqrt", aten.tanh.default: "tanh",
    aten.sigmoid.default: "sigmoid", aten.silu.default: "silu",
    aten.erf.default: "erf",
}
BINARY = {
    aten.add.Tensor: "add", aten.sub.Tensor: "sub", aten.mul.Tensor: "mul",
    aten.div.Tensor: "div", aten.maximum.default: "max",
    aten.minimum.default: "min", aten.pow.Tensor_Tensor: "pow",
    aten.pow.Tensor_Scalar: "pow", aten.add.Scalar: "add",
    aten.sub.Scalar: "sub", aten.mul.Scalar: "mul", aten.div.Scalar: "div",
}
COMPARE = {
    aten.eq.Tensor: "eq", aten.ne.Tensor: "ne", aten.lt.Tensor: "lt",
    aten.le.Tensor: "le", aten.gt.Tensor: "gt", aten.ge.Tensor: "ge",
    aten.eq.Scalar: "eq", aten.ne.Scalar: "ne", aten.lt.Scalar: "lt",
    aten.le.Scalar: "le", aten.gt.Scalar: "gt", aten.ge.Scalar: "ge",
}


def _binary(ctx: Ctx, name: str, lhs: Any, rhs: Any) -> Value:
    dtype = ctx.out_dtype
    if dtype == "i1":  # the dialect's arithmetic takes numbers, not bools
        raise Unsupported(f"{name} of bool tensors")
    shape = _out_shape(ctx)
    # PyTorch computes a 16-bit float op in f32 (its opmath type), the scalar
    # unrounded: x * 1e5 must not become x * inf in f16.
    scalars = [x for x in (lhs, rhs) if type(x) in (int, float)]
    wide = (dtype in ("f16", "bf16") and name in ("add", "sub", "mul", "div")
            and not all(exact_in(float(x), dtype) for x in scalars))
    compute = "f32" if wide else dtype
    a, b = ctx.operand(lhs, compute), ctx.operand(rhs, compute)
    # A decomposed norm or softmax closes here: emit the fused op instead.
    fused = None if wide else fuse(ctx.b, name, a, b, tuple(shape))
    if fused is not None:
        return fused
    result = ctx.b.op(f"gpuos.{name} {a.name}, {b.name} : {a.type}, {b.type}",
                      ctx.result(shape, compute), [a, b], kind=name)
    return ctx.cast(result, dtype)


def _unary(ctx: Ctx, name: str, x: Value) -> Value:
    dtype = ctx.out_dtype
    a = ctx.cast(x, dtype)
    return ctx.b.op(f"gpuos.{name} {a.name} : {a.type}",
                    ctx.result(a.type.shape, dtype), [a], kind=name)


def _common_dtype(lhs: Any, rhs: Any) -> str:
    def meta(x):
        if isinstance(x, Value):
            return torch.empty((1,) * len(x.type.shape) or (),
                               dtype=torch_dtype(x.type.dtype), device="meta")
        return x
    return gpuos_dtype(torch.result_type(meta(lhs), meta(rhs)))


def _compare(ctx: Ctx, predicate: str, lhs: Any, rhs: Any) -> Value:
    dtype = _common_dtype(lhs, rhs)
    if dtype == "i1":
        # gpuos.cmp compares numbers; booleans compare as i8.
        dtype = "i8"
    a, b = ctx.operand(lhs, dtype), ctx.operand(rhs, dtype)
    return ctx.b.op(
        f"gpuos.cmp {predicate}, {a.name}, {b.name} : {a.type}, {b.type}",
        ctx.result(_out_shape(ctx), "i1"), [a, b])


# The largest finite value of each float dtype.
_FLOAT_MAX = {"f16": 65504.0, "bf16": 3.3895313892515355e38, "f32": 3.4028234663852886e38}


def _checked_fill(x: Any, dtype: str, what: str) -> None:
    """PyTorch converts a fill value (full, masked_fill, where's scalar,
    alpha) to the tensor's dtype with an overflow check and raises ("value
    cannot be converted to type int without overflow"), where a binary op's
    scalar wraps. Such a value is Unsupported: the op runs in PyTorch and
    raises there, as in eager (it was wrapped into the graph)."""
    if type(x) not in (int, float):
        return
    if dtype in ("i8", "i32", "i64"):
        bits = int(dtype[1:])
        fits = math.isfinite(x) and -(1 << (bits - 1)) <= x < (1 << (bits - 1))
    elif dtype in _FLOAT_MAX:
        fits = not math.isfinite(x) or abs(x) <= _FLOAT_MAX[dtype]
    else:
        fits = True
    if not fits:
        raise Unsupported(f"{what} {x!r} overflows {dtype}")


def _select(ctx: Ctx, cond: Any, lhs: Any, rhs: Any) -> Value:
    dtype = ctx.out_dtype
    for x in (lhs, rhs):
        _checked_fill(x, dtype, "the scalar")
    c = ctx.operand(cond, "i1")
    a, b = ctx.operand(lhs, dtype), ctx.operand(rhs, dtype)
    return ctx.b.op(
        f"gpuos.select {c.name}, {a.name}, {b.name} : {c.type}, {a.type}, {b.type}",
        ctx.result(_out_shape(ctx), dtype), [c, a, b])


def _add(ctx: Ctx, lhs, rhs, alpha=1) -> Value:
    if alpha != 1:
        rhs = _scaled(ctx, rhs, alpha)
    return _binary(ctx, "add", lhs, rhs)


def _sub(ctx: Ctx, lhs, rhs, alpha=1) -> Value:
    if type(lhs) is bool or type(rhs) is bool:
        # PyTorch refuses it ("Subtraction, the `-` operator, with a bool
        # tensor is not supported"): in PyTorch it raises as in eager.
        raise Unsupported("sub with a bool operand")
    if alpha != 1:
        rhs = _scaled(ctx, rhs, alpha)
    return _binary(ctx, "sub", lhs, rhs)


def _scaled(ctx: Ctx, x, alpha):
    _checked_fill(alpha, ctx.out_dtype, "alpha")
    if not isinstance(x, Value):
        return x * alpha
    dtype = ctx.out_dtype
    a, c = ctx.cast(x, dtype), ctx.b.constant(alpha, dtype)
    return ctx.b.op(f"gpuos.mul {a.name}, {c.name} : {a.type}, {c.type}",
                    ctx.result(a.type.shape, dtype), [a, c], kind="mul")


def _pow(ctx: Ctx, x, exponent) -> Value:
    if isinstance(exponent, (int, float)) and exponent == 2:
        return _binary(ctx, "mul", x, x)
    if ctx.out_dtype not in FLOAT_DTYPES:
        raise Unsupported(f"pow of {ctx.out_dtype} (gpuos.pow takes floats)")
    if isinstance(exponent, (int, float)) and exponent == 0.5:
        return _unary(ctx, "sqrt", x)
    return _binary(ctx, "pow", x, exponent)


def _gelu(ctx: Ctx, x, approximate="none") -> Value:
    if approximate == "tanh":
        return _gelu_tanh(ctx, x)
    if approximate != "none":
        raise Unsupported(f"gelu(approximate={approximate!r})")
    return _unary(ctx, "gelu", x)


def _clamp(ctx: Ctx, x, lo=None, hi=None) -> Value:
    v = x
    if lo is not None:
        v = _binary(ctx, "max", v, lo)
    if hi is not None:
        v = _binary(ctx, "min", v, hi)
    return v


def _to_copy(ctx: Ctx, x, dtype=None, layout=None, device=None,
             pin_memory=None, non_blocking=False, memory_format=None) -> Value:
    # A device change is refused before lowering (check_same_device).
    return ctx.copy(ctx.cast(x, ctx.out_dtype))


def check_same_device(op, kwargs, device: torch.device) -> None:
    """A copy to another device is PyTorch's business, not a graph's."""
    target = kwargs.get("device")
    if op is aten._to_copy.default and target is not None:
        target = torch.device(target)
        if target.type != device.type or (target.index or 0) != (device.index or 0):
            raise Unsupported(f"a copy from {device} to {target}")


# --- views -------------------------------------------------------------------

def _view(ctx: Ctx, x: Value, shape=None) -> Value:
    target = _out_shape(ctx)
    if list(x.type.shape) == target:
        return x  # the same view (matmul's expand + view of a transpose)
    a = ctx.reshapeable(x)
    dims = ", ".join(map(str, target))
    return ctx.b.op(f"gpuos.reshape {a.name} to [{dims}] : {a.type}",
                    ctx.result(target, a.type.dtype), [a], kind="reshape",
                    attrs=(tuple(target),))


def _permute(ctx: Ctx, x: Value, perm: Sequence[int]) -> Value:
    rank = len(x.type.shape)
    perm = [_axis(p, rank) for p in perm]
    if perm == list(range(rank)):
        return x
    strides = x.type.effective_strides()
    result = TensorType.make([x.type.shape[p] for p in perm], x.type.dtype,
                             [strides[p] for p in perm])
    return ctx.b.op(
        f"gpuos.transpose {x.name} [{', '.join(map(str, perm))}] : {x.type}",
        result, [x], kind="transpose", attrs=(tuple(perm),))


def _transpose(ctx: Ctx, x: Value, d0: int, d1: int) -> Value:
    rank = len(x.type.shape)
    if rank == 0:  # eager wraps a 0-dim tensor's dims 0 and -1 to itself
        return x
    perm = list(range(rank))
    d0, d1 = _axis(d0, rank), _axis(d1, rank)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return _permute(ctx, x, perm)


def _t(ctx: Ctx, x: Value) -> Value:
    if len(x.type.shape) < 2:
        return x
    return _transpose(ctx, x, 0, 1)


def _expand(ctx: Ctx, x: Value, sizes, implicit=False) -> Value:
    target = _out_shape(ctx)
    if list(x.type.shape) == target:
        return x
    lead = len(target) - len(x.type.shape)
    strides = x.type.effective_strides()
    out_strides = []
    for axis, want in enumerate(target):
        if axis < lead:
            out_strides.append(0)
            continue
        have = x.type.shape[axis - lead]
        out_strides.append(strides[axis - lead] if have == want else 0)
    result = TensorType.make(target, x.type.dtype, out_strides)
    return ctx.b.op(
        f"gpuos.broadcast {x.name} to [{', '.join(map(str, target))}] : {x.type}",
        result, [x], kind="broadcast", attrs=(tuple(target),))


def _slice(ctx: Ctx, x: Value, dim=0, start=None, end=None, step=1) -> Value:
    rank = len(x.type.shape)
    dim = _axis(dim, rank)
    size = x.type.shape[dim]
    start, stop, step = slice(start, end, step).indices(size)
    count = len(range(start, stop, step))
    if count == 0:
        raise Unsupported("an empty slice")
    if count == size:
        return x
    starts = [0] * rank
    sizes = list(x.type.shape)
    steps = [1] * rank
    starts[dim], sizes[dim], steps[dim] = start, count, step
    strides = list(x.type.effective_strides())
    strides[dim] *= step
    result = TensorType.make(sizes, x.type.dtype, strides)
    fmt = lambda xs: "[" + ", ".join(map(str, xs)) + "]"
    return ctx.b.op(
        f"gpuos.slice {x.name} starts {fmt(starts)} sizes {fmt(sizes)} "
        f"steps {fmt(steps)} : {x.type}", result, [x], kind="slice",
        attrs=(tuple(starts), tuple(sizes), tuple(steps)))


def _select_int(ctx: Ctx, x: Value, dim: int, index: int) -> Value:
    rank = len(x.type.shape)
    dim = _axis(dim, rank)
    index = index + x.type.shape[dim] if index < 0 else index
    sliced = _slice(ctx, x, dim, index, index + 1, 1)
    return _view(ctx, sliced)


def _identity(ctx: Ctx, x: Value, *args, **kwargs) -> Value:
    return x


def _clone(ctx: Ctx, x: Value, memory_format=None) -> Value:
    return ctx.copy(x)


def _cat(ctx: Ctx, tensors: Sequence[Value], dim=0) -> Value:
    dtype = ctx.out_dtype
    rank = len(_out_shape(ctx))
    # PyTorch skips a 1-D empty operand of a higher-rank cat (legacy).
    values = [ctx.copy(ctx.cast(t, dtype)) for t in tensors
              if not (rank > 1 and t.type.shape == (0,))]
    if len(values) == 1:
        return values[0]
    rank = len(values[0].type.shape)
    names = ", ".join(v.name for v in values)
    types = ", ".join(str(v.type) for v in values)
    return ctx.b.op(f"gpuos.concat {names} axis {_axis(dim, rank)} : {types}",
                    ctx.result(_out_shape(ctx), dtype), values)


# --- reductions, norms, matmul -----------------------------------------------

def _reduced_axes(dims, rank: int) -> List[int]:
    """aten's dim argument of a reduction: None or [] for every axis, an int,
    or a list; sorted and non-negative."""
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return list(range(rank))
    if isinstance(dims, int):
        return [_axis(dims, rank)]
    return sorted(_axis(d, rank) for d in dims)


def _reduce(kind: str):
    def lower(ctx: Ctx, x: Value, dims=None, keepdim=False, dtype=None) -> Value:
        rank = len(x.type.shape)
        axes = _reduced_axes(dims, rank)
        if rank == 0:
            return ctx.cast(x, ctx.out_dtype)
        a = ctx.cast(x, ctx.out_dtype)
        keep = " keepdim" if keepdim else ""
        return ctx.b.op(
            f"gpuos.reduce {kind} {a.name} axes [{', '.join(map(str, axes))}]{keep} : {a.type}",
            ctx.result(_out_shape(ctx), a.type.dtype), [a], kind="reduce_" + kind,
            attrs=(tuple(axes), bool(keepdim)))
    return lower


def _along_axis(what: str, x: Value, dim: int) -> int:
    """dim as an axis of x; a 0-dim tensor has none for the dialect's ops."""
    rank = len(x.type.shape)
    if rank == 0:
        raise Unsupported(f"{what} of a 0-dim tensor")
    return _axis(dim, rank)


def _argmax(ctx: Ctx, x: Value, dim=None, keepdim=False) -> Value:
    if dim is None:  # over the flattened tensor; keepdim keeps every axis as 1
        a = ctx.reshapeable(x)
        flat = [a.type.numel()]
        a = ctx.b.op(f"gpuos.reshape {a.name} to [{flat[0]}] : {a.type}",
                     ctx.result(flat, a.type.dtype), [a])
        index = ctx.b.op(f"gpuos.argmax {a.name} axis 0 : {a.type}",
                         ctx.result([], "i64"), [a])
        if not keepdim:
            return index
        shape = _out_shape(ctx)
        return ctx.b.op(f"gpuos.reshape {index.name} to [{', '.join(map(str, shape))}] "
                        f": {index.type}", ctx.result(shape, "i64"), [index])
    keep = " keepdim" if keepdim else ""
    return ctx.b.op(
        f"gpuos.argmax {x.name} axis {_along_axis('argmax', x, dim)}{keep} : {x.type}",
        ctx.result(_out_shape(ctx), "i64"), [x])


def _softmax(ctx: Ctx, x: Value, dim: int, half_to_float=False) -> Value:
    axis = _along_axis("softmax", x, dim)
    return emit_softmax(ctx.b, ctx.cast(x, ctx.out_dtype), axis)


def _log_softmax(ctx: Ctx, x: Value, dim: int, half_to_float=False) -> Value:
    """x - max - log(sum(exp(x - max))) over dim."""
    axis = _along_axis("log_softmax", x, dim)
    dtype = ctx.out_dtype
    a = ctx.cast(x, dtype)
    keep = list(a.type.shape)
    keep[axis] = 1
    b = ctx.b
    m = b.op(f"gpuos.reduce max {a.name} axes [{axis}] keepdim : {a.type}",
             ctx.result(keep, dtype), [a], kind="reduce_max", attrs=((axis,), True))
    c = b.op(f"gpuos.sub {a.name}, {m.name} : {a.type}, {m.type}",
             ctx.result(a.type.shape, dtype), [a, m], kind="sub")
    e = b.op(f"gpuos.exp {c.name} : {c.type}", c.type, [c], kind="exp")
    s = b.op(f"gpuos.reduce sum {e.name} axes [{axis}] keepdim : {e.type}",
             ctx.result(keep, dtype), [e], kind="reduce_sum", attrs=((axis,), True))
    ls = b.op(f"gpuos.log {s.name} : {s.type}", s.type, [s], kind="log")
    return b.op(f"gpuos.sub {c.name}, {ls.name} : {c.type}, {ls.type}",
                ctx.result(a.type.shape, dtype), [c, ls], kind="sub")


def _check_last_dim(normalized_shape) -> None:
    if len(normalized_shape) != 1:
        raise Unsupported(f"a norm over {len(normalized_shape)} trailing dims (gpuos normalizes the last one)")


def _layer_norm(ctx: Ctx, x: Value, normalized_shape, weight=None, bias=None,
                eps=1e-5):
    _check_last_dim(normalized_shape)
    a = ctx.cast(x, ctx.out_dtype)
    # The mean and rstd results stay None: a graph cannot give them (an
    # output or a reader of them keeps the op in PyTorch).
    return (emit_norm(ctx.b, "layer_norm", a, eps, weight, bias), None, None)


def _rms_norm(ctx: Ctx, x: Value, normalized_shape, weight=None, eps=None):
    _check_last_dim(normalized_shape)
    dtype = ctx.out_dtype
    if eps is None:
        eps = torch.finfo(torch_dtype(dtype)).eps
    return emit_norm(ctx.b, "rms_norm", ctx.cast(x, dtype), eps, weight)


def _var_mean(ctx: Ctx, x: Value, dims=None, correction=None, keepdim=False):
    """(var, mean) over dims: mean((x - mean)^2) scaled by n / (n - correction),
    built so a LayerNorm spelled with it is found (_patterns.py)."""
    dtype = ctx.out_dtype
    if dtype not in FLOAT_DTYPES:
        raise Unsupported(f"var_mean of {dtype}")
    a = ctx.cast(x, dtype)
    rank = len(a.type.shape)
    axes = _reduced_axes(dims, rank)
    if rank == 0:
        raise Unsupported("var_mean of a scalar")
    correction = 1 if correction is None else correction
    n = 1
    for ax in axes:
        n *= a.type.shape[ax]
    if n - correction <= 0:
        raise Unsupported("var_mean with correction >= the element count")
    b = ctx.b
    kept = [1 if i in axes else d for i, d in enumerate(a.type.shape)]
    spec = f"axes [{', '.join(map(str, axes))}]"
    mean = b.op(f"gpuos.reduce mean {a.name} {spec} keepdim : {a.type}",
                ctx.result(kept, dtype), [a], kind="reduce_mean", attrs=(tuple(axes), True))
    c = b.op(f"gpuos.sub {a.name}, {mean.name} : {a.type}, {mean.type}",
             ctx.result(a.type.shape, dtype), [a, mean], kind="sub")
    sq = b.op(f"gpuos.mul {c.name}, {c.name} : {c.type}, {c.type}",
              c.type, [c, c], kind="mul")
    var = b.op(f"gpuos.reduce mean {sq.name} {spec} keepdim : {sq.type}",
               ctx.result(kept, dtype), [sq], kind="reduce_mean", attrs=(tuple(axes), True))
    if correction != 0:
        k = b.constant(n / (n - correction), dtype)
        var = b.op(f"gpuos.mul {var.name}, {k.name} : {var.type}, {k.type}",
                   var.type, [var, k], kind="mul")
    if not keepdim:
        shape = [d for i, d in enumerate(a.type.shape) if i not in axes]
        out = []
        for v in (var, mean):
            out.append(b.op(f"gpuos.reshape {v.name} to [{', '.join(map(str, shape))}] : {v.type}",
                            ctx.result(shape, dtype), [v], kind="reshape", attrs=(tuple(shape),)))
        var, mean = out
    return (var, mean)


def _var(ctx: Ctx, x: Value, dims=None, correction=None, keepdim=False) -> Value:
    return _var_mean(ctx, x, dims, correction=correction, keepdim=keepdim)[0]


def _max_dim(ctx: Ctx, x: Value, dim: int, keepdim=False):
    """(values, indices) of the maximum over one axis."""
    rank = len(x.type.shape)
    if rank == 0 or x.type.dtype == "i1":
        raise Unsupported(f"max(dim) of a {x.type}")
    axis = _axis(dim, rank)
    keep = " keepdim" if keepdim else ""
    values = ctx.b.op(f"gpuos.reduce max {x.name} axes [{axis}]{keep} : {x.type}",
                      ctx.result(ctx.out[0].shape, x.type.dtype), [x], kind="reduce_max",
                      attrs=((axis,), bool(keepdim)))
    index = ctx.b.op(f"gpuos.argmax {x.name} axis {axis}{keep} : {x.type}",
                     ctx.result(ctx.out[1].shape, "i64"), [x], kind="argmax",
                     attrs=(axis, bool(keepdim)))
    return (values, index)


def _gelu_tanh(ctx: Ctx, x: Value) -> Value:
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), PyTorch's tanh form."""
    dtype = ctx.out_dtype
    a = ctx.cast(x, dtype)
    b = ctx.b

    def bin(name, p, q):
        return b.op(f"gpuos.{name} {p.name}, {q.name} : {p.type}, {q.type}",
                    a.type.with_dtype(dtype), [p, q], kind=name)
    cube = bin("mul", bin("mul", a, a), a)
    inner = bin("mul", bin("add", a, bin("mul", cube, b.constant(0.044715, dtype))),
                b.constant(0.7978845608028654, dtype))
    t = b.op(f"gpuos.tanh {inner.name} : {inner.type}", inner.type, [inner], kind="tanh")
    return bin("mul", bin("mul", a, b.constant(0.5, dtype)), bin("add", t, b.constant(1.0, dtype)))


def _fused_rms_norm(ctx: Ctx, x, normalized_shape, weight=None, eps=None):
    return (_rms_norm(ctx, x, normalized_shape, weight, eps), None)


def _untransposed(b: GraphBuilder, v: Value):
    """The source of v when v is a transpose of its last two axes only (a
    matmul reads it with a transpose flag instead), else None."""
    d = b.defn(v)
    if d is None or d.kind != "transpose":
        return None
    perm = list(d.attrs[0])
    rank = len(perm)
    if rank < 2 or perm != list(range(rank - 2)) + [rank - 1, rank - 2]:
        return None
    return d.operands[0]


def _matmul(ctx: Ctx, lhs: Value, rhs: Value) -> Value:
    dtype = ctx.out_dtype
    if dtype not in FLOAT_DTYPES:
        raise Unsupported(f"an integer matmul ({dtype})")
    a, b = ctx.cast(lhs, dtype), ctx.cast(rhs, dtype)
    if len(a.type.shape) == 1 or len(b.type.shape) == 1:
        raise Unsupported("matmul of a 1-D operand")
    flags = ""
    src = _untransposed(ctx.b, a)
    if src is not None:
        a, flags = src, flags + " transpose_lhs"
    src = _untransposed(ctx.b, b)
    if src is not None:
        b, flags = src, flags + " transpose_rhs"
    return ctx.b.op(f"gpuos.matmul {a.name}, {b.name}{flags} : {a.type}, {b.type}",
                    ctx.result(_out_shape(ctx), dtype), [a, b], kind="matmul",
                    attrs=(flags,))  # a @ b and a @ b.t() differ (_patterns._same)


def _addmm(ctx: Ctx, bias, lhs, rhs, beta=1, alpha=1) -> Value:
    if beta != 1 or alpha != 1:
        raise Unsupported("addmm with beta or alpha other than 1")
    product = _matmul(ctx, lhs, rhs)
    return _binary(ctx, "add", product, bias)


def _full(ctx: Ctx, size, fill_value, **kwargs) -> Value:
    dtype = ctx.out_dtype
    _checked_fill(fill_value, dtype, "the fill value")
    c = ctx.b.constant(fill_value, dtype)
    return _expand(ctx, c, size)


def _scalar_tensor(ctx: Ctx, s) -> Value:
    _checked_fill(s, ctx.out_dtype, "the scalar")
    return ctx.b.constant(s, ctx.out_dtype)


def _masked_fill(ctx: Ctx, x: Value, mask: Value, value) -> Value:
    return _select(ctx, mask, value, x)


LOWERINGS: Dict[Any, Callable] = {}
for op, name in UNARY.items():
    LOWERINGS[op] = (lambda n: lambda ctx, x: _unary(ctx, n, x))(name)
for op, name in BINARY.items():
    if name in ("add", "sub"):
        continue
    LOWERINGS[op] = (lambda n: lambda ctx, a, b: _binary(ctx, n, a, b))(name)
for op, name in COMPARE.items():
    LOWERINGS[op] = (lambda n: lambda ctx, a, b: _compare(ctx, n, a, b))(name)
LOWERINGS.update({
    aten.add.Tensor: _add, aten.add.Scalar: _add,
    aten.sub.Tensor: _sub, aten.sub.Scalar: _sub,
    aten.rsub.Scalar: lambda ctx, a, b, alpha=1: _sub(ctx, b, _scaled(ctx, a, alpha) if alpha != 1 else a),
    aten.pow.Tensor_Scalar: _pow, aten.pow.Tensor_Tensor: _pow,
    aten.gelu.default: _gelu,
    aten.clamp.default: _clamp,
    aten.clamp_min.default: lambda ctx, x, lo: _clamp(ctx, x, lo, None),
    aten.clamp_max.default: lambda ctx, x, hi: _clamp(ctx, x, None, hi),
    aten.where.self: _select,
    aten.masked_fill.Scalar: _masked_fill,
    aten._to_copy.default: _to_copy,
    aten.view.default: _view, aten._unsafe_view.default: _view,
    aten.reshape.default: _view,
    aten.squeeze.dim: _view, aten.squeeze.dims: _view, aten.squeeze.default: _view,
    aten.unsqueeze.default: _view,
    aten.permute.default: _permute, aten.transpose.int: _transpose,
    aten.t.default: _t, aten.expand.default: _expand,
    aten.slice.Tensor: _slice, aten.select.int: _select_int,
    aten.alias.default: _identity, aten.detach.default: _identity,
    aten.lift_fresh.default: _identity,
    aten.lift_fresh_copy.default: lambda ctx, x: ctx.copy(x),
    aten.clone.default: _clone,
    aten.cat.default: _cat,
    aten.sum.dim_IntList: _reduce("sum"), aten.sum.default: _reduce("sum"),
    aten.mean.dim: _reduce("mean"), aten.mean.default: _reduce("mean"),
    aten.amax.default: _reduce("max"), aten.amin.default: _reduce("min"),
    aten.argmax.default: _argmax,
    aten._softmax.default: _softmax, aten.softmax.int: _softmax,
    aten._log_softmax.default: _log_softmax,
    aten.var_mean.correction: _var_mean, aten.var.correction: _var,
    aten.max.dim: _max_dim,
    aten.reciprocal.default: lambda ctx, x: _binary(ctx, "div", 1, x),
    aten.native_layer_norm.default: _layer_norm,
    aten.layer_norm.default: lambda ctx, *a, **k: _layer_norm(ctx, *a, **{kk: vv for kk, vv in k.items() if kk != "cudnn_enable"})[0],
    aten.mm.default: _matmul, aten.bmm.default: _matmul,
    aten.matmul.default: _matmul, aten.addmm.default: _addmm,
    aten.full.default: _full,
    aten.scalar_tensor.default: lambda ctx, s, **k: _scalar_tensor(ctx, s),
})
if hasattr(aten, "rms_norm"):
    LOWERINGS[aten.rms_norm.default] = _rms_norm
if hasattr(aten, "_fused_rms_norm"):
    LOWERINGS[aten._fused_rms_norm.default] = _fused_rms_norm


def supports(op) -> bool:
    return op in LOWERINGS


def lower(b: GraphBuilder, op, args, kwargs, out) -> Any:
    """Emits `op(*args, **kwargs)`; tensors in args are Values, `out` is
    PyTorch's (fake or meta) result. Raises Unsupported."""
    fn = LOWERINGS.get(op)
    if fn is None:
        raise Unsupported(f"{op} has no gpuos lowering")
    outs = out if isinstance(out, (tuple, list)) else [out]
    for t in outs:
        if isinstance(t, torch.Tensor):
            gpuos_dtype(t.dtype)
            if t.numel() == 0:
                raise Unsupported(f"{op} produces an empty tensor")
    return fn(Ctx(b, out), *args, **kwargs)
