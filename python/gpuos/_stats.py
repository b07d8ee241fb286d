"""Counters a user (and the tests) can read: what ran where, and why."""

from __future__ import annotations

import threading
from collections import Counter

_lock = threading.Lock()
_counters: Counter = Counter()


def bump(name: str, by: int = 1) -> None:
    with _lock:
        _counters[name] += by


def snapshot() -> dict:
    """compiles, cache_hits, disk_cache_hits, graphs_run, fallback_ops,
    splits, variant_cap_hits, ...; missing keys are 0."""
    with _lock:
        return dict(_counters)


def reset() -> None:
    with _lock:
        _counters.clear()
