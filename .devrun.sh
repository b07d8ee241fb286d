#!/usr/bin/env bash
set -uo pipefail
t0=$SECONDS
cmake -S runtime -B /tmp/rt -G Ninja -DCMAKE_BUILD_TYPE=Release > /tmp/rt.cfg.log 2>&1 || { tail -20 /tmp/rt.cfg.log; exit 1; }
ninja -C /tmp/rt GpuosRuntimeTests > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
timeout 60 /tmp/rt/bin/GpuosRuntimeTests --gtest_filter='*StreamTest*/gpu' --gtest_repeat=2 > $OUT/stream.log 2>&1; echo "stream rc=$? $((SECONDS-t0)) s"; grep -E "Failure|FAILED \]|PASSED" -A2 $OUT/stream.log | sort | uniq -c | head
eval "$(bash scripts/gpu-tools.sh unpack)"
GPUOS_VENV_PYTHON=python3 bash scripts/setup-python.sh > $OUT/pysetup.log 2>&1 || { tail -20 $OUT/pysetup.log; exit 1; }
(cd python/tests && timeout 100 python3 -m pytest -q -x test_gpu.py > $OUT/pytest.log 2>&1; echo "pytest rc=$? $((SECONDS-t0)) s"; tail -3 $OUT/pytest.log)
for v in 1 0; do
  GPUOS_STREAM_ORDERED=$v timeout 70 bash bench/suite/run.sh run --only ew_chain,mlp_microbatch,attention_f16 --no-sharing --no-compile --no-graph > $OUT/ab-$v.log 2>&1
  echo "== ordered=$v rc=$? $((SECONDS-t0)) s"; grep -E "gpuos_(py|jit)" $OUT/ab-$v.log | cut -c1-100
done
