"""From graph text to an image: gpuos-opt --gpuos-pipeline, then gpuos-jit.

The tools are found in $GPUOS_BIN_DIR, then next to a source checkout's
build/bin, then on PATH. Compiled graphs are cached twice: in memory by the
text's hash (a graph seen before in this process is never compiled again)
and on disk under $GPUOS_CACHE_DIR (default ~/.cache/gpuos/python), so a
new process, or a machine the cache was copied to, reuses the image without
running the compiler at all.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ._graph import TensorType
from . import _stats


class CompileError(RuntimeError):
    """The compiler rejected a graph; the message holds its diagnostics."""


def _repo_bin() -> Optional[Path]:
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "build" / "bin"
        if (candidate / "gpuos-jit").exists():
            return candidate
    return None


def find_tool(name: str) -> str:
    env = os.environ.get("GPUOS_BIN_DIR")
    candidates = []
    if env:
        candidates.append(Path(env) / name)
    repo = _repo_bin()
    if repo:
        candidates.append(repo / name)
    for c in candidates:
        if c.exists():
            return str(c)
    found = shutil.which(name)
    if found:
        return found
    raise CompileError(
        f"{name} not found (looked in $GPUOS_BIN_DIR, a source checkout's "
        f"build/bin and PATH); build gpuos or set GPUOS_BIN_DIR")


def cache_dir() -> Path:
    root = os.environ.get("GPUOS_CACHE_DIR")
    if root:
        return Path(root)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "gpuos" / "python"


@dataclass
class CompiledGraph:
    name: str
    key: str
    source: str            # the graph as imported
    directory: Path        # holds pipeline.mlir, image.cubin, image.manifest.json
    inputs: List[Tuple[str, TensorType]]
    outputs: List[Tuple[str, TensorType]]
    # graph.mlir line -> where the op on it came from in the user's program,
    # as the first call that compiled this text recorded it (not part of
    # the key: the same text from elsewhere shares the graph and these).
    sources: Dict[int, str] = field(default_factory=dict)

    @property
    def cubin(self) -> Path:
        return self.directory / "image.cubin"

    @property
    def manifest(self) -> Path:
        return self.directory / "image.manifest.json"

    @property
    def pipelined(self) -> Path:
        return self.directory / "pipeline.mlir"

    def manifest_json(self) -> dict:
        """The image's manifest; CompileError naming the file when it cannot
        be read (a disk cache entry left half written), so the entry points
        run the graph in PyTorch and say why."""
        try:
            return json.loads(self.manifest.read_text())
        except (OSError, ValueError) as e:
            raise CompileError(f"{self.manifest}: cannot read the image's manifest ({e}); "
                               f"delete {self.directory} to compile it again") from None

    @functools.cached_property
    def tiles(self) -> int:
        """Its tasks' tiles together (read once: a capture checks them at
        every flush)."""
        return sum(t.get("num_tiles") or 0 for t in self.manifest_json()["tasks"])


# What gpuos-opt writes into pipeline.mlir (part of the cache key).
PIPELINE_FORMAT = "debuginfo"
# What gpuos-jit writes into the image (part of the cache key, so a cache
# copied to a machine without the compiler still works, but images whose
# format the package no longer runs are not reused): manifests that mark
# the vector path's buffers `fast_align`, not `vector_align`, which the
# runtime enforces (docs/codegen.md, "Alignment").
IMAGE_FORMAT = "fast_align"

# "<cache>/<key>/graph.mlir:LINE:COL": a line of a compiled graph's text.
_GRAPH_LINE = re.compile(r"([0-9a-f]{32})/graph\.mlir:(\d+):\d+")


def explain(message: str, compiling: Optional["CompiledGraph"] = None) -> str:
    """`message` with the user's source of each compiled graph's line it
    names (compiler diagnostics; the runtime's task errors, which name the
    ops of the image's tasks, members of a union included, and may name
    another graph's task), found by the graph's key in its path; the graph
    being compiled is not in the memory cache yet."""
    notes = []
    for m in _GRAPH_LINE.finditer(message):
        graph = _memory.get(m.group(1))
        if graph is None and compiling is not None and compiling.key == m.group(1):
            graph = compiling
        where = graph.sources.get(int(m.group(2))) if graph else None
        note = f"graph.mlir:{m.group(2)} is {where}" if where else None
        if note and note not in notes:
            notes.append(note)
    return message if not notes else message + "\n  (" + "; ".join(notes[:4]) + ")"

_memory: Dict[str, CompiledGraph] = {}
_lock = threading.Lock()


def _run(cmd: List[str], what: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CompileError(f"{what} failed ({' '.join(cmd)}):\n{proc.stderr.strip()}")


def compile_graph(source: str, name: str, inputs, outputs,
                  arch: str = "sm_90", image: bool = True,
                  sources: Optional[Dict[int, str]] = None) -> CompiledGraph:
    """Compiles `source` (one gpuos.graph) unless it was compiled before;
    `sources` maps its lines to the user's program (explain)."""
    # PIPELINE_FORMAT, IMAGE_FORMAT: files written before the formats the
    # package expects are not reused.
    key = hashlib.sha256(
        f"{arch}\n{PIPELINE_FORMAT}\n{IMAGE_FORMAT}\n{source}".encode()).hexdigest()[:32]
    with _lock:
        hit = _memory.get(key)
        if hit is not None:
            _stats.bump("cache_hits")
            return hit
        directory = cache_dir() / key
        graph = CompiledGraph(name, key, source, directory, list(inputs), list(outputs),
                              dict(sources or {}))
        done = graph.pipelined.exists() and (not image or graph.manifest.exists())
        if done:
            _stats.bump("disk_cache_hits")
        else:
            directory.mkdir(parents=True, exist_ok=True)
            src = directory / "graph.mlir"
            src.write_text(source)
            # Locations in the output name graph.mlir's lines, so a task's
            # manifest "ops" (and the runtime's errors) point at the graph
            # text, and explain() maps those to the user's program.
            try:
                _run([find_tool("gpuos-opt"), str(src), "--gpuos-pipeline",
                      "--mlir-print-debuginfo", "-o", str(graph.pipelined)],
                     "gpuos-opt --gpuos-pipeline")
                if image:
                    _run([find_tool("gpuos-jit"), str(graph.pipelined), f"--arch={arch}",
                          "-o", str(directory / "image")], "gpuos-jit")
            except CompileError as e:
                raise CompileError(explain(str(e), graph)) from None
            _stats.bump("compiles")
        _memory[key] = graph
        return graph


def clear_memory_cache() -> None:
    """Forgets compiled graphs, torch.compile variants and gpuos.jit
    recordings of this process (the disk cache stays)."""
    with _lock:
        _memory.clear()
    from . import _backend, _jit
    _backend._VARIANTS.clear()
    _backend._WARNED.clear()
    _jit.clear_all()
