"""A short run of the front-end's differential fuzz (fuzz_frontend.py): random
programs through gpuos.capture and gpuos.jit on the interpreter executor
must match eager PyTorch."""

import logging

from fuzz_frontend import fuzz


def test_random_programs_match_eager(caplog):
    with caplog.at_level(logging.ERROR, logger="gpuos"):
        findings = fuzz(seed=5, programs=80, entries=["capture", "jit"])
    assert not findings, "\n".join(findings)
