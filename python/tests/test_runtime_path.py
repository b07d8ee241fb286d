"""The runtime path of torch.compile(backend="gpuos") on the CPU: gpuos._C is
replaced by a stand-in whose launches evaluate the graph with the reference
interpreter (stub_runtime.py), so the code CUDA tensors take (the generated
per-variant runner, the one-call launch, the calling convention Dynamo
sees) runs here with values checked against float64 PyTorch."""

import math

import pytest
import torch
import torch.nn.functional as F

import gpuos
import stub_runtime
from gpuos import _backend
from conftest import assert_close


@pytest.fixture(autouse=True)
def runtime(monkeypatch):
    return stub_runtime.install(monkeypatch)


def compiled(fn, **kwargs):
    """torch.compile with the gpuos backend; .returned holds what the
    backend gave Dynamo."""
    returned = []

    def backend(gm, example_inputs, **kw):
        returned.append(_backend.gpuos_backend(gm, example_inputs, **kw))
        return returned[-1]
    options = kwargs.pop("options", {})
    out = torch.compile(fn, backend=backend, options=options, **kwargs)
    out.returned = returned
    return out


def ref(fn, *args):
    return fn(*[a.double() if a.is_floating_point() else a for a in args])


def check(out, expected):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    refs = expected if isinstance(expected, (tuple, list)) else (expected,)
    assert len(outs) == len(refs)
    for o, r in zip(outs, refs):
        assert_close(o, r, torch.float32)


def test_one_subgraph_is_what_dynamo_calls():
    def f(x, scale, bias):
        return torch.sigmoid(torch.tanh(x * scale + bias) - x) * x
    g = compiled(f, dynamic=False)
    for _ in range(3):
        args = (torch.randn(8, 32), torch.randn(32), torch.randn(32))
        check(g(*args), ref(f, *args))
    # aot_autograd's wrapper had nothing to do: Dynamo calls gpuos directly,
    # and the runner trusts Dynamo's guards for the layout.
    sub = getattr(g.returned[-1], "gpuos_subgraph", None)
    assert sub is not None and sub.guarded
    s = gpuos.stats()
    assert s["graphs_run"] == 3 and s["variants"] == 1


def test_inputs_in_another_order_and_several_outputs():
    def f(x, d, w):
        h = x
        for i in range(d.shape[0]):  # d is used first: the subgraph reorders
            h = h + d[i:i + 1]
            h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6) * w[i]
        return h, h.sum(-1), torch.exp(x)
    g = compiled(f, dynamic=False)
    for _ in range(2):
        args = (torch.randn(1, 64), torch.randn(4, 64), torch.rand(4, 64) + 0.5)
        check(g(*args), ref(f, *args))
    assert getattr(g.returned[-1], "gpuos_subgraph", None) is not None


def test_split_graph_runs_subgraphs_and_pytorch_in_order():
    def f(x, w1, b1, w2):
        h = F.gelu(x @ w1 + b1)
        return torch.cumsum(h, 1) @ w2, torch.tanh(h)
    g = compiled(f, dynamic=False)
    for _ in range(2):
        args = (torch.randn(4, 16), torch.randn(16, 16), torch.randn(16), torch.randn(16, 8))
        check(g(*args), ref(f, *args))
    s = gpuos.stats()
    assert s["fallback_ops"] == 1 and s["graphs_run"] == 4


def test_new_layouts_under_dynamic_shapes_are_checked_per_call():
    def f(x):
        return torch.exp(x) * 2 + 1
    g = compiled(f, dynamic=True)
    for n in (8, 16, 8, 16):
        x = torch.randn(n, 4)
        check(g(x), ref(f, x))
    s = gpuos.stats()
    assert s["variants"] == 2 and s["graphs_run"] == 4


def test_a_changed_layout_reaches_a_new_variant():
    # The subgraph's input is an intermediate PyTorch produced (after the
    # cumsum): no Dynamo guard covers it, the runner checks it.
    def f(x):
        return torch.tanh(torch.cumsum(x, 0)) + 1
    g = compiled(f, dynamic=False)
    x = torch.randn(4, 8)
    check(g(x), ref(f, x))
    sub = next(o for o in _iter_subgraphs(g.returned[-1]))
    assert not sub.guarded
    # Change the layout behind the compiled code's back: the check catches it.
    view = torch.randn(8, 4).t()
    out = sub(view)
    assert_close(out, torch.tanh(view.double()) + 1, torch.float32)
    assert gpuos.stats()["variants"] == 2


def _iter_subgraphs(forward):
    gm = getattr(forward, "__self__", None)
    for node in gm.graph.nodes:
        if node.op == "call_function" and hasattr(node.target, "__closure__") and node.target.__closure__:
            for cell in node.target.__closure__:
                if isinstance(cell.cell_contents, _backend._Subgraph):
                    yield cell.cell_contents


def test_input_mutation_keeps_aot_autograds_epilogue():
    def f(x, y):
        x.mul_(2)
        return torch.tanh(x) + y
    g = compiled(f, dynamic=False)
    x, y = torch.randn(16), torch.randn(16)
    expected_x = x * 2
    out = g(x, y)
    torch.testing.assert_close(x, expected_x)
    assert_close(out, torch.tanh(expected_x.double()) + y.double(), torch.float32)
    assert getattr(g.returned[-1], "gpuos_subgraph", None) is None


def test_an_output_aliasing_an_input_keeps_aot_autograds_epilogue():
    def f(x):
        return torch.exp(x), x.view(-1)
    g = compiled(f, dynamic=False)
    x = torch.randn(4, 4)
    e, v = g(x)
    assert_close(e, torch.exp(x.double()), torch.float32)
    assert v.data_ptr() == x.data_ptr() and v.shape == (16,)


def test_lifted_constant_and_factory():
    def f(x):
        return torch.exp(x) + torch.tensor([1.0, 2.0, 3.0, 4.0]) + torch.ones(3, 4)
    g = compiled(f, dynamic=False)
    for _ in range(2):
        x = torch.randn(3, 4)
        check(g(x), ref(f, x))


def test_inference_under_no_grad_with_parameters_that_require_grad():
    lin = torch.nn.Linear(16, 8)

    def f(x):
        return torch.relu(lin(x))
    g = compiled(f, dynamic=False)
    x = torch.randn(4, 16)
    with torch.no_grad():
        out = g(x)
        expected = torch.relu(lin(x))
    assert not out.requires_grad
    torch.testing.assert_close(out, expected, atol=1e-4, rtol=1e-4)
    s = gpuos.stats()
    assert s.get("autograd_fallbacks", 0) == 0 and s["graphs_run"] == 1


def test_requires_grad_still_falls_back():
    def f(x):
        return (torch.sin(x) * 2).sum()
    x = torch.randn(8, requires_grad=True)
    compiled(f)(x).backward()
    torch.testing.assert_close(x.grad, 2 * torch.cos(x.detach()))
    s = gpuos.stats()
    assert s["autograd_fallbacks"] == 1 and s.get("graphs_run", 0) == 0


def test_graphs_run_counts_and_reset():
    g = compiled(lambda x: torch.exp(x) + 1, dynamic=False)
    x = torch.randn(8)
    for _ in range(4):
        g(x)
    assert gpuos.stats()["graphs_run"] == 4
    gpuos.reset_stats()
    assert gpuos.stats().get("graphs_run", 0) == 0
    g(x)
    assert gpuos.stats()["graphs_run"] == 1


def test_capture_takes_the_same_launch():
    x, w = torch.randn(8, 16), torch.randn(16)
    with gpuos.capture():
        y = torch.relu(x * w).sum(-1)
    assert_close(y, torch.relu(x.double() * w.double()).sum(-1), torch.float32)
    assert gpuos.stats()["graphs_run"] == 1


def test_bindings_need_only_element_alignment():
    # The stand-in refuses what the runtime would: an address off a task
    # buffer's element size or its manifest's `vector_align`. Compiled
    # functions take a scalar copy on addresses off 16 bytes (their
    # manifests say `fast_align`), so views at odd element offsets and small
    # outputs run; each strategy: elementwise, rows, small-M matmul.
    # (test_gpu.py's test_views_off_16_bytes_run_on_the_scalar_path runs the
    # same on the device.)
    def odd(*shape):
        return torch.randn(math.prod(shape) + 1)[1:].reshape(*shape)
    x, s, h, w = odd(16, 256), torch.randn(256), odd(1, 1024), odd(1024, 256).mul_(0.05)
    assert all(t.data_ptr() % 16 == 4 for t in (x, h, w))
    f = gpuos.jit(lambda x, s, h, w: (torch.tanh(x * s) + x, torch.softmax(x, -1), h @ w))
    check(f(x, s, h, w), ref(f.__wrapped__, x, s, h, w))
    # Two outputs of 3 f32 each: each its own allocation, each aligned.
    g = gpuos.jit(lambda a, b: (a + b, a * b))
    a, b = odd(3), odd(3)
    check(g(a, b), ref(g.__wrapped__, a, b))
    assert gpuos.stats()["graphs_run"] == 2


def test_empty_inputs_run_in_pytorch():
    # An empty tensor's data pointer is null, which the runtime refuses to
    # bind; a graph that reads one (a sum over a zero-length axis, a KV cache
    # before the first step) runs in PyTorch, through every entry point.
    def f(x, c, k):
        return x.sum(-1) + 1, torch.cat([c, k], 1) * 2
    x, c, k = torch.randn(8, 0), torch.randn(4, 0, 16), torch.randn(4, 1, 16)
    assert x.data_ptr() == 0 and c.data_ptr() == 0
    expected = ref(f, x, c, k)
    check(gpuos.jit(f)(x, c, k), expected)
    with gpuos.capture():
        out = f(x, c, k)
    check(out, expected)
    check(compiled(f, dynamic=False)(x, c, k), expected)


def test_a_graph_of_more_tiles_than_the_runtime_admits_runs_in_pytorch(monkeypatch):
    # The runtime refuses a graph of more tiles than it admits in flight
    # (gpuos._C.max_graph_tiles(): 32768 by default; one op over 2 GiB of
    # f32 would be 65536); the front-end sends it to
    # PyTorch, here with the limit lowered to 16 (x + 1 over 64x1024: 256
    # tiles), through every entry point.
    from gpuos import _trace
    f = lambda x: x + 1
    x = torch.randn(64, 1024)
    check(gpuos.jit(f)(x), ref(f, x))
    assert gpuos.stats()["graphs_run"] == 1 and "jit_fallbacks" not in gpuos.stats()
    monkeypatch.setattr(_trace, "max_graph_tiles", lambda: 16)
    gpuos.clear_memory_cache()
    check(gpuos.jit(f)(x), ref(f, x))
    with gpuos.capture():
        y = f(x)
    check(y, ref(f, x))
    check(compiled(f, dynamic=False)(x), ref(f, x))
    s = gpuos.stats()
    assert s["graphs_run"] == 1
    assert s["jit_fallbacks"] == 1 and s["flush_fallbacks"] == 1 and s["compile_fallbacks"] == 1


def test_an_unreadable_cached_manifest_runs_in_pytorch_and_names_the_file(
        caplog, monkeypatch, tmp_path):
    # A disk cache entry left half written: the graph runs in PyTorch, and
    # the warning names the file (it was json's bare "Expecting value").
    # In a cache of its own: the damaged entry must not meet a later run.
    from gpuos import _compiler
    monkeypatch.setenv("GPUOS_CACHE_DIR", str(tmp_path))
    f = lambda x: torch.tanh(x) * 3
    x = torch.randn(4, 8)
    check(gpuos.jit(f)(x), ref(f, x))
    (graph,) = _compiler._memory.values()
    graph.manifest.write_text('{"tasks": [')
    gpuos.clear_memory_cache()
    with caplog.at_level("WARNING", logger="gpuos"):
        check(gpuos.jit(f)(x), ref(f, x))
    assert gpuos.stats()["jit_fallbacks"] == 1
    assert any(str(graph.manifest) in r.getMessage() for r in caplog.records)


def test_the_union_image_is_bounded_and_an_evicted_graph_comes_back(monkeypatch):
    # At most two graphs in the device's image: a third pushes the oldest
    # out, and calling the evicted one installs an image with it again
    # (the stub asserts that a launched graph is in the loaded image).
    from gpuos import _executor
    monkeypatch.setattr(_executor, "UNION_GRAPHS", 2)
    fns = [gpuos.jit(lambda x, k=k: torch.tanh(x * (k + 2)) - k) for k in range(3)]
    x = torch.randn(4, 8)
    for k, f in enumerate(fns):
        check(f(x), ref(lambda v: torch.tanh(v * (k + 2)) - k, x))
    dev = _executor.device_for(0)
    assert len(dev.graphs) == 2
    assert gpuos.stats()["union_evictions"] == 1
    loads = gpuos.stats()["image_loads"]
    check(fns[0](x), ref(lambda v: torch.tanh(v * 2), x))  # evicted: back in
    assert gpuos.stats()["image_loads"] == loads + 1
    assert gpuos.stats()["union_evictions"] == 2
    check(fns[0](x), ref(lambda v: torch.tanh(v * 2), x))  # resident now
    assert gpuos.stats()["image_loads"] == loads + 1
    assert len(dev.graphs) == 2


def test_a_graph_evicted_during_its_call_is_reinstalled_and_run_once_more(monkeypatch):
    # Another thread installs an image without g between g's residency
    # check and its submission: the runtime rejects the call, and the
    # launcher installs an image with g and makes the call again.
    from gpuos import _executor
    monkeypatch.setattr(_executor, "UNION_GRAPHS", 2)
    fns = [gpuos.jit(lambda x, k=k: torch.tanh(x * (k + 2)) - k) for k in range(3)]
    x = torch.randn(4, 8)
    dev = _executor.device_for(0)
    graphs = []
    for f in fns:
        f(x)
        graphs.append(next(reversed(dev.graphs.values())))
    assert [g.name for g in dev.graphs.values()] == [graphs[1].name, graphs[2].name]
    fns[1](x)  # resident: no reload
    launcher = stub_runtime._InterpreterLauncher
    real = launcher.__call__
    evict = {"pending": True}

    def racing(self, tensors, stream):
        if evict.pop("pending", False) and self.graph.name == graphs[1].name:
            with dev.lock:
                dev.ensure_loaded(graphs[0], "sm_90")  # g (graphs[1]) leaves
        return real(self, tensors, stream)
    monkeypatch.setattr(launcher, "__call__", racing)
    loads = gpuos.stats()["image_loads"]
    check(fns[1](x), ref(lambda v: torch.tanh(v * 3) - 1, x))
    assert not evict  # the race happened
    assert gpuos.stats()["image_loads"] == loads + 2  # graphs[0] in, then g back
    assert graphs[1].name in dev.graphs


def test_a_failed_image_load_leaves_the_members_as_installed(monkeypatch):
    # The member list changes with the installed image only: after a failed
    # load it still says what the runtime runs.
    from gpuos import _executor
    monkeypatch.setattr(_executor, "UNION_GRAPHS", 2)
    f = gpuos.jit(lambda x: torch.tanh(x) + 1)
    g = gpuos.jit(lambda x: torch.exp(x) - 1)
    x = torch.randn(4, 8)
    f(x)
    dev = _executor.device_for(0)
    before = list(dev.graphs)

    def failing(cubin, manifest):
        raise RuntimeError("load failed")
    monkeypatch.setattr(dev.runtime, "load_image_files", failing)
    with pytest.raises(RuntimeError, match="load failed"):
        g(x)
    assert list(dev.graphs) == before


def test_alternating_between_more_graphs_than_the_union_holds_warns(monkeypatch, caplog):
    from gpuos import _executor
    monkeypatch.setattr(_executor, "UNION_GRAPHS", 1)
    monkeypatch.setattr(_executor, "_warned", set())
    f = gpuos.jit(lambda x: torch.tanh(x) + 1)
    g = gpuos.jit(lambda x: torch.exp(x) - 1)
    x = torch.randn(4, 8)
    with caplog.at_level("WARNING", logger="gpuos"):
        for _ in range(3):
            check(f(x), ref(lambda v: torch.tanh(v) + 1, x))
            check(g(x), ref(lambda v: torch.exp(v) - 1, x))
    warnings = [r for r in caplog.records if "GPUOS_UNION_GRAPHS=1" in r.getMessage()]
    assert len(warnings) == 1


def test_errors_name_the_users_line(monkeypatch):
    """The graph remembers which line of the user's program made each op
    (the FX nodes' stack traces). The image's manifest names each task's
    ops at their graph.mlir lines, and an error of the runtime or the
    compiler that names such a line gets the user's line appended, also
    for a union image of several graphs."""
    import inspect
    from gpuos import _compiler

    def f(x, w):
        y = torch.tanh(x * w)  # the line the tanh comes from
        return y + 1.0

    def h(x, w):
        y = torch.exp(x - w)  # the line the exp comes from
        return y * 2.0
    first = inspect.getsourcelines(f)[1]
    tanh_line, exp_line = first + 1, inspect.getsourcelines(h)[1] + 1
    args = (torch.randn(4, 16), torch.randn(16))
    g = compiled(f, dynamic=False)
    check(g(*args), ref(f, *args))

    def op_loc(graph, op):
        """Where the graph's manifest says `op` is: <cache>/<key>/graph.mlir:L:C."""
        for task in graph.manifest_json()["tasks"]:
            for o in task["ops"]:
                if o["name"] == op:
                    return o["loc"]
        raise AssertionError(f"no {op} in the manifest of {graph.name}")

    (graph,) = [c for c in _compiler._memory.values() if c.name != "union"]
    loc = op_loc(graph, "gpuos.tanh")
    assert f"/{graph.key}/graph.mlir:" in loc
    line = int(loc.split(":")[-2])
    assert "gpuos.tanh" in graph.source.splitlines()[line - 1]
    assert graph.sources[line] == f"{__file__}:{tanh_line} in f"
    # Every recorded line is an op of the graph, from this file.
    text = graph.source.splitlines()
    assert all(" = gpuos." in text[n - 1] and __file__ in s for n, s in graph.sources.items())

    # A task error as the runtime words it, through the runtime path.
    message = (f"a task of the graph failed: task 0 ('k', gpuos_task_k; ops gpuos.tanh at "
               f"{loc}) of graph 2, tile 0")
    explained = _compiler.explain(message)
    assert explained == message + f"\n  (graph.mlir:{line} is {__file__}:{tanh_line} in f)"
    assert _compiler.explain("no location here") == "no location here"

    def failing(self, tensors, stream):
        raise RuntimeError(message)
    with monkeypatch.context() as m:
        m.setattr(stub_runtime._InterpreterLauncher, "__call__", failing)
        with pytest.raises(RuntimeError) as info:
            g(*args)
    assert str(info.value) == explained

    # A second graph makes the device's image a union of both: its manifest
    # names the union's lines, which map to each member's user line.
    gh = compiled(h, dynamic=False)
    check(gh(*args), ref(h, *args))
    from gpuos import _executor
    union = _compiler._memory[_executor.device_for(0).image_key]  # the image installed
    assert union.name == "union"
    for op, want in (("gpuos.tanh", f"{__file__}:{tanh_line} in f"),
                     ("gpuos.exp", f"{__file__}:{exp_line} in h")):
        loc = op_loc(union, op)
        assert f"/{union.key}/graph.mlir:" in loc
        assert _compiler.explain(f"ops {op} at {loc}").endswith(f" is {want})")
