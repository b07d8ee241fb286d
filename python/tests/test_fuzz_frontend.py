"""A short run of the front-end's differential fuzz (fuzz_frontend.py): random
programs through gpuos.capture and gpuos.jit must match eager PyTorch, on
the interpreter executor and on the runtime path (compiled images through
stub_runtime's stand-in, which checks bindings as the runtime does)."""

import logging

import stub_runtime
from fuzz_frontend import fuzz


def test_random_programs_match_eager(caplog):
    with caplog.at_level(logging.ERROR, logger="gpuos"):
        findings = fuzz(seed=5, programs=80, entries=["capture", "jit"])
    assert not findings, "\n".join(findings)


def test_random_programs_on_the_runtime_path_match_eager(caplog, monkeypatch):
    # Some inputs start one element into their storage: with the stand-in
    # treating fast_align as vector_align (the manifests before fedc640),
    # 3 of these 40 programs fail.
    stub_runtime.install(monkeypatch)
    with caplog.at_level(logging.ERROR, logger="gpuos"):
        findings = fuzz(seed=5, programs=40, entries=["capture", "jit"], runtime_path=True)
    assert not findings, "\n".join(findings)
