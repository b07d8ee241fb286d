"""Runs compiled graphs: on the GPU through the resident runtime, or on the
CPU through the reference interpreter (a testing and debugging mode).

The GPU path keeps one runtime per device and one image per device holding
every graph compiled so far in this process: a new graph recompiles the
union (cached like any graph) and installs it at a safe point, because the
resident kernel can only call task functions linked into its own image
(PLATFORM-FACTS: cross-module calls fault).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Dict, List, Sequence

import torch

from ._aten import gpuos_dtype, torch_dtype
from ._compiler import CompiledGraph, compile_graph, find_tool
from . import _stats


class ExecutionError(RuntimeError):
    """A graph failed to run; the message names the graph and the cause."""


PRIORITIES = {"urgent": 0, "normal": 1, "background": 2}
# Uploaded runtime graphs kept per device (least recently used go first).
MAX_BOUND_GRAPHS = 64


def check_priority(priority: str) -> str:
    if priority not in PRIORITIES:
        raise ValueError(f"priority {priority!r}: use one of {', '.join(PRIORITIES)}")
    return priority


def _check_inputs(graph: CompiledGraph, tensors: Sequence[torch.Tensor]) -> None:
    if len(tensors) != len(graph.inputs):
        raise ExecutionError(f"graph @{graph.name} takes {len(graph.inputs)} inputs, got {len(tensors)}")
    for (name, type_), t in zip(graph.inputs, tensors):
        if tuple(t.shape) != type_.shape or gpuos_dtype(t.dtype) != type_.dtype:
            raise ExecutionError(
                f"graph @{graph.name} input {name}: expected {type_}, got "
                f"{tuple(t.shape)} {t.dtype}")


# --- CPU: the reference interpreter ---------------------------------------------

def run_interpreter(graph: CompiledGraph, tensors: Sequence[torch.Tensor]) -> List[torch.Tensor]:
    """Evaluates the pipelined graph (its tasks) on the CPU."""
    _check_inputs(graph, tensors)
    with tempfile.TemporaryDirectory(prefix="gpuos-interp-") as tmp:
        ins, outs = Path(tmp, "in"), Path(tmp, "out")
        ins.mkdir(), outs.mkdir()
        for (name, type_), t in zip(graph.inputs, tensors):
            wide = torch.float64 if t.dtype.is_floating_point else torch.int64
            t.detach().to("cpu", wide).contiguous().numpy().tofile(ins / f"{name}.bin")
        proc = subprocess.run(
            [find_tool("gpuos-interp"), str(graph.pipelined), f"--graph={graph.name}",
             f"--inputs-dir={ins}", f"--outputs-dir={outs}", "--print-values=0"],
            capture_output=True, text=True)
        if proc.returncode != 0:
            raise ExecutionError(f"graph @{graph.name} failed in the interpreter:\n{proc.stderr.strip()}")
        results = []
        for name, type_ in graph.outputs:
            wide = torch.float64 if type_.dtype in ("f32", "f16", "bf16", "f64") else torch.int64
            data = Path(outs, f"{name}.bin").read_bytes()
            flat = torch.frombuffer(bytearray(data), dtype=wide)
            results.append(flat.reshape(type_.shape).to(torch_dtype(type_.dtype)))
    _stats.bump("graphs_run_interpreter")
    return results


# --- GPU: the resident runtime ----------------------------------------------------

class _Device:
    """The runtime of one GPU and the union image of every graph on it."""

    def __init__(self, ordinal: int):
        from . import _C  # the extension over the runtime's C API
        # The resident kernel parks after this long without work. PyTorch's
        # torch.cuda.synchronize() waits for every stream, the kernel's too,
        # so a short idle park bounds what such a call can wait for.
        idle = int(os.environ.get("GPUOS_IDLE_PARK_US", "1000"))
        self.runtime = _C.Runtime(ordinal, idle)
        self.graphs: Dict[str, CompiledGraph] = {}
        self.image_key = None
        self.lock = threading.Lock()
        # Runtime graphs by (graph, bound pointers): PyTorch's caching
        # allocator hands the same addresses back, so a loop that calls one
        # graph reuses one uploaded runtime graph (like a CUDA graph exec).
        self.bound: "OrderedDict[tuple, int]" = OrderedDict()

    def bound_graph(self, graph: CompiledGraph, bindings: Dict[str, tuple]) -> int:
        key = (graph.key, tuple(sorted(bindings.items())))
        handle = self.bound.get(key)
        if handle is not None:
            self.bound.move_to_end(key)
            _stats.bump("bound_graph_hits")
            return handle
        handle = self.runtime.graph_from_manifest(graph.name, bindings)
        self.bound[key] = handle
        if len(self.bound) > MAX_BOUND_GRAPHS:
            _, old = self.bound.popitem(last=False)
            self.runtime.graph_destroy(old)
        return handle

    def ensure_loaded(self, graph: CompiledGraph, arch: str) -> None:
        if graph.name in self.graphs and self.graphs[graph.name].key == graph.key:
            return
        self.graphs[graph.name] = graph
        if len(self.graphs) == 1:
            image = graph
        else:
            # One module with every graph: kinds carry their graph's name.
            source = "\n".join(g.source for g in self.graphs.values())
            image = compile_graph(source, "union", [], [], arch=arch)
        # Installing an image destroys the runtime's graphs of the old one.
        self.bound.clear()
        self.runtime.load_image_files(str(image.cubin), str(image.manifest))
        self.image_key = image.key
        _stats.bump("image_loads")


_devices: Dict[int, _Device] = {}
_devices_lock = threading.Lock()


def device_for(index: int) -> _Device:
    with _devices_lock:
        if index not in _devices:
            _devices[index] = _Device(index)
        return _devices[index]


def park_all() -> None:
    with _devices_lock:
        devices = list(_devices.values())
    for dev in devices:
        with dev.lock:
            dev.runtime.park()


def run_gpu(graph: CompiledGraph, tensors: Sequence[torch.Tensor],
            outputs: Sequence[torch.Tensor], priority: str, arch: str = "sm_90") -> None:
    """Runs `graph` reading `tensors` and writing `outputs` (preallocated,
    contiguous); returns when the results are in memory."""
    _check_inputs(graph, tensors)
    devs = {t.device for t in list(tensors) + list(outputs)}
    if len(devs) != 1 or next(iter(devs)).type != "cuda":
        raise ExecutionError(
            f"graph @{graph.name}: every tensor must be on one CUDA device, got "
            f"{', '.join(sorted(str(d) for d in devs))}")
    device = next(iter(devs))
    dev = device_for(device.index or 0)
    with dev.lock:
        dev.ensure_loaded(graph, arch)
        bindings = {}
        for (name, _), t in zip(graph.inputs, tensors):
            bindings[name] = (t.data_ptr(), t.untyped_storage().nbytes() - t.storage_offset() * t.element_size())
        for (name, _), t in zip(graph.outputs, outputs):
            bindings[name] = (t.data_ptr(), t.numel() * t.element_size())
        # Inputs come from PyTorch kernels on the current stream; the
        # resident kernel is on no stream, so wait for them first.
        torch.cuda.current_stream(device).synchronize()
        dev.runtime.run(dev.bound_graph(graph, bindings), PRIORITIES[priority])
    _stats.bump("graphs_run")
