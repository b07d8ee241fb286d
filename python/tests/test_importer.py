"""What the importer builds (CPU, interpreter executor): decomposed norms and
softmax become the dialect's fused ops, matmuls read transposed operands
through their flags, and a chain of norms is one graph (no split), in
torch.compile and capture alike. Values against float64 PyTorch."""

import re

import pytest
import torch
import torch.nn.functional as F

import gpuos
from gpuos import _compiler
from conftest import assert_close
from suite_workloads import layernorm_chain, rmsnorm_chain

CPU = {"executor": "interpreter"}


def graphs():
    return [g for g in _compiler._memory.values() if g.name != "union"]


def tasks(g) -> int:
    return len(re.findall(r"gpuos\.task\b", g.pipelined.read_text()))


def run(fn, *args, mode="compile"):
    """fn through torch.compile or capture; checks values; returns the
    graphs compiled."""
    with torch.no_grad():
        if mode == "compile":
            out = torch.compile(fn, backend="gpuos", dynamic=False, options=CPU)(*args)
        else:
            with gpuos.capture(executor="interpreter"):
                out = fn(*args)
    ref = fn(*[a.double() if a.is_floating_point() else a for a in args])
    outs = out if isinstance(out, (tuple, list)) else (out,)
    refs = ref if isinstance(ref, (tuple, list)) else (ref,)
    for o, r in zip(outs, refs):
        assert_close(o, r, computed_in=o.dtype if o.is_floating_point() else None)
    return graphs()


@pytest.mark.parametrize("mode", ["compile", "capture"])
def test_spelled_out_rmsnorm_chain_is_one_row_chain(mode):
    # bench/suite's rmsnorm_chain, smaller: the norms are gpuos.rms_norm with
    # their weights, so the compiler chains them into one task.
    args = (torch.randn(1, 256), torch.randn(8, 256), torch.rand(8, 256) + 0.5)
    (g,) = run(rmsnorm_chain, *args, mode=mode)
    assert g.source.count("gpuos.rms_norm") == 8 and "weight(" in g.source
    assert "gpuos.rsqrt" not in g.source and "gpuos.reduce" not in g.source
    assert tasks(g) == 1


@pytest.mark.parametrize("mode", ["compile", "capture"])
def test_layer_norm_chain_is_not_split(mode):
    # native_layer_norm gives (out, mean, rstd); the getitem of its output
    # joins the partition, so 4 norms are one subgraph, one task.
    args = (torch.randn(8, 128), torch.randn(4, 8, 128), torch.rand(4, 128) + 0.5,
            torch.randn(4, 128) * 0.1)
    (g,) = run(layernorm_chain, *args, mode=mode)
    assert g.source.count("gpuos.layer_norm") == 4
    assert tasks(g) == 1
    assert gpuos.stats().get("splits", 0) == 0


def ln_by_hand(x, w, b):
    mu = x.mean(-1, keepdim=True)
    c = x - mu
    var = (c * c).mean(-1, keepdim=True)
    return c / torch.sqrt(var + 1e-5) * w + b


def ln_var_mean(x, w, b):
    var, mu = torch.var_mean(x, -1, correction=0, keepdim=True)
    return (x - mu) * torch.rsqrt(var + 1e-5) * w + b


@pytest.mark.parametrize("fn", [ln_by_hand, ln_var_mean])
@pytest.mark.parametrize("mode", ["compile", "capture"])
def test_spelled_out_layer_norm(fn, mode):
    (g,) = run(fn, torch.randn(8, 128) * 3 + 1, torch.rand(128) + 0.5, torch.randn(128), mode=mode)
    assert re.search(r"gpuos\.layer_norm \S+ weight\(.*bias\(", g.source)
    assert "gpuos.reduce" not in g.source and tasks(g) == 1


def test_rmsnorm_in_f32_of_half_inputs():
    def f(x, w):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * w
    x, w = torch.randn(4, 256).half(), (torch.rand(256) + 0.5).half()
    (g,) = run(f, x, w)
    assert "gpuos.rms_norm" in g.source and "gpuos.rsqrt" not in g.source


@pytest.mark.parametrize("mode", ["compile", "capture"])
def test_spelled_out_softmax(mode):
    def f(x):
        e = torch.exp(x - x.amax(-1, keepdim=True))
        return e / e.sum(-1, keepdim=True)
    (g,) = run(f, torch.randn(16, 64) * 4, mode=mode)
    assert "gpuos.softmax" in g.source and "gpuos.exp" not in g.source


def test_a_pattern_value_read_elsewhere_is_still_computed():
    # The mean is an output too: the norm is fused, the mean stays.
    def f(x):
        ms = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(ms + 1e-6), ms
    (g,) = run(f, torch.randn(4, 64))
    assert "gpuos.rms_norm" in g.source and "gpuos.reduce mean" in g.source


def test_not_a_norm_is_left_alone():
    # rsqrt of the mean of another tensor's square: no rms_norm of x.
    def f(x, y):
        return x * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + 1e-6)
    (g,) = run(f, torch.randn(4, 64), torch.randn(4, 64))
    assert "gpuos.rms_norm" not in g.source


def test_matmul_reads_transposed_operands_through_flags():
    def f(q, k, x, w):
        return q @ k.transpose(-1, -2), F.linear(x, w)
    (g,) = run(f, torch.randn(2, 8, 16), torch.randn(2, 8, 16), torch.randn(4, 16), torch.randn(8, 16))
    assert g.source.count("transpose_rhs") == 2
    assert "gpuos.cast" not in g.source  # no transposed copy


@pytest.mark.parametrize("mode", ["compile", "capture"])
def test_reshape_of_a_decode_step_transpose_reads_the_view(mode):
    # With one position, q.transpose(1, 2) of [1, 1, 4, 16] is [1, 4, 1, 16]
    # with strides [64, 16, 64, 1]: not canonical, but its elements are in
    # row-major order, so the reshape reads the view with no copy.
    # q is computed in the graph, so capture sees the views too.
    def f(x, w):
        q = x * 2
        heads = q.transpose(1, 2).reshape(4, 16)
        return heads * w
    (g,) = run(f, torch.randn(1, 1, 4, 16), torch.randn(4, 16), mode=mode)
    assert "strides = [64, 16, 64, 1]" in g.source
    assert "gpuos.cast" not in g.source


def test_more_ops_stay_in_the_graph():
    def f(x):
        return (F.gelu(x, approximate="tanh"), torch.log_softmax(x, -1), x.max(-1).values,
                x.max(-1, keepdim=True).indices, x.var(-1), torch.var(x, 0, correction=0),
                torch.reciprocal(x.abs() + 1))
    run(f, torch.randn(8, 32))
    assert gpuos.stats().get("fallback_ops", 0) == 0
    assert gpuos.stats().get("splits", 0) == 0
