"""A graph being recorded: the part both entry points share.

Calls arrive in program order with PyTorch tensors (or FX nodes) as
arguments; `Trace` lowers each one into a GraphBuilder at once, so an
unsupported call is known before it is accepted, and turns tensors that were
not produced inside the trace into named graph inputs. `finish` names the
outputs, prints the graph and compiles it.
"""

from __future__ import annotations

import functools
import hashlib
import re
from typing import Any, Callable, Dict, List, Optional, Tuple

import torch

from ._aten import lower, meta_type
from ._compiler import CompiledGraph, compile_graph
from ._graph import GraphBuilder, TensorType, Unsupported, Value


_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def node_source(node: Any) -> Optional[str]:
    """"path/model.py:42 in forward": the last frame of an FX node's stack
    trace (the user's line that made the op), or None without one."""
    meta = getattr(node, "meta", None)
    frames = _FRAME.findall((meta or {}).get("stack_trace") or "")
    if not frames:
        return None
    path, line, function = frames[-1]
    return f"{path}:{line} in {function}"


class Trace:
    def __init__(self, priority: str = "normal"):
        self.builder = GraphBuilder("pending", priority=priority)
        self.values: Dict[Any, Value] = {}        # key -> Value
        self.inputs: List[Tuple[str, Any]] = []   # (name, source object)
        self.num_calls = 0

    def empty(self) -> bool:
        return self.num_calls == 0

    def has(self, key: Any) -> bool:
        return key in self.values

    def input(self, key: Any, source: Any, type_: TensorType) -> Value:
        """The Value of an outside tensor, adding a graph input once. An
        empty one is Unsupported: its data pointer is null, which the
        runtime does not bind (PyTorch runs what reads it)."""
        if key not in self.values:
            if 0 in type_.shape:
                raise Unsupported(f"an empty input tensor (shape {list(type_.shape)})")
            name = f"in{len(self.inputs)}"
            self.values[key] = self.builder.add_input(name, type_)
            self.inputs.append((name, source))
        return self.values[key]

    def unchanged_input(self, key: Any) -> Optional[Any]:
        """The source of the graph input a key's value is, unchanged and
        contiguous (finish refuses it as an output: the caller copies it)."""
        value = self.values.get(key)
        if value is None or not value.type.contiguous:
            return None
        for (_, src), (_, v) in zip(self.inputs, self.builder.inputs):
            if v is value:
                return src
        return None

    def call(self, op, args, kwargs, out, resolve: Callable[[Any], Any]) -> Any:
        """Lowers op(*args, **kwargs); `resolve` maps an argument leaf to a
        Value (or returns it unchanged). Returns the Value(s)."""
        def walk(x):
            if isinstance(x, (list, tuple)):
                return type(x)(walk(i) for i in x)
            return resolve(x)
        result = lower(self.builder, op, walk(tuple(args)),
                       {k: walk(v) for k, v in kwargs.items()}, out)
        self.num_calls += 1
        return result

    def bind(self, key: Any, value: Optional[Value]) -> None:
        if value is not None:
            self.values[key] = value

    def finish(self, outputs: List[Any], arch: str, image: bool) -> Tuple[CompiledGraph, List[Any]]:
        """Compiles with `outputs` (keys) as the graph's outputs; returns the
        graph and the sources of its inputs, in order."""
        b = self.builder
        b.where = None  # the copies of view outputs below come from no user line
        for i, key in enumerate(outputs):
            value = self.values.get(key)
            if value is None:
                raise Unsupported("an output gpuos cannot compute (a norm's statistics)")
            if self.unchanged_input(key) is not None:
                # A same-type cast would fold away; the caller copies it.
                raise Unsupported("an output that is an unchanged input")
            if not value.type.contiguous:
                # Outputs are written densely: a view is copied.
                value = b.op(f"gpuos.cast {value.name} : {value.type} to {value.type.dtype}",
                             value.type.with_dtype(value.type.dtype), [value])
            b.add_output(f"out{i}", value)
        # The name is the content's hash, so the same graph always has the
        # same name (and kinds) and a union image never holds two versions.
        body = b.to_mlir()
        digest = hashlib.sha256(body.encode()).hexdigest()[:12]
        b.name = f"g{digest}"
        text, sources = b.to_mlir_with_sources()
        graph = compile_graph(text, b.name, [(n, v.type) for n, v in b.inputs],
                              [(n, v.type) for n, v in b.outputs], arch=arch, image=image,
                              sources=sources)
        if image:
            limit = max_graph_tiles()
            if graph.tiles > limit:
                raise Unsupported(f"the graph has {graph.tiles} tiles; the runtime admits at "
                                  f"most {limit} in flight")
        return graph, [src for _, src in self.inputs]


@functools.lru_cache(maxsize=None)
def max_graph_tiles() -> int:
    """The most tiles one graph may have on the runtimes gpuos._C opens (the
    runtime's own answer for its default queue capacity: 32768). A larger
    graph (one op over 2 GiB of f32: 65536 tiles of 8192 elements) runs in
    PyTorch."""
    from . import _C
    return _C.max_graph_tiles()


def tensor_type(t: torch.Tensor) -> TensorType:
    return meta_type(t)
