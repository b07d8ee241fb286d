#!/usr/bin/env bash
# The Python side: a virtual environment with PyTorch (from PyPI), pybind11,
# scikit-build-core and pytest, and the gpuos package installed into it from
# python/. Idempotent: packages already present are not fetched again.
#
# Environment: GPUOS_VENV (default <repo>/.venv). Prints the venv's python.
# GPUOS_VENV_PYTHON=/path/to/python uses an existing interpreter that already
# has torch (the GPU machine's, which has no network) instead of a venv.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if [[ -n ${GPUOS_VENV_PYTHON:-} ]]; then
  py=$GPUOS_VENV_PYTHON
else
  venv=${GPUOS_VENV:-$root/.venv}
  # python3-venv comes from scripts/setup.sh.
  [[ -x $venv/bin/python ]] || python3 -m venv "$venv" >&2
  py=$venv/bin/python
  if ! "$py" -c "import torch, pybind11, scikit_build_core, pytest" 2>/dev/null; then
    echo "setup-python: installing torch, pybind11, scikit-build-core, pytest into $venv" >&2
    "$py" -m pip install -q --disable-pip-version-check \
      "torch==2.11.*" pybind11 scikit-build-core pytest numpy >&2
  fi
fi
# --no-build-isolation: build with what is installed (no network needed).
"$py" -m pip install -q --disable-pip-version-check --no-build-isolation \
  "$root/python" >&2
echo "$py"
