"""Stand-ins for gpuos._C without a GPU, so the runtime path (the code a
CUDA tensor takes) runs on CPU tensors.

install(compute=True): each launch evaluates its graph with the reference
interpreter and writes the outputs, after checking what the runtime would
(the image holds the graph, buffer names and byte extents, the tensors'
layouts, their addresses' alignment). install(compute=False): every native call does nothing (timing
the host path: bench_overhead.py). Both swap gpuos._C and point the
runtime path at CPU tensors; pass a pytest monkeypatch to undo it after a
test.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path


class _Runtime:
    compute = True

    def __init__(self, ordinal=0, idle_park_us=-1):
        self.loaded = set()  # graph names in the installed image
        self.align = {}      # (graph, buffer name) -> bytes its address needs
        self.runs = 0
        self.graph_count = 0

    def load_image_files(self, cubin, manifest):
        if self.compute:
            tasks = json.loads(Path(manifest).read_text())["tasks"]
            self.loaded = {t["graph"] for t in tasks}
            # The runtime's rule (GraphLayout.cpp): a task's buffer needs its
            # element size and its `vector_align`, if the manifest has one.
            self.align = {}
            for t in tasks:
                for b in t["buffers"]:
                    key = (t["graph"], b["name"])
                    need = max(b["elem_bytes"], b.get("vector_align", 0))
                    self.align[key] = max(self.align.get(key, 1), need)

    def launcher(self, graph, names, nbytes, priority, stream_ordered=False):
        if not self.compute:
            return _NullLauncher(self)
        return _InterpreterLauncher(self, graph, list(names), list(nbytes), priority)

    def counters(self):
        return {"graphs_run": self.runs}

    def graph_from_manifest(self, name, bindings):
        self.graph_count += 1
        return self.graph_count

    def graph_destroy(self, graph):
        pass

    def submit(self, graph, priority):
        return 1

    def wait(self, submission, timeout_us=-1):
        pass

    def run(self, graph, priority):
        self.runs += 1

    def park(self):
        pass

    def synchronize(self):  # launches run at once: nothing is pending
        pass

    def stats(self):
        return {}

    def close(self):
        pass


class _NullLauncher:
    def __init__(self, runtime):
        self.runtime = runtime

    def __call__(self, tensors, stream):
        for t in tensors:  # the extension reads each tensor's pointer
            t.data_ptr()
        self.runtime.runs += 1


class _InterpreterLauncher:
    def __init__(self, runtime, graph, names, nbytes, priority):
        from gpuos import _compiler
        from gpuos._executor import extent_bytes
        self.runtime = runtime
        found = [g for g in _compiler._memory.values() if g.name == graph]
        assert found, f"launcher for graph {graph} that was never compiled"
        self.graph = found[0]
        buffers = list(self.graph.inputs) + list(self.graph.outputs)
        assert names == [n for n, _ in buffers], (names, buffers)
        assert nbytes == [extent_bytes(t) for _, t in buffers]
        assert priority in (0, 1, 2)

    def __call__(self, tensors, stream):
        import torch
        from gpuos._aten import meta_type
        from gpuos._executor import run_interpreter
        assert isinstance(stream, int)
        if self.graph.name not in self.runtime.loaded:
            # As the runtime rejects a graph whose kinds the image lacks.
            raise RuntimeError(f"graph {self.graph.name} cannot run on the current image")
        n = len(self.graph.inputs)
        assert len(tensors) == n + len(self.graph.outputs)
        ins, outs = tensors[:n], tensors[n:]
        for (name, type_), t in zip(self.graph.inputs, ins):
            assert isinstance(t, torch.Tensor) and meta_type(t) == type_, (name, type_, t.shape)
        for (name, type_), t in zip(self.graph.outputs, outs):
            assert t.is_contiguous() and meta_type(t) == type_, (name, type_, t.shape)
        for (name, _), t in zip(list(self.graph.inputs) + list(self.graph.outputs), tensors):
            if t.data_ptr() == 0:  # an empty tensor's, as PyTorch allocates it
                raise RuntimeError(f"gpuos_graph_from_manifest({self.graph.name}): buffer "
                                   f"'{name}' is null")
            need = self.runtime.align.get((self.graph.name, name), 1)
            if t.data_ptr() % need:
                raise RuntimeError(f"gpuos_graph_from_manifest({self.graph.name}): buffer "
                                   f"'{name}' at {t.data_ptr():#x} is not {need}-byte aligned")
        for o, v in zip(outs, run_interpreter(self.graph, ins)):
            o.copy_(v)
        self.runtime.runs += 1


def install(monkeypatch=None, compute: bool = True):
    """Swaps gpuos._C for a stand-in; the runtime path takes CPU tensors."""
    import gpuos
    from gpuos import _executor
    runtime = type("Runtime", (_Runtime,), {"compute": compute})
    stub = types.ModuleType("gpuos._C")
    try:  # the runtime's own limit (no GPU needed)
        from gpuos import _C as real
        stub.max_graph_tiles = real.max_graph_tiles
    except ImportError:  # a source tree without the extension (bench_overhead.py)
        stub.max_graph_tiles = lambda: 1 << 15
    stub.Runtime = runtime
    stub.RuntimeError_ = RuntimeError
    stub.has_gpu = lambda: False
    patches = [(sys.modules, "gpuos._C", stub), (gpuos, "_C", stub),
               (_executor, "RUNTIME_DEVICE_TYPE", "cpu"),
               (_executor, "current_raw_stream", lambda index: 0),
               (_executor, "_devices", {})]
    for target, name, value in patches:
        if monkeypatch is None:
            if isinstance(target, dict):
                target[name] = value
            else:
                setattr(target, name, value)
        elif isinstance(target, dict):
            monkeypatch.setitem(target, name, value)
        else:
            monkeypatch.setattr(target, name, value, raising=False)
    # The extension's counters (graphs_run, ...) now come from the stub's
    # devices: count from here (a GPU test earlier in the process left the
    # baseline at the real runtime's counts).
    gpuos.reset_stats()
    return stub
