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

from typing import Any, Callable, Dict, List, Sequence

import torch

from ._graph import DTYPES, FLOAT_DTYPES, GraphBuilder, TensorType, Unsupported, Value

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
                         v.type.with_dtype(dtype), [v])

    def copy(self, v: Value) -> Value:
        """A contiguous copy of a strided view (a same-dtype cast)."""
        if v.type.contiguous:
            return v
        return self.b.op(f"gpuos.cast {v.name} : {v.type} to {v.type.dtype}",
                         v.type.with_dtype(v.type.dtype), [v])

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
    a, b = ctx.operand(lhs, dtype), ctx.operand(rhs, dtype)
    return ctx.b.op(f"gpuos.{name} {a.name}, {b.name} : {a.type}, {b.type}",
                    ctx.result(_out_shape(ctx), dtype), [a, b])


def _unary(ctx: Ctx, name: str, x: Value) -> Value:
    dtype = ctx.out_dtype
    a = ctx.cast(x, dtype)
    return ctx.b.op(f"gpuos.{name} {a.name} : {a.type}",
                    ctx.result(a.type.shape, dtype), [a])


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


def _select(ctx: Ctx, cond: Any, lhs: Any, rhs: Any) -> Value:
    dtype = ctx.out_dtype
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
    if alpha != 1:
        rhs = _scaled(ctx, rhs, alpha)
    return _binary(ctx, "sub", lhs, rhs)


def _scaled(ctx: Ctx, x, alpha):
    if not isinstance(x, Value):
        return x * alpha
    dtype = ctx.out_dtype
    a, c = ctx.cast(x, dtype), ctx.b.constant(alpha, dtype)
    return ctx.b.op(f"gpuos.mul {a.name}, {c.name} : {a.type}, {c.type}",
                    ctx.result(a.type.shape, dtype), [a, c])


def _pow(ctx: Ctx, x, exponent) -> Value:
    if isinstance(exponent, (int, float)) and exponent == 2:
        return _binary(ctx, "mul", x, x)
    if isinstance(exponent, (int, float)) and exponent == 0.5:
        return _unary(ctx, "sqrt", x)
    return _binary(ctx, "pow", x, exponent)


def _gelu(ctx: Ctx, x, approximate="none") -> Value:
    if approximate != "none":
        raise Unsupported(f"gelu(approximate={approximate!r}); gpuos.gelu is the erf form")
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
    a = ctx.copy(x)
    target = _out_shape(ctx)
    if list(a.type.shape) == target:
        return a
    dims = ", ".join(map(str, target))
    return ctx.b.op(f"gpuos.reshape {a.name} to [{dims}] : {a.type}",
                    ctx.result(target, a.type.dtype), [a])


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
        result, [x])


def _transpose(ctx: Ctx, x: Value, d0: int, d1: int) -> Value:
    rank = len(x.type.shape)
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
        result, [x])


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
        f"steps {fmt(steps)} : {x.type}", result, [x])


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
    values = [ctx.copy(ctx.cast(t, dtype)) for t in tensors]
    if len(values) == 1:
        return values[0]
    rank = len(values[0].type.shape)
    names = ", ".join(v.name for v in values)
    types = ", ".join(str(v.type) for v in values)
    return ctx.b.op(f"gpuos.concat {names} axis {_axis(dim, rank)} : {types}",
                    ctx.result(_out_shape(ctx), dtype), values)


# --- reductions, norms, matmul -----------------------------------------------

def _reduce(kind: str):
    def lower(ctx: Ctx, x: Value, dims=None, keepdim=False, dtype=None) -> Value:
        rank = len(x.type.shape)
        if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
            axes = list(range(rank))
        elif isinstance(dims, int):
            axes = [_axis(dims, rank)]
        else:
            axes = sorted(_axis(d, rank) for d in dims)
        if rank == 0:
            return ctx.cast(x, ctx.out_dtype)
        a = ctx.cast(x, ctx.out_dtype)
        keep = " keepdim" if keepdim else ""
        return ctx.b.op(
            f"gpuos.reduce {kind} {a.name} axes [{', '.join(map(str, axes))}]{keep} : {a.type}",
            ctx.result(_out_shape(ctx), a.type.dtype), [a])
    return lower


def _argmax(ctx: Ctx, x: Value, dim=None, keepdim=False) -> Value:
    a = x
    if dim is None:
        a = ctx.copy(x)
        flat = [a.type.numel()]
        a = ctx.b.op(f"gpuos.reshape {a.name} to [{flat[0]}] : {a.type}",
                     ctx.result(flat, a.type.dtype), [a])
        dim = 0
    keep = " keepdim" if keepdim else ""
    return ctx.b.op(
        f"gpuos.argmax {a.name} axis {_axis(dim, len(a.type.shape))}{keep} : {a.type}",
        ctx.result(_out_shape(ctx), "i64"), [a])


def _softmax(ctx: Ctx, x: Value, dim: int, half_to_float=False) -> Value:
    dtype = ctx.out_dtype
    a = ctx.cast(x, dtype)
    return ctx.b.op(
        f"gpuos.softmax {a.name} axis {_axis(dim, len(a.type.shape))} : {a.type}",
        ctx.result(a.type.shape, dtype), [a])


def _norm_params(ctx: Ctx, normalized_shape, x: Value, params) -> List[str]:
    if len(normalized_shape) != 1:
        raise Unsupported(f"a norm over {len(normalized_shape)} trailing dims (gpuos normalizes the last one)")
    parts = []
    for label, p in params:
        if p is None:
            continue
        v = ctx.copy(ctx.cast(p, x.type.dtype))
        parts.append((label, v))
    return parts


def _layer_norm(ctx: Ctx, x: Value, normalized_shape, weight=None, bias=None,
                eps=1e-5):
    dtype = ctx.out_dtype
    a = ctx.cast(x, dtype)
    params = _norm_params(ctx, normalized_shape, a, [("weight", weight), ("bias", bias)])
    text = f"gpuos.layer_norm {a.name}"
    for label, v in params:
        text += f" {label}({v.name} : {v.type})"
    text += f" eps {float(eps):e} : {a.type}"
    out = ctx.b.op(text, ctx.result(a.type.shape, dtype), [a] + [v for _, v in params])
    return (out, None, None)


def _rms_norm(ctx: Ctx, x: Value, normalized_shape, weight=None, eps=None):
    dtype = ctx.out_dtype
    if eps is None:
        eps = torch.finfo(torch_dtype(dtype)).eps
    a = ctx.cast(x, dtype)
    params = _norm_params(ctx, normalized_shape, a, [("weight", weight)])
    text = f"gpuos.rms_norm {a.name}"
    for label, v in params:
        text += f" {label}({v.name} : {v.type})"
    text += f" eps {float(eps):e} : {a.type}"
    return ctx.b.op(text, ctx.result(a.type.shape, dtype), [a] + [v for _, v in params])


def _fused_rms_norm(ctx: Ctx, x, normalized_shape, weight=None, eps=None):
    return (_rms_norm(ctx, x, normalized_shape, weight, eps), None)


def _matmul(ctx: Ctx, lhs: Value, rhs: Value) -> Value:
    dtype = ctx.out_dtype
    if dtype not in FLOAT_DTYPES:
        raise Unsupported(f"an integer matmul ({dtype})")
    a, b = ctx.cast(lhs, dtype), ctx.cast(rhs, dtype)
    if len(a.type.shape) == 1 or len(b.type.shape) == 1:
        raise Unsupported("matmul of a 1-D operand")
    return ctx.b.op(f"gpuos.matmul {a.name}, {b.name} : {a.type}, {b.type}",
                    ctx.result(_out_shape(ctx), dtype), [a, b])


def _addmm(ctx: Ctx, bias, lhs, rhs, beta=1, alpha=1) -> Value:
    if beta != 1 or alpha != 1:
        raise Unsupported("addmm with beta or alpha other than 1")
    product = _matmul(ctx, lhs, rhs)
    return _binary(ctx, "add", product, bias)


def _full(ctx: Ctx, size, fill_value, **kwargs) -> Value:
    dtype = ctx.out_dtype
    c = ctx.b.constant(fill_value, dtype)
    return _expand(ctx, c, size)


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
    aten.native_layer_norm.default: _layer_norm,
    aten.layer_norm.default: lambda ctx, *a, **k: _layer_norm(ctx, *a, **{kk: vv for kk, vv in k.items() if kk != "cudnn_enable"})[0],
    aten.mm.default: _matmul, aten.bmm.default: _matmul,
    aten.matmul.default: _matmul, aten.addmm.default: _addmm,
    aten.full.default: _full,
    aten.scalar_tensor.default: lambda ctx, s, **k: ctx.b.constant(s, ctx.out_dtype),
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
