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


def assert_close(actual, expected, dtype=None, computed_in=None):
    """Against a float64 eager reference, with the tolerance of the dtype the
    values were computed in (docs/python.md)."""
    tol = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 5e-2}
    t = tol.get(computed_in or dtype or actual.dtype, 0)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert actual.dtype == (dtype or actual.dtype)
    if actual.dtype.is_floating_point:
        torch.testing.assert_close(actual.double(), expected.double(), atol=t, rtol=t)
    else:
        assert torch.equal(actual.cpu(), expected.cpu().to(actual.dtype))
