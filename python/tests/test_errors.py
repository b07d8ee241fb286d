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
