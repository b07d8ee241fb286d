"""`with gpuos.capture():` records eager micro-ops and runs them fused.

Every aten op inside the block comes through `__torch_dispatch__`. A
supported op on CUDA tensors is not run: it is lowered into the pending
graph and gets a real, still unwritten output tensor (a placeholder) of the
right shape, so the user only ever holds ordinary tensors. The pending graph
is compiled and run (a *flush*) when
- an op that is not recorded reads a pending tensor (`.item()`, printing,
  `.cpu()` and any unsupported op all arrive here),
- any op mutates a tensor (in-place ops and `out=` see current values),
- the graph reaches `max_ops` ops, or the block exits.
A flush writes exactly the placeholders still referenced from Python (dead
intermediates stay fused away). View ops on pending tensors run eagerly on
the placeholder, so views alias their base as in eager PyTorch, and are also
recorded so later ops fuse through them.

Falls back to eager PyTorch (counted in gpuos.stats() as fallback_ops, with
a debug log line naming the op and the reason) for unsupported ops, dtypes
and devices, and whenever autograd would record the op (requires_grad
inputs with grad mode on): gpuos never produces gradients.
"""

from __future__ import annotations

import functools
import logging
import threading
import weakref
from typing import Any, Dict, List, Optional

import torch
from torch.utils._python_dispatch import TorchDispatchMode, _disable_current_modes
from torch.utils._pytree import tree_flatten, tree_map

from . import _stats
from ._aten import check_same_device, supports
from ._compiler import CompileError
from . import _executor
from ._executor import (ExecutionError, check_count, check_executor, check_priority, run_gpu,
                        run_interpreter)
from ._graph import Unsupported
from ._trace import Trace, tensor_type

log = logging.getLogger("gpuos")

_VIEW_OPS = {
    torch.ops.aten.view.default, torch.ops.aten._unsafe_view.default,
    torch.ops.aten.reshape.default, torch.ops.aten.permute.default,
    torch.ops.aten.transpose.int, torch.ops.aten.t.default,
    torch.ops.aten.expand.default, torch.ops.aten.slice.Tensor,
    torch.ops.aten.select.int, torch.ops.aten.unsqueeze.default,
    torch.ops.aten.squeeze.dim, torch.ops.aten.squeeze.dims,
    torch.ops.aten.squeeze.default, torch.ops.aten.alias.default,
    torch.ops.aten.detach.default,
}


# The captures entered on each thread, innermost last. `_entered` counts
# them over all threads: one global read tells the hot paths (gpuos.jit's
# call, a tensor's printing) that nothing is pending anywhere.
_local = threading.local()
_entered = 0


def active_captures() -> List["capture"]:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def flush_active_captures(tensors=None) -> None:
    """Writes the pending tensors of this thread's open captures (those
    holding one of `tensors`, or all): something is about to read them
    without an aten op (a gpuos launch reads data pointers, printing runs
    with the dispatch modes off)."""
    if not _entered:
        return
    for c in reversed(active_captures()):
        if tensors is None or any(c._holds(t) for t in tensors):
            c.flush()


def _flushing(read):
    """`read` (a Tensor method that reads values without an aten op the
    mode sees) after a flush of the capture the tensor is pending in."""
    @functools.wraps(read)
    def method(self, *args, **kwargs):
        if _entered:
            flush_active_captures([self])
        return read(self, *args, **kwargs)
    method.gpuos_flushing = True
    return method


def _install_read_hooks() -> None:
    # Printing formats under _disable_current_modes(); numpy(), tolist()
    # __array__ and pickling read CPU memory directly (the interpreter
    # executor's tensors).
    for name in ("__repr__", "__format__", "numpy", "tolist", "__array__", "__reduce_ex__"):
        read = getattr(torch.Tensor, name)
        if not getattr(read, "gpuos_flushing", False):
            setattr(torch.Tensor, name, _flushing(read))


def _mutates(func) -> bool:
    schema = func._schema
    return any(a.alias_info is not None and a.alias_info.is_write for a in schema.arguments)


class capture(TorchDispatchMode):
    """Records micro-ops and runs them as fused gpuos graphs.

    priority: "urgent", "normal" or "background" (the graphs' scheduling class).
    max_ops: flush when the pending graph holds this many ops.
    executor: "cuda" (default), or "interpreter" to run graphs on the CPU
    reference interpreter (tensors on the CPU; for tests and debugging).
    """

    def __init__(self, priority: str = "normal", max_ops: int = 512,
                 executor: str = "cuda", arch: str = "sm_90"):
        super().__init__()
        self.priority = check_priority(priority)
        self.executor = check_executor(executor)
        self.max_ops = check_count("max_ops", max_ops)
        self.arch = arch
        self._reset()

    def _reset(self) -> None:
        self.trace = Trace(self.priority)
        # id(placeholder) -> weakref, for the pending tensors.
        self.pending: Dict[int, weakref.ref] = {}
        self.inputs_keepalive: List[torch.Tensor] = []
        # Every recorded call, replayable in PyTorch if the graph cannot be
        # compiled or run (so no recorded work is lost): pending arguments
        # are _Pending keys, not tensors, so recording keeps nothing alive.
        self.calls: List[tuple] = []

    def __enter__(self):
        global _entered
        _install_read_hooks()
        active_captures().append(self)
        _entered += 1
        try:
            return super().__enter__()
        except BaseException:
            active_captures().remove(self)
            _entered -= 1
            raise

    # --- what runs where ----------------------------------------------------
    def _holds(self, t: Any) -> bool:
        """Whether `t`, or the tensor it views, is pending here."""
        return self._is_pending(t) or (isinstance(t, torch.Tensor) and
                                       self._is_pending(t._base))

    def _is_pending(self, t: Any) -> bool:
        if not isinstance(t, torch.Tensor):
            return False
        ref = self.pending.get(id(t))
        return ref is not None and ref() is t

    def _device_ok(self, tensors: List[torch.Tensor]) -> Optional[str]:
        want = "cpu" if self.executor == "interpreter" else _executor.RUNTIME_DEVICE_TYPE
        devices = {t.device for t in tensors}
        if len(devices) > 1:
            return f"tensors on several devices ({', '.join(map(str, devices))})"
        if devices and next(iter(devices)).type != want:
            return f"a tensor on {next(iter(devices))} (the {self.executor} executor needs {want})"
        return None

    def _fallback(self, func, reason: str) -> None:
        _stats.bump("fallback_ops")
        log.debug("gpuos.capture: %s runs in PyTorch: %s", func, reason)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        flat, _ = tree_flatten((args, kwargs))
        tensors = [t for t in flat if isinstance(t, torch.Tensor)]
        touches_pending = any(self._is_pending(t) for t in tensors)

        reason = None
        if _mutates(func):
            reason = "it mutates a tensor"
        elif not supports(func):
            reason = "no gpuos lowering"
        if reason is None and not tensors:
            reason = "no tensor operands"
        if reason is None:
            reason = self._device_ok(tensors)
        if reason is None and torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
            reason = "autograd is recording (requires_grad inputs)"
        if reason is None and func in _VIEW_OPS and not touches_pending:
            # A view of real tensors is free in PyTorch and aliases correctly.
            return func(*args, **kwargs)
        if reason is None:
            try:
                return self._record(func, args, kwargs)
            except Unsupported as e:
                reason = str(e)
        return self._eager(func, args, kwargs, reason, touches_pending, bool(tensors))

    def _eager(self, func, args, kwargs, reason: str, touches_pending: bool,
               has_tensors: bool):
        """Runs an op that is not recorded in PyTorch, after a flush of what
        it reads (gpuos.jit's recorder ends the recording here instead)."""
        if touches_pending or _mutates(func):
            self.flush()
        if touches_pending or has_tensors:
            self._fallback(func, reason)
        return func(*args, **kwargs)

    def _record(self, func, args, kwargs):
        def meta(x):
            if isinstance(x, torch.Tensor):
                return torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device="meta")
            return x
        try:
            out_meta = func(*tree_map(meta, args), **tree_map(meta, kwargs))
        except Exception as e:  # no meta kernel: PyTorch cannot say the shape
            raise Unsupported(f"no shape rule on the meta device ({type(e).__name__})")

        def resolve(x):
            if not isinstance(x, torch.Tensor):
                return x
            if self._is_pending(x):
                return self._pending_value(x)
            self.inputs_keepalive.append(x)
            return self.trace.input(("in", id(x)), x, tensor_type(x))

        device = next((t.device for t in tree_flatten((args, kwargs))[0]
                       if isinstance(t, torch.Tensor)), None)
        if device is None:  # a factory (gpuos.jit records full, scalar_tensor)
            device = torch.device(kwargs.get("device") or "cpu")
        check_same_device(func, kwargs, device)
        result = self.trace.call(func, args, kwargs, out_meta, resolve)
        replay = tree_map(lambda x: _Pending(id(x)) if self._is_pending(x) else x, (args, kwargs))
        if func in _VIEW_OPS:
            # Run the view for real on the placeholder, so it aliases.
            real = func(*args, **kwargs)
            self._adopt(real, result)
            self.calls.append((func, replay, [id(real)]))
            return real
        outs = out_meta if isinstance(out_meta, (tuple, list)) else [out_meta]
        values = result if isinstance(result, (tuple, list)) else [result]
        placeholders = [torch.empty(m.shape, dtype=m.dtype, device=device) for m in outs]
        for p, v in zip(placeholders, values):
            self._adopt(p, v)
        self.calls.append((func, replay, [id(p) for p in placeholders]))
        if self.trace.num_calls >= self.max_ops:
            self.flush()
        return type(out_meta)(placeholders) if isinstance(out_meta, (tuple, list)) else placeholders[0]

    def _pending_value(self, t: torch.Tensor):
        value = self.trace.values.get(id(t))
        if value is None:  # a result the graph does not compute (a norm's statistics)
            raise Unsupported("reads a pending result the fused graph does not compute")
        return value

    def _adopt(self, placeholder: torch.Tensor, value) -> None:
        self.pending[id(placeholder)] = weakref.ref(placeholder)
        self.trace.bind(id(placeholder), value)

    # --- flush --------------------------------------------------------------
    def flush(self) -> None:
        """Compiles and runs the pending graph, writing every pending tensor
        still referenced from Python."""
        if self.trace.empty():
            return
        trace, pending, calls = self.trace, self.pending, self.calls
        keepalive = self.inputs_keepalive
        self._reset()
        outputs: Dict[int, torch.Tensor] = {}
        for key, ref in pending.items():
            t = ref()
            if t is None:
                continue
            base = t._base if t._base is not None else t
            if id(base) in pending and pending[id(base)]() is base:
                outputs[id(base)] = base
            else:
                outputs[key] = t
        if not outputs:
            return
        # An enclosing capture's pending tensors may be among this graph's
        # inputs (read below with every mode off, its own included), or be
        # read by the PyTorch replay: they are older work, written first.
        # (Captures inside this one flush later: they may read its values.)
        stack = active_captures()
        for c in stack[:stack.index(self)] if self in stack else []:
            if not c.trace.empty():
                c.flush()
        # x.clone(), a literal, cat([x]): an unchanged input, copied here
        # (inputs are not mutated while pending ops read them).
        copies = {k: src for k in outputs
                  if isinstance(src := trace.unchanged_input(k), torch.Tensor)}
        keys = [k for k in outputs if k not in copies]
        with _disable_current_modes():
            for k, src in copies.items():
                outputs[k].copy_(src)
            if not keys:
                _stats.bump("flushes")
                return
            try:
                graph, sources = trace.finish(keys, self.arch, image=True)
                tensors = list(sources)
                targets = [outputs[k] for k in keys]
                if self.executor == "interpreter":
                    for target, value in zip(targets, run_interpreter(graph, tensors)):
                        target.copy_(value)
                else:
                    run_gpu(graph, tensors, targets, self.priority, self.arch)
            except (CompileError, ExecutionError, Unsupported) as e:
                log.warning("gpuos.capture: a graph of %d recorded ops runs in "
                            "PyTorch instead: %s", len(calls), e)
                _stats.bump("flush_fallbacks")
                _replay(calls, outputs)
        del keepalive
        _stats.bump("flushes")

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self.flush()
            else:
                # What the block computed before the exception is the
                # caller's: write it, without hiding that exception.
                try:
                    self.flush()
                except Exception:
                    log.exception("gpuos.capture: the flush at the exit of a "
                                  "block that raised failed too")
                    self._reset()
        finally:
            self._leave()
            super().__exit__(exc_type, exc, tb)

    def _leave(self) -> None:
        global _entered
        stack = active_captures()
        if self in stack:
            stack.remove(self)
            _entered -= 1


class _Pending:
    """A recorded call's argument that was a pending tensor (by its key)."""

    __slots__ = ("key",)

    def __init__(self, key: int):
        self.key = key


def _replay(calls, outputs: Dict[int, torch.Tensor]) -> None:
    """Runs the recorded calls in PyTorch, in order, and writes the pending
    tensors still referenced (`outputs`, by key) with their values."""
    env: Dict[int, Any] = {}

    def value(x):
        return env[x.key] if isinstance(x, _Pending) else x
    for func, (args, kwargs), keys in calls:
        out = func(*tree_map(value, args), **tree_map(value, kwargs))
        for key, o in zip(keys, out if isinstance(out, (tuple, list)) else [out]):
            env[key] = o
    for key, target in outputs.items():
        target.copy_(env[key])
