"""Host-side cost per call of torch.compile(backend="gpuos"), without a GPU.

Not a test (pytest does not collect it): a microbenchmark of the Python call
path with the native runtime replaced by a stub, so the time that is left is
the host's own: Dynamo's guards and frame, aot_autograd's runtime wrapper,
and gpuos's compiled callable (layout check, output allocation, binding,
submit, wait). The graph is compiled for real (gpuos-opt, gpuos-jit); only
the runtime's calls (load, bind, submit, wait, the stream synchronize) do
nothing. CPU tensors stand in for CUDA ones.

    cd python/tests
    GPUOS_BIN_DIR=../../build/bin python bench_overhead.py [--calls 20000]
        [--workloads ew_chain,rmsnorm_chain] [--profile]

Prints, per workload, the time per call (ns; the fastest batch of 500
calls, as other load on the machine only adds) of each layer:

    full      fn(*args): Dynamo + aot_autograd + gpuos
    backend   what the gpuos backend returned to Dynamo (aot + gpuos)
    gpuos     what gpuos gave aot_autograd (the forward), called boxed
    jit       gpuos.jit(fn)(*args): the Dynamo-free entry point (guard,
              outputs, one launch)
    stub      one call of the stubbed native launch alone (subtract it)

Differences between rows are the outer layers' share. With --device cuda
(a GPU, the real runtime) every call is followed by a synchronize of the
current stream, as bench/suite times sync latency, and the last columns are
`launch` (the native one-call launch of the same graph alone: the floor the
Python layers add to) and `eager` (the function in PyTorch). --profile adds a
cProfile listing of the full call (its own overhead inflates small
functions). Runs against whichever gpuos package is imported first (set
PYTHONPATH to compare another copy: the stub needs no extension).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import inspect
import io
import os
import pstats
import sys
import tempfile
import time

import torch
import torch.nn.functional as F


# --- the stubbed native layer --------------------------------------------------------

def install_stub():
    """gpuos._C with every native call a no-op (stub_runtime.py); CPU
    tensors take the runtime path."""
    import stub_runtime
    from gpuos import _executor, _backend
    legacy = not hasattr(_executor, "RUNTIME_DEVICE_TYPE")
    stub = stub_runtime.install(compute=False)
    if legacy:  # the front-end before the one-call launch: patch by hand
        import inspect
        init = _backend._Support.__init__
        _backend._Support.__init__ = lambda self, device_type: init(self, "cpu")
        src = inspect.getsource(_executor.run_gpu).replace('!= "cuda"', '!= "cpu"')
        exec(compile(src, _executor.__file__, "exec"), _executor.__dict__)
        _backend.run_gpu = _executor.run_gpu

        class _Stream:
            def synchronize(self):
                pass
        torch.cuda.current_stream = lambda device=None: _Stream()
    return stub


# --- workloads (bench/suite/workloads.py) ------------------------------------------

from suite_workloads import ew_chain, rmsnorm_chain  # noqa: E402


def small_mlp(x, w1, b1, w2):
    # Two subgraphs around an op gpuos leaves to PyTorch (cumsum).
    h = F.gelu(x @ w1 + b1)
    return (torch.cumsum(h, 1) @ w2,)


WORKLOADS = {
    "ew_chain": (ew_chain, lambda: (torch.randn(32, 1024), torch.randn(1024), torch.randn(1024))),
    "rmsnorm_chain": (rmsnorm_chain, lambda: (torch.randn(1, 4096), torch.randn(32, 4096),
                                              torch.rand(32, 4096) + 0.5)),
    "small_mlp": (small_mlp, lambda: (torch.randn(4, 64), torch.randn(64, 64), torch.randn(64),
                                      torch.randn(64, 16))),
}


# --- timing ---------------------------------------------------------------------

def per_call_ns(call, calls, batch=500):
    for _ in range(200):
        call()
    gc.disable()
    try:
        samples = []
        for _ in range(max(1, calls // batch)):
            t0 = time.perf_counter_ns()
            for _ in range(batch):
                call()
            samples.append((time.perf_counter_ns() - t0) / batch)
    finally:
        gc.enable()
    # Other work on the machine only adds time: the fastest batch is the
    # closest to the path's own cost.
    return min(samples)


def layers(fn, args, options):
    """The compiled function and the two inner callables it runs."""
    from gpuos._backend import gpuos_backend
    import torch._dynamo.backends.common as common
    seen = {}
    params = list(inspect.signature(fn).parameters)
    real_aot = common.aot_autograd

    def aot_autograd(**kwargs):
        fw = kwargs["fw_compiler"]

        def fw_compiler(gm, inputs):
            seen["gpuos"] = fw(gm, inputs)
            return seen["gpuos"]
        kwargs["fw_compiler"] = fw_compiler
        return real_aot(**kwargs)

    def backend(gm, example_inputs, **kwargs):
        # Dynamo's graph takes the arguments in its own order (first use).
        names = [p.meta["grapharg"].source.name for p in gm.graph.nodes if p.op == "placeholder"]
        seen["order"] = [params.index(n[len("L['"):-2]) for n in names]
        common.aot_autograd = aot_autograd
        try:
            seen["backend"] = gpuos_backend(gm, example_inputs, **kwargs)
        finally:
            common.aot_autograd = real_aot
        seen.setdefault("gpuos", seen["backend"])
        return seen["backend"]
    compiled = torch.compile(fn, backend=backend, dynamic=False, options=options)
    compiled(*args)
    return compiled, seen["backend"], seen["gpuos"], [args[i] for i in seen["order"]]


def native_launch(before):
    """The one native call of the graph compiled since `before` (a set of
    launcher keys), with fresh tensors of its types: the C++ part alone."""
    from gpuos import _compiler, _executor
    from gpuos._aten import torch_dtype
    dev = _executor.device_for(0)
    new = [k for k in dev.launchers if k not in before]
    if len(new) != 1:
        return None
    launcher = dev.launchers[new[0]]
    launcher = getattr(launcher, "native", launcher)  # without the resident check
    graph = next(g for g in _compiler._memory.values() if g.name == launcher.graph)
    tensors = tuple(torch.randn(t.shape, device="cuda").to(torch_dtype(t.dtype))
                    for _, t in list(graph.inputs) + list(graph.outputs))
    return lambda: launcher(tensors, _executor.current_raw_stream(0))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    ap.add_argument("--device", choices=["stub", "cuda"], default="stub",
                    help="cuda: the real runtime on a GPU, each call followed by a "
                         "synchronize of the current stream")
    a = ap.parse_args(argv)
    os.environ.setdefault("GPUOS_CACHE_DIR", tempfile.mkdtemp(prefix="gpuos-bench-"))
    torch.set_num_threads(a.threads)
    real = a.device == "cuda"
    stub = None if real else install_stub()
    import gpuos
    from gpuos import _stats, _executor
    print(f"gpuos from {os.path.dirname(gpuos.__file__)}; torch {torch.__version__}; "
          f"{a.device}; {a.calls} calls per row; ns per call (fastest batch of 500)")
    options = {"priority": "urgent"}
    sync = torch.cuda.current_stream().synchronize if real else (lambda: None)

    def timed(call):
        def one():
            call()
            sync()
        return per_call_ns(one if real else call, a.calls)
    for name in a.workloads.split(","):
        fn, make = WORKLOADS[name]
        args = make()
        if real:
            args = tuple(t.cuda() for t in args)
        torch._dynamo.reset()
        gpuos.reset_stats()
        # The earlier front-end has no launchers: no `launch` column then.
        has_launchers = real and hasattr(_executor.device_for(0), "launchers")
        before = set(_executor.device_for(0).launchers) if has_launchers else set()
        compiled, backend_fn, gpuos_fn, graph_args = layers(fn, args, options)
        outs = compiled(*args)
        assert all(isinstance(o, torch.Tensor) for o in outs)
        full = timed(lambda: compiled(*args))
        # Dynamo's frame calls it with the arguments spread.
        via_backend = timed(lambda: backend_fn(*graph_args))
        # aot_autograd calls its forward boxed (a list it may clear).
        fw_args = graph_args
        if getattr(gpuos_fn, "_boxed_call", False):
            via_gpuos = timed(lambda: gpuos_fn(list(fw_args)))
        else:
            via_gpuos = timed(lambda: gpuos_fn(*fw_args))
        # The launch alone: the graph torch.compile made (gpuos.jit's may be
        # another one, its inputs in the function's order).
        launch = native_launch(before) if real and has_launchers else None
        jitted = gpuos.jit(fn, priority="urgent")
        assert all(isinstance(o, torch.Tensor) for o in jitted(*args))
        via_jit = timed(lambda: jitted(*args))
        if real:
            native = timed(launch) if launch else float("nan")
            eager = timed(lambda: fn(*args))
            last = f"launch {native:7.0f}  eager {eager:8.0f}"
        else:
            launcher = stub.Runtime().launcher("g", ["a"] * 4, [0] * 4, 0)
            tensors = tuple(args) + (outs[0],)
            last = f"stub {timed(lambda: launcher(tensors, 0)):5.0f}"
        s = _stats.snapshot()
        print(f"{name:14s} full {full:8.0f}  backend {via_backend:8.0f}  gpuos {via_gpuos:8.0f}  "
              f"jit {via_jit:7.0f}  "
              f"{last}   (dynamo {full - via_backend:6.0f}, aot {via_backend - via_gpuos:6.0f})"
              f"  graphs_run {s.get('graphs_run', 0)}")
        if a.profile:
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(a.calls // 4):
                compiled(*args)
            prof.disable()
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(22)
            print("\n".join(line for line in out.getvalue().splitlines()[6:] if line.strip()))
        if real:
            gpuos.park()


if __name__ == "__main__":
    main()
