"""gpuos.jit(fn): record once per input signature, replay without Dynamo.

    fast = gpuos.jit(fn, priority="urgent")
    y = fast(x, w)      # a new signature: fn is recorded, compiled and run
    y = fast(x2, w2)    # the same signature: a guard and one native launch

Like a CUDA graph's replay, but with guards. The first call of a signature
runs fn once under a recording dispatch mode (the capture machinery: every
aten op is lowered into one graph, nothing runs), compiles the graph (into
the device's union image) and generates a runner for it. Later calls run the
runner: it checks the signature (each tensor argument's shape, strides,
dtype and device; every other argument by type and value; which arguments
are one tensor; the grad mode), allocates the outputs and makes one native
call (docs/python.md, "The per-call path"); no dispatch mode, no Dynamo.
A call with another signature records again, up to max_variants.

What is baked at record time, and what is not (docs/python.md, gpuos.jit):
- Python values fn reads (closure or global numbers, flags, control flow
  on them) are constants of the recording; only the arguments are guarded.
- Tensors fn reads that are not arguments (closure tensors, parameters) are
  graph inputs bound by reference: each call reads the same tensor object's
  current values (in-place updates are seen; rebinding the name is not).
- The function runs in PyTorch for a signature whose recording meets an op
  gpuos does not record (an unsupported op, an in-place op, `.item()`, a
  tensor on another device, ...): a WARNING log line names the op and the
  counter `jit_fallbacks` counts it. Arguments that require grad (with grad
  mode on) call fn in PyTorch (`autograd_fallbacks`).
"""

from __future__ import annotations

import functools
import logging
import threading
import warnings
import weakref
from typing import Any, Callable, Dict, List, Optional, Tuple

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from . import _capture, _executor, _stats
from ._aten import supports
from ._capture import _mutates, capture
from ._compiler import CompileError
from ._executor import (ExecutionError, check_count, check_executor, check_priority, device_for,
                        run_interpreter)
from ._graph import Unsupported
from ._trace import tensor_type

try:  # Dynamo's C++ tensor guard (_layout_guard)
    from torch._C._dynamo.guards import TensorGuards as _TensorGuards
except ImportError:
    _TensorGuards = None

log = logging.getLogger("gpuos")

# Every jit function's variants, so clear_memory_cache() forgets them too.
_JITS: "weakref.WeakSet[_Jit]" = weakref.WeakSet()


class _Abort(Exception):
    """The recording met something it cannot record: PyTorch runs fn."""


class _Recorder(capture):
    """capture with fn's tensor arguments as graph inputs (so views of them
    are recorded too) and no eager op: one that capture would run in
    PyTorch ends the recording instead (_Abort), before it runs."""

    def __init__(self, priority: str, executor: str, arch: str, slots: List[Any]):
        super().__init__(priority=priority, max_ops=1 << 62, executor=executor, arch=arch)
        self.arg_slot: Dict[int, int] = {}  # id(tensor) -> its first slot
        self.aborted: Optional[str] = None  # kept even if fn catches _Abort
        for slot, t in enumerate(slots):
            if isinstance(t, torch.Tensor) and id(t) not in self.arg_slot:
                self.arg_slot[id(t)] = slot
                self.pending[id(t)] = weakref.ref(t)

    def _pending_value(self, t):
        slot = self.arg_slot.get(id(t))
        if slot is not None and not self.trace.has(id(t)):
            # An argument becomes a graph input when an op first reads it.
            self.trace.input(id(t), ("arg", slot), tensor_type(t))
        return self.trace.values[id(t)]

    def _eager(self, func, args, kwargs, reason, touches_pending, has_tensors):
        if not has_tensors and supports(func) and not _mutates(func):
            # A factory (torch.full, a scalar operand): a constant of the graph.
            try:
                want = "cpu" if self.executor == "interpreter" else _executor.RUNTIME_DEVICE_TYPE
                device = torch.device(kwargs.get("device") or "cpu")
                if device.type != want:
                    raise Unsupported(f"a tensor made on {device}")
                return self._record(func, args, kwargs)
            except Unsupported as e:
                reason = str(e)
        self.aborted = self.aborted or f"{func} ({reason})"
        raise _Abort(self.aborted)

    def _holds(self, t: Any) -> bool:
        # An argument, and a view of one, holds real data: print(x) in fn
        # reads it fine. Only results are unwritten while recording.
        if not isinstance(t, torch.Tensor):
            return False
        base = t._base if t._base is not None else t
        return not (self.is_arg(t) or self.is_arg(base)) and super()._holds(t)

    def is_arg(self, t: torch.Tensor) -> bool:
        return id(t) in self.arg_slot and self.pending[id(t)]() is t

    def flush(self) -> None:  # nothing runs while recording
        self.aborted = self.aborted or "a flush"
        raise _Abort(self.aborted)

    def __exit__(self, exc_type, exc, tb):
        self._leave()
        return TorchDispatchMode.__exit__(self, exc_type, exc, tb)


def _freeze(x: Any, depth: int = 0) -> Any:
    """A hashable stand-in for a non-tensor argument, with every element's
    exact type (2 and 2.0 differ, inside containers too; a torch.Size is not
    a tuple) and a float's sign (-0.0 is not 0.0); other objects by identity,
    and a plain object's attributes by value too; TypeError when it holds a
    tensor or cannot be compared."""
    if isinstance(x, torch.Tensor):
        raise TypeError("a tensor inside a container argument")
    if depth > 16:
        raise TypeError("an argument nested more than 16 deep (or holding itself)")
    if isinstance(x, (list, tuple)):
        return (type(x), tuple(_freeze(i, depth + 1) for i in x))
    if isinstance(x, dict):
        return (type(x), tuple((_freeze(k, depth + 1), _freeze(v, depth + 1))
                               for k, v in x.items()))
    hash(x)
    if x != x:  # NaN: equal to no guard value
        raise TypeError(f"{x!r} is not equal to itself")
    if type(x) is float:
        return (float, x.hex())
    attrs = getattr(x, "__dict__", None)
    if (isinstance(attrs, dict) and not isinstance(x, torch.nn.Module)
            and not callable(x) and not isinstance(x, type)):
        # A plain object (a config): the recording baked the attributes it
        # read, so they are part of the guard. A module's tensors are read
        # live, and functions and classes stand for themselves.
        if depth >= 2:  # an attribute's attributes: by identity (cycles, loggers)
            return (type(x), x)
        try:
            return (type(x), x, _freeze(dict(attrs), depth + 1))
        except TypeError as e:
            raise TypeError(f"a {type(x).__name__} argument whose attributes "
                            f"cannot be guarded ({e})") from None
    return (type(x), x)


def _frozen_equals(x: Any, frozen: Any) -> bool:
    """The generated guard of an argument that is not a tensor, int, bool,
    str, None or float: the same stand-in as at recording."""
    try:
        return _freeze(x) == frozen
    except TypeError:
        return False


def _outside_tensor_ids(fn: Any) -> set:
    """Ids of the tensors fn can read other than through its arguments, as
    far as they can be found without running it: closure cells, defaults,
    the globals its code names, and an nn.Module's (or a bound method's
    module's) parameters and buffers. Attributes of other objects are not
    followed."""
    found: set = set()

    def add(x: Any) -> None:
        if isinstance(x, torch.Tensor):
            found.add(id(x))
        elif isinstance(x, torch.nn.Module):
            found.update(id(t) for t in x.parameters())
            found.update(id(t) for t in x.buffers())
        elif isinstance(x, (list, tuple)):
            for item in x:
                add(item)
        elif isinstance(x, dict):
            for item in x.values():
                add(item)

    add(fn)
    add(getattr(fn, "__self__", None))
    func = getattr(fn, "__func__", fn)
    if isinstance(fn, torch.nn.Module):
        func = getattr(type(fn).forward, "__func__", type(fn).forward)
    for cell in getattr(func, "__closure__", None) or ():
        try:
            add(cell.cell_contents)
        except ValueError:  # an empty cell
            pass
    add(getattr(func, "__defaults__", None) or ())
    add(getattr(func, "__kwdefaults__", None) or {})
    code, globals_ = getattr(func, "__code__", None), getattr(func, "__globals__", {})
    for name in getattr(code, "co_names", ()):
        if name in globals_:
            add(globals_[name])
    return found


def _modes() -> Tuple:
    """Global state a recording bakes in besides the arguments: autocast's
    casts (per device type) and the dtype Python scalars and factories take."""
    if not torch._C._is_any_autocast_enabled():
        return (torch.get_default_dtype(),)
    return (torch.get_default_dtype(),) + tuple(
        torch.get_autocast_dtype(d) if torch.is_autocast_enabled(d) else None
        for d in ("cuda", "cpu"))


def _signature(args: tuple, kwargs: dict) -> Tuple:
    parts = []
    first: Dict[int, int] = {}
    for slot, x in enumerate(args + tuple(kwargs.values())):
        if isinstance(x, torch.Tensor):
            parts.append((tuple(x.shape), x.stride(), x.dtype, x.device,
                          first.setdefault(id(x), slot)))
        else:
            parts.append(_freeze(x))
    return (len(args), tuple(kwargs), torch.is_grad_enabled(), _modes(), tuple(parts))


def _is_tensor_part(part: Any) -> bool:
    """Whether a signature part is a tensor's (shape, stride, dtype, device,
    first slot holding it), not a frozen value."""
    return len(part) == 5 and isinstance(part[2], torch.dtype)


def _layout_guard(examples: List[torch.Tensor]) -> Optional[Callable]:
    """One native check that tensors still have the examples' shape,
    strides, dtype, device, requires_grad and dispatch keys: Dynamo's own
    tensor guard (C++), which checks three tensors in a quarter of the time
    of the same checks written in Python (docs/python.md, "Per-call cost").
    Its arguments must be tensors (the runner checks isinstance first). None
    where this PyTorch has no such guard, or for no tensors: the runner
    then checks each property in Python. A call that fails it only for what
    the signature does not hold (dispatch keys: an inference tensor, a
    mode) takes the slow path, which finds the variant by its signature."""
    if not examples or _TensorGuards is None:
        return None
    try:
        return _TensorGuards(*examples,
                             dynamic_dims_sizes=[list(t.shape) for t in examples],
                             dynamic_dims_strides=[list(t.stride()) for t in examples]).check
    except Exception:  # another PyTorch's signature: the Python checks
        return None


def _interpreter_launch(graph):
    """The launcher's calling convention on the CPU reference interpreter."""
    n = len(graph.inputs)

    def launch(tensors, stream):
        for o, v in zip(tensors[n:], run_interpreter(graph, tensors[:n])):
            o.copy_(v)
    return launch


class _Variant:
    """What one recording found: the graph, where its inputs come from and
    how fn's result is rebuilt from the graph's outputs."""

    def __init__(self):
        self.graph = None
        self.sources: List[Any] = []    # ("arg", slot) or an outside tensor
        self.metas: List[torch.Tensor] = []  # the graph outputs' placeholders
        self.items: List[Tuple] = []    # how to build each returned item
        self.container = None           # None: fn returned one item
        self.device: Optional[torch.device] = None


class _Jit:
    def __init__(self, fn: Callable, priority: str, executor: str, max_variants: int, arch: str):
        self.fn = fn
        self.name = getattr(fn, "__qualname__", None) or type(fn).__name__
        self.priority = check_priority(priority)
        self.executor = check_executor(executor)
        self.max_variants = check_count("max_variants", max_variants)
        self.arch = arch
        self.lock = threading.RLock()
        self.variants: Dict[Tuple, Optional[Callable]] = {}  # None: PyTorch
        self.warned = set()
        self.fast = self.slow
        _JITS.add(self)

    def clear(self) -> None:
        with self.lock:
            self.variants.clear()
            self.warned.clear()
            self.fast = self.slow

    def _note(self, what: str, message: str, *args, level: int = logging.INFO) -> None:
        if what not in self.warned:
            self.warned.add(what)
            log.log(level, message, *args)

    def autograd(self, args: tuple, kwargs: dict):
        """A call with tensors that require grad (grad mode on): PyTorch."""
        _stats.bump("autograd_fallbacks")
        self._note("grad", "gpuos.jit: %s reads tensors that require grad; it runs "
                   "in PyTorch (gpuos computes no gradients)", self.name)
        return self.fn(*args, **kwargs)

    # --- the slow path: find, record or refuse a signature ------------------------
    def slow(self, args: tuple, kwargs: dict):
        _stats.bump("jit_slow_calls")  # the guard missed (or no runner yet)
        tensors = [x for x in args + tuple(kwargs.values()) if isinstance(x, torch.Tensor)]
        if torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
            return self.autograd(args, kwargs)
        try:
            key = _signature(args, kwargs)
        except TypeError as e:
            _stats.bump("jit_fallbacks")
            self._note("key", "gpuos.jit: %s runs in PyTorch: an argument cannot be "
                       "guarded (%s)", self.name, e, level=logging.WARNING)
            return self.fn(*args, **kwargs)
        with self.lock:
            if key in self.variants:
                runner = self.variants[key]
            elif len(self.variants) >= self.max_variants:
                _stats.bump("variant_cap_hits")
                if "cap" not in self.warned:
                    self.warned.add("cap")
                    warnings.warn(f"gpuos.jit: {self.name} reached max_variants="
                                  f"{self.max_variants} recorded signatures; new ones run "
                                  f"in PyTorch")
                return self.fn(*args, **kwargs)
            else:
                runner = self.variants[key] = self._record(args, kwargs, key)
        if runner is None:
            return self.fn(*args, **kwargs)
        self.fast = runner
        return runner(args, kwargs, True)

    def stale(self, key: Tuple, args: tuple, kwargs: dict):
        """A variant whose outside tensors changed layout: forgotten, and
        the call records again."""
        with self.lock:
            self.variants.pop(key, None)
            self.fast = self.slow
        return self.slow(args, kwargs)

    def _record(self, args: tuple, kwargs: dict, key: Tuple) -> Optional[Callable]:
        _stats.bump("jit_records")
        slots = list(args) + list(kwargs.values())
        try:
            variant = self._trace(args, kwargs, slots)
            return self._runner(variant, key, slots)
        except (_Abort, Unsupported, CompileError, ExecutionError) as e:
            log.warning("gpuos.jit: %s runs in PyTorch for this signature: %s", self.name, e)
            _stats.bump("jit_fallbacks")
            return None

    def _trace(self, args: tuple, kwargs: dict, slots: List[Any]) -> _Variant:
        # The recording sees tensors, not names: an argument that is also a
        # tensor fn reads from outside would make every read of that tensor
        # an argument read, so later calls would compute with the new
        # argument where fn reads the outside tensor.
        outside = _outside_tensor_ids(self.fn)
        for slot, t in enumerate(slots):
            if isinstance(t, torch.Tensor) and id(t) in outside:
                raise _Abort(f"argument {slot} is also a tensor {self.name} reads from "
                             f"outside (a closure, default, global or module tensor): "
                             f"its reads cannot be told apart")
        rec = _Recorder(self.priority, self.executor, self.arch, slots)
        try:
            with rec:
                result = self.fn(*args, **kwargs)
        except Exception:
            if rec.aborted:  # what fn raised came from the abort
                raise _Abort(rec.aborted) from None
            raise
        if rec.aborted:  # fn caught the _Abort and went on
            raise _Abort(rec.aborted)
        v = _Variant()
        if isinstance(result, (tuple, list)) and type(result) in (tuple, list):
            v.container = type(result)
            returned = list(result)
        else:
            returned = [result]
        keys: List[int] = []       # graph outputs: pending placeholders, by id
        placeholders: Dict[int, torch.Tensor] = {}

        def graph_output(t: torch.Tensor) -> Tuple:
            if id(t) not in placeholders:
                placeholders[id(t)] = t
                keys.append(id(t))
            return ("out", id(t))

        def arg_of(t: torch.Tensor) -> Optional[Tuple]:
            """The argument a view t was made from (one sharing its storage)."""
            ptr = t.untyped_storage().data_ptr()
            found = [s for i, s in rec.arg_slot.items()
                     if slots[s].untyped_storage().data_ptr() == ptr]
            if len(found) > 1:
                raise _Abort("an output is a view of arguments that share memory")
            return ("arg", found[0]) if found else None

        def owner(t: torch.Tensor) -> torch.Tensor:
            """The first pending tensor over t's storage: t itself, or the
            result t aliases without being a view of it (t.detach())."""
            ptr = t.untyped_storage().data_ptr()
            if ptr == 0:  # empty tensors all have address 0
                return t
            for ref in rec.pending.values():
                p = ref()
                if p is not None and p._base is None and \
                        p.untyped_storage().data_ptr() == ptr:
                    return p
            return t

        for r in returned:
            if not isinstance(r, torch.Tensor):
                if r is not None and not isinstance(r, (bool, int, float, str)):
                    raise _Abort(f"fn returns a {type(r).__name__} (gpuos.jit returns "
                                 f"tensors, or a tuple or list of tensors and constants)")
                v.items.append(("const", r))
            elif rec.is_arg(r):
                v.items.append(("arg", rec.arg_slot[id(r)]))
            elif rec._is_pending(r):
                # A recorded view (x.t(), x.detach()) of an argument, or a
                # result (or a view of one) the graph computes.
                where = arg_of(r)
                base = None if where else owner(r._base if r._base is not None else r)
                if where is None:
                    where = graph_output(base)
                if r is base:
                    v.items.append(where)
                else:
                    origin = placeholders[where[1]] if where[0] == "out" else slots[where[1]]
                    v.items.append(("view", where, tuple(r.shape), r.stride(),
                                    r.storage_offset() - origin.storage_offset()))
            else:  # a tensor from outside fn (or a view PyTorch made of one)
                v.items.append(("ref", r))
        # A graph output whose value is an unchanged contiguous input
        # (x.clone()) is a copy per call, not a graph output: one copy per
        # recorded tensor (k), so two clones of one input stay two tensors.
        final: Dict[int, Tuple] = {}
        computed: List[int] = []
        for k in keys:
            src = rec.trace.unchanged_input(k)
            if src is not None:
                final[k] = ("clone", src if isinstance(src, tuple) else ("ref", src), k)
            else:
                final[k] = ("out", len(computed))
                computed.append(k)
        if computed:
            image = self.executor == "cuda"
            v.graph, v.sources = rec.trace.finish(computed, self.arch, image=image)
            v.metas = [placeholders[k] for k in computed]

        def resolve(item: Tuple) -> Tuple:
            if item[0] == "out":
                return final[item[1]]
            if item[0] == "view":
                return ("view", resolve(item[1])) + item[2:]
            return item
        v.items = [resolve(it) for it in v.items]
        outside = [s for s in v.sources if isinstance(s, torch.Tensor)]
        devices = [slots[s[1]].device for s in v.sources if isinstance(s, tuple)]
        devices += [t.device for t in outside] + [m.device for m in v.metas]
        v.device = devices[0] if devices else None
        return v

    # --- the generated runner -----------------------------------------------------
    def _runner(self, v: _Variant, key: Tuple, slots: List[Any]) -> Callable:
        """The per-call code of a variant, with what the recording fixed as
        constants: the guard, the output allocations, one launch, the
        result's structure. `slots`: the recorded call's arguments."""
        npos, kwnames, grad, modes, parts = key
        env: Dict[str, Any] = {"slow": self.slow, "autograd": self.autograd,
                               "Tensor": torch.Tensor,
                               "grad_enabled": torch.is_grad_enabled,
                               "DEV": v.device}
        # `matched`: slow() found this variant by its key, which is the
        # guard's ground truth; the guard is skipped, so a guard stricter
        # than the key can cost a slow call but never loop back into slow().
        lines = ["def run(a, kw, matched=False):"]
        if kwnames:
            lines.append(f"    if not matched and (len(a) != {npos} or len(kw) != {len(kwnames)}):")
        else:
            lines.append(f"    if not matched and (kw or len(a) != {npos}):")
        lines.append("        return slow(a, kw)")
        for slot in range(len(parts)):
            if slot < npos:
                lines.append(f"    t{slot} = a[{slot}]")
            else:
                env[f"N{slot}"] = kwnames[slot - npos]
                lines.append(f"    t{slot} = kw.get(N{slot}, slow)")
        checks, grads = [], []
        # Each tensor checked once: a repeated one is checked by identity.
        tensor_slots = [slot for slot, part in enumerate(parts)
                        if _is_tensor_part(part) and part[4] == slot]
        layout = _layout_guard([slots[slot] for slot in tensor_slots])
        for slot, part in enumerate(parts):
            x = f"t{slot}"
            if _is_tensor_part(part):
                shape, stride, dtype, device, first = part
                if first != slot:
                    checks.append(f"{x} is t{first}")
                    continue
                if layout:  # the rest, and requires_grad, in one check below
                    checks.append(f"isinstance({x}, Tensor)")
                    continue
                env[f"S{slot}"], env[f"R{slot}"] = torch.Size(shape), stride
                env[f"D{slot}"], env[f"V{slot}"] = dtype, device
                checks.append(f"isinstance({x}, Tensor) and {x}.shape == S{slot} and "
                              f"{x}.stride() == R{slot} and {x}.dtype is D{slot} and "
                              f"{x}.device == V{slot}")
                grads.append(f"{x}.requires_grad")
            elif part[0] is float:
                env[f"V{slot}"] = part[1]
                checks.append(f"type({x}) is float and {x}.hex() == V{slot}")
            elif part[0] in (int, bool, str, type(None)):
                env[f"T{slot}"], env[f"V{slot}"] = part
                checks.append(f"type({x}) is T{slot} and {x} == V{slot}")
            else:  # containers and other hashables: the whole stand-in
                env[f"K{slot}"], env["FROZEN_EQ"] = part, _frozen_equals
                checks.append(f"FROZEN_EQ({x}, K{slot})")
        if layout:
            env["LAYOUT"] = layout
            checks.append(f"LAYOUT({', '.join(f't{slot}' for slot in tensor_slots)})")
        checks.append("grad_enabled() is " + ("True" if grad else "False"))
        env["MODES"] = modes
        if len(modes) == 1:  # the common case: two cheap calls
            env["any_autocast"], env["default_dtype"] = (
                torch._C._is_any_autocast_enabled, torch.get_default_dtype)
            checks.append("not any_autocast() and default_dtype() is MODES[0]")
        else:
            env["modes"] = _modes
            checks.append("modes() == MODES")
        lines.append("    if not matched and not (" + " and\n            ".join(checks) + "):")
        lines.append("        return slow(a, kw)")
        outside = [s for s in v.sources if isinstance(s, torch.Tensor)]
        # The recording read outside tensors (closures, parameters) with
        # their layout then; one changed since (module.half(), w.data = ...)
        # would be read wrongly: the variant is recorded again.
        # A view the recording made of one (weight.t() in F.linear) is bound
        # itself: its base is guarded, and by address too (w.data = ... gives
        # the base new storage the old view does not see).
        same = []
        for j, src in enumerate(v.sources):
            if not isinstance(src, torch.Tensor):
                continue
            t, name = src, f"X{j}"
            env[name] = src
            if src._base is not None:
                t, name = src._base, f"XB{j}"
                env[name], env[f"XP{j}"] = t, t.data_ptr()
                same.append(f"{name}.data_ptr() == XP{j}")
            env[f"XD{j}"], env[f"XS{j}"], env[f"XR{j}"], env[f"XV{j}"] = (
                t.dtype, t.shape, t.stride(), t.device)
            same.append(f"{name}.dtype is XD{j} and {name}.shape == XS{j} and "
                        f"{name}.stride() == XR{j} and {name}.device == XV{j}")
        if same:
            env["stale"], env["KEY"] = self.stale, key
            lines.append("    if not (" + " and\n            ".join(same) + "):")
            lines.append("        return stale(KEY, a, kw)")
        if grad and outside:
            grads.append("OUTSIDE_GRAD()")
            env["OUTSIDE_GRAD"] = lambda: any(t.requires_grad for t in outside)
        if grad and grads:
            # Recorded with grad mode on and nothing requiring grad: a tensor
            # that requires grad now takes PyTorch (slow() says so).
            lines.append(f"    if {' or '.join(grads)}:")
            lines.append("        return autograd(a, kw)")
        if v.graph is not None:
            operands = []
            for j, src in enumerate(v.sources):
                if isinstance(src, tuple):
                    operands.append(f"t{src[1]}")
                else:
                    env[f"X{j}"] = src
                    operands.append(f"X{j}")
            lines += _executor.output_allocation(
                [(tuple(m.shape), m.stride(), m.dtype) for m in v.metas], env)
            operands += [f"o{j}" for j in range(len(v.metas))]
            if self.executor == "interpreter":
                env["launch"], env["stream"], env["IDX"] = _interpreter_launch(v.graph), None, 0
                lines.append(f"    launch(({', '.join(operands)},), None)")
            else:
                index = v.device.index or 0
                _executor.check_runtime_device(v.graph, v.metas)
                env["launch"] = device_for(index).launcher(v.graph, self.priority, self.arch)
                env["stream"], env["IDX"] = _executor.current_raw_stream, index
                lines.append(f"    launch(({', '.join(operands)},), stream(IDX))")
        # Each recorded clone is made once per call, so results that are the
        # same clone, or views of it, alias each other as in eager.
        clones: Dict[Tuple, str] = {}
        exprs = [self._expr(it, j, env, lines, clones) for j, it in enumerate(v.items)]
        if v.container is None:
            lines.append(f"    return {exprs[0]}")
        elif v.container is tuple:
            lines.append(f"    return ({''.join(e + ', ' for e in exprs)})")
        else:
            lines.append(f"    return [{', '.join(exprs)}]")
        text = "\n".join(lines) + "\n"
        exec(compile(text, f"<gpuos.jit {self.name}>", "exec"), env)
        env["run"].gpuos_source = text  # for debugging: the generated code
        return env["run"]

    @staticmethod
    def _expr(item: Tuple, j: int, env: Dict[str, Any], lines: List[str],
              clones: Dict[Tuple, str]) -> str:
        """The runner's expression for a returned item; a clone becomes a
        variable assigned in `lines` the first time it is named."""
        kind = item[0]
        if kind == "out":
            return f"o{item[1]}"
        if kind == "arg":
            return f"t{item[1]}"
        if kind == "ref" and item[1]._base is not None:
            # A view of an outside tensor: a new view object each call, as
            # eager makes (one object would carry a caller's t_() over).
            r = item[1]
            env[f"C{j}"], env[f"RS{j}"], env[f"RR{j}"] = r._base, tuple(r.shape), r.stride()
            env[f"RO{j}"] = r.storage_offset()
            return f"C{j}.as_strided(RS{j}, RR{j}, RO{j})"
        if kind in ("ref", "const"):
            env[f"C{j}"] = item[1]
            return f"C{j}"
        if kind == "clone":
            src, key = item[1], item[2]  # key: the recorded tensor it copies
            if key not in clones:
                clones[key] = f"cl{len(clones)}"
                base = _Jit._expr(src, j, env, lines, clones)
                lines.append(f"    {clones[key]} = {base}.clone()")
            return clones[key]
        # a view: rebuilt on this call's tensor at the recorded place
        base = _Jit._expr(item[1], j, env, lines, clones)
        env[f"VS{j}"], env[f"VR{j}"] = item[2], item[3]
        return f"{base}.as_strided(VS{j}, VR{j}, {base}.storage_offset() + {item[4]})"


def jit(fn: Optional[Callable] = None, *, priority: str = "normal", executor: str = "cuda",
        max_variants: int = 8, arch: str = "sm_90") -> Callable:
    """Runs fn as recorded gpuos graphs, one per input signature, without
    Dynamo (module docstring; docs/python.md). Usable as @gpuos.jit or
    @gpuos.jit(priority="urgent")."""
    if fn is None:
        return functools.partial(jit, priority=priority, executor=executor,
                                 max_variants=max_variants, arch=arch)
    if not callable(fn):
        raise TypeError(f"gpuos.jit takes a function, got {type(fn).__name__}")
    state = _Jit(fn, priority, executor, max_variants, arch)

    def call(*args, **kwargs):
        if _capture._entered:  # the launch reads data pointers, no aten op
            _capture.flush_active_captures()
        return state.fast(args, kwargs)
    functools.update_wrapper(call, fn, updated=())
    call.gpuos_jit = state
    return call


def clear_all() -> None:
    for j in list(_JITS):
        j.clear()
