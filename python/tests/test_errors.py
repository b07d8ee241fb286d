"""Errors a user can meet, each naming the input and the cause."""

import pytest
import torch

from gpuos._aten import meta_type
from gpuos._compiler import CompileError, compile_graph
from gpuos._executor import ExecutionError, run_gpu, run_interpreter
from gpuos._graph import Unsupported
from gpuos._trace import Trace


def _double_graph(shape=(8,)):
    trace = Trace()
    x = torch.randn(*shape)
    y = trace.call(torch.ops.aten.mul.Tensor, (x, 2), {}, x * 2,
                   lambda a: trace.input("x", a, meta_type(a)) if isinstance(a, torch.Tensor) else a)
    trace.bind("y", y)
    return trace.finish(["y"], "sm_90", image=True)[0]


def test_cpu_tensors_on_the_gpu_path():
    graph = _double_graph()
    with pytest.raises(ExecutionError, match="must be on one CUDA device, got cpu"):
        run_gpu(graph, [torch.randn(8)], [torch.empty(8)], "normal")


def test_wrong_shape_names_the_graph_and_input():
    graph = _double_graph()
    with pytest.raises(ExecutionError, match=r"input in0: expected !gpuos.tensor<8xf32>, got \(4,\)"):
        run_interpreter(graph, [torch.randn(4)])


def test_unsupported_dtype():
    with pytest.raises(Unsupported, match="dtype torch.complex64"):
        meta_type(torch.zeros(2, dtype=torch.complex64))


def test_compiler_diagnostics_come_back():
    with pytest.raises(CompileError, match="gpuos-opt --gpuos-pipeline failed"):
        compile_graph("gpuos.graph @broken(", "broken", [], [])


def _run_entry(entry, fn, args):
    import gpuos
    options = {"executor": "interpreter"}
    if entry == "capture":
        with gpuos.capture(**options):
            return fn(*args)
    if entry == "jit":
        return gpuos.jit(fn, **options)(*args)
    torch._dynamo.reset()
    return torch.compile(fn, backend="gpuos", options=options)(*args)


_EAGER_REFUSES = [
    (lambda x, m: x.masked_fill(m, -1e10),
     (torch.tensor([1, 2, 3], dtype=torch.int32), torch.tensor([True, False, True])),
     "without overflow"),
    (lambda a, b: torch.add(a, b, alpha=2**40),
     (torch.tensor([1, 2], dtype=torch.int32), torch.tensor([5, 7], dtype=torch.int32)),
     "without overflow"),
    (lambda a: torch.where(a > 1, a, 2**40), (torch.tensor([1, 2], dtype=torch.int32),),
     "without overflow"),
    (lambda a: torch.full((2,), 1e6, dtype=torch.float16) + a,
     (torch.zeros(2, dtype=torch.float16),), "without overflow"),
    (lambda a: a - True, (torch.tensor([1, 2]),), "with a bool tensor is not supported"),
]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("entry", ["capture", "jit", "compile"])
@pytest.mark.parametrize("case", range(len(_EAGER_REFUSES)))
def test_values_eager_refuses_are_refused(entry, case):
    # A fill value that overflows the tensor's dtype, and a bool subtracted,
    # raise eager's own error (the op runs in PyTorch); they were wrapped
    # into the graph and gave values eager never gives.
    fn, args, message = _EAGER_REFUSES[case]
    with pytest.raises(RuntimeError, match=message):
        fn(*args)
    with pytest.raises(RuntimeError, match=message):
        _run_entry(entry, fn, args)


_ZERO_DIM = [
    lambda x: torch.softmax(x * 2, 0),
    lambda x: torch.log_softmax(x + 1, -1),
    lambda x: torch.argmax(x * 3, 0),
    lambda x: (x * 2).transpose(0, -1) + 1,
    lambda x: (x + 1).t() * x,
]


@pytest.mark.parametrize("entry", ["capture", "jit", "compile"])
@pytest.mark.parametrize("case", range(len(_ZERO_DIM)))
def test_zero_dim_tensors_along_an_axis(entry, case, caplog):
    # A 0-dim tensor's axis 0 (or -1) is itself: transpose is the identity
    # and softmax, log_softmax and argmax run in PyTorch, which defines them.
    # transpose and log_softmax raised IndexError out of the importer; softmax
    # and argmax made IR the compiler refused (a fallback with its diagnostics).
    fn = _ZERO_DIM[case]
    x = torch.tensor(1.5)
    with caplog.at_level("WARNING", logger="gpuos"):
        got = _run_entry(entry, fn, (x,))
    torch.testing.assert_close(got, fn(x), rtol=0, atol=0)
    assert not any("failed" in r.getMessage() for r in caplog.records), caplog.text
