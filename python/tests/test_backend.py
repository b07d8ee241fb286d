"""torch.compile(backend="gpuos") on the CPU (the interpreter executor):
the FX importer, graph splits, variants and fallbacks."""

import logging

import pytest
import torch
import torch.nn.functional as F

import gpuos
from conftest import VIEW_BASE_CASES, assert_close

CPU = {"executor": "interpreter"}


def compiled(fn, **options):
    return torch.compile(fn, backend="gpuos", options={**CPU, **options})


def reference(fn, *args):
    return fn(*[a.double() if a.is_floating_point() else a for a in args])


def check(fn, *args, dtype=torch.float32):
    out = compiled(fn)(*args)
    ref = reference(fn, *args)
    outs = out if isinstance(out, tuple) else (out,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    for o, r in zip(outs, refs):
        assert_close(o, r, o.dtype if o.is_floating_point() else None)


def test_elementwise_chain():
    def f(x, y):
        h = x
        for i in range(16):
            h = torch.sigmoid(h * y + i * 0.01) - 0.5
        return F.silu(h) + F.gelu(h) + torch.tanh(h).abs()
    check(f, torch.randn(32, 64), torch.randn(64))
    assert gpuos.stats().get("fallback_ops", 0) == 0


def test_softmax_with_causal_mask():
    def f(q, k, mask):
        s = (q @ k.transpose(-1, -2)) * 0.125
        s = s.masked_fill(~mask, float("-inf"))
        return torch.softmax(s, -1)
    q, k = torch.randn(4, 16, 32), torch.randn(4, 16, 32)
    mask = torch.ones(16, 16, dtype=torch.bool).tril()
    check(f, q, k, mask)


def test_norms_and_residual():
    def f(x, h, w, b, g):
        r = x + h
        return F.layer_norm(r, (256,), w, b, 1e-5), F.rms_norm(r, (256,), g, 1e-6)
    x, h = torch.randn(8, 256), torch.randn(8, 256)
    check(f, x, h, torch.randn(256), torch.randn(256), torch.randn(256))


def test_mlp_sharing_weights():
    def f(xs, w1, w2):
        return [F.linear(F.silu(F.linear(x, w1)), w2) for x in xs]
    w1, w2 = torch.randn(64, 32) * 0.1, torch.randn(32, 64) * 0.1
    xs = [torch.randn(2, 32) for _ in range(4)]
    out = compiled(f)(xs, w1, w2)
    for o, x in zip(out, xs):
        assert_close(o, F.linear(F.silu(F.linear(x.double(), w1.double())), w2.double()), torch.float32)


def test_reductions_and_argmax():
    def f(x):
        return x.sum(1), x.mean(0, keepdim=True), x.amax(-1), x.argmax(-1)
    check(f, torch.randn(16, 48))


def test_broadcast_on_noncontiguous_views():
    def f(x, y):
        return x.t() * y[::2] + x.t().exp()
    x = torch.randn(12, 6)
    y = torch.randn(12, 12)
    check(f, x, y)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision(dtype):
    def f(x, w):
        return torch.softmax(x * w, -1).to(torch.float32), (x + w).relu()
    x, w = torch.randn(8, 128).to(dtype), torch.randn(128).to(dtype)
    out = compiled(f)(x, w)
    assert out[1].dtype == dtype
    assert_close(out[0], torch.softmax(x.double() * w.double(), -1), torch.float32,
                 computed_in=dtype)
    assert_close(out[1], (x.double() + w.double()).relu(), dtype)


def test_unsupported_op_splits_and_reports(caplog):
    def f(x):
        a = torch.exp(x) * 2
        b = torch.cumsum(a, 1)
        return torch.tanh(b) + 1
    x = torch.randn(4, 8)
    with caplog.at_level(logging.INFO, logger="gpuos"):
        check(f, x)
    s = gpuos.stats()
    assert s["fallback_ops"] == 1 and s["splits"] == 2
    assert any("cumsum" in r.message and "stay in PyTorch" in r.message for r in caplog.records)


def test_a_multi_output_op_in_pytorch_counts_once(caplog):
    # sort stays in PyTorch; the getitems unpacking its two results are not
    # ops of their own.
    def f(x):
        v, i = torch.sort(torch.exp(x), 1)
        return torch.tanh(v) + 1, i
    with caplog.at_level(logging.INFO, logger="gpuos"):
        check(f, torch.randn(4, 8))
    s = gpuos.stats()
    assert s["fallback_ops"] == 1 and s["splits"] == 2
    assert any("1 op(s) stay in PyTorch (aten.sort" in r.message for r in caplog.records)


def test_outputs_that_view_other_outputs_share_their_storage():
    # As in eager, y.t(), y.view(-1) and y.t()[1] are views of y, and z
    # another result: one graph computes y and z, the views are made from y.
    def f(x):
        y = x * 2 + 1
        return y, y.t(), y.view(-1), y.t()[1], torch.exp(x)
    x = torch.randn(3, 4)
    out = compiled(f)(x)
    ref = reference(f, x)
    for o, r in zip(out, ref):
        assert o.shape == r.shape and o.stride() == r.stride()
        assert_close(o, r, o.dtype)
    y, yt, flat, col, z = out
    for v in (yt, flat, col):
        assert v.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
    assert z.untyped_storage().data_ptr() != y.untyped_storage().data_ptr()
    y.add_(1)  # seen through every view, as in eager
    assert_close(yt, (x * 2 + 2).t().double(), torch.float32)
    assert_close(col, (x * 2 + 2).t()[1].double(), torch.float32)
    (g,) = [g for g in gpuos._compiler._memory.values() if g.name != "union"]
    assert len(g.outputs) == 2


def _storage_groups(outs):
    """Which outputs share storage: the index of the first one sharing it."""
    ptrs = [o.untyped_storage().data_ptr() for o in outs]
    return [ptrs.index(p) for p in ptrs]


@pytest.mark.parametrize("case", sorted(VIEW_BASE_CASES))
def test_output_views_share_storage_as_in_eager(case):
    # Views of a result PyTorch computed before the subgraph (cumsum stays
    # in PyTorch), of an intermediate no output returns, and of an input
    # share their base's storage as in eager, so writing one shows in the
    # others; they were dense copies.
    f = VIEW_BASE_CASES[case]
    x = torch.randn(3, 4)
    out, ref = compiled(f)(x), f(x)
    assert _storage_groups(out) == _storage_groups(ref)
    for o, r in zip(out, ref):
        assert o.shape == r.shape and o.stride() == r.stride()
        assert_close(o, r.double(), o.dtype)
    out[1].add_(1)
    ref[1].add_(1)
    for o, r in zip(out, ref):
        assert_close(o, r.double(), o.dtype)


def test_same_shapes_reuse_new_shapes_compile_once():
    def f(x):
        return torch.exp(x) + 1
    g = compiled(f)
    g(torch.randn(8))
    g(torch.randn(8))
    assert gpuos.stats()["variants"] == 1
    g(torch.randn(16))
    g(torch.randn(16))
    s = gpuos.stats()
    assert s["variants"] == 2 and s.get("variant_cap_hits", 0) == 0


def test_variant_cap_warns_and_falls_back():
    def f(x):
        return torch.exp(x) * 3
    g = compiled(f, max_variants=1)
    base = torch.randn(4, 8)
    g(base)
    with pytest.warns(UserWarning, match="max_variants=1"):
        out = g(base.t())  # a new layout (strides): a new variant
    assert_close(out, torch.exp(base.t().double()) * 3, torch.float32)
    assert gpuos.stats()["variant_cap_hits"] == 1


def test_autograd_falls_back_for_module_attributes():
    # Without Dynamo's inlining of nn modules, a parameter is an attribute
    # of the graph, not an input: the fallback must still see it.
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(6))

        def forward(self, a):
            return (torch.exp(a * self.w) * 2).sum()
    x, m = torch.randn(4, 6), M()
    with torch._dynamo.config.patch(inline_inbuilt_nn_modules=False):
        compiled(m)(x).backward()
    assert gpuos.stats()["autograd_fallbacks"] == 1
    torch.testing.assert_close(m.w.grad, (torch.exp(x * m.w.detach()) * 2 * x).sum(0))


def test_variants_are_kept_per_options():
    # Two functions of one structure share compiled variants only with the
    # same options: another priority compiles its own graph, and the first
    # one's variants do not count against its cap.
    def f1(x):
        return torch.exp(x) * 3

    def f2(x):
        return torch.exp(x) * 3
    g1 = compiled(f1, priority="background")
    g1(torch.randn(5))
    g1(torch.randn(6))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = torch.randn(7)
        out = compiled(f2, priority="urgent", max_variants=2)(x)
    assert_close(out, torch.exp(x.double()) * 3, torch.float32)
    s = gpuos.stats()
    assert s["variants"] == 3 and s.get("variant_cap_hits", 0) == 0
    from gpuos import _backend
    urgent = [key for key in _backend._VARIANTS if key[1] == "urgent"]
    assert len(urgent) == 1
    sources = [e[0].source for e in _backend._VARIANTS[urgent[0]].values() if e]
    assert sources and all("priority<urgent>" in src for src in sources)


def test_autograd_falls_back():
    def f(x):
        return (torch.sin(x) * 2).sum()
    x = torch.randn(8, requires_grad=True)
    compiled(f)(x).backward()
    torch.testing.assert_close(x.grad, 2 * torch.cos(x.detach()))
    assert gpuos.stats()["autograd_fallbacks"] == 1


def test_bad_options_are_rejected():
    with pytest.raises(Exception, match="unknown options"):
        torch.compile(lambda x: x + 1, backend="gpuos", options={"prio": 1})(torch.randn(2))
    with pytest.raises(Exception, match="priority 'now'"):
        torch.compile(lambda x: x + 1, backend="gpuos", options={"priority": "now"})(torch.randn(2))


def test_small_and_large_scalars_print_as_mlir_floats():
    def f(x):
        return (x + 1e-06) * 1e20 - 3e-300
    check(f, torch.rand(16) + 1)


def test_lifted_constant_tensors_become_inputs():
    def f(x):
        return torch.exp(x) + torch.tensor([1.0, 2.0, 3.0, 4.0])
    check(f, torch.randn(3, 4))
    assert gpuos.stats().get("fallback_ops", 0) == 0


def test_factories_inside_a_graph():
    def f(x):
        return torch.where(x > 0, x, torch.full_like(x, -1.5)) + torch.zeros(4, 8)
    check(f, torch.randn(4, 8))


def test_a_subgraph_that_fails_to_compile_runs_in_pytorch(monkeypatch, caplog):
    import gpuos._trace as trace

    def broken(*args, **kwargs):
        raise gpuos.CompileError("gpuos-jit failed (simulated)")
    monkeypatch.setattr(trace, "compile_graph", broken)

    def f(x):
        return torch.tanh(x) * 3
    g = compiled(f)
    with caplog.at_level(logging.WARNING, logger="gpuos"):
        for _ in range(2):
            x = torch.randn(8)
            assert_close(g(x), torch.tanh(x.double()) * 3, torch.float32)
    assert gpuos.stats()["compile_fallbacks"] == 1  # not retried per call
    assert any("runs in PyTorch" in r.message and "simulated" in r.message
               for r in caplog.records)


def test_the_softmax_peephole_is_only_a_division():
    # exp(x - max) minus (not over) its sum is no softmax.
    def f(x):
        e = torch.exp(x - x.amax(-1, keepdim=True))
        return e - e.sum(-1, keepdim=True), torch.maximum(e, e.sum(-1, keepdim=True))
    check(f, torch.randn(4, 5))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_scalars_are_not_rounded_before_the_op(dtype):
    # PyTorch multiplies in f32: 1e5 and the usual -1e9 mask scale stay finite.
    def f(x, m):
        return x * 1e5, (x + (1 - m) * -1e9).softmax(-1), 70000 * (x / 100000.0)
    x = (torch.rand(4, 8) * 0.6 - 0.3).to(dtype)  # x * 1e5 fits f16
    m = (torch.rand(4, 8) > 0.3).to(dtype)
    out = compiled(f)(x, m)
    for o, r in zip(out, f(x, m)):
        assert torch.isfinite(o).all()
        torch.testing.assert_close(o.double(), r.double(), rtol=1e-2, atol=1e-2)


def test_a_data_dependent_size_runs_in_pytorch():
    def f(x):
        return x[x > 0].exp() * 2
    x = torch.randn(64)
    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        assert torch.equal(compiled(f)(x), f(x))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_a_half_rmsnorm_with_an_inexact_eps_is_still_fused(dtype):
    # eps = 1e-6 is not a 16-bit float: x + eps is computed in f32, and the
    # norm peephole looks through that cast.
    def f(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    x, w = torch.randn(4, 64).to(dtype), torch.randn(64).to(dtype)
    text = []
    import gpuos._compiler as comp
    real = comp.compile_graph
    def spy(text_, *a, **k):
        text.append(text_)
        return real(text_, *a, **k)
    import gpuos._trace as tr
    old = tr.compile_graph
    tr.compile_graph = spy
    try:
        out = compiled(f)(x, w)
    finally:
        tr.compile_graph = old
    torch.testing.assert_close(out.double(), f(x.double(), w.double()), rtol=5e-2, atol=5e-2)
    assert any("gpuos.rms_norm" in t for t in text)
