"""Runs compiled graphs: on the GPU through the resident runtime, or on the
CPU through the reference interpreter (a testing and debugging mode).

The GPU path keeps one runtime per device and one image per device holding
the graphs added (or added back) most recently in this process (at most
UNION_GRAPHS): a new
graph recompiles the union (cached like any graph) and installs it at a
safe point, because the resident kernel can only call task functions linked
into its own image (PLATFORM-FACTS: cross-module calls fault). The union is
bounded because compiling it costs every member's compile again (seconds
for a decode step): without a bound, the 20th graph of a process took
tens of seconds. The graph added longest ago leaves first; calling it
again adds it back (a union seen before is a cache hit).

A run is one native call (a launcher of gpuos._C per graph and priority):
it reads the tensors' pointers, waits for the PyTorch stream that wrote
them (that stream only, not the device), binds, submits and waits for that
submission, without the GIL from the stream wait on. Runtime graphs bound
to a set of pointers are cached in the extension, which also counts runs.
"""

from __future__ import annotations

import logging
import math
import os
import subprocess
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import torch

from ._aten import gpuos_dtype, torch_dtype
from ._compiler import CompiledGraph, compile_graph, explain, find_tool
from ._graph import TensorType
from . import _stats


class ExecutionError(RuntimeError):
    """A graph failed to run; the message names the graph and the cause."""


PRIORITIES = {"urgent": 0, "normal": 1, "background": 2}

log = logging.getLogger("gpuos")
_warned = set()


def _warn_once(what: str, message: str, *args) -> None:
    if what not in _warned:
        _warned.add(what)
        log.warning(message, *args)


def env_int(name: str, default: int, minimum: int) -> int:
    """An integer setting from the environment; a bad value names the
    variable."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = minimum - 1
    if value < minimum:
        raise ValueError(f"{name}={raw!r}: expected an integer >= {minimum}")
    return value


#: Most graphs in one device's image (GPUOS_UNION_GRAPHS, at least 1).
UNION_GRAPHS = env_int("GPUOS_UNION_GRAPHS", 8, 1)

#: GPUOS_STREAM_ORDERED=1 (experimental, off by default): a launch waits for
#: nothing on the host; the run is ordered on the device after the current
#: PyTorch stream's earlier work and before its later work
#: (Runtime::submitOnStream; docs/python.md, "Stream-ordered launches").
#: 0: each launch returns finished tensors.
STREAM_ORDERED = env_int("GPUOS_STREAM_ORDERED", 0, 0) != 0


def check_count(name: str, value: int) -> int:
    """A positive integer option (max_ops, max_variants), checked."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def check_priority(priority: str) -> str:
    if priority not in PRIORITIES:
        raise ValueError(f"priority {priority!r}: use one of {', '.join(PRIORITIES)}")
    return priority


def check_executor(executor: str) -> str:
    """The executor argument of capture() and jit(), checked."""
    if executor not in ("cuda", "interpreter"):
        raise ValueError(f"executor {executor!r}: use 'cuda' or 'interpreter'")
    return executor


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
            raise ExecutionError(explain(f"graph @{graph.name} failed in the interpreter:\n"
                                     f"{proc.stderr.strip()}"))
        results = []
        for name, type_ in graph.outputs:
            wide = torch.float64 if type_.dtype in ("f32", "f16", "bf16", "f64") else torch.int64
            data = Path(outs, f"{name}.bin").read_bytes()
            flat = torch.frombuffer(bytearray(data), dtype=wide)
            results.append(flat.reshape(type_.shape).to(torch_dtype(type_.dtype)))
    _stats.bump("graphs_run_interpreter")
    return results


# --- GPU: the resident runtime ----------------------------------------------------

# The device type whose tensors the runtime path takes. bench_overhead.py
# (python/tests) sets "cpu" with a stubbed gpuos._C to time the host path
# without a GPU; nothing else changes it.
RUNTIME_DEVICE_TYPE = "cuda"

# Bytes per element of each gpuos dtype (i1 is PyTorch's one-byte bool).
ELEMENT_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8, "i64": 8, "i32": 4, "i8": 1, "i1": 1}


def current_raw_stream(index: int) -> int:
    """The raw CUstream PyTorch issues work to on device `index` now: the
    runtime waits for it before a graph reads what PyTorch wrote."""
    return torch._C._cuda_getCurrentRawStream(index)


def dense_strides(shape) -> Tuple[int, ...]:
    """Row-major strides of a dense tensor of `shape`."""
    strides, running = [], 1
    for d in reversed(shape):
        strides.append(running)
        running *= max(int(d), 1)
    return tuple(reversed(strides))


def output_allocation(metas: Sequence[Tuple[tuple, tuple, torch.dtype]],
                      env: Dict[str, object]) -> List[str]:
    """Lines of a generated runner that allocate outputs o0, o1, ... from
    (shape, strides, dtype). Two or more dense outputs of one shape and
    dtype share one allocation, cut by unbind: on the H200 one
    torch.empty_strided costs 4.1 us from Python, eight of them 32.1 us, one
    [8, ...] allocation unbound into eight 16.1 us (docs/python.md). They are
    views of one storage, as torch.split's results are; the storage lives
    until the last of them is freed. Only outputs of a multiple of 16 bytes
    group: each then starts 16-byte aligned, as an allocation does, which
    the generated code's vector path wants (two [3] f32 outputs of one
    [2, 3] allocation would put the second at byte 12). Needs env["DEV"]."""
    env["empty"], env["stacked"] = torch.empty_strided, torch.empty
    groups: Dict[tuple, List[int]] = {}
    for j, (shape, stride, dtype) in enumerate(metas):
        shape = tuple(int(d) for d in shape)
        dense = tuple(stride) == dense_strides(shape)
        aligned = math.prod(shape) * dtype.itemsize % 16 == 0
        key = (shape, dtype) if dense and aligned else (j,)
        groups.setdefault(key, []).append(j)
    lines = []
    for g, members in enumerate(groups.values()):
        shape, stride, dtype = metas[members[0]]
        if len(members) == 1:
            j = members[0]
            env[f"Z{j}"], env[f"Q{j}"], env[f"E{j}"] = tuple(shape), tuple(stride), dtype
            lines.append(f"    o{j} = empty(Z{j}, Q{j}, dtype=E{j}, device=DEV)")
        else:
            env[f"GZ{g}"], env[f"GE{g}"] = (len(members),) + tuple(shape), dtype
            names = "".join(f"o{j}, " for j in members)
            lines.append(f"    {names}= stacked(GZ{g}, dtype=GE{g}, device=DEV).unbind(0)")
    return lines


def extent_bytes(type_: TensorType) -> int:
    """Bytes a tensor of `type_` spans from its first element: what its
    binding covers (the runtime checks the kinds' layouts against it)."""
    span = 1
    for d, s in zip(type_.shape, type_.effective_strides()):
        if d == 0:
            return 0
        span += (d - 1) * s
    return span * ELEMENT_BYTES[type_.dtype]


class _Device:
    """The runtime of one GPU and the union image of every graph on it."""

    def __init__(self, ordinal: int):
        from . import _C  # the extension over the runtime's C API
        # The resident kernel parks after this long without work. PyTorch's
        # torch.cuda.synchronize() waits for every stream, the kernel's too,
        # so a short idle park bounds what such a call can wait for.
        idle = env_int("GPUOS_IDLE_PARK_US", 1000, 0)
        self.index = ordinal
        self.runtime = _C.Runtime(ordinal, idle)
        # The graphs in the installed image, oldest first (name -> graph).
        self.graphs: "OrderedDict[str, CompiledGraph]" = OrderedDict()
        self.left = set()  # names of graphs evicted from the image
        self.image_key = None
        self.lock = threading.Lock()
        # One launcher per (graph, priority); each caches its runtime graphs
        # by bound pointers (in the extension): PyTorch's caching allocator
        # hands the same addresses back, so a loop that calls one graph
        # reuses one uploaded runtime graph (like a CUDA graph exec).
        self.launchers: Dict[tuple, object] = {}

    def ensure_loaded(self, graph: CompiledGraph, arch: str) -> None:
        """Installs an image holding `graph` (with self.lock held). The
        member list changes only once the image is installed, so a failed
        compile or load leaves it matching the image that runs."""
        current = self.graphs.get(graph.name)
        if current is not None and current.key == graph.key:
            return
        members = OrderedDict(self.graphs)
        members.pop(graph.name, None)
        if graph.name in self.left:
            # A graph coming back: the process alternates between more graphs
            # than the image holds, and pays an image load per switch.
            _warn_once("union", "gpuos: graph @%s came back into the device's image after "
                       "leaving it: more graphs are in use than GPUOS_UNION_GRAPHS=%d "
                       "holds, so switching between them loads an image each time; "
                       "raise GPUOS_UNION_GRAPHS", graph.name, UNION_GRAPHS)
        evicted = 0
        while len(members) >= UNION_GRAPHS:
            members.popitem(last=False)
            evicted += 1
        members[graph.name] = graph
        if len(members) == 1:
            image = graph
        else:
            # One module with every graph: kinds carry their graph's name.
            # Sorted by name, so the same set is the same source (a cache
            # hit) in whatever order the graphs came back.
            ordered = sorted(members.values(), key=lambda g: g.name)
            # Each member's lines move down by the members before it (and
            # the blank line the join leaves between two).
            sources, offset = {}, 0
            for g in ordered:
                sources.update({line + offset: where for line, where in g.sources.items()})
                offset += g.source.count("\n") + 1
            image = compile_graph("\n".join(g.source for g in ordered), "union", [], [],
                                  arch=arch, sources=sources)
        # Runtime graphs already bound survive: the runtime rebinds them to
        # the new image (those of graphs that left it until they return).
        self.runtime.load_image_files(str(image.cubin), str(image.manifest))
        self.left.update(name for name in self.graphs if name not in members)
        self.graphs.clear()
        self.graphs.update(members)
        self.image_key = image.key
        _stats.bump("image_loads")
        if evicted:
            _stats.bump("union_evictions", evicted)

    def launcher(self, graph: CompiledGraph, priority: str, arch: str):
        """The launcher of `graph`: called with the input tensors then the
        output tensors and a raw stream, it binds and submits in one native
        call, waiting on the host for the stream before and for the run after
        (or, with STREAM_ORDERED, ordering the run on the stream without a
        host wait). The
        image holding `graph` is installed here, and again on a call after
        the graph left the union."""
        key = (graph.key, priority)
        found = self.launchers.get(key)
        if found is not None:
            return found
        with self.lock:
            self.ensure_loaded(graph, arch)
            found = self.launchers.get(key)
            if found is None:
                buffers = list(graph.inputs) + list(graph.outputs)
                native = self.runtime.launcher(graph.name, [n for n, _ in buffers],
                                               [extent_bytes(t) for _, t in buffers],
                                               PRIORITIES[priority],
                                               stream_ordered=STREAM_ORDERED)
                found = self._resident_launch(graph, arch, native)
                self.launchers[key] = found
        return found

    def _resident_launch(self, graph: CompiledGraph, arch: str, native):
        """`native` behind a check that `graph` is still in the image (one
        dict lookup per call). Another thread may install an image without
        it between that check and the submission: the runtime then rejects
        the call (nothing of it ran), and it is made once more after
        installing an image with the graph."""
        from . import _C
        graphs, name, key = self.graphs, graph.name, graph.key

        def resident() -> bool:
            g = graphs.get(name)
            return g is not None and g.key == key

        def launch(tensors, stream):
            if not resident():
                with self.lock:
                    self.ensure_loaded(graph, arch)
            try:
                native(tensors, stream)
            except _C.RuntimeError_ as e:
                # Under the lock the member list matches the installed image
                # (ensure_loaded changes both together).
                with self.lock:
                    if resident():  # a failure of the graph itself
                        raise _explained(e)
                    self.ensure_loaded(graph, arch)
                try:
                    native(tensors, stream)
                except _C.RuntimeError_ as again:
                    raise _explained(again)
        launch.native = native
        return launch


def _explained(e: BaseException) -> BaseException:
    """`e` with its message naming the user's lines (explain), keeping its
    type and traceback."""
    e.args = (explain(str(e)),) + e.args[1:]
    return e


_devices: Dict[int, _Device] = {}
_devices_lock = threading.Lock()


def device_for(index: int) -> _Device:
    dev = _devices.get(index)
    if dev is not None:
        return dev
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
    synchronize_all()  # unpins what the park drained; raises earlier failures


def synchronize_all() -> None:
    """Waits for every run launched so far; raises the first failure among
    them (ExecutionError, naming the graph)."""
    from . import _C
    with _devices_lock:
        devices = list(_devices.values())
    for dev in devices:
        try:
            dev.runtime.synchronize()
        except _C.RuntimeError_ as e:
            raise ExecutionError(explain(str(e))) from None


def native_counters() -> Dict[str, int]:
    """graphs_run and the bound-graph cache counters, summed over devices
    (counted in the extension, so the per-call path does no bookkeeping)."""
    total: Dict[str, int] = {}
    for dev in list(_devices.values()):
        for name, value in dev.runtime.counters().items():
            if name not in ("bound_graphs", "pending_runs"):  # levels, not counts
                total[name] = total.get(name, 0) + value
    return total


_stats.add_source(native_counters)


def check_runtime_device(graph: CompiledGraph, tensors: Sequence[torch.Tensor]) -> torch.device:
    devs = {t.device for t in tensors}
    device = next(iter(devs)) if len(devs) == 1 else None
    if device is None or device.type != RUNTIME_DEVICE_TYPE:
        raise ExecutionError(
            f"graph @{graph.name}: every tensor must be on one CUDA device, got "
            f"{', '.join(sorted(str(d) for d in devs))}")
    return device


def run_gpu(graph: CompiledGraph, tensors: Sequence[torch.Tensor],
            outputs: Sequence[torch.Tensor], priority: str, arch: str = "sm_90") -> None:
    """Runs `graph` reading `tensors` and writing `outputs` (preallocated,
    contiguous); returns when the results are in memory."""
    _check_inputs(graph, tensors)
    for (name, type_), t in zip(graph.inputs, tensors):
        if TensorType.make(t.shape, type_.dtype, t.stride()) != type_:
            raise ExecutionError(f"graph @{graph.name} input {name}: expected {type_}, got "
                                 f"strides {tuple(t.stride())}")
    if len(outputs) != len(graph.outputs):
        raise ExecutionError(f"graph @{graph.name} has {len(graph.outputs)} outputs, got {len(outputs)}")
    for (name, type_), t in zip(graph.outputs, outputs):
        if (tuple(t.shape) != type_.shape or gpuos_dtype(t.dtype) != type_.dtype
                or not t.is_contiguous()):
            raise ExecutionError(f"graph @{graph.name} output {name}: expected a contiguous "
                                 f"{type_}, got {tuple(t.shape)} {t.dtype}")
    all_tensors = tuple(tensors) + tuple(outputs)
    device = check_runtime_device(graph, all_tensors)
    index = device.index or 0
    launch = device_for(index).launcher(graph, check_priority(priority), arch)
    # Inputs come from PyTorch kernels on the current stream; the resident
    # kernel is on no stream, so the launch waits for that stream first (on
    # the host), and then for the run, or with STREAM_ORDERED orders the run
    # between the stream's earlier and later work on the device.
    launch(all_tensors, current_raw_stream(index))
