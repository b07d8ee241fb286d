#!/usr/bin/env python3
"""Writes the benchmark suite's gpuos graphs: bench/suite/workloads/*.mlir.

    python3 bench/suite/gen_workloads.py [--check]

Each workload is written once here for gpuos (as a gpuos.graph) and once as
plain PyTorch in workloads.py; the .mlir files are committed, and this script
is how they were made (long chains and per-layer graphs are tedious by hand).
--check only compares the files on disk with what it would write (exit 1 on
a difference). Plain Python 3, no dependencies.

The small builder below tracks every value's shape, strides and element type
so that operand types can be spelled (the dialect infers result types but the
assembly names operand types, strides included for views).
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "workloads")


def row_major(shape):
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return list(reversed(strides))


def broadcast_shapes(*shapes):
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        size = 1
        for d in dims:
            if d != 1:
                if size not in (1, d):
                    raise ValueError("cannot broadcast %s" % (shapes,))
                size = d
        out.append(size)
    return out


class Val:
    def __init__(self, name, shape, dtype, strides=None):
        self.name, self.shape, self.dtype = name, list(shape), dtype
        self.strides = list(strides) if strides is not None else row_major(shape)

    def type(self):
        dims = "x".join(str(d) for d in self.shape)
        body = (dims + "x" if dims else "") + self.dtype
        if self.strides != row_major(self.shape):
            body += ", strides = [%s]" % ", ".join(str(s) for s in self.strides)
        return "!gpuos.tensor<%s>" % body


class Graph:
    """Emits one gpuos.graph; ops return Vals with inferred types."""

    def __init__(self, name, priority=None, comment=""):
        self.name, self.priority, self.comment = name, priority, comment
        self.inputs, self.outputs, self.lines = [], [], []
        self.counter = 0

    def fresh(self, hint="v"):
        self.counter += 1
        return "%s%d" % (hint, self.counter)

    def input(self, name, shape, dtype="f32"):
        v = Val(name, shape, dtype)
        self.inputs.append(v)
        return v

    def emit(self, hint, text, shape, dtype, strides=None):
        v = Val(self.fresh(hint), shape, dtype, strides)
        self.lines.append("  %%%s = %s" % (v.name, text))
        return v

    # ---- constants
    def scalar(self, value, dtype="f32"):
        return self.emit("c", "gpuos.constant dense<%s> : tensor<%s>" % (fmt(value), dtype), [], dtype)

    # ---- elementwise
    def unary(self, op, x):
        return self.emit("v", "gpuos.%s %%%s : %s" % (op, x.name, x.type()), x.shape, x.dtype)

    def binary(self, op, a, b):
        shape = broadcast_shapes(a.shape, b.shape)
        return self.emit("v", "gpuos.%s %%%s, %%%s : %s, %s" % (op, a.name, b.name, a.type(), b.type()),
                         shape, a.dtype)

    def select(self, c, a, b):
        shape = broadcast_shapes(c.shape, a.shape, b.shape)
        return self.emit("v", "gpuos.select %%%s, %%%s, %%%s : %s, %s, %s" % (
            c.name, a.name, b.name, c.type(), a.type(), b.type()), shape, a.dtype)

    def cast(self, x, dtype):
        return self.emit("v", "gpuos.cast %%%s : %s to %s" % (x.name, x.type(), dtype), x.shape, dtype)

    # ---- views
    def transpose(self, x, perm):
        return self.emit("t", "gpuos.transpose %%%s [%s] : %s" % (x.name, lst(perm), x.type()),
                         [x.shape[p] for p in perm], x.dtype, [x.strides[p] for p in perm])

    def slice(self, x, starts, sizes, steps=None):
        steps = steps or [1] * len(sizes)
        return self.emit("s", "gpuos.slice %%%s starts [%s] sizes [%s] steps [%s] : %s" % (
            x.name, lst(starts), lst(sizes), lst(steps), x.type()),
            sizes, x.dtype, [s * k for s, k in zip(x.strides, steps)])

    def reshape(self, x, shape):
        assert x.strides == row_major(x.shape), "reshape of a strided view"
        return self.emit("r", "gpuos.reshape %%%s to [%s] : %s" % (x.name, lst(shape), x.type()),
                         shape, x.dtype)

    def broadcast(self, x, shape):
        rank = len(shape)
        strides = []
        for i in range(rank):
            j = i - (rank - len(x.shape))
            if j < 0 or (x.shape[j] == 1 and shape[i] != 1):
                strides.append(0)
            else:
                strides.append(x.strides[j])
        return self.emit("b", "gpuos.broadcast %%%s to [%s] : %s" % (x.name, lst(shape), x.type()),
                         shape, x.dtype, strides)

    def concat(self, xs, axis):
        shape = list(xs[0].shape)
        shape[axis] = sum(x.shape[axis] for x in xs)
        return self.emit("cat", "gpuos.concat %s axis %d : %s" % (
            ", ".join("%" + x.name for x in xs), axis, ", ".join(x.type() for x in xs)), shape, xs[0].dtype)

    # ---- reductions and friends
    def reduce(self, kind, x, axes, keepdim=False):
        shape = [1 if i in axes else d for i, d in enumerate(x.shape)] if keepdim else \
            [d for i, d in enumerate(x.shape) if i not in axes]
        return self.emit("red", "gpuos.reduce %s %%%s axes [%s]%s : %s" % (
            kind, x.name, lst(axes), " keepdim" if keepdim else "", x.type()), shape, x.dtype)

    def argmax(self, x, axis):
        shape = [d for i, d in enumerate(x.shape) if i != axis]
        return self.emit("am", "gpuos.argmax %%%s axis %d : %s" % (x.name, axis, x.type()), shape, "i64")

    def softmax(self, x, axis):
        return self.emit("sm", "gpuos.softmax %%%s axis %d : %s" % (x.name, axis, x.type()), x.shape, x.dtype)

    def rms_norm(self, x, w, eps):
        return self.emit("rms", "gpuos.rms_norm %%%s weight(%%%s : %s) eps %s : %s" % (
            x.name, w.name, w.type(), fmt_eps(eps), x.type()), x.shape, x.dtype)

    def layer_norm(self, x, w, b, eps):
        return self.emit("ln", "gpuos.layer_norm %%%s weight(%%%s : %s) bias(%%%s : %s) eps %s : %s" % (
            x.name, w.name, w.type(), b.name, b.type(), fmt_eps(eps), x.type()), x.shape, x.dtype)

    def matmul(self, a, b, transpose_rhs=False):
        m, k = a.shape[-2], a.shape[-1]
        n = b.shape[-2] if transpose_rhs else b.shape[-1]
        kb = b.shape[-1] if transpose_rhs else b.shape[-2]
        assert k == kb, (a.shape, b.shape)
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2]) if (len(a.shape) > 2 or len(b.shape) > 2) else []
        return self.emit("mm", "gpuos.matmul %%%s, %%%s%s : %s, %s" % (
            a.name, b.name, " transpose_rhs" if transpose_rhs else "", a.type(), b.type()),
            batch + [m, n], a.dtype)

    # ---- output
    def output(self, name, v):
        self.outputs.append((name, v))

    def text(self):
        out = []
        if self.comment:
            out += ["// " + l if l else "//" for l in self.comment.strip().split("\n")]
        ins = (",\n" + " " * (len(self.name) + 14)).join("%%%s : %s" % (v.name, v.type()) for v in self.inputs)
        outs = ", ".join("%s : %s" % (n, v.type()) for n, v in self.outputs)
        prio = " priority #gpuos.priority<%s>" % self.priority if self.priority else ""
        out.append("gpuos.graph @%s(%s)\n    -> (%s)%s {" % (self.name, ins, outs, prio))
        out += self.lines
        out.append("  gpuos.yield %s : %s" % (", ".join("%" + v.name for _, v in self.outputs),
                                               ", ".join(v.type() for _, v in self.outputs)))
        out.append("}")
        return "\n".join(out) + "\n"


def lst(xs):
    return ", ".join(str(x) for x in xs)


def fmt(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return "%d" % value
    return "%.6e" % value


def fmt_eps(eps):
    return "%.6e" % eps


HEADER = "// Generated by bench/suite/gen_workloads.py; edit that script, not this file.\n"

# ----------------------------------------------------------------------------
# The workloads. Keep in step with workloads.py (the PyTorch definitions).
# ----------------------------------------------------------------------------


def ew_chain(name, dtype, rows=32, cols=1024, links=8):
    """64 elementwise ops: 8 links of mul, add, tanh, sub, sigmoid, square, silu, max."""
    g = Graph(name, "urgent", "%d elementwise ops over %dx%d %s with broadcast per-column scale and bias\n"
              "(the shape where eager launches cost more than the math)." % (8 * links, rows, cols, dtype))
    x = g.input("x", [rows, cols], dtype)
    scale = g.input("scale", [cols], dtype)
    bias = g.input("bias", [cols], dtype)
    v = x
    for _ in range(links):
        v = g.binary("mul", v, scale)
        v = g.binary("add", v, bias)
        v = g.unary("tanh", v)
        v = g.binary("sub", v, x)
        v = g.unary("sigmoid", v)
        v = g.binary("mul", v, v)
        v = g.unary("silu", v)
        v = g.binary("max", v, x)
    g.output("y", v)
    return g


def mlp_microbatch(name="mlp_microbatch", batches=8, rows=4, hidden=1024):
    g = Graph(name, "urgent", "%d micro-batches of %d rows through one %d-wide 2-layer MLP (gelu) whose\n"
              "weights all micro-batches share." % (batches, rows, hidden))
    x = g.input("x", [batches * rows, hidden])
    w1 = g.input("w1", [hidden, hidden])
    b1 = g.input("b1", [hidden])
    w2 = g.input("w2", [hidden, hidden])
    b2 = g.input("b2", [hidden])
    for i in range(batches):
        xi = g.slice(x, [i * rows, 0], [rows, hidden])
        h = g.unary("gelu", g.binary("add", g.matmul(xi, w1), b1))
        y = g.binary("add", g.matmul(h, w2), b2)
        g.output("y%d" % i, y)
    return g


def attention(name, dtype, heads=16, seq=32, dim=64, neg=-1.0e30):
    g = Graph(name, "urgent", "Per-head attention, %d heads, seq %d, head dim %d, %s: scores = q k^T / sqrt(d),\n"
              "a causal mask, softmax over keys, then probs v; heads computed one by one\n"
              "and concatenated." % (heads, seq, dim, dtype))
    q = g.input("q", [heads, seq, dim], dtype)
    k = g.input("k", [heads, seq, dim], dtype)
    v = g.input("v", [heads, seq, dim], dtype)
    mask = g.input("mask", [seq, seq], "i1")
    scale = g.scalar(1.0 / dim ** 0.5, dtype)
    minus = g.scalar(neg, dtype)
    outs = []
    for h in range(heads):
        qh = g.slice(q, [h, 0, 0], [1, seq, dim])
        kh = g.slice(k, [h, 0, 0], [1, seq, dim])
        vh = g.slice(v, [h, 0, 0], [1, seq, dim])
        s = g.binary("mul", g.matmul(qh, kh, transpose_rhs=True), scale)
        s = g.select(mask, s, minus)
        p = g.softmax(s, 2)
        outs.append(g.matmul(p, vh))
    g.output("o", g.concat(outs, 0))
    return g


def rmsnorm_chain(name="rmsnorm_chain", links=32, hidden=4096):
    g = Graph(name, "urgent", "%d x (residual add + RMSNorm), batch 1, hidden %d: h = rms_norm(h + d[i]) * w[i]."
              % (links, hidden))
    h = g.input("x", [1, hidden])
    d = g.input("d", [links, hidden])
    w = g.input("w", [links, hidden])
    for i in range(links):
        di = g.slice(d, [i, 0], [1, hidden])
        wi = g.reshape(g.slice(w, [i, 0], [1, hidden]), [hidden])
        h = g.rms_norm(g.binary("add", h, di), wi, 1e-6)
    g.output("y", h)
    return g


def layernorm_chain(name="layernorm_chain", links=16, batch=8, hidden=2048):
    g = Graph(name, "urgent", "%d x (residual add + LayerNorm with weight and bias), batch %d, hidden %d:\n"
              "h = layer_norm(h + d[i]) * w[i] + b[i]." % (links, batch, hidden))
    h = g.input("x", [batch, hidden])
    d = g.input("d", [links, batch, hidden])
    w = g.input("w", [links, hidden])
    b = g.input("b", [links, hidden])
    for i in range(links):
        di = g.reshape(g.slice(d, [i, 0, 0], [1, batch, hidden]), [batch, hidden])
        wi = g.reshape(g.slice(w, [i, 0], [1, hidden]), [hidden])
        bi = g.reshape(g.slice(b, [i, 0], [1, hidden]), [hidden])
        h = g.layer_norm(g.binary("add", h, di), wi, bi, 1e-5)
    g.output("y", h)
    return g


SOFTMAX_WIDTHS = [(1024, 32), (256, 256), (64, 2048), (16, 16384)]


def softmax_widths(name="softmax_widths"):
    g = Graph(name, "normal", "Softmax over rows of widths %s, plus row sums and row maxima\n"
              "(all independent: one graph, many row shapes)." % ", ".join(str(w) for _, w in SOFTMAX_WIDTHS))
    for i, (r, w) in enumerate(SOFTMAX_WIDTHS):
        x = g.input("x%d" % i, [r, w])
        g.output("p%d" % i, g.softmax(x, 1))
        g.output("s%d" % i, g.reduce("sum", x, [1]))
        g.output("m%d" % i, g.reduce("max", x, [1]))
    return g


def broadcast_views(name="broadcast_views", rows=512, cols=1024):
    g = Graph(name, "normal", "Broadcasting over non-contiguous views: a transposed input, a column\n"
              "vector and a row vector broadcast against it, and a stride-2 column slice:\n"
              "y = tanh(x^T * row + col) - 0.5 * z[:, ::2]; u = y * x^T (two outputs).")
    x = g.input("x", [cols, rows])          # read transposed
    row = g.input("row", [cols])
    col = g.input("col", [rows, 1])
    z = g.input("z", [rows, 2 * cols])       # read every other column
    half = g.scalar(0.5)
    xt = g.transpose(x, [1, 0])
    zs = g.slice(z, [0, 0], [rows, cols], [1, 2])
    t = g.unary("tanh", g.binary("add", g.binary("mul", xt, g.broadcast(row, [rows, cols])), col))
    y = g.binary("sub", t, g.binary("mul", zs, half))
    g.output("y", y)
    g.output("u", g.binary("mul", y, xt))
    return g


DECODE = dict(layers=4, hidden=1024, heads=8, head_dim=128, cache=128, ffn=2816, vocab=4096)


def decode(name="decode", layers=DECODE["layers"], hidden=DECODE["hidden"], heads=DECODE["heads"],
           hd=DECODE["head_dim"], cache=DECODE["cache"], ffn=DECODE["ffn"], vocab=DECODE["vocab"]):
    assert heads * hd == hidden
    g = Graph(name, "urgent", "One decode step of a small transformer: batch 1, hidden %d, %d heads of %d,\n"
              "a KV cache of %d positions, %d pre-norm layers with a SwiGLU MLP (%d), logits over %d\n"
              "tokens and the greedy next token. Random weights (graph inputs)."
              % (hidden, heads, hd, cache, layers, ffn, vocab))
    x = g.input("x", [1, hidden])
    per = []
    for l in range(layers):
        p = "l%d_" % l
        per.append(dict(
            norm1=g.input(p + "norm1", [hidden]), wq=g.input(p + "wq", [hidden, hidden]),
            wk=g.input(p + "wk", [hidden, hidden]), wv=g.input(p + "wv", [hidden, hidden]),
            wo=g.input(p + "wo", [hidden, hidden]), kcache=g.input(p + "kcache", [heads, cache, hd]),
            vcache=g.input(p + "vcache", [heads, cache, hd]), norm2=g.input(p + "norm2", [hidden]),
            wgate=g.input(p + "wgate", [hidden, ffn]), wup=g.input(p + "wup", [hidden, ffn]),
            wdown=g.input(p + "wdown", [ffn, hidden])))
    final_norm = g.input("final_norm", [hidden])
    unembed = g.input("unembed", [hidden, vocab])
    scale = g.scalar(1.0 / hd ** 0.5)
    for w in per:
        h = g.rms_norm(x, w["norm1"], 1e-6)
        q = g.reshape(g.matmul(h, w["wq"]), [heads, 1, hd])
        k = g.reshape(g.matmul(h, w["wk"]), [heads, 1, hd])
        v = g.reshape(g.matmul(h, w["wv"]), [heads, 1, hd])
        keys = g.concat([w["kcache"], k], 1)
        vals = g.concat([w["vcache"], v], 1)
        s = g.binary("mul", g.matmul(q, keys, transpose_rhs=True), scale)
        ctx = g.reshape(g.matmul(g.softmax(s, 2), vals), [1, hidden])
        r1 = g.binary("add", x, g.matmul(ctx, w["wo"]))
        h2 = g.rms_norm(r1, w["norm2"], 1e-6)
        act = g.binary("mul", g.unary("silu", g.matmul(h2, w["wgate"])), g.matmul(h2, w["wup"]))
        x = g.binary("add", r1, g.matmul(act, w["wdown"]))
    logits = g.matmul(g.rms_norm(x, final_norm, 1e-6), unembed)
    g.output("logits", logits)
    g.output("token", g.argmax(logits, 1))
    return g


BANDWIDTH = dict(rows=16384, cols=4096)


def bandwidth(name="bandwidth", rows=BANDWIDTH["rows"], cols=BANDWIDTH["cols"]):
    g = Graph(name, "normal", "A fused elementwise chain over %dx%d f32 (%d MB in, %d MB out): the fused\n"
              "chain's bandwidth against the device copy bandwidth, measured in the same run.\n"
              "y = relu(sigmoid(x * s + b) * x - b) + 0.5 * x."
              % (rows, cols, rows * cols * 4 >> 20, rows * cols * 4 >> 20))
    x = g.input("x", [rows, cols])
    s = g.input("s", [cols])
    b = g.input("b", [cols])
    half = g.scalar(0.5)
    v = g.unary("sigmoid", g.binary("add", g.binary("mul", x, s), b))
    v = g.unary("relu", g.binary("sub", g.binary("mul", v, x), b))
    g.output("y", g.binary("add", v, g.binary("mul", x, half)))
    return g


# GPU sharing: one image holds both graphs (one runtime has one image).
URGENT = dict(hidden=256)
BACKGROUND = dict(ew=(4096, 4096), red=(8192, 1024), sm=(2048, 2048), mm=(512, 256, 256))


def sharing():
    hd = URGENT["hidden"]
    u = Graph("urgent_step", "urgent", "GPU sharing, the urgent stream: a decode-like step at batch 1, hidden %d:\n"
              "h = rms_norm(x + r) * w; y = x + silu(h W1) W2; p = softmax(y)." % hd)
    x = u.input("x", [1, hd])
    r = u.input("r", [1, hd])
    w = u.input("w", [hd])
    w1 = u.input("w1", [hd, hd])
    w2 = u.input("w2", [hd, hd])
    h = u.rms_norm(u.binary("add", x, r), w, 1e-6)
    y = u.binary("add", x, u.matmul(u.unary("silu", u.matmul(h, w1)), w2))
    u.output("y", y)
    u.output("p", u.softmax(y, 1))

    er, ec = BACKGROUND["ew"]
    rr, rc = BACKGROUND["red"]
    sr, sc = BACKGROUND["sm"]
    mm, mk, mn = BACKGROUND["mm"]
    b = Graph("background_bulk", "background",
              "GPU sharing, the background work: large tiles of four kinds, independent:\n"
              "an elementwise chain over %dx%d, row sums of %dx%d, a softmax over %dx%d\n"
              "and a %dx%dx%d matmul." % (er, ec, rr, rc, sr, sc, mm, mk, mn))
    a = b.input("a", [er, ec])
    c = b.input("c", [rr, rc])
    s = b.input("s", [sr, sc])
    l = b.input("l", [mm, mk])
    m = b.input("m", [mk, mn])
    half = b.scalar(0.5)
    v = b.unary("tanh", b.binary("add", b.binary("mul", a, a), half))
    v = b.unary("sigmoid", b.binary("sub", b.binary("mul", v, a), half))
    b.output("ea", v)
    b.output("rc", b.reduce("sum", c, [1]))
    b.output("ps", b.softmax(s, 1))
    b.output("mo", b.matmul(l, m))
    return u.text() + "\n" + b.text()


def files():
    return {
        "ew_chain.mlir": ew_chain("ew_chain", "f32").text(),
        "ew_chain_bf16.mlir": ew_chain("ew_chain_bf16", "bf16").text(),
        "mlp_microbatch.mlir": mlp_microbatch().text(),
        "attention.mlir": attention("attention", "f32").text(),
        "attention_f16.mlir": attention("attention_f16", "f16", neg=-60000.0).text(),
        "rmsnorm_chain.mlir": rmsnorm_chain().text(),
        "layernorm_chain.mlir": layernorm_chain().text(),
        "softmax_widths.mlir": softmax_widths().text(),
        "broadcast_views.mlir": broadcast_views().text(),
        "decode.mlir": decode().text(),
        "bandwidth.mlir": bandwidth().text(),
        "sharing.mlir": sharing(),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    os.makedirs(OUT_DIR, exist_ok=True)
    stale = []
    for fname, text in files().items():
        text = HEADER + text
        path = os.path.join(OUT_DIR, fname)
        old = open(path).read() if os.path.exists(path) else None
        if args.check:
            if old != text:
                stale.append(fname)
        elif old != text:
            with open(path, "w") as f:
                f.write(text)
            print("wrote", os.path.relpath(path))
    if stale:
        print("out of date (run bench/suite/gen_workloads.py):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
