"""Peepholes: decomposed norms and softmax back into the dialect's fused ops.

PyTorch code often spells RMSNorm, LayerNorm and softmax out of micro-ops,
and aten hands them over in pieces:

    x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w      # RMSNorm
    (x - mu) * torch.rsqrt(var + eps) * w + b                        # LayerNorm
        (mu = x.mean(-1, keepdim=True), var = ((x - mu) ** 2).mean(...),
         or torch.var_mean(x, -1, correction=0, keepdim=True))
    e = torch.exp(x - x.amax(-1, keepdim=True)); e / e.sum(-1, keepdim=True)

The lowering of the op that closes such a pattern (a mul, div or add) asks
`fuse` first; a match emits gpuos.rms_norm, gpuos.layer_norm (with the
weight and bias that follow it folded in) or gpuos.softmax, which the
compiler runs as one row pass and chains over the same rows
(docs/passes.md, "Row chain"). The pieces stay in the builder and drop out
when nothing else reads them (GraphBuilder.live_ops), so a match never
changes a value some other op or output reads.

Matching reads the builder's Defs (kind, operands, attributes); two operands
are "the same" when they are one Value or are built by the same op from the
same operands (`x.float()` written twice).
"""

from __future__ import annotations

from typing import Optional, Tuple

from ._graph import FLOAT_DTYPES, GraphBuilder, TensorType, Value, _float_literal


def _same(b: GraphBuilder, x: Value, y: Value, depth: int = 3) -> bool:
    if x.name == y.name:
        return True
    if depth == 0 or x.type != y.type:
        return False
    dx, dy = b.defn(x), b.defn(y)
    if dx is None or dy is None or dx.kind != dy.kind or dx.attrs != dy.attrs:
        return False
    if dx.kind == "constant" or len(dx.operands) != len(dy.operands):
        return False
    return all(_same(b, p, q, depth - 1) for p, q in zip(dx.operands, dy.operands))


def _of(b: GraphBuilder, v: Value, kind: str):
    d = b.defn(v)
    return d if d is not None and d.kind == kind else None


def _constant(b: GraphBuilder, v: Value) -> Optional[float]:
    d = _of(b, v, "constant")
    if d is None or isinstance(d.attrs[0], bool):
        return None
    return float(d.attrs[0])


def _row_stat(b: GraphBuilder, v: Value, kind: str) -> Optional[Value]:
    """x when v = reduce_<kind>(x) over x's last axis, keepdim."""
    d = _of(b, v, "reduce_" + kind)
    if d is None:
        return None
    x = d.operands[0]
    axes, keepdim = d.attrs
    rank = len(x.type.shape)
    return x if keepdim and rank >= 1 and tuple(axes) == (rank - 1,) else None


def _square(b: GraphBuilder, v: Value) -> Optional[Value]:
    d = _of(b, v, "mul")
    if d is not None and _same(b, d.operands[0], d.operands[1]):
        return d.operands[0]
    return None


def _plus_eps(b: GraphBuilder, v: Value) -> Optional[Tuple[Value, float]]:
    """(s, eps) when v = s + eps, eps a constant >= 0; also a 16-bit float
    s + eps computed in f32 (_aten._binary): cast(cast(s) + eps)."""
    d = _of(b, v, "add")
    wide = _of(b, v, "cast") if d is None else None
    if wide is not None:
        d = _of(b, wide.operands[0], "add")
    if d is None:
        return None
    for s, c in (d.operands, reversed(d.operands)):
        eps = _constant(b, c)
        narrow = _of(b, s, "cast") if wide is not None else None
        if narrow is not None and narrow.operands[0].type.dtype == v.type.dtype:
            s = narrow.operands[0]
        if eps is not None and eps >= 0 and b.defn(s) is not None and s.type.dtype == v.type.dtype:
            return s, eps
    return None


def _scale(b: GraphBuilder, op: str, q: Value) -> Optional[Tuple[Value, float]]:
    """(s, eps) when multiplying by q (op "mul") or dividing by q (op
    "div") divides by sqrt(s + eps)."""
    d = _of(b, q, "rsqrt" if op == "mul" else "sqrt")
    return _plus_eps(b, d.operands[0]) if d is not None else None


# --- emitting the fused ops ----------------------------------------------------

def norm_param(b: GraphBuilder, p: Value, x: Value) -> Value:
    """A norm's weight or bias: x's dtype, contiguous, shape [N]."""
    n = x.type.shape[-1]
    if p.type.dtype != x.type.dtype:
        p = b.op(f"gpuos.cast {p.name} : {p.type} to {x.type.dtype}",
                 p.type.with_dtype(x.type.dtype), [p], kind="cast", attrs=(x.type.dtype,))
    if not p.type.contiguous:
        p = b.op(f"gpuos.cast {p.name} : {p.type} to {p.type.dtype}",
                 p.type.with_dtype(p.type.dtype), [p], kind="cast", attrs=(p.type.dtype,))
    if p.type.shape != (n,):
        p = b.op(f"gpuos.reshape {p.name} to [{n}] : {p.type}",
                 TensorType.make([n], p.type.dtype), [p], kind="reshape", attrs=((n,),))
    return p


def emit_norm(b: GraphBuilder, kind: str, x: Value, eps: float,
              weight: Optional[Value] = None, bias: Optional[Value] = None) -> Value:
    """gpuos.layer_norm or gpuos.rms_norm of x over its last axis."""
    text = f"gpuos.{kind} {x.name}"
    operands = [x]
    params = []
    for label, p in (("weight", weight), ("bias", bias)):
        if p is not None:
            p = norm_param(b, p, x)
            text += f" {label}({p.name} : {p.type})"
            operands.append(p)
        params.append(p)
    text += f" eps {_float_literal(float(eps))} : {x.type}"
    return b.op(text, TensorType.make(x.type.shape, x.type.dtype), operands,
                kind=kind, attrs=(float(eps), params[0], params[1]))


def emit_softmax(b: GraphBuilder, x: Value, axis: int) -> Value:
    return b.op(f"gpuos.softmax {x.name} axis {axis} : {x.type}",
                TensorType.make(x.type.shape, x.type.dtype), [x],
                kind="softmax", attrs=(axis,))


# --- the patterns ----------------------------------------------------------------

def _scaled_by_mean_square(b, op, v, q) -> Optional[float]:
    """eps when q is rsqrt(mean(v*v) + eps) (or op divides by its sqrt)."""
    found = _scale(b, op, q)
    if found is None:
        return None
    s, eps = found
    sq = _row_stat(b, s, "mean")
    x = _square(b, sq) if sq is not None else None
    return eps if x is not None and _same(b, x, v) else None


def _rms_norm(b, op, p, q) -> Optional[Value]:
    """p * rsqrt(mean(p*p) + eps), or p / sqrt(...)."""
    eps = _scaled_by_mean_square(b, op, p, q)
    return None if eps is None else emit_norm(b, "rms_norm", p, eps)


def _layer_norm(b, op, c, q) -> Optional[Value]:
    """c * rsqrt(mean(c*c) + eps), or c / sqrt(...), c = x - mean(x)."""
    eps = _scaled_by_mean_square(b, op, c, q)
    if eps is None:
        return None
    d = _of(b, c, "sub")
    if d is None:
        return None
    x, mu = d.operands
    xm = _row_stat(b, mu, "mean")
    if xm is None or not _same(b, xm, x) or x.type.shape != c.type.shape:
        return None
    return emit_norm(b, "layer_norm", x, eps)


def _is_row(p: Value, n: Value) -> bool:
    """p broadcasts as one row over n's last axis ([N], [1, N], ...)."""
    shape = list(p.type.shape)
    while shape and shape[0] == 1 and len(shape) > 1:
        shape.pop(0)
    return (shape == [n.type.shape[-1]] and len(p.type.shape) <= len(n.type.shape)
            and p.type.dtype == n.type.dtype)


def _with_param(b, n, p, label) -> Optional[Value]:
    """A norm n (no weight/bias yet) times (weight) or plus (bias) a row p."""
    d = b.defn(n)
    if d is None or d.kind not in ("rms_norm", "layer_norm") or not _is_row(p, n):
        return None
    eps, weight, bias = d.attrs
    if bias is not None or (label == "weight" and weight is not None):
        return None
    if label == "bias" and d.kind != "layer_norm":
        return None
    x = d.operands[0]
    if label == "weight":
        return emit_norm(b, d.kind, x, eps, weight=p)
    return emit_norm(b, d.kind, x, eps, weight=weight, bias=p)


def _softmax(b, e, s) -> Optional[Value]:
    """e / sum(e), e = exp(x - max(x)), both over one axis, keepdim."""
    ds = _of(b, s, "reduce_sum")
    de = _of(b, e, "exp")
    if ds is None or de is None or not _same(b, ds.operands[0], e):
        return None
    axes, keepdim = ds.attrs
    if not keepdim or len(axes) != 1:
        return None
    dsub = _of(b, de.operands[0], "sub")
    if dsub is None:
        return None
    x, m = dsub.operands
    dm = _of(b, m, "reduce_max")
    if (dm is None or dm.attrs != (axes, True) or not _same(b, dm.operands[0], x)
            or x.type.shape != e.type.shape):
        return None
    return emit_softmax(b, x, axes[0])


def fuse(b: GraphBuilder, op: str, lhs: Value, rhs: Value,
         shape: Tuple[int, ...]) -> Optional[Value]:
    """The fused op that `op(lhs, rhs)` (operands already in the result's
    dtype, result shape `shape`) completes, or None."""
    if not (isinstance(lhs, Value) and isinstance(rhs, Value)):
        return None
    if lhs.type.dtype not in FLOAT_DTYPES or lhs.type.dtype != rhs.type.dtype:
        return None
    pairs = ((lhs, rhs), (rhs, lhs)) if op in ("mul", "add") else ((lhs, rhs),)
    for p, q in pairs:
        if p.type.shape != tuple(shape):
            continue
        if op in ("mul", "div"):
            # LayerNorm first: its centred value also fits RMSNorm.
            found = _layer_norm(b, op, p, q) or _rms_norm(b, op, p, q)
            if found is not None:
                return found
        if op == "mul":
            found = _with_param(b, p, q, "weight")
        elif op == "add":
            found = _with_param(b, p, q, "bias")
        elif op == "div":
            found = _softmax(b, p, q)
        else:  # sub, maximum, minimum, pow complete none of them
            found = None
        if found is not None:
            return found
    return None
