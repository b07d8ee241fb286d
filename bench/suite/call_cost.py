"""Where a gpuos.jit call's time goes (docs/python.md, "Per-call cost").

    python3 bench/suite/call_cost.py [workload ...]

On the GPU machine, with the gpuos package installed (scripts/setup-python.sh).
For each workload (default: ew_chain rmsnorm_chain softmax_widths
broadcast_views), times in one process, us per call, median of batches:

  call      the whole gpuos.jit call, back to back (pipelined)
  rotated   the same over the suite's rotated input sets (bench.py's
            num_sets: together about 3x the L2), as the suite times it
  call+sync the same, each call followed by a stream synchronize
  native    the extension's launch alone (bind, stream wait, submit and,
            unless stream-ordered, the wait for the run) on outputs
            allocated once
  no-sync   the same without the wait for the PyTorch stream (stream -1;
            with GPUOS_STREAM_ORDERED=1 that is a plain submit and wait)
  runtime   the runtime's own submit and wait of the graph bound to the same
            tensors (Runtime.run: no launcher, no binding cache), as the
            C++ driver's synchronous figure
  alloc     the runner's output allocations alone
  stream    reading the current raw stream
  rest      call - native - alloc - stream: the guard, the runner's Python
            and the result

Runs under whatever GPUOS_STREAM_ORDERED says; the table's first line says
which. Checks each workload's result against float64 PyTorch first.
"""

import itertools
import os
import re
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

from bench import num_sets  # noqa: E402
from common import make_inputs, reference, signature  # noqa: E402
from workloads import BY_NAME  # noqa: E402

DEFAULT = ["ew_chain", "rmsnorm_chain", "softmax_widths", "broadcast_views"]


def per_call(fn, n=200, rounds=15, sync=None):
    """Median over rounds of (time of n calls) / n, in us. Rounds end with
    a wait for the current stream, not the device: torch.cuda.synchronize()
    also waits for the resident kernel to park (GPUOS_IDLE_PARK_US, 1 ms),
    which added 1000 / n = 5 us to every call of the columns that run it."""
    stream = torch.cuda.current_stream()
    for _ in range(20):
        fn()
    stream.synchronize()
    out = []
    for _ in range(rounds):
        stream.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
            if sync:
                sync()
        stream.synchronize()
        out.append((time.perf_counter() - t0) * 1e6 / n)
    return statistics.median(out)


def native_of(call):
    """The extension's launcher behind a gpuos.jit function's one variant,
    and the variant's generated runner."""
    runners = [r for r in call.gpuos_jit.variants.values() if r is not None]
    if len(runners) != 1 or "launch" not in runners[0].__globals__:
        raise SystemExit("call_cost.py: %s did not record one gpuos graph (%d variants on "
                         "the runtime): nothing to split" % (call.__name__, len(runners)))
    return runners[0].__globals__["launch"].native, runners[0]


def operands_of(call, env, inputs):
    """The tensors one call of `call` hands its launcher, in the graph's
    buffer order (which need not be the arguments': attention's graph reads
    its mask before v), its own outputs included."""
    seen = []
    launch = env["launch"]

    def recording(tensors, stream):
        seen.append(tensors)
        launch(tensors, stream)
    env["launch"] = recording
    try:
        call(*inputs)
    finally:
        env["launch"] = launch
    torch.cuda.synchronize()
    return seen[0]


def runtime_run(native, tensors, idx):
    """us per submit-and-wait of the launcher's graph bound to `tensors`,
    straight through the runtime (no launcher)."""
    from gpuos import _executor
    dev = _executor.device_for(idx)
    graph = dev.graphs[native.graph]
    buffers = list(graph.inputs) + list(graph.outputs)
    bindings = {n: (t.data_ptr(), _executor.extent_bytes(ty))
                for (n, ty), t in zip(buffers, tensors)}
    handle = dev.runtime.graph_from_manifest(native.graph, bindings)
    try:
        return per_call(lambda: dev.runtime.run(handle, _executor.PRIORITIES["urgent"]))
    finally:
        dev.runtime.graph_destroy(handle)


def measure(name):
    import gpuos
    w = BY_NAME[name]
    sig = signature(w)
    inputs = make_inputs(w, sig, 0, "cuda")
    sets = [inputs] + [make_inputs(w, sig, k, "cuda") for k in range(1, num_sets(sig))]
    call = gpuos.jit(w.fn, priority="urgent")
    outs = call(*inputs)
    torch.cuda.synchronize()
    refs = reference(w, inputs)
    err = max(float(((o.double() - r).abs().max() / (r.abs().max() + 1e-30)).item())
              for o, r in zip(outs, refs))
    native, runner = native_of(call)
    env = runner.__globals__
    # The runner's output lines: o<j> = ... (singles and unbound groups).
    alloc_lines = [ln.strip() for ln in runner.gpuos_source.splitlines()
                   if re.match(r"\s+o\d+\b.*=", ln)]
    alloc_code = compile("\n".join(alloc_lines) or "pass", "<alloc>", "exec")
    tensors = operands_of(call, env, inputs)
    stream = torch.cuda.current_stream()
    idx = torch.cuda.current_device()
    raw = env["stream"]
    row = {
        "call": per_call(lambda: call(*inputs)),
        "rotated": per_call(lambda it=itertools.cycle(sets): call(*next(it))),
        "call+sync": per_call(lambda: call(*inputs), sync=stream.synchronize),
        "native": per_call(lambda: native(tensors, raw(idx))),
        "no-sync": per_call(lambda: native(tensors, -1)),
        "runtime": runtime_run(native, tensors, idx),
        "alloc": per_call(lambda: exec(alloc_code, env)),
        "stream": per_call(lambda: raw(idx)),
    }
    row["rest"] = row["call"] - row["native"] - row["alloc"] - row["stream"]
    return row, err, len(sig.outputs)


def main():
    names = sys.argv[1:] or DEFAULT
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        print("call_cost.py: no workload %s (there: %s)" % (", ".join(map(repr, unknown)),
                                                           " ".join(BY_NAME)), file=sys.stderr)
        return 2
    cols = ["call", "rotated", "call+sync", "native", "no-sync", "runtime", "alloc", "stream", "rest"]
    mode = os.environ.get("GPUOS_STREAM_ORDERED", "0")
    print("GPUOS_STREAM_ORDERED=%s, %s, torch %s" % (mode, torch.cuda.get_device_name(),
                                                   torch.__version__))
    print("| workload | outputs | " + " | ".join(cols) + " | max rel err |")
    print("| --- | ---: | " + " | ".join("---:" for _ in cols) + " | ---: |")
    failed = 0
    for name in names:
        row, err, nout = measure(name)
        failed += err > 1e-3
        print("| %s | %d | %s | %.1e |" % (name, nout, " | ".join("%.1f" % row[c] for c in cols),
                                           err))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
