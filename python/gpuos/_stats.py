"""Counters a user (and the tests) can read: what ran where, and why.

Most are bumped here; the per-call ones (graphs_run, bound-graph cache
hits) are counted by the extension and read through a source, so a call
does no Python bookkeeping."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Callable, Dict, List

_lock = threading.Lock()
_counters: Counter = Counter()
# Callables returning monotonic counts; snapshot() reports them since reset().
_sources: List[Callable[[], Dict[str, int]]] = []
_base: Counter = Counter()


def bump(name: str, by: int = 1) -> None:
    with _lock:
        _counters[name] += by


def add_source(source: Callable[[], Dict[str, int]]) -> None:
    with _lock:
        _sources.append(source)


def _from_sources() -> Counter:
    total: Counter = Counter()
    for source in list(_sources):
        total.update(source())
    return total


def snapshot() -> dict:
    """compiles, cache_hits, disk_cache_hits, graphs_run, fallback_ops,
    splits, variant_cap_hits, ...; missing keys are 0."""
    native = _from_sources()
    with _lock:
        out = dict(_counters)
        for name, value in native.items():
            value = value - _base[name] + out.get(name, 0)
            if value:
                out[name] = value
        return out


def reset() -> None:
    native = _from_sources()
    with _lock:
        _counters.clear()
        _base.clear()
        _base.update(native)
