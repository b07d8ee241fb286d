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
import operator
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase

from . import _stats
from ._aten import check_same_device, meta_type
from ._compiler import CompileError
from . import _executor
from ._executor import check_count, check_priority, check_runtime_device, device_for, run_interpreter
from ._graph import TensorType, Unsupported, Value
from ._trace import Trace, node_source

log = logging.getLogger("gpuos")


def _val(node):
    return node.meta.get("val") if hasattr(node, "meta") else None


def _hint(x):
    """A SymInt's example value (dynamic shapes), else x. A size known only
    from the data (nonzero, a boolean mask, .item()) has none: Unsupported,
    so the op runs in PyTorch."""
    if isinstance(x, torch.SymInt):
        if x.node.hint is None:
            raise Unsupported(f"a size that depends on the data ({x})")
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
            if node.target is operator.getitem:
                # An item of a supported op's results (native_layer_norm's
                # output) joins its partition; a statistic gpuos does not
                # compute stays out. Left unsupported, the getitem would cut
                # a chain of norms into one subgraph per norm.
                source = node.args[0]
                if not isinstance(source, torch.fx.Node) or source.op != "call_function":
                    raise Unsupported("an item of a non-op")
                result = self._try(source)
                if not isinstance(result, (tuple, list)) or result[node.args[1]] is None:
                    raise Unsupported(f"item {node.args[1]} of {source.target} (gpuos does not compute it)")
                return True
            self._try(node)
            return True
        except Unsupported as e:
            self.reasons[str(node.target)] = str(e)
            return False

    def _try(self, node):
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
        return trace.call(node.target, node.args, node.kwargs, _concrete(out), resolve)


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
_VARIANTS: Dict[Tuple, Dict[Tuple, Any]] = {}
_WARNED = set()


# View ops that read their base's layout (as_strided and friends) give
# other elements on gpuos's row-major results than on eager's; they are
# copied instead of replayed.
_LAYOUT_VIEWS = {"as_strided", "_reshape_alias", "view_as_real", "view_as_complex"}


def _replayable_view(node) -> bool:
    target = node.target
    return (node.op == "call_function" and isinstance(target, torch._ops.OpOverload)
            and target.is_view and target._schema.name.split("::")[-1] not in _LAYOUT_VIEWS
            and len(node.args) >= 1 and isinstance(node.args[0], torch.fx.Node)
            and not any(isinstance(v, torch.fx.Node) for v in node.kwargs.values()))


def _size_args(args, ints: Dict[Any, Any]) -> Optional[Tuple]:
    """A view op's arguments after its base with sizes (sym nodes) made
    ints, or None when one is a tensor value (not a plain view)."""
    def size(x):
        if isinstance(x, torch.fx.Node):
            if x not in ints:
                raise KeyError(x)
            return ints[x]
        if isinstance(x, (list, tuple)):
            return type(x)(size(e) for e in x)
        return x
    try:
        return tuple(size(a) for a in args)
    except KeyError:
        return None


def _view_root(node, stop, ints: Dict[Any, Any]) -> Tuple[Any, List[Tuple]]:
    """The node a chain of replayable view ops starts from (the first node
    in stop, or where the chain ends) and the ops, last first."""
    steps = []
    while _replayable_view(node):
        rest = _size_args(node.args[1:], ints)
        if rest is None:
            break
        steps.append((node.target, rest, dict(node.kwargs)))
        node = node.args[0]
        if node in stop:
            break
    return node, steps


def _output_views(outs: List[Any], placeholders: List[Any], ints: Dict[Any, Any]):
    """Outputs that are views (`return y, y.t()`), by position: (their base,
    a function that makes the view from the base's tensor by replaying the
    view ops in order), and the nodes computed only as such bases. Eager
    returns views sharing their base's storage, so the runner makes them
    from the base instead of writing a separate copy. A base is
    ("out", position) of the nearest output viewed, ("in", index) of a
    subgraph input (a result PyTorch computed before the subgraph), or
    ("hidden", k), the k-th of the intermediates that two or more outputs
    view (`return y[0], y.t()`): computed as extra graph outputs so the
    views share memory as in eager; one view of an intermediate stays a
    dense copy (no other output can tell)."""
    position = {}
    for i, o in enumerate(outs):
        if isinstance(o, torch.fx.Node):
            position.setdefault(o, i)
    inputs = {n: k for k, n in enumerate(placeholders)}
    stop = set(position) | set(inputs)
    views: Dict[int, Tuple[Tuple[str, int], Callable]] = {}
    of_intermediate: Dict[Any, List[Tuple[int, Callable]]] = {}
    for i, o in enumerate(outs):
        if not isinstance(o, torch.fx.Node) or position[o] != i:
            continue
        root, steps = _view_root(o, stop, ints)
        if not steps:
            continue
        make = _replay(tuple(reversed(steps)))
        if root in position:
            views[i] = (("out", position[root]), make)
        elif root in inputs:
            views[i] = (("in", inputs[root]), make)
        elif root.op == "call_function":
            of_intermediate.setdefault(root, []).append((i, make))
    hidden = [root for root, made in of_intermediate.items() if len(made) > 1]
    for k, root in enumerate(hidden):
        for i, make in of_intermediate[root]:
            views[i] = (("hidden", k), make)
    return views, hidden


def _replay(ops: Tuple) -> Callable:
    """A function applying the view ops (target, args, kwargs) in order."""
    def make(t):
        for target, args, kwargs in ops:
            t = target(t, *args, **kwargs)
        return t
    return make


def _all_outputs(count: int, computed: List[Any], views: Dict[int, Tuple[Tuple[str, int], Callable]],
                 inputs: Sequence[Any]) -> List[Any]:
    """The subgraph's count outputs in order: the computed ones, and the
    views (`_output_views`) made from their bases: an output, an input, or
    one of the hidden bases computed after the outputs."""
    full: List[Any] = [None] * count
    it = iter(computed)
    for i in range(count):
        if i not in views:
            full[i] = next(it)
    hidden = list(it)

    def get(i):
        if full[i] is None:
            (kind, k), make = views[i]
            base = get(k) if kind == "out" else inputs[k] if kind == "in" else hidden[k]
            full[i] = make(base)
        return full[i]
    return [get(i) for i in range(count)]


def _runner(sub: "_Subgraph", key: Tuple, entry, inputs) -> Callable:
    """The per-call code of one compiled variant on the runtime, generated
    with everything known at compile time as constants: it checks that the
    inputs still have the variant's layout (else sub._slow; skipped when
    Dynamo's guards already fix it, sub.guarded), allocates the outputs and
    makes one native call that binds, waits for the PyTorch stream, submits
    and waits for that submission."""
    graph, order, metas, views = entry
    device = next((k[3] for k in key if isinstance(k, tuple)), None)
    if device is None:  # only factories: the subgraph's result device
        device = sub.out_device
    index = device.index or 0
    launcher = device_for(index).launcher(graph, sub.priority, sub.arch)
    env: Dict[str, Any] = {"slow": sub._slow, "launch": launcher, "DEV": device,
                           "IDX": index, "stream": _executor.current_raw_stream}
    lines, checks, operands = ["def run(a):"], [], []
    perm = sub.perm or range(len(key))
    for i, (k, j) in enumerate(zip(key, perm)):
        if isinstance(k, tuple):
            shape, stride, dtype, _ = k
            env[f"S{i}"], env[f"R{i}"], env[f"D{i}"] = inputs[i].shape, stride, dtype
            lines.append(f"    t{i} = a[{j}]")
            checks.append(f"t{i}.shape == S{i} and t{i}.stride() == R{i} and "
                          f"t{i}.dtype is D{i} and t{i}.device == DEV")
        else:
            env[f"V{i}"] = k
            checks.append(f"a[{j}] == V{i}")
    for j, source in enumerate(order):
        if isinstance(source, int):
            operands.append(f"t{source}")
        else:  # a lifted constant: kept on the device with the variant
            env[f"K{j}"] = source[1].to(device)
            operands.append(f"K{j}")
    if checks and not sub.guarded:
        lines.append("    if not (" + " and\n            ".join(checks) + "):")
        lines.append("        return slow(a)")
    lines += _executor.output_allocation(
        [(tuple(m.shape), _executor.dense_strides(m.shape), m.dtype) for m in metas], env)
    operands += [f"o{j}" for j in range(len(metas))]
    lines.append(f"    launch(({', '.join(operands)},), stream(IDX))")
    if views:
        env["all_outputs"], env["VIEWS"] = _all_outputs, views
        names = ", ".join(f"o{j}" for j in range(len(metas)))
        tensors = ", ".join(f"t{i}" if isinstance(k, tuple) else "None" for i, k in enumerate(key))
        lines.append(f"    {', '.join(f'o{j}' for j in range(sub.num_outputs))}, = "
                     f"all_outputs({sub.num_outputs}, [{names}], VIEWS, [{tensors}])")
    outs = [f"o{j}" for j in (sub.out_perm or range(sub.num_outputs))]
    if not sub.tuple_out:
        lines.append("    return o0")
    else:
        lines.append(f"    return ({', '.join(outs)},)")
    code = compile("\n".join(lines) + "\n", f"<gpuos {sub.name} {graph.name}>", "exec")
    exec(code, env)
    return env["run"]


class _Subgraph:
    """One partition: compiled per input layout (shape, strides, dtype).

    Called with the partition's inputs; returns what the partition's module
    returns (one tensor, or a tuple). The last variant used answers first
    (`_fast`): its generated runner checks the layout and runs; anything
    else goes through `_slow`, which finds, compiles or caps variants."""

    def __init__(self, gm: torch.fx.GraphModule, name: str, options: Dict[str, Any]):
        self.gm = gm
        self.name = name
        self.priority = options["priority"]
        self.executor = options["executor"]
        self.max_variants = options["max_variants"]
        self.arch = options.get("arch", "sm_90")
        self.code = _structure(gm)
        # The options change the compiled graph (its priority, the target):
        # part of the key, so a subgraph compiled with others is not reused.
        self.variants_key = (self.code, self.priority, self.executor, self.arch)
        self.variants = _VARIANTS.setdefault(self.variants_key, {})
        self.runners: Dict[Tuple, Callable] = {}
        output = next(n for n in gm.graph.nodes if n.op == "output").args[0]
        # fuse_partitions' convention: one output bare, several in a tuple
        # (the caller unpacks them with getitem); _direct asks for a tuple.
        self.tuple_out = isinstance(output, (tuple, list))
        outs = list(output) if self.tuple_out else [output]
        self.num_outputs = len(outs)
        self.out_device = next((_val(n).device for n in outs if isinstance(_val(n), torch.Tensor)),
                               torch.device("cpu"))
        self.guarded = False  # the caller guarantees the compiled layout
        # When set, _fast and _slow take the graph's inputs and input i of
        # the subgraph is inputs[perm[i]]; they return output out_perm[k]
        # of the subgraph in place k.
        self.perm = None
        self.out_perm = None
        self._fast = self._slow

    def __call__(self, *inputs):
        return self._fast(inputs)

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
            if node.target is operator.getitem:
                source = trace.values.get(node.args[0])
                value = source[node.args[1]] if isinstance(source, tuple) else None
                trace.bind(node, value)
                continue
            out = run.results[node]
            if not isinstance(out, (torch.Tensor, tuple, list)):
                ints[node] = out  # sym_size and friends: plain ints here
                continue
            trace.builder.where = node_source(node)
            result = trace.call(node.target, node.args, node.kwargs, out, resolve)
            if isinstance(result, tuple):
                trace.values[node] = result
            else:
                trace.bind(node, result)
        outs = output_node.args[0]
        outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
        views, hidden = _output_views(outs, placeholders, ints)
        computed = [o for i, o in enumerate(outs) if i not in views] + hidden
        graph, order = trace.finish(computed, self.arch, image=True)
        return graph, order, [run.results[o] for o in computed], views

    def _result(self, outs):
        if not self.tuple_out:
            return outs[0]
        if self.out_perm is not None:
            return tuple(outs[j] for j in self.out_perm)
        return tuple(outs)

    def _in_pytorch(self, inputs):
        out = self.gm(*inputs)
        return self._result(tuple(out) if isinstance(out, (tuple, list)) else (out,))

    def _slow(self, given):
        inputs = given if self.perm is None else tuple(given[j] for j in self.perm)
        key = tuple((tuple(t.shape), t.stride(), t.dtype, t.device)
                    if isinstance(t, torch.Tensor) else t for t in inputs)
        entry = self.variants.get(key)
        if key not in self.variants:
            if len(self.variants) >= self.max_variants:
                _stats.bump("variant_cap_hits")
                if self.variants_key not in _WARNED:
                    warnings.warn(
                        f"gpuos: a subgraph reached max_variants="
                        f"{self.max_variants} compiled input shapes/layouts; "
                        f"new ones run in PyTorch")
                    _WARNED.add(self.variants_key)
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
        if self.executor == "interpreter":
            graph, order, metas, views = entry
            tensors = [inputs[i] if isinstance(i, int) else i[1] for i in order]
            device = next((t.device for t in inputs if isinstance(t, torch.Tensor)),
                          torch.device("cpu"))
            outs = [torch.empty(m.shape, dtype=m.dtype, device=device) for m in metas]
            for o, v in zip(outs, run_interpreter(graph, tensors)):
                o.copy_(v)
            return self._result(_all_outputs(self.num_outputs, outs, views, inputs))
        runner = self.runners.get(key)
        if runner is None:
            check_runtime_device(entry[0], [t for t in inputs if isinstance(t, torch.Tensor)]
                                 or [torch.empty(0, device=self.out_device)])
            runner = self.runners[key] = _runner(self, key, entry, inputs)
        self._fast = runner
        return runner(given)


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
    check_count("max_variants", opts["max_variants"])
    return opts


def _partition(gm: torch.fx.GraphModule, options) -> Callable:
    """Splits `gm` around what gpuos cannot run; returns its forward (the
    graph's inputs spread, its outputs as a tuple)."""
    support = _Support("cpu" if options["executor"] == "interpreter" else _executor.RUNTIME_DEVICE_TYPE)
    partitioner = CapabilityBasedPartitioner(gm, support, allows_single_node_partition=True)
    partitions = partitioner.propose_partitions()
    fused = partitioner.fuse_partitions(partitions)
    # What stays in PyTorch: call_function nodes, less the getitems that
    # unpack a subgraph's or an op's outputs (not ops of their own).
    others = [n for n in fused.graph.nodes
              if n.op == "call_function" and n.target is not operator.getitem]
    if others:
        names = sorted({str(n.target) for n in others})
        _stats.bump("splits", len(partitions))
        _stats.bump("fallback_ops", len(others))
        log.info("gpuos: %d op(s) stay in PyTorch (%s); the graph is split into %d "
                 "gpuos subgraph(s) around them", len(others),
                 "; ".join(f"{n}: {support.reasons.get(n, 'unsupported')}" for n in names),
                 len(partitions))
    subs = [(node, _Subgraph(getattr(fused, node.target), node.target, options))
            for node in fused.graph.nodes
            if node.op == "call_module" and node.target.startswith("fused_")]
    direct = _direct(fused, subs)
    if direct is not None:
        return direct
    # The subgraphs become plain calls in the generated forward (no
    # nn.Module call per subgraph).
    for node, sub in subs:
        with fused.graph.inserting_before(node):
            call = fused.graph.call_function(_entry(sub), tuple(node.args), dict(node.kwargs))
        call.meta = node.meta
        node.replace_all_uses_with(call)
        fused.graph.erase_node(node)
        delattr(fused, node.target)
    fused.recompile()
    if hasattr(fused, "real_recompile"):  # a lazy module: generate the code now
        fused.real_recompile()
    return fused.forward


def _entry(sub: _Subgraph) -> Callable:
    def entry(*inputs):
        return sub._fast(inputs)
    entry.__name__ = entry.__qualname__ = sub.name
    return entry


def _direct(fused: torch.fx.GraphModule, subs) -> Callable:
    """When the whole graph is one subgraph that takes each of the graph's
    inputs once and gives each of its outputs once (in any order), that
    subgraph is the forward (its runner reads and returns them in place)."""
    if len(subs) != 1:
        return None
    node, sub = subs[0]
    nodes = list(fused.graph.nodes)
    placeholders = [n for n in nodes if n.op == "placeholder"]
    output = nodes[-1]
    if output.op != "output" or not isinstance(output.args[0], (tuple, list)):
        return None
    if (node.kwargs or len(node.args) != len(placeholders)
            or set(node.args) != set(placeholders)):
        return None
    outs = list(output.args[0])
    rest = [n for n in nodes if n.op not in ("placeholder", "output") and n is not node]
    if sub.num_outputs == 1 and not rest:
        if outs != [node]:
            return None
        out_perm = (0,)
    else:
        # fuse_partitions unpacks several outputs with getitem nodes.
        if (len(outs) != sub.num_outputs or len(set(outs)) != len(outs)
                or set(rest) != set(outs) or any(
                    o.op != "call_function" or o.target is not operator.getitem
                    or len(o.args) != 2 or o.args[0] is not node for o in outs)):
            return None
        out_perm = tuple(o.args[1] for o in outs)
        if sorted(out_perm) != list(range(sub.num_outputs)):
            return None
    sub.tuple_out = True
    if out_perm != tuple(range(sub.num_outputs)):
        sub.out_perm = out_perm
    if list(node.args) != placeholders:  # the subgraph takes them in another order
        sub.perm = tuple(placeholders.index(a) for a in node.args)

    def forward(*inputs):
        return sub._fast(inputs)
    forward.gpuos_subgraph = sub
    return forward


def _plain_calling_convention(gm: torch.fx.GraphModule, example_inputs,
                              fx: torch.fx.GraphModule) -> bool:
    """Whether aot_autograd's runtime wrapper around the forward compiled
    for `gm` would only call it: an inference graph whose inputs are passed
    as they come (no parameters lifted, no duplicates merged, no tensor
    subclasses, no effect tokens or RNG state) and whose outputs need no
    epilogue (no input mutated, no output aliasing an input or another
    output). Then Dynamo can call the forward directly."""
    try:
        from torch._guards import TracingContext
        from torch._functorch._aot_autograd.schemas import OutputType, SubclassCreationMeta
        from torch.utils._python_dispatch import is_traceable_wrapper_subclass
        ctx = TracingContext.try_get()
        meta = getattr(ctx, "fw_metadata", None)
        if meta is None or meta.is_train or torch._C._is_any_autocast_enabled():
            return False
        placeholders = [n for n in fx.graph.nodes if n.op == "placeholder"]
        tensors = [t for t in example_inputs if isinstance(t, torch.Tensor)]
        if (len(placeholders) != len(example_inputs)
                or len({id(t) for t in tensors}) != len(tensors)
                or any(is_traceable_wrapper_subclass(t) for t in tensors)
                or any(True for _ in gm.parameters()) or any(True for _ in gm.buffers())):
            return False
        return (not any(i.mutates_data or i.mutates_metadata for i in meta.input_info)
                and all(o.output_type == OutputType.non_alias for o in meta.output_info)
                and meta.num_intermediate_bases == 0
                and not meta.tokens
                and not meta.is_rng_op_functionalized
                and not meta.dynamic_outputs
                and meta.grad_enabled_mutation is None
                and not any(isinstance(m, SubclassCreationMeta)
                            for m in list(meta.subclass_inp_meta) + list(meta.subclass_fw_graph_out_meta)))
    except (ImportError, AttributeError):  # another PyTorch: keep its wrapper
        return False


def _static(fx: torch.fx.GraphModule) -> bool:
    """Whether every input of `fx` is a tensor of static sizes and strides."""
    for node in fx.graph.nodes:
        if node.op != "placeholder":
            continue
        v = _val(node)
        if not isinstance(v, torch.Tensor) or not all(
                type(d) is int for d in list(v.shape) + list(v.stride())):
            return False
    return True


def gpuos_backend(gm: torch.fx.GraphModule, example_inputs, **kwargs):
    options = _options(kwargs)
    # Parameters reach the graph as inputs, or (without Dynamo's inlining of
    # nn modules) as attributes of `gm`: either kind that requires grad.
    if torch.is_grad_enabled() and (
            any(isinstance(t, torch.Tensor) and t.requires_grad for t in example_inputs)
            or any(p.requires_grad for p in gm.parameters())):
        _stats.bump("autograd_fallbacks")
        log.info("gpuos: inputs require grad; this graph runs in PyTorch (gpuos computes no gradients)")
        return gm.forward
    from torch._dynamo.backends.common import aot_autograd
    compiled: Dict[str, Any] = {}

    def fw_compiler(fx: torch.fx.GraphModule, inputs):
        forward = _partition(fx, options)
        compiled["forward"] = forward
        compiled["plain"] = _plain_calling_convention(gm, example_inputs, fx)
        sub = getattr(forward, "gpuos_subgraph", None)
        if compiled["plain"] and sub is not None and _static(fx):
            # Its inputs are Dynamo's, which guards their sizes, strides,
            # dtype and device: one layout reaches it, no check per call.
            sub.guarded = True

        def boxed(args):
            return forward(*args)
        boxed._boxed_call = True
        return boxed
    wrapped = aot_autograd(fw_compiler=fw_compiler)(gm, example_inputs)
    # aot_autograd functionalized and decomposed the graph; when its runtime
    # wrapper has nothing to do per call, Dynamo calls the forward itself.
    if compiled.get("plain"):
        return compiled["forward"]
    return wrapped
