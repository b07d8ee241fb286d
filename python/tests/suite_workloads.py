"""The benchmark suite's PyTorch workloads (bench/suite/workloads.py), for
tests and bench_overhead.py: one definition of each workload in the repo."""

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "bench" / "suite" / "workloads.py"
_spec = importlib.util.spec_from_file_location("gpuos_suite_workloads", _PATH)
suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(suite)

ew_chain = suite.ew_chain
rmsnorm_chain = suite.rmsnorm_chain
layernorm_chain = suite.layernorm_chain
