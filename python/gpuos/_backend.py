"""torch.compile(model, backend="gpuos").

Dynamo hands over an FX graph; aot_autograd turns it into a functional graph
of aten ops (no in-place ops, no aliasing left to honour). Supported nodes
are grouped by torch.fx's capability partitioner into subgraphs, each
compiled into one gpuos graph; the rest stays in PyTorch. Every split is
reported: a log line (logger "gpuos", INFO) naming the ops that stay in
PyTorch, and the counters `splits` and `fallback_ops` in gpuos.stats().

Options (torch.compile(..., options={...})): priority ("urgent", "normal",
"background"), executor ("cuda", or "interpreter" for CPU tensors in tests),
max_variants (compiled shape/layout variants per subgraph, default 8).
Under autograd (an input requiring grad with grad mode on) the whole graph
runs in PyTorch, logged and counted (autograd_fallbacks): gpuos computes no
gradients.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any, Dict, List, Tuple

import torch
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase

from . import _stats
from ._aten import check_same_device, meta_type
from ._compiler import CompileError
from ._executor import check_priority, run_gpu, run_interpreter
from ._graph import TensorType, Unsupported, Value
from ._trace import Trace

log = logging.getLogger("gpuos")


def _val(node):
    return node.meta.get("val") if hasattr(node, "meta") else None


def _hint(x):
    """A SymInt's example value (dynamic shapes), else x."""
    if isinstance(x, torch.SymInt):
        return x.node.hint
    return x


def _concrete(v):
    """A meta tensor with the example sizes of a (possibly symbolic) one."""
    if isinstance(v, torch.Tensor):
        return torch.empty_strided([_hint(d) for d in v.shape],
                                   [_hint(s) for s in v.stride()],
                                   dtype=v.dtype, device="meta")
    if isinstance(v, (tuple, list)):
        return type(v)(_concrete(i) for i in v)
    return _hint(v)


def _fetch_attr(gm, target: str):
    value = gm
    for part in target.split("."):
        value = getattr(value, part)
    return value


class _MetaRun(torch.fx.Interpreter):
    """Runs a subgraph on meta tensors to get every node's concrete result
    for one set of input sizes (node.meta may hold symbolic ones)."""

    def __init__(self, gm):
        super().__init__(gm)
        self.results = {}

    def call_function(self, target, args, kwargs):
        if "device" in kwargs:  # factories (full, scalar_tensor) stay on meta
            kwargs = dict(kwargs, device=torch.device("meta"))
        return super().call_function(target, args, kwargs)

    def get_attr(self, target, args, kwargs):
        value = super().get_attr(target, args, kwargs)
        if isinstance(value, torch.Tensor):
            return torch.empty_strided(value.shape, value.stride(),
                                       dtype=value.dtype, device="meta")
        return value

    def run_node(self, n):
        result = super().run_node(n)
        self.results[n] = result
        return result


class _Support(OperatorSupportBase):
    """A node is supported when its lowering succeeds on its own."""

    def __init__(self, device_type: str):
        self.device_type = device_type
        self.reasons: Dict[str, str] = {}

    def is_node_supported(self, submodules, node) -> bool:
        if node.op != "call_function":
            return False
        try:
            self._try(node)
            return True
        except Unsupported as e:
            self.reasons[str(node.target)] = str(e)
            return False

    def _try(self, node) -> None:
        out = _val(node)
        if out is None:
            raise Unsupported("no shape information")
        trace = Trace()
        leaves = []

        def resolve(x):
            if isinstance(x, torch.fx.Node):
                v = _val(x)
                if isinstance(v, torch.SymInt):
                    return _hint(v)
                if not isinstance(v, torch.Tensor):
                    raise Unsupported(f"argument {x} is not a tensor")
                if v.device.type != self.device_type:
                    raise Unsupported(f"a tensor on {v.device}")
                check_same_device(node.target, node.kwargs, v.device)
                v = _concrete(v)
                return trace.input(x, x, meta_type(v))
            return x
        outs = out if isinstance(out, (tuple, list)) else [out]
        for o in outs:
            if isinstance(o, torch.Tensor) and o.device.type != self.device_type:
                raise Unsupported(f"a result on {o.device}")
        trace.call(node.target, node.args, node.kwargs, _concrete(out), resolve)


def _structure(gm: torch.fx.GraphModule) -> str:
    """The subgraph's ops and wiring without node names or sizes, so
    Dynamo's recompilations of one function map to one key."""
    index = {}
    parts = []

    def ref(x):
        if isinstance(x, torch.fx.Node):
            return f"#{index[x]}"
        if isinstance(x, (list, tuple)):
            return "[" + ",".join(ref(i) for i in x) + "]"
        return "?" if isinstance(x, torch.SymInt) else repr(x)
    for i, node in enumerate(gm.graph.nodes):
        index[node] = i
        kwargs = ",".join(f"{k}={ref(v)}" for k, v in sorted(node.kwargs.items()))
        parts.append(f"{node.op}:{node.target if node.op != 'placeholder' else ''}"
                     f"({ref(node.args)};{kwargs})")
    return "\n".join(parts)


# Compiled variants per subgraph structure (FX code names no sizes), shared by
# Dynamo's recompilations of one function, so the cap bounds them all.
_VARIANTS: Dict[str, Dict[Tuple, Any]] = {}
_WARNED = set()


class _Subgraph:
    """One partition: compiled per input layout (shape, strides, dtype)."""

    def __init__(self, gm: torch.fx.GraphModule, name: str, options: Dict[str, Any]):
        self.gm = gm
        self.name = name
        self.priority = options["priority"]
        self.executor = options["executor"]
        self.max_variants = options["max_variants"]
        self.arch = options.get("arch", "sm_90")
        self.code = _structure(gm)
        self.variants = _VARIANTS.setdefault(self.code, {})

    def _compile(self, inputs: List[Any]):
        trace = Trace(self.priority)
        placeholders = [n for n in self.gm.graph.nodes if n.op == "placeholder"]
        metas = [torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")
                 if isinstance(t, torch.Tensor) else t for t in inputs]
        run = _MetaRun(self.gm)
        run.run(*metas)
        ints = {}
        for index, (node, t) in enumerate(zip(placeholders, inputs)):
            if isinstance(t, torch.Tensor):
                trace.input(node, index, meta_type(t))
            else:
                ints[node] = t  # a size (dynamic shapes): a constant here
        for node in self.gm.graph.nodes:
            if node.op == "get_attr":
                # A lifted constant: one more graph input, bound from here.
                value = _fetch_attr(self.gm, node.target)
                trace.input(node, ("attr", value), meta_type(value))
        output_node = next(n for n in self.gm.graph.nodes if n.op == "output")

        def resolve(x):
            if isinstance(x, torch.fx.Node):
                return ints[x] if x in ints else trace.values[x]
            return x
        for node in self.gm.graph.nodes:
            if node.op != "call_function":
                continue
            if node.target is __import__("operator").getitem:
                source = trace.values.get(node.args[0])
                value = source[node.args[1]] if isinstance(source, tuple) else None
                trace.bind(node, value)
                continue
            out = run.results[node]
            if not isinstance(out, (torch.Tensor, tuple, list)):
                ints[node] = out  # sym_size and friends: plain ints here
                continue
            result = trace.call(node.target, node.args, node.kwargs, out, resolve)
            if isinstance(result, tuple):
                trace.values[node] = result
            else:
                trace.bind(node, result)
        outs = output_node.args[0]
        outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
        graph, order = trace.finish(outs, self.arch, image=True)
        return graph, order, [run.results[o] for o in outs]

    def _in_pytorch(self, inputs):
        out = self.gm(*inputs)
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)

    def __call__(self, *inputs):
        key = tuple((tuple(t.shape), t.stride(), t.dtype, t.device)
                    if isinstance(t, torch.Tensor) else t for t in inputs)
        entry = self.variants.get(key)
        if key not in self.variants:
            if len(self.variants) >= self.max_variants:
                _stats.bump("variant_cap_hits")
                if self.code not in _WARNED:
                    warnings.warn(
                        f"gpuos: a subgraph reached max_variants="
                        f"{self.max_variants} compiled input shapes/layouts; "
                        f"new ones run in PyTorch")
                    _WARNED.add(self.code)
                return self._in_pytorch(inputs)
            try:
                entry = self._compile(list(inputs))
            except (CompileError, Unsupported) as e:
                # This variant stays in PyTorch (remembered: no retry per call).
                log.warning("gpuos: a subgraph of %d ops runs in PyTorch: %s",
                            sum(n.op == "call_function" for n in self.gm.graph.nodes), e)
                _stats.bump("compile_fallbacks")
                entry = None
            self.variants[key] = entry
            _stats.bump("variants")
        if entry is None:
            return self._in_pytorch(inputs)
        graph, order, metas = entry
        tensors = [inputs[i] if isinstance(i, int) else i[1] for i in order]
        device = next((t.device for t in inputs if isinstance(t, torch.Tensor)),
                      torch.device("cpu"))
        outs = [torch.empty(m.shape, dtype=m.dtype, device=device) for m in metas]
        if self.executor == "interpreter":
            for o, v in zip(outs, run_interpreter(graph, tensors)):
                o.copy_(v)
        else:
            run_gpu(graph, tensors, outs, self.priority, self.arch)
        return tuple(outs)


def _options(kwargs) -> Dict[str, Any]:
    opts = dict(kwargs.get("options") or {})
    unknown = set(opts) - {"priority", "executor", "max_variants", "arch"}
    if unknown:
        raise ValueError(f"gpuos backend: unknown options {sorted(unknown)}; "
                         f"known: priority, executor, max_variants, arch")
    opts.setdefault("priority", "normal")
    opts.setdefault("executor", "cuda")
    opts.setdefault("max_variants", 8)
    check_priority(opts["priority"])
    if opts["executor"] not in ("cuda", "interpreter"):
        raise ValueError(f"gpuos backend: executor {opts['executor']!r}: use 'cuda' or 'interpreter'")
    return opts


def _partition(gm: torch.fx.GraphModule, options) -> torch.fx.GraphModule:
    support = _Support("cpu" if options["executor"] == "interpreter" else "cuda")
    partitioner = CapabilityBasedPartitioner(gm, support, allows_single_node_partition=True)
    partitions = partitioner.propose_partitions()
    fused = partitioner.fuse_partitions(partitions)
    others = [n for n in fused.graph.nodes if n.op == "call_function"]
    if others:
        names = sorted({str(n.target) for n in others})
        _stats.bump("splits", len(partitions))
        _stats.bump("fallback_ops", len(others))
        log.info("gpuos: %d op(s) stay in PyTorch (%s); the graph is split into %d "
                 "gpuos subgraph(s) around them", len(others),
                 "; ".join(f"{n}: {support.reasons.get(n, 'unsupported')}" for n in names),
                 len(partitions))
    for node in list(fused.graph.nodes):
        if node.op == "call_module" and node.target.startswith("fused_"):
            sub = getattr(fused, node.target)
            setattr(fused, node.target, _Module(_Subgraph(sub, node.target, options)))
    fused.recompile()
    return fused


class _Module(torch.nn.Module):
    def __init__(self, sub: _Subgraph):
        super().__init__()
        self.sub = sub

    def forward(self, *inputs):
        outs = self.sub(*inputs)
        return outs if len(outs) != 1 else outs[0]


def gpuos_backend(gm: torch.fx.GraphModule, example_inputs, **kwargs):
    options = _options(kwargs)
    if torch.is_grad_enabled() and any(
            isinstance(t, torch.Tensor) and t.requires_grad for t in example_inputs):
        _stats.bump("autograd_fallbacks")
        log.info("gpuos: inputs require grad; this graph runs in PyTorch (gpuos computes no gradients)")
        return gm.forward
    from torch._dynamo.backends.common import aot_autograd
    from functorch.compile import make_boxed_func

    def fw_compiler(fx: torch.fx.GraphModule, inputs):
        return make_boxed_func(_partition(fx, options).forward)
    return aot_autograd(fw_compiler=fw_compiler)(gm, example_inputs)
