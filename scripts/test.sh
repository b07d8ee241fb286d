#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test suite: the lit suite
# (IR round trips, verifier diagnostics, passes, tools) and the GoogleTest and
# other ctest suites, and the Python front-end's pytest suite (in a venv that
# scripts/setup-python.sh makes). GPU tests report as skipped where no GPU is
# present.
# Ends with one line: 'N passed, N failed, N skipped'.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}

bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"

rc=0
/usr/lib/llvm-22/bin/lit -sv --timeout=300 "$build/test" \
  --xunit-xml-output "$build/lit-results.xml" || rc=1
ctest --test-dir "$build" --output-on-failure --timeout 300 \
  --output-junit "$build/ctest-results.xml" || rc=1
py=$(bash "$root/scripts/setup-python.sh")
(cd "$root/python/tests" && GPUOS_BIN_DIR="$build/bin" \
  GPUOS_CACHE_DIR="$build/python-cache" "$py" -m pytest -q -rs \
  --junitxml "$build/pytest-results.xml" .) || rc=1
python3 "$root/scripts/summarize-tests.py" "$build/lit-results.xml" \
  "$build/ctest-results.xml" "$build/pytest-results.xml" || rc=1
exit $rc
