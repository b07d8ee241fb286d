"""gpuos.capture on the CPU (the interpreter executor): what is recorded,
when it flushes, and that values match eager PyTorch."""

import gc
import logging

import pytest
import torch

import gpuos
from conftest import BF16_PAST_MIDPOINT, BF16_ROUNDED_ONCE, assert_close

CPU = dict(executor="interpreter")


def test_fuses_a_chain_into_one_graph():
    x, w, b = torch.randn(4, 8), torch.randn(8), torch.randn(4, 1)
    with gpuos.capture(**CPU):
        y = torch.relu(x * w + b).sum(-1)
    assert_close(y, torch.relu(x.double() * w.double() + b.double()).sum(-1), torch.float32)
    s = gpuos.stats()
    assert s["flushes"] == 1 and s["graphs_run_interpreter"] == 1
    assert s.get("fallback_ops", 0) == 0


def test_item_flushes_before_reading():
    x = torch.rand(16) + 0.5
    with gpuos.capture(**CPU):
        y = (x * 2).sum()
        value = y.item()  # needs the data now
        assert gpuos.stats()["flushes"] == 1
        z = y + 1
    assert value == pytest.approx((x.double() * 2).sum().item(), rel=1e-5)
    assert z.item() == pytest.approx(value + 1, rel=1e-5)
    assert gpuos.stats()["flushes"] == 2


def test_unsupported_op_reading_pending_flushes_and_is_counted(caplog):
    x = torch.randn(8, 8)
    with caplog.at_level(logging.DEBUG, logger="gpuos"):
        with gpuos.capture(**CPU):
            y = torch.exp(x)
            c = torch.cumsum(y, 0)  # no lowering: flush, then eager
            z = c * 2
    assert_close(z, torch.cumsum(torch.exp(x.double()), 0) * 2, torch.float32)
    s = gpuos.stats()
    assert s["fallback_ops"] >= 1 and s["flushes"] == 2
    assert any("cumsum" in r.message and "no gpuos lowering" in r.message for r in caplog.records)


def test_size_threshold_flushes():
    x = torch.randn(32)
    with gpuos.capture(max_ops=4, **CPU):
        y = x
        for _ in range(10):
            y = y * 0.5 + 0.25
    ref = x.double()
    for _ in range(10):
        ref = ref * 0.5 + 0.25
    assert_close(y, ref, torch.float32)
    assert gpuos.stats()["flushes"] >= 5  # 20 ops, at most 4 per graph


def test_dead_intermediates_are_not_outputs(monkeypatch, tmp_path):
    # A cache of its own: the graph this test compiles is the only one.
    monkeypatch.setenv("GPUOS_CACHE_DIR", str(tmp_path))
    x = torch.randn(64)
    with gpuos.capture(**CPU):
        a = torch.exp(x)
        b = a * 3
        del a
        gc.collect()
        c = b + 1
        del b
    assert_close(c, torch.exp(x.double()) * 3 + 1, torch.float32)
    graphs = list(gpuos.cache_dir().glob("*/graph.mlir"))
    assert len(graphs) == 1
    last = graphs[0].read_text()
    assert last.count("out0") == 1 and "out1" not in last


def test_views_alias_their_pending_base():
    x = torch.randn(4, 6)
    with gpuos.capture(**CPU):
        y = x * 2
        t = y.t()            # a view of a pending tensor
        s = t[1:3]           # a view of a view
        z = t.sum(0)         # fuses through the transpose
    assert s._base is y
    assert_close(y, x.double() * 2, torch.float32)
    assert_close(s, (x.double() * 2).t()[1:3], torch.float32)
    assert_close(z, (x.double() * 2).t().sum(0), torch.float32)


def test_inplace_on_an_input_flushes_first():
    x = torch.ones(8)
    with gpuos.capture(**CPU):
        y = x + 1       # pending, reads x
        x.mul_(10)      # must not change y
        z = x + 1
    assert_close(y, torch.full((8,), 2.0, dtype=torch.float64), torch.float32)
    assert_close(z, torch.full((8,), 11.0, dtype=torch.float64), torch.float32)


def test_inplace_on_a_pending_tensor():
    x = torch.randn(8)
    with gpuos.capture(**CPU):
        y = x * 2
        y.add_(1)
        w = y * 3
    assert_close(w, (x.double() * 2 + 1) * 3, torch.float32)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_dtypes(dtype):
    x = torch.randn(8, 32).to(dtype)
    w = torch.randn(32).to(dtype)
    with gpuos.capture(**CPU):
        y = torch.nn.functional.rms_norm(x, (32,), w, eps=1e-6) if hasattr(torch.nn.functional, "rms_norm") else x * w
        z = torch.softmax(y.float(), -1)
    xd = x.double()
    ref = xd / torch.sqrt((xd * xd).mean(-1, keepdim=True) + 1e-6) * w.double()
    assert_close(y, ref, dtype)
    assert_close(z, torch.softmax(y.double(), -1), torch.float32)


def test_requires_grad_runs_in_pytorch():
    x = torch.randn(8, requires_grad=True)
    with gpuos.capture(**CPU):
        y = (x * 3).sum()
    y.backward()
    assert torch.allclose(x.grad, torch.full((8,), 3.0))
    assert gpuos.stats().get("flushes", 0) == 0
    assert gpuos.stats()["fallback_ops"] >= 2


def test_priority_is_checked():
    with pytest.raises(ValueError, match="priority 'asap'"):
        gpuos.capture(priority="asap")
    with pytest.raises(ValueError, match="executor"):
        gpuos.capture(executor="tpu")


def test_cuda_executor_leaves_cpu_tensors_to_pytorch():
    x = torch.randn(8)
    with gpuos.capture():  # the default, CUDA executor
        y = x * 2
    assert torch.equal(y, x * 2)
    assert gpuos.stats().get("flushes", 0) == 0
    assert gpuos.stats()["fallback_ops"] == 1


def test_same_graph_is_compiled_once():
    x = torch.randn(8, 8)
    for _ in range(3):
        with gpuos.capture(**CPU):
            y = torch.tanh(x) * 2
    s = gpuos.stats()
    assert s.get("compiles", 0) + s.get("disk_cache_hits", 0) == 1
    assert s["cache_hits"] == 2


def test_a_graph_that_fails_to_compile_runs_in_pytorch(monkeypatch, caplog):
    import gpuos._trace as trace

    def broken(*args, **kwargs):
        raise gpuos.CompileError("gpuos-jit failed (simulated)")
    monkeypatch.setattr(trace, "compile_graph", broken)
    x = torch.randn(4, 8)
    with caplog.at_level(logging.WARNING, logger="gpuos"):
        with gpuos.capture(**CPU):
            a = torch.exp(x)
            t = a.t()           # a view of a pending tensor
            y = (t * 2).sum(0)
            del a
    assert_close(y, (torch.exp(x.double()).t() * 2).sum(0), torch.float32)
    assert_close(t, torch.exp(x.double()).t(), torch.float32)
    assert gpuos.stats()["flush_fallbacks"] == 1
    assert any("runs in PyTorch instead" in r.message and "simulated" in r.message
               for r in caplog.records)


def test_norm_statistics_still_referenced_are_computed():
    x, w, b = torch.randn(4, 16), torch.randn(16), torch.randn(16)
    with gpuos.capture(**CPU):
        out, mean, rstd = torch.native_layer_norm(x, (16,), w, b, 1e-5)
    ref_out, ref_mean, ref_rstd = torch.native_layer_norm(x.double(), (16,), w.double(), b.double(), 1e-5)
    assert_close(out, ref_out, torch.float32)
    assert_close(mean, ref_mean, torch.float32)
    assert_close(rstd, ref_rstd, torch.float32)


def test_norm_statistics_read_inside_the_capture():
    # An op reading a statistic the fused graph does not compute runs the
    # graph in PyTorch (it raised a bare KeyError).
    x, w, b = torch.randn(4, 16), torch.randn(16), torch.randn(16)
    with gpuos.capture(**CPU):
        out, mean, rstd = torch.native_layer_norm(x, (16,), w, b, 1e-5)
        z = mean * 2 + rstd
    ref_out, ref_mean, ref_rstd = torch.native_layer_norm(x.double(), (16,), w.double(), b.double(), 1e-5)
    assert_close(out, ref_out, torch.float32)
    assert_close(z, ref_mean * 2 + ref_rstd, torch.float32)


def test_printing_and_numpy_flush_first(capsys):
    # Printing formats with every dispatch mode off, and numpy()/tolist()
    # read memory directly: each must see the written values.
    x = torch.ones(4)
    with gpuos.capture(**CPU):
        y = x * 3
        print(y)
        shown = f"{y}"
        listed = (x * 4).tolist()
        arr = (x * 5).numpy()
    assert "tensor([3., 3., 3., 3.])" in capsys.readouterr().out
    assert shown == "tensor([3., 3., 3., 3.])"
    assert listed == [4.0] * 4 and arr.tolist() == [5.0] * 4


def test_an_exception_still_writes_what_the_block_computed():
    x = torch.ones(4)
    with pytest.raises(KeyError):
        with gpuos.capture(**CPU):
            y = x * 3
            raise KeyError("user code")
    assert y.tolist() == [3.0] * 4


def test_a_nested_capture_reads_the_outer_blocks_values():
    x = torch.ones(4)
    with gpuos.capture(**CPU):
        y = x * 2
        with gpuos.capture(**CPU):
            z = y + 1
    assert z.tolist() == [3.0] * 4 and y.tolist() == [2.0] * 4
    # The outer block flushed first (printing y) leaves the inner pending.
    with gpuos.capture(**CPU):
        y = x * 2
        with gpuos.capture(**CPU):
            z = y + 1
            shown = f"{y}"
    assert shown == "tensor([2., 2., 2., 2.])" and z.tolist() == [3.0] * 4


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_infinite_and_nan_constants_keep_their_value(dtype):
    # -inf masks (a fully masked softmax row is NaN in eager), +inf bounds,
    # NaN fills, and a finite scalar that is infinite in the dtype.
    x = torch.randn(3, 4).to(dtype)
    mask = torch.tensor([[True, False, True, False]] * 2 + [[True] * 4])
    with gpuos.capture(**CPU):
        masked = x.masked_fill(mask, float("-inf"))
        soft = torch.softmax(masked.float(), -1)
        clamped = x.clamp(max=float("inf"))
        nan = x.masked_fill(mask, float("nan"))
        big = x * 1e39
    ref_masked = x.masked_fill(mask, float("-inf"))
    assert torch.equal(masked, ref_masked)
    torch.testing.assert_close(soft, torch.softmax(ref_masked.float(), -1), equal_nan=True)
    assert torch.equal(clamped, x)
    assert torch.equal(nan.isnan(), mask) and torch.equal(nan[~mask], x[~mask])
    assert torch.equal(big.isinf(), (x * 1e39).isinf())
    assert torch.isinf(big).all() or dtype == torch.float64


def test_norm_matching_tells_a_matmul_from_its_transpose():
    # (a @ b) * rsqrt(mean((a @ b.t())^2)) is no RMSNorm of a @ b.
    a, b = torch.randn(8, 8), torch.randn(8, 8)
    with gpuos.capture(**CPU):
        bb = b * 1.0
        y = (a @ bb) * torch.rsqrt(((a @ bb.t()) ** 2).mean(-1, keepdim=True) + 1e-6)
    ad, bd = a.double(), b.double()
    assert_close(y, (ad @ bd) * torch.rsqrt(((ad @ bd.t()) ** 2).mean(-1, keepdim=True) + 1e-6),
                 torch.float32)


def test_ops_the_compiler_rejects_are_not_recorded():
    # Each of these lowered to IR the compiler refused, and the whole
    # graph around it ran in PyTorch (flush_fallbacks); now each is lowered
    # right or runs alone in PyTorch, and values follow eager.
    x = torch.randn(3, 4)
    b = x > 0
    i8 = torch.tensor([1, -5, 100], dtype=torch.int8)
    n = torch.tensor([2, 3, -4])
    cases = {
        "argmax keepdim": lambda: torch.argmax(x * 2, keepdim=True),
        "bool add": lambda: (b + b) & (x * 2 > 0),
        "int pow": lambda: (n * 1) ** 3,
        "int8 wraps": lambda: (i8 * 1) + 300,
        "legacy empty cat": lambda: torch.cat([x * 2, torch.empty(0)]),
        "clone": lambda: (x * 2, x.clone()),
    }
    for name, fn in cases.items():
        gpuos.reset_stats()
        with gpuos.capture(**CPU):
            got = fn()
        want = fn()
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            assert g.dtype == w.dtype and g.shape == w.shape, name
            assert torch.equal(g, w), name
        assert gpuos.stats().get("flush_fallbacks", 0) == 0, name


def test_casts_to_bf16_round_once():
    # Values just past a bf16 midpoint: rounded once (as float64 math says)
    # they go up; eager rounds through f32, which lands them on the midpoint,
    # and then ties to even go down (docs/python.md, "Casts to bf16").
    d = torch.tensor(BF16_PAST_MIDPOINT[0], dtype=torch.float64)
    i = torch.tensor(BF16_PAST_MIDPOINT[1], dtype=torch.int64)
    with gpuos.capture(**CPU):
        bd, bi = (d * 1).to(torch.bfloat16), (i * 1).to(torch.bfloat16)
    assert bd.tolist() == BF16_ROUNDED_ONCE[0]
    assert bi.tolist() == BF16_ROUNDED_ONCE[1]
    assert not torch.equal(bd, d.to(torch.bfloat16))  # eager's differs


def test_contiguous_of_a_permuted_result_aliases_it_inside_capture():
    # Results are row-major (docs/python.md, "Layouts"), so .contiguous() of
    # x.t() + 1 is the result itself inside capture, where eager copies: an
    # in-place op on it shows in the result. jit (in-place: PyTorch) and
    # torch.compile (eager's layouts) match eager.
    def f(x):
        y = x.t() + 1
        y.contiguous().add_(1)
        return y
    x = torch.zeros(2, 3)
    assert f(x).tolist() == [[1.0, 1.0]] * 3
    with gpuos.capture(**CPU):
        y = f(x)
    assert y.tolist() == [[2.0, 2.0]] * 3
    assert gpuos.jit(f, **CPU)(x).tolist() == [[1.0, 1.0]] * 3
    torch._dynamo.reset()
    assert torch.compile(f, backend="gpuos", options=CPU)(x).tolist() == [[1.0, 1.0]] * 3
