"""The benchmark suite's workloads as plain PyTorch (docs/benchmarks.md).

Each workload is written once as a gpuos graph (bench/suite/workloads/*.mlir,
made by gen_workloads.py) and once here as the PyTorch code a user would
write. A function takes the graph's inputs positionally, in the order of the
graph signature, and returns its outputs in the order of the signature. The
same function gives the eager mode, the captured CUDA graph, both
torch.compile modes and (on float64 copies of the inputs) the reference
every result is checked against.

`init` says how to draw an input (default: uniform in [-1, 1)); weights are
scaled by 1/sqrt(fan_in) so activations stay O(1) through a model.
"""

import math
from dataclasses import dataclass, field
from typing import Callable, Dict, Optional

import torch
import torch.nn.functional as F


def _rms(x, w, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


# ---------------------------------------------------------------- functions


def ew_chain(x, scale, bias):
    v = x
    for _ in range(8):
        v = v * scale
        v = v + bias
        v = torch.tanh(v)
        v = v - x
        v = torch.sigmoid(v)
        v = v * v
        v = F.silu(v)
        v = torch.maximum(v, x)
    return (v,)


def mlp_microbatch(x, w1, b1, w2, b2):
    outs = []
    for i in range(8):
        xi = x[4 * i:4 * i + 4]
        h = F.gelu(xi @ w1 + b1)
        outs.append(h @ w2 + b2)
    return tuple(outs)


def _attention(q, k, v, mask, neg):
    outs = []
    scale = 1.0 / math.sqrt(q.shape[-1])
    for h in range(q.shape[0]):
        s = (q[h:h + 1] @ k[h:h + 1].transpose(-1, -2)) * scale
        s = torch.where(mask, s, neg)
        p = torch.softmax(s, dim=-1)
        outs.append(p @ v[h:h + 1])
    return (torch.cat(outs, 0),)


def attention(q, k, v, mask):
    return _attention(q, k, v, mask, -1.0e30)


def attention_f16(q, k, v, mask):
    return _attention(q, k, v, mask, -60000.0)


def rmsnorm_chain(x, d, w):
    h = x
    for i in range(d.shape[0]):
        h = _rms(h + d[i:i + 1], w[i])
    return (h,)


def layernorm_chain(x, d, w, b):
    h = x
    for i in range(d.shape[0]):
        h = F.layer_norm(h + d[i], (h.shape[-1],), w[i], b[i], eps=1e-5)
    return (h,)


def softmax_widths(*xs):
    outs = []
    for x in xs:
        outs += [torch.softmax(x, dim=-1), x.sum(-1), x.amax(-1)]
    return tuple(outs)


def broadcast_views(x, row, col, z):
    xt = x.t()
    y = torch.tanh(xt * row + col) - z[:, ::2] * 0.5
    return (y, y * xt)


DECODE_LAYERS, DECODE_HEADS, DECODE_HEAD_DIM = 4, 8, 128


def decode(x, *rest):
    per, final_norm, unembed = rest[:-2], rest[-2], rest[-1]
    heads, hd = DECODE_HEADS, DECODE_HEAD_DIM
    scale = 1.0 / math.sqrt(hd)
    for l in range(len(per) // 11):
        norm1, wq, wk, wv, wo, kcache, vcache, norm2, wgate, wup, wdown = per[11 * l:11 * l + 11]
        h = _rms(x, norm1)
        q = (h @ wq).reshape(heads, 1, hd)
        k = (h @ wk).reshape(heads, 1, hd)
        v = (h @ wv).reshape(heads, 1, hd)
        keys = torch.cat([kcache, k], 1)
        vals = torch.cat([vcache, v], 1)
        p = torch.softmax((q @ keys.transpose(-1, -2)) * scale, dim=-1)
        ctx = (p @ vals).reshape(1, heads * hd)
        r1 = x + ctx @ wo
        h2 = _rms(r1, norm2)
        x = r1 + (F.silu(h2 @ wgate) * (h2 @ wup)) @ wdown
    logits = _rms(x, final_norm) @ unembed
    return (logits, torch.argmax(logits, 1))


def bandwidth(x, s, b):
    v = torch.sigmoid(x * s + b)
    v = torch.relu(v * x - b)
    return (v + x * 0.5,)


def urgent_step(x, r, w, w1, w2):
    h = _rms(x + r, w)
    y = x + F.silu(h @ w1) @ w2
    return (y, torch.softmax(y, dim=1))


def background_bulk(a, c, s, l, m):
    v = torch.tanh(a * a + 0.5)
    v = torch.sigmoid(v * a - 0.5)
    return (v, c.sum(1), torch.softmax(s, dim=1), l @ m)


# ---------------------------------------------------------------- inputs


def uniform(lo=-1.0, hi=1.0):
    def draw(shape, gen, device):
        return torch.rand(shape, generator=gen, device=device, dtype=torch.float32) * (hi - lo) + lo
    return draw


def weight(fan_in_axis=0):
    """Uniform in [-1, 1) / sqrt(fan_in), fan_in = shape[fan_in_axis]."""
    def draw(shape, gen, device):
        u = torch.rand(shape, generator=gen, device=device, dtype=torch.float32) * 2 - 1
        return u / math.sqrt(shape[fan_in_axis])
    return draw


def gain():
    """Norm weights: 1 + U[-0.1, 0.1)."""
    return uniform(0.9, 1.1)


def causal():
    def draw(shape, gen, device):
        return torch.ones(shape, dtype=torch.bool, device=device).tril()
    return draw


@dataclass
class Workload:
    name: str
    fn: Callable
    desc: str
    init: Dict[str, Callable] = field(default_factory=dict)
    table: bool = True          # a row of the workload table
    graph: Optional[str] = None  # the graph's symbol (default: name)
    mlir: Optional[str] = None   # file under workloads/ (default: name.mlir)
    # Compute-light, bandwidth-bound: reported against the copy bandwidth.
    bandwidth: bool = False

    def __post_init__(self):
        self.graph = self.graph or self.name
        self.mlir = self.mlir or self.name + ".mlir"


def _decode_init():
    init = {"unembed": weight(0), "final_norm": gain()}
    for l in range(DECODE_LAYERS):
        p = "l%d_" % l
        for w in ("wq", "wk", "wv", "wo", "wgate", "wup", "wdown"):
            init[p + w] = weight(0)
        init[p + "norm1"] = gain()
        init[p + "norm2"] = gain()
    return init


WORKLOADS = [
    Workload("ew_chain", ew_chain, "64 elementwise ops (8 x mul, add, tanh, sub, sigmoid, square, silu, max) "
             "over 32x1024 f32, per-column scale and bias"),
    Workload("ew_chain_bf16", ew_chain, "the same 64-op chain in bf16"),
    Workload("mlp_microbatch", mlp_microbatch, "8 micro-batches of 4 rows through one 1024-wide 2-layer MLP "
             "(matmul + bias + gelu, matmul + bias), weights shared by all micro-batches",
             {"w1": weight(0), "w2": weight(0), "b1": uniform(-0.1, 0.1), "b2": uniform(-0.1, 0.1)}),
    Workload("attention", attention, "per-head attention, 16 heads x seq 32 x dim 64 f32: q k^T / 8, "
             "causal mask, softmax, probs v, heads concatenated", {"mask": causal()}),
    Workload("attention_f16", attention_f16, "the same per-head attention in f16", {"mask": causal()}),
    Workload("rmsnorm_chain", rmsnorm_chain, "32 x (residual add + RMSNorm), batch 1, hidden 4096 f32",
             {"w": gain()}),
    Workload("layernorm_chain", layernorm_chain, "16 x (residual add + LayerNorm with weight and bias), "
             "batch 8, hidden 2048 f32", {"w": gain(), "b": uniform(-0.1, 0.1)}),
    Workload("softmax_widths", softmax_widths, "softmax, row sum and row max over rows of width 32, 256, "
             "2048 and 16384 (1024/256/64/16 rows) f32",
             {"x%d" % i: uniform(-4, 4) for i in range(4)}),
    Workload("broadcast_views", broadcast_views, "tanh(x^T * row + col) - 0.5 * z[:, ::2] and its product "
             "with x^T: a transposed input, broadcast row and column vectors, a stride-2 slice, 512x1024 f32"),
    Workload("decode", decode, "one transformer decode step: batch 1, hidden 1024, 4 layers, 8 heads x 128, "
             "KV cache 128, SwiGLU 2816, vocab 4096, f32 random weights; logits and greedy token",
             _decode_init()),
    Workload("bandwidth", bandwidth, "an 8-op fused elementwise chain over 16384x4096 f32 (256 MB in, "
             "256 MB out) against the device copy bandwidth", bandwidth=True),
    Workload("urgent_step", urgent_step, "GPU sharing, urgent: residual + RMSNorm + 2 matmuls (256) + "
             "silu + softmax, batch 1", {"w": gain(), "w1": weight(0), "w2": weight(0)},
             table=False, mlir="sharing.mlir"),
    Workload("background_bulk", background_bulk, "GPU sharing, background: elementwise over 4096x4096, "
             "row sums of 8192x1024, softmax over 2048x2048, 512x256x256 matmul",
             {"l": weight(1), "m": weight(0)}, table=False, mlir="sharing.mlir"),
]

BY_NAME = {w.name: w for w in WORKLOADS}
