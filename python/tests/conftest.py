"""Shared fixtures: a private compile cache per test session, and the CPU
(interpreter) executor for tests that do not need a GPU."""

import os
import tempfile

import pytest
import torch

import gpuos


@pytest.fixture(autouse=True, scope="session")
def _private_cache():
    if "GPUOS_CACHE_DIR" not in os.environ:
        os.environ["GPUOS_CACHE_DIR"] = tempfile.mkdtemp(prefix="gpuos-pytest-")
    yield


@pytest.fixture(autouse=True)
def _fresh_stats():
    gpuos.reset_stats()
    gpuos.clear_memory_cache()
    torch._dynamo.reset()
    yield


def has_gpu() -> bool:
    if not torch.cuda.is_available():
        return False
    from gpuos import _C
    return _C.has_gpu()


# Per dtype values are computed in, absolute and relative (docs/python.md).
TOLERANCE = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 5e-2}

# Outputs that view a base other than another output: a result PyTorch
# computed before the subgraph (cumsum stays in PyTorch), an intermediate
# two outputs view, and an input (test_backend.py, test_gpu.py).
VIEW_BASE_CASES = {
    "fallback base": lambda x: (lambda y: (y * 3, y.t(), y[1]))(torch.cumsum(x * 2, 0)),
    "intermediate base": lambda x: (lambda y: (y[0], y.t(), torch.exp(x)))(x * 2),
    "input base": lambda x: (x * 2, x.t(), x[1:]),
}

# Values just past a bf16 midpoint, f64 and i64, and their bf16 rounded
# once (eager rounds through f32; test_capture.py, test_gpu.py).
BF16_PAST_MIDPOINT = ([1 + 2**-8 + 2**-30, -(3 + 2**-7 + 2**-29)],
                      [2**24 + 2**16 + 1, -(2**25 + 2**17 + 1)])
BF16_ROUNDED_ONCE = ([1 + 2**-7, -(3 + 2**-6)], [2**24 + 2**17, -(2**25 + 2**18)])


def assert_close(actual, expected, dtype=None, computed_in=None):
    """Against a float64 eager reference, with the tolerance of the dtype the
    values were computed in (docs/python.md)."""
    t = TOLERANCE.get(computed_in or dtype or actual.dtype, 0)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert actual.dtype == (dtype or actual.dtype)
    if actual.dtype.is_floating_point:
        torch.testing.assert_close(actual.double(), expected.double(), atol=t, rtol=t)
    else:
        assert torch.equal(actual.cpu(), expected.cpu().to(actual.dtype))
