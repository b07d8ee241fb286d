"""gpuos: run PyTorch micro-ops fused on the resident-kernel runtime.

Three entry points (docs/python.md):

    with gpuos.capture(priority="urgent"):      # eager code, recorded lazily
        y = torch.relu(x * w + b).sum(-1)

    fast = torch.compile(model, backend="gpuos")  # FX graphs, split where needed

    step = gpuos.jit(fn, priority="urgent")       # recorded once per signature,
    y = step(x, w)                                # replayed without Dynamo

gpuos.stats() counts compiles, cache hits, flushes, fallbacks and splits.
"""

from ._capture import capture
from ._compiler import CompileError, cache_dir, clear_memory_cache
from ._executor import ExecutionError
from ._graph import Unsupported
from ._jit import jit
from . import _stats


def stats() -> dict:
    """Counters since the start (or reset_stats())."""
    return _stats.snapshot()


def reset_stats() -> None:
    _stats.reset()


def park() -> None:
    """Drains and parks the resident kernel of every device this process
    opened (a safe point): the SMs are free for other work until the next
    graph relaunches it. The runtime also parks by itself after 20 ms idle."""
    from ._executor import park_all
    park_all()


def synchronize() -> None:
    """Waits until every graph launched so far has run, and raises the first
    failure among them. With GPUOS_STREAM_ORDERED=1 (experimental) launches
    return before their runs start, so a failed run is otherwise reported by a
    later launch; PyTorch's own synchronization (torch.cuda.synchronize,
    .item(), .cpu()) waits for the results but does not raise gpuos's
    errors. Without it every launch has already waited: nothing to do."""
    from ._executor import synchronize_all
    synchronize_all()


def _register_backend() -> None:
    # torch.compile(backend="gpuos") finds it by name.
    try:
        from torch._dynamo import register_backend
        from ._backend import gpuos_backend
        register_backend(name="gpuos")(gpuos_backend)
    except ImportError:  # pragma: no cover - torch without dynamo
        pass


_register_backend()

__all__ = ["capture", "jit", "stats", "reset_stats", "park", "synchronize", "CompileError", "ExecutionError",
           "Unsupported", "cache_dir", "clear_memory_cache"]
