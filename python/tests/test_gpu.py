"""The entry points on the GPU, through the resident runtime, against a
float64 PyTorch reference. Skipped (visibly) without a GPU."""

import math

import pytest
import torch
import torch.nn.functional as F

import gpuos
from conftest import BF16_PAST_MIDPOINT, BF16_ROUNDED_ONCE, VIEW_BASE_CASES, assert_close, has_gpu

pytestmark = pytest.mark.skipif(not has_gpu(), reason="no GPU: the runtime cannot open device 0")


def cuda(*shape, dtype=torch.float32):
    return torch.randn(*shape, device="cuda").to(dtype)


def test_capture_chain_runs_on_the_runtime():
    x, w, b = cuda(64, 256), cuda(256), cuda(64, 1)
    with gpuos.capture(priority="urgent"):
        y = torch.relu(x * w + b).sum(-1)
    assert_close(y, torch.relu(x.double() * w.double() + b.double()).sum(-1), torch.float32)
    assert gpuos.stats()["graphs_run"] == 1


def test_capture_flushes_on_item_and_exit():
    x = cuda(1024)
    with gpuos.capture():
        s = (x * x).sum()
        value = s.item()
        t = torch.exp(x) * 0.5
    assert value == pytest.approx((x.double() ** 2).sum().item(), rel=1e-4)
    assert_close(t, torch.exp(x.double()) * 0.5, torch.float32)
    assert gpuos.stats()["graphs_run"] == 2


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_backend_decode_block(dtype):
    def block(x, h, g, w1, w2):
        r = x + h
        n = F.rms_norm(r, (r.shape[-1],), g, 1e-6)
        return r + F.linear(F.silu(F.linear(n, w1)), w2)
    x, h, g = cuda(1, 256, dtype=dtype), cuda(1, 256, dtype=dtype), cuda(256, dtype=dtype)
    w1, w2 = cuda(512, 256, dtype=dtype) * 0.05, cuda(256, 512, dtype=dtype) * 0.05
    out = torch.compile(block, backend="gpuos", options={"priority": "urgent"})(x, h, g, w1, w2)
    ref = block(*(t.double() for t in (x, h, g, w1, w2)))
    assert_close(out, ref, dtype)
    assert gpuos.stats()["graphs_run"] >= 1


def test_backend_attention_softmax_causal():
    def attn(q, k, v, mask):
        s = (q @ k.transpose(-1, -2)) * 0.125
        return torch.softmax(s.masked_fill(~mask, float("-inf")), -1) @ v
    q, k, v = cuda(8, 32, 64), cuda(8, 32, 64), cuda(8, 32, 64)
    mask = torch.ones(32, 32, dtype=torch.bool, device="cuda").tril()
    out = torch.compile(attn, backend="gpuos")(q, k, v, mask)
    assert_close(out, attn(q.double(), k.double(), v.double(), mask), torch.float32)


def test_same_graph_reuses_its_image():
    def f(x):
        return torch.tanh(x) * 2 + 1
    g = torch.compile(f, backend="gpuos")
    for _ in range(5):
        x = cuda(4096)
        assert_close(g(x), torch.tanh(x.double()) * 2 + 1, torch.float32)
    s = gpuos.stats()
    assert s["variants"] == 1 and s["graphs_run"] == 5


def test_outputs_that_view_other_outputs_share_their_storage():
    # The generated runner makes y.t() and y[1] from y's tensor, as eager
    # returns them; values against float64.
    def f(x):
        y = torch.sigmoid(x) * 3
        return y, y.t(), y[1], torch.exp(x)
    x = cuda(4, 8)
    g = torch.compile(f, backend="gpuos", dynamic=False)
    for _ in range(2):  # the first call compiles, the second runs the runner
        y, yt, row, z = g(x)
        ref = f(x.double())
        for o, r in zip((y, yt, row, z), ref):
            assert o.stride() == r.stride()
            torch.testing.assert_close(o.double(), r, rtol=1e-5, atol=1e-6)
        assert yt.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
        assert row.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
        y.mul_(0)
        assert not yt.any() and not row.any()


@pytest.mark.parametrize("case", sorted(VIEW_BASE_CASES))
def test_views_of_inputs_and_intermediates_share_storage(case):
    # The runner makes views of a subgraph input (cumsum's result, from
    # PyTorch), of an intermediate two outputs view (an extra graph output)
    # and of an input, as eager returns them.
    f = VIEW_BASE_CASES[case]
    g = torch.compile(f, backend="gpuos", dynamic=False)
    for _ in range(2):  # the first call compiles, the second runs the runner
        x = cuda(3, 4)
        out, ref = g(x), f(x.double())
        for o, r in zip(out, ref):
            assert o.stride() == r.stride()
            torch.testing.assert_close(o.double(), r, rtol=1e-5, atol=1e-6)
        # Outputs of one dtype may come from one flat allocation, so compare
        # aliasing by writes: which outputs see a write through each one.
        assert _seen_writes(out) == _seen_writes(f(x))


def _seen_writes(outs):
    seen = []
    for i, o in enumerate(outs):
        before = [p.clone() for p in outs]
        o.fill_(-7.0)
        seen.append([j for j, p in enumerate(outs) if j != i and not torch.equal(p, before[j])])
        for p, b in zip(outs, before):
            p.copy_(b)
    return seen


def test_inputs_written_by_pytorch_just_before_are_seen():
    # The launch waits for the PyTorch stream that wrote the inputs (that
    # stream only), on the default stream and on a side stream.
    def f(x, w):
        return torch.tanh(x * w) + x
    g = torch.compile(f, backend="gpuos", dynamic=False)
    base, w, m = cuda(256, 1024), cuda(1024), cuda(1024, 1024) / 32
    for stream in (torch.cuda.current_stream(), torch.cuda.Stream()):
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for i in range(20):
                x = (base @ m) * (i + 1)  # PyTorch kernels, still running when g starts
                assert_close(g(x, w), f(x.double(), w.double()), torch.float32)
    s = gpuos.stats()
    assert s["graphs_run"] == 40


@pytest.fixture
def stream_ordered(monkeypatch):
    # GPUOS_STREAM_ORDERED=1 for launchers made from here on.
    from gpuos import _executor
    monkeypatch.setattr(_executor, "STREAM_ORDERED", True)
    for dev in _executor._devices.values():
        monkeypatch.setattr(dev, "launchers", {})


@pytest.mark.parametrize("side_stream", [False, True])
def test_stream_ordered_calls_interleave_with_pytorch_ops(side_stream, stream_ordered):
    # Each PyTorch matmul reads the previous gpuos output and each gpuos call
    # the matmul's output: a call waits for the stream's earlier work and
    # returns without waiting for its run, whose outputs the stream's later
    # work waits for on the device (GPUOS_STREAM_ORDERED=1).
    g = gpuos.jit(lambda x, w: torch.tanh(x * w) + x)
    y, w, m = cuda(256, 1024), cuda(1024), cuda(1024, 1024) / 64
    stream = torch.cuda.Stream() if side_stream else torch.cuda.current_stream()
    stream.wait_stream(torch.cuda.current_stream())
    xs, ys = [], []
    with torch.cuda.stream(stream):
        for i in range(50):
            x = torch.tanh(y @ m)
            y = g(x, w)
            xs.append(x)
            ys.append(y)
    from gpuos import _executor
    runtime = _executor.device_for(0).runtime
    assert runtime.counters()["pending_runs"] >= 1  # the stream-ordered path ran
    gpuos.synchronize()
    assert runtime.counters()["pending_runs"] == 0
    stream.synchronize()
    for x, y in zip(xs, ys):
        assert_close(y, torch.tanh(x.double() * w.double()) + x.double(), torch.float32)


@pytest.mark.parametrize("ordered", [False, True])
def test_a_call_inside_cuda_graph_capture_is_refused(ordered, monkeypatch):
    # A call runs on the resident kernel when it is made, so it cannot be
    # recorded into a CUDA graph: inside torch.cuda.graph it raises, saying
    # so (with either launch mode), and runs correctly after the capture.
    if ordered:
        from gpuos import _executor
        monkeypatch.setattr(_executor, "STREAM_ORDERED", True)
        for dev in _executor._devices.values():
            monkeypatch.setattr(dev, "launchers", {})
    g = gpuos.jit(lambda x: torch.sigmoid(x) * x)
    x = cuda(4096)
    g(x)  # compiled and bound before the capture
    graph = torch.cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match="capturing a CUDA graph"):
        with torch.cuda.graph(graph):
            g(x)
    gpuos.synchronize()
    torch.cuda.synchronize()
    assert_close(g(x), torch.sigmoid(x.double()) * x.double(), torch.float32)


def test_rotating_buffers_reuse_bound_graphs_and_survive_image_reloads():
    def f(x):
        return torch.sigmoid(x) * 3
    def h(x):
        return torch.exp(x) - 1
    g, k = torch.compile(f, backend="gpuos"), torch.compile(h, backend="gpuos")
    xs = [cuda(4096) for _ in range(4)]
    for _ in range(3):
        for x in xs:
            assert_close(g(x), torch.sigmoid(x.double()) * 3, torch.float32)
    # A second graph installs a union image; g's bound graphs still run.
    assert_close(k(xs[0]), torch.exp(xs[0].double()) - 1, torch.float32)
    for x in xs:
        assert_close(g(x), torch.sigmoid(x.double()) * 3, torch.float32)
    s = gpuos.stats()
    assert s["graphs_run"] == 17 and s["bound_graph_hits"] >= 8


# --- gpuos.jit and the importer's fused norms on the device ---------------------------

def _rms(x, w, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def test_jit_rmsnorm_chain_replays_on_the_runtime():
    def chain(x, d, w):
        h = x
        for i in range(d.shape[0]):
            h = _rms(h + d[i:i + 1], w[i])
        return h
    g = gpuos.jit(chain, priority="urgent")
    for _ in range(4):
        x, d, w = cuda(1, 4096), cuda(32, 4096), torch.rand(32, 4096, device="cuda") + 0.5
        assert_close(g(x, d, w), chain(x.double(), d.double(), w.double()), torch.float32)
    s = gpuos.stats()
    assert s["jit_records"] == 1 and s["graphs_run"] == 4


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_jit_layernorm_chain_and_closure_weights(dtype):
    w = torch.rand(4, 512, device="cuda").to(dtype) + 0.5

    def f(x, d, b):
        h = x
        for i in range(d.shape[0]):
            h = F.layer_norm(h + d[i], (512,), w[i], b[i], eps=1e-5)
        return h, torch.softmax(h, -1)
    g = gpuos.jit(f)
    for step in range(3):
        x, d, b = cuda(8, 512, dtype=dtype), cuda(4, 8, 512, dtype=dtype), cuda(4, 512, dtype=dtype)
        out = g(x, d, b)
        wd = w.double()
        h = x.double()
        for i in range(4):
            h = F.layer_norm(h + d[i].double(), (512,), wd[i], b[i].double(), eps=1e-5)
        assert_close(out[0], h, dtype)
        assert_close(out[1], torch.softmax(h, -1), dtype)
        w.mul_(1.01)  # by reference: the next call reads the new values
    assert gpuos.stats()["jit_records"] == 1


def test_jit_waits_for_the_stream_and_falls_back_visibly(caplog):
    g = gpuos.jit(lambda x, w: torch.tanh(x * w) + x)
    base, w, m = cuda(256, 1024), cuda(1024), cuda(1024, 1024) / 32
    for i in range(10):
        x = (base @ m) * (i + 1)  # still running when g starts
        assert_close(g(x, w), torch.tanh(x.double() * w.double()) + x.double(), torch.float32)
    bad = gpuos.jit(lambda x: torch.cumsum(x, 0) * 2)
    x = cuda(64)
    assert_close(bad(x), torch.cumsum(x.double(), 0) * 2, torch.float32)
    s = gpuos.stats()
    assert s["graphs_run"] == 10 and s["jit_fallbacks"] == 1


def test_backend_imports_norm_chains_as_fused_ops():
    def chain(x, d, w, b):
        h = x
        for i in range(d.shape[0]):
            h = _rms(h + d[i], w[i])
            h = F.layer_norm(h, (h.shape[-1],), w[i], b[i])
        return h
    x, d = cuda(8, 1024), cuda(6, 8, 1024)
    w, b = torch.rand(6, 1024, device="cuda") + 0.5, cuda(6, 1024) * 0.1
    out = torch.compile(chain, backend="gpuos", dynamic=False)(x, d, w, b)
    assert_close(out, chain(x.double(), d.double(), w.double(), b.double()), torch.float32)
    s = gpuos.stats()
    assert s["variants"] == 1 and s.get("splits", 0) == 0


def test_casts_to_bf16_round_once_on_the_device():
    # test_capture.py's test_casts_to_bf16_round_once through the generated
    # code (cvt.rn.bf16.f64 and cvt.rn.bf16.s64), not the interpreter.
    d = torch.tensor(BF16_PAST_MIDPOINT[0], dtype=torch.float64, device="cuda")
    i = torch.tensor(BF16_PAST_MIDPOINT[1], dtype=torch.int64, device="cuda")
    f = gpuos.jit(lambda d, i: ((d * 1).to(torch.bfloat16), (i * 1).to(torch.bfloat16)))
    bd, bi = f(d, i)
    assert bd.tolist() == BF16_ROUNDED_ONCE[0]
    assert bi.tolist() == BF16_ROUNDED_ONCE[1]
    assert gpuos.stats()["graphs_run"] == 1


def test_views_off_16_bytes_run_on_the_scalar_path():
    # Inputs that start 4 bytes past a 16-byte boundary (a slice of a
    # larger tensor) are bound as they are: every generated function checks
    # its vector buffers' alignment and runs its scalar copy otherwise
    # (docs/codegen.md, "Alignment"), through each strategy: elementwise,
    # rows (softmax), and the small-M matmul (matvec).
    def odd(*shape):
        return cuda(math.prod(shape) + 1)[1:].reshape(*shape)
    x, s, h, w = odd(16, 256), cuda(256), odd(1, 1024), odd(1024, 256).mul_(0.05)
    assert all(t.data_ptr() % 16 == 4 for t in (x, h, w))
    f = gpuos.jit(lambda x, s, h, w: (torch.tanh(x * s) + x, torch.softmax(x, -1), h @ w))
    out = f(x, s, h, w)
    ref = f.__wrapped__(x.double(), s.double(), h.double(), w.double())
    for o, r in zip(out, ref):
        assert_close(o, r, torch.float32)
    assert gpuos.stats()["graphs_run"] == 1


def test_empty_inputs_run_in_pytorch():
    # test_runtime_path.py's test of the same on the device: an empty
    # tensor's data pointer is null, which the runtime does not bind.
    def f(x, c, k):
        return x.sum(-1) + 1, torch.cat([c, k], 1) * 2
    x, c, k = cuda(8, 0), cuda(4, 0, 16), cuda(4, 1, 16)
    expected = f(x.double(), c.double(), k.double())
    for out in (gpuos.jit(f)(x, c, k), torch.compile(f, backend="gpuos")(x, c, k)):
        for o, r in zip(out, expected):
            assert_close(o, r, torch.float32)
