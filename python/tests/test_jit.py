"""gpuos.jit on the CPU: the code CUDA tensors take (the generated runner,
the guard, the one-call launch) with gpuos._C replaced by the stand-in that
evaluates each launch with the interpreter (stub_runtime.py), and the
interpreter executor. Values against float64 PyTorch."""

import logging
import warnings

import pytest
import torch
import torch.nn.functional as F

import gpuos
import stub_runtime
from conftest import assert_close


@pytest.fixture(autouse=True)
def runtime(monkeypatch):
    return stub_runtime.install(monkeypatch)


def ref(fn, *args, **kwargs):
    double = lambda a: a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a
    return fn(*[double(a) for a in args], **{k: double(v) for k, v in kwargs.items()})


def check(out, expected):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    refs = expected if isinstance(expected, (tuple, list)) else (expected,)
    assert len(outs) == len(refs)
    for o, r in zip(outs, refs):
        assert_close(o, r, computed_in=torch.float32)


def chain(x, scale, bias):
    return torch.sigmoid(torch.tanh(x * scale + bias) - x) * x


def test_records_once_and_replays_without_dynamo():
    g = gpuos.jit(chain, priority="urgent")
    for _ in range(3):
        args = (torch.randn(8, 32), torch.randn(32), torch.randn(32))
        check(g(*args), ref(chain, *args))
    s = gpuos.stats()
    assert s["jit_records"] == 1 and s["graphs_run"] == 3
    assert s.get("compiles", 0) + s.get("disk_cache_hits", 0) == 1
    # Later calls are the generated runner: a guard and the launch.
    assert "launch(" in g.gpuos_jit.fast.gpuos_source
    assert g.__name__ == "chain"


def test_replays_pass_the_guard_and_changes_miss_it():
    # Calls of the recorded signature take the runner (one native layout
    # check where PyTorch has Dynamo's tensor guard); a changed dtype,
    # stride or requires_grad misses it and goes through slow(), which
    # records, finds or falls back.
    from gpuos import _jit
    g = gpuos.jit(chain)
    args = (torch.randn(8, 32), torch.randn(32), torch.randn(32))
    for _ in range(4):
        check(g(*args), ref(chain, *args))
    assert gpuos.stats()["jit_slow_calls"] == 1
    if _jit._TensorGuards is not None:
        assert "LAYOUT(t0, t1, t2)" in g.gpuos_jit.fast.gpuos_source
    changed = [(args[0].double(), args[1], args[2]),
               (args[0], torch.randn(64)[::2], args[2]),
               (args[0], args[1], args[2].clone().requires_grad_(True))]
    for k, other in enumerate(changed, start=2):
        check(g(*other), ref(chain, *other))
        assert gpuos.stats()["jit_slow_calls"] == k
    assert gpuos.stats()["autograd_fallbacks"] == 1
    check(g(*args), ref(chain, *args))  # the first signature's runner again
    assert gpuos.stats()["jit_slow_calls"] == 5 and gpuos.stats()["jit_records"] == 3


def test_same_shape_outputs_share_one_allocation():
    # Three [4, 32] outputs come from one [3, 4, 32] allocation (unbind);
    # the [32] one is its own. Each is still a separate result.
    def f(x, w):
        return torch.tanh(x * w), x + w, x * 2.0, (x * w).sum(0)
    g = gpuos.jit(f)
    x, w = torch.randn(4, 32), torch.randn(32)
    for _ in range(2):
        out = g(x, w)
        check(out, ref(f, x, w))
    storage = lambda t: t.untyped_storage().data_ptr()
    assert storage(out[0]) == storage(out[1]) == storage(out[2]) != storage(out[3])
    assert all(o.is_contiguous() for o in out)
    before = out[1].clone()
    out[0].fill_(7.0)
    assert torch.equal(out[1], before)
    assert "unbind(0)" in g.gpuos_jit.fast.gpuos_source


def test_outputs_not_a_multiple_of_16_bytes_are_allocated_apart():
    # Two [3] f32 outputs (12 bytes) cut from one [2, 3] allocation would put
    # the second at byte 12, off the 16 bytes the generated code's vector
    # path wants; each gets its own allocation. [4] f32 (16 bytes) groups.
    def f(x, y):
        return x + y, x * y
    for n, grouped in ((3, False), (4, True), (6, False)):
        g = gpuos.jit(f)
        x, y = torch.randn(n), torch.randn(n)
        for _ in range(2):
            out = g(x, y)
            check(out, ref(f, x, y))
        assert ("unbind(0)" in g.gpuos_jit.fast.gpuos_source) == grouped
        assert all(o.data_ptr() % 16 == 0 for o in out)


def test_a_new_signature_records_again():
    g = gpuos.jit(chain)
    for n in (8, 16, 8, 16):
        args = (torch.randn(n, 32), torch.randn(32), torch.randn(32))
        check(g(*args), ref(chain, *args))
    # a transposed layout is another signature too
    x = torch.randn(32, 8).t()
    args = (x, torch.randn(32), torch.randn(32))
    check(g(*args), ref(chain, *args))
    s = gpuos.stats()
    assert s["jit_records"] == 3 and s["graphs_run"] == 5


def test_non_tensor_arguments_are_guarded_by_type_and_value():
    def f(x, k, flag=False):
        y = x * k
        return torch.relu(y) if flag else torch.tanh(y)
    g = gpuos.jit(f)
    x = torch.randn(4, 8)
    for k, flag in ((2.0, False), (3.0, False), (2.0, True), (2, False), (2.0, False)):
        check(g(x, k, flag=flag), ref(f, x, k, flag=flag))
    assert gpuos.stats()["jit_records"] == 4


def test_the_same_tensor_twice_is_part_of_the_signature():
    def f(a, b):
        return a * 2 + b
    g = gpuos.jit(f)
    x, y = torch.randn(16), torch.randn(16)
    check(g(x, x), ref(f, x, x))
    check(g(x, y), ref(f, x, y))
    check(g(y, y), ref(f, y, y))
    assert gpuos.stats()["jit_records"] == 2


def test_closure_tensors_are_bound_by_reference_python_values_are_baked():
    w = torch.rand(64) + 0.5
    scale = 2.0

    def f(x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w * scale
    g = gpuos.jit(f)
    x = torch.randn(4, 64)
    check(g(x), ref(f, x))
    w.mul_(3)  # seen: the graph reads w's current values
    check(g(x), ref(f, x))
    scale = 5.0  # not seen: baked at record time (docs/python.md)
    out = g(x)
    scale = 2.0
    check(out, ref(f, x))
    assert gpuos.stats()["jit_records"] == 1


def test_unsupported_op_runs_the_signature_in_pytorch(caplog):
    def f(x):
        return torch.cumsum(torch.exp(x), 0) + 1
    g = gpuos.jit(f)
    with caplog.at_level(logging.WARNING, logger="gpuos"):
        for _ in range(3):
            x = torch.randn(8)
            check(g(x), ref(f, x))
    assert "cumsum" in caplog.text and "runs in PyTorch" in caplog.text
    s = gpuos.stats()
    assert s["jit_fallbacks"] == 1 and s["jit_records"] == 1 and s.get("graphs_run", 0) == 0


def test_inplace_ops_run_in_pytorch_exactly_once():
    def f(x):
        x.add_(1)
        return x * 2
    g = gpuos.jit(f)
    x = torch.zeros(4)
    out = g(x)
    assert torch.equal(x, torch.ones(4)) and torch.equal(out, torch.full((4,), 2.0))
    g(x)
    assert torch.equal(x, torch.full((4,), 2.0))
    assert gpuos.stats()["jit_fallbacks"] == 1


def test_an_abort_caught_by_fn_is_still_an_abort():
    def f(x):
        try:
            torch.cumsum(x, 0)
        except Exception:
            pass
        return x + 1
    g = gpuos.jit(f)
    x = torch.randn(4)
    check(g(x), ref(f, x))
    assert gpuos.stats()["jit_fallbacks"] == 1


def test_requires_grad_calls_fn_in_pytorch():
    g = gpuos.jit(chain)
    x = torch.randn(4, 8, requires_grad=True)
    out = g(x, torch.randn(8), torch.randn(8))
    assert out.grad_fn is not None
    with torch.no_grad():
        out = g(x, torch.randn(8), torch.randn(8))
    assert out.grad_fn is None
    s = gpuos.stats()
    assert s["autograd_fallbacks"] == 1 and s["graphs_run"] == 1


def test_a_closure_parameter_that_requires_grad_falls_back():
    lin = torch.nn.Linear(16, 8)
    g = gpuos.jit(lambda x: torch.relu(lin(x)))
    x = torch.randn(4, 16)
    assert g(x).grad_fn is not None  # recorded with grad on: PyTorch
    assert gpuos.stats()["jit_fallbacks"] == 1
    with torch.no_grad():
        for _ in range(2):
            check(g(x), torch.relu(x.double() @ lin.weight.double().t() + lin.bias.double()))
    assert gpuos.stats()["graphs_run"] == 2


def test_a_closure_tensor_that_starts_requiring_grad_falls_back():
    w = torch.randn(8)
    g = gpuos.jit(lambda x: x * w)
    x = torch.randn(8)
    check(g(x), x.double() * w.double())
    w.requires_grad_(True)
    assert g(x).grad_fn is not None
    assert gpuos.stats()["autograd_fallbacks"] == 1


def test_returned_structure_and_aliasing_follow_eager():
    def f(x, y):
        h = torch.exp(x) + y
        return h, h[1:, :2], x, x.t(), y.clone(), 3, None, y.detach()
    g = gpuos.jit(f)
    for _ in range(2):
        x, y = torch.randn(4, 8), torch.randn(4, 8)
        h, v, same, xt, yc, three, none, yd = g(x, y)
        check((h, v, xt, yc), ref(lambda a, b: f(a, b)[:2] + (a.t(), b), x, y))
        assert v._base is h and v.data_ptr() == h[1:, :2].data_ptr()
        assert same is x and xt.data_ptr() == x.data_ptr() and xt.stride() == (1, 8)
        assert yc.data_ptr() != y.data_ptr() and three == 3 and none is None
        assert yd.data_ptr() == y.data_ptr() and torch.equal(yd, y)
    assert isinstance(gpuos.jit(lambda x: [x * 2])(torch.randn(3)), list)


def test_views_of_arguments_are_recorded_not_baked():
    def f(d, w):
        return d[0] * w[1] + d[1:2]
    g = gpuos.jit(f)
    for _ in range(3):
        d, w = torch.randn(3, 16), torch.randn(2, 16)
        check(g(d, w), ref(f, d, w))


def test_factories_and_scalar_operands_are_constants():
    def f(s, mask):
        s = torch.where(mask, s, -1e30)
        return torch.softmax(s, -1) + torch.full((4, 4), 0.5)
    g = gpuos.jit(f)
    mask = torch.ones(4, 4, dtype=torch.bool).tril()
    for _ in range(2):
        s = torch.randn(4, 4)
        check(g(s, mask), ref(f, s, mask))
    assert gpuos.stats().get("jit_fallbacks", 0) == 0


def test_variant_cap_warns_and_falls_back():
    g = gpuos.jit(lambda x: x * 2, max_variants=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in (1, 2, 3, 4):
            x = torch.randn(n)
            check(g(x), x.double() * 2)
    assert any("max_variants=2" in str(w.message) for w in caught)
    assert gpuos.stats()["variant_cap_hits"] == 2


def test_fused_norms_through_jit():
    def f(x, d, w, b):
        h = x
        for i in range(d.shape[0]):
            h = F.layer_norm(h + d[i], (h.shape[-1],), w[i], b[i])
        return h
    g = gpuos.jit(f, priority="urgent")
    args = (torch.randn(8, 64), torch.randn(4, 8, 64), torch.rand(4, 64) + 0.5, torch.randn(4, 64))
    check(g(*args), ref(f, *args))
    from gpuos import _compiler
    (graph,) = [c for c in _compiler._memory.values() if c.name != "union"]
    assert graph.source.count("gpuos.layer_norm") == 4


def test_an_argument_that_is_not_guardable_runs_in_pytorch(caplog):
    g = gpuos.jit(lambda xs: xs[0] + xs[1])
    a, b = torch.randn(3), torch.randn(3)
    with caplog.at_level(logging.INFO, logger="gpuos"):
        check(g([a, b]), a.double() + b.double())
    assert "cannot be guarded" in caplog.text and gpuos.stats()["jit_fallbacks"] == 1


def test_interpreter_executor_and_options():
    g = gpuos.jit(chain, executor="interpreter")
    args = (torch.randn(4, 8), torch.randn(8), torch.randn(8))
    check(g(*args), ref(chain, *args))
    assert gpuos.stats()["graphs_run_interpreter"] == 1
    with pytest.raises(ValueError):
        gpuos.jit(chain, priority="soon")
    with pytest.raises(ValueError):
        gpuos.jit(chain, executor="tpu")

    @gpuos.jit(priority="background")
    def h(x):
        return x + 1
    check(h(torch.ones(2)), torch.full((2,), 2.0, dtype=torch.float64))


def test_a_nan_argument_runs_in_pytorch_instead_of_recursing():
    # NaN != NaN: a guard on it could never hold; the signature is refused.
    import math
    f = gpuos.jit(lambda x, k: x * k)
    out = f(torch.ones(3), math.nan)
    assert torch.isnan(out).all()
    assert gpuos.stats()["jit_fallbacks"] == 1


def test_container_elements_are_guarded_by_type():
    # (2,) and (2.0,) compare equal in Python; the guard tells them apart.
    g = gpuos.jit(lambda x, s: x * s[0])
    x = torch.arange(4)
    assert g(x, (2,)).dtype == torch.int64
    out = g(x, (2.0,))
    assert out.dtype == torch.float32 and torch.equal(out, x * 2.0)
    k = gpuos.jit(lambda x, d: x * d["k"], executor="interpreter")
    y = torch.arange(3)
    assert torch.equal(k(y, {"k": 3}), y * 3)
    assert k(y, {"k": 3.0}).dtype == torch.float32
    assert gpuos.stats()["jit_records"] == 4


def test_negative_zero_is_not_zero():
    h = gpuos.jit(lambda x, s: x / s)
    x = torch.ones(3)
    assert torch.equal(h(x, 0.0), torch.full((3,), float("inf")))
    assert torch.equal(h(x, -0.0), torch.full((3,), float("-inf")))


def test_tuple_subclasses_are_guarded_without_recursion():
    # A torch.Size argument used to fail its own guard and loop back into
    # the slow path until RecursionError.
    g = gpuos.jit(lambda x, shape: x.reshape(shape) * 2)
    x = torch.randn(2, 3)
    for _ in range(3):
        check(g(x, torch.Size([3, 2])), x.double().reshape(3, 2) * 2)
    assert g(x, (3, 2)).shape == (3, 2)  # a plain tuple: another signature
    assert gpuos.stats()["jit_records"] == 2


def test_an_argument_that_is_also_an_outside_tensor_is_refused():
    w = torch.tensor([1.0, 2.0, 3.0])
    g = gpuos.jit(lambda x: x * w)
    check(g(w), w.double() * w.double())
    x = torch.full((3,), 10.0)
    check(g(x), x.double() * w.double())  # not x * x
    assert gpuos.stats()["jit_fallbacks"] == 1


def test_a_returned_copy_is_made_once():
    def f(x):
        y = x.clone()
        return y, y.t(), y
    a, at, again = gpuos.jit(f)(torch.randn(2, 3))
    assert again is a and at.data_ptr() == a.data_ptr()
    a[0, 0] = 100.0
    assert at[0, 0] == 100.0


def test_two_copies_of_one_argument_stay_two_tensors():
    # Each clone is its own tensor, as in eager (they were returned as one
    # object, so writing one changed the other); so are results that are
    # the argument unchanged (a sum over a 0-dim tensor's dim 0).
    x = torch.arange(3.0)
    for _ in range(2):
        a, b = gpuos.jit(lambda x: (x.clone(), x.clone()))(x)
        assert a is not b and a.data_ptr() != b.data_ptr()
        a.add_(100.0)
        assert torch.equal(b, torch.arange(3.0)) and torch.equal(x, torch.arange(3.0))
    s, m = gpuos.jit(lambda s: (s.sum(0), s.mean(-1, keepdim=True)))(torch.tensor(1.5))
    assert s is not m and s.data_ptr() != m.data_ptr() and s.item() == m.item() == 1.5


def test_autocast_and_the_default_dtype_are_part_of_the_signature():
    f = gpuos.jit(lambda x, w: x @ w + 1.5)
    x, w = torch.randn(4, 8), torch.randn(8, 8)
    assert f(x, w).dtype == torch.float32
    with torch.autocast("cpu", dtype=torch.bfloat16):
        inside = f(x, w)
        assert inside.dtype == torch.bfloat16
        assert_close(inside, ref(lambda x, w: x @ w + 1.5, x, w), computed_in=torch.bfloat16)
    assert f(x, w).dtype == torch.float32
    g = gpuos.jit(lambda x: x + torch.full((4,), 2.0))
    old = torch.get_default_dtype()
    try:
        torch.set_default_dtype(torch.float64)
        assert g(torch.zeros(4, dtype=torch.float64)).dtype == torch.float64
    finally:
        torch.set_default_dtype(old)
    assert g(torch.zeros(4)).dtype == torch.float32


def test_a_config_objects_attributes_are_guarded():
    class Config:
        scale = 2.0

    cfg = Config()
    cfg.scale = 2.0
    f = gpuos.jit(lambda x, c: x * c.scale)
    assert f(torch.ones(3), cfg).tolist() == [2.0] * 3
    cfg.scale = 5.0
    assert f(torch.ones(3), cfg).tolist() == [5.0] * 3


def test_a_jit_call_inside_capture_reads_written_values():
    f = gpuos.jit(lambda t: t + 1)
    x = torch.ones(4)
    with gpuos.capture(executor="interpreter"):
        y = x * 2
        z = f(y)
    assert z.tolist() == [3.0] * 4


def test_an_outside_tensor_that_changed_records_again():
    # The same argument each call; only the closure tensor changes: its
    # dtype (module.double() keeps the object), then, for a view the
    # recording made of it (W.t()), its storage (W.data = ...).
    W = torch.ones(3)
    f = gpuos.jit(lambda x: x * W)
    x = torch.full((3,), 2.0)
    assert f(x).tolist() == [2.0] * 3
    W.data = torch.full((3,), 3.0, dtype=torch.float64)
    out = f(x)
    assert out.dtype == torch.float64 and out.tolist() == [6.0] * 3
    M = torch.ones(2, 2)
    g = gpuos.jit(lambda x: x @ M.t())
    y = torch.ones(1, 2)
    assert g(y).tolist() == [[2.0, 2.0]]
    M.data = torch.full((2, 2), 5.0)
    assert g(y).tolist() == [[10.0, 10.0]]
    assert gpuos.stats()["jit_records"] == 4


def test_printing_an_argument_while_recording_keeps_the_jit(capsys):
    def fn(x):
        print(x)
        return x * 2
    f = gpuos.jit(fn)
    f(torch.ones(2))
    assert f(torch.ones(2)).tolist() == [2.0, 2.0]
    assert gpuos.stats().get("jit_fallbacks", 0) == 0
    assert "tensor([1., 1.])" in capsys.readouterr().out


def test_an_object_holding_itself_is_guarded_by_identity_below_its_attributes():
    class Node:
        pass
    cfg = Node()
    cfg.scale, cfg.parent = 2.0, Node()
    cfg.parent.child = cfg  # a cycle
    cfg.log = logging.getLogger("gpuos.test")
    f = gpuos.jit(lambda x, c: x * c.scale)
    assert f(torch.ones(2), cfg).tolist() == [2.0, 2.0]
    cfg.scale = 3.0
    assert f(torch.ones(2), cfg).tolist() == [3.0, 3.0]


def test_a_view_of_a_detached_result_aliases_the_result():
    # d[1:] is a view of d = y.detach(), which shares y's memory: writing
    # the view shows in y, as in eager. The view was made over a copy of d.
    def fn(x):
        y = x * 2
        d = y.detach()
        return d[1:], y
    f = gpuos.jit(fn, executor="interpreter")
    for _ in range(2):
        v, y = f(torch.ones(3))
        v.fill_(7)
        assert y.tolist() == [2.0, 7.0, 7.0]


def test_returned_aliases_of_results_and_outside_views_follow_eager():
    # y.detach() aliases y; a returned view of an outside tensor is a new
    # view object each call (a caller's t_() on one does not carry over).
    W = torch.arange(6.0).view(2, 3)

    def fn(x):
        y = x * 2
        return y, y.detach(), W.t()
    f = gpuos.jit(fn)
    for _ in range(2):
        y, d, wt = f(torch.ones(3))
        d.add_(1)
        assert y.tolist() == [3.0] * 3
        assert wt.shape == (3, 2)
        wt.t_()
