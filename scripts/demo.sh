#!/usr/bin/env bash
# The main job: install what is missing, build, compile a shipped example to
# a GPU image, check the compiled graph against the CPU reference, and run
# the image on the GPU against the reference when a GPU is present.
# Usage: demo.sh [example.mlir]   (default: examples/decode_step.mlir)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
example=${1:-$root/examples/decode_step.mlir}
[[ -f "$example" ]] || { echo "demo: no such example: $example" >&2; exit 2; }

bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" --target gpuos-opt gpuos-jit gpuos-interp gpuos-info \
  gpuos-check-gen gpuos-gpu-check >/dev/null
bin=$build/bin
name=$(basename "$example" .mlir)
out=$build/demo/$name
rm -rf "$out" && mkdir -p "$out"

echo "== $name: fuse and partition (gpuos-opt --gpuos-pipeline) =="
"$bin/gpuos-opt" "$example" --gpuos-pipeline --mlir-print-debuginfo -o "$out/tasks.mlir"
ops=$(grep -c ' = gpuos\.' "$example" || true)
tasks=$(grep -c 'gpuos.task "' "$out/tasks.mlir" || true)
echo "  $ops micro-ops -> $tasks tasks ($out/tasks.mlir)"

echo
echo "== $name: compile to an image (gpuos-jit) =="
if "$bin/gpuos-jit" "$out/tasks.mlir" --emit=image --no-cache -o "$out/image" 2>"$out/jit.log"; then
  image=yes
  echo "  $out/image.cubin ($(stat -c %s "$out/image.cubin") bytes) + image.manifest.json"
else
  image=no
  echo "  no image ($(tail -1 "$out/jit.log")); emitting PTX instead"
  "$bin/gpuos-jit" "$out/tasks.mlir" --emit=ptx -o "$out/tasks.ptx"
  echo "  $out/tasks.ptx: $(grep -c '^.visible .func' "$out/tasks.ptx") task functions"
fi

echo
echo "== $name: CPU reference check (gpuos-interp, seed 1) =="
"$bin/gpuos-interp" "$example" --seed=1 --print-values=4 >"$out/source.txt"
"$bin/gpuos-interp" "$out/tasks.mlir" --seed=1 --print-values=4 >"$out/tasks.txt"
grep -A2 '^output' "$out/source.txt" | sed 's/^/  /'
if cmp -s "$out/source.txt" "$out/tasks.txt"; then
  echo "reference check: the fused graph computes what the source graph does"
else
  echo "reference check FAILED: the fused graph differs from the source graph" >&2
  diff "$out/source.txt" "$out/tasks.txt" >&2 || true
  exit 1
fi

echo
echo "== GPU =="
"$bin/gpuos-info" | sed 's/^/  /'
if [[ $image == yes ]] && "$bin/gpuos-info" --has-gpu; then
  # Every task of the image against the interpreter on random inputs.
  "$bin/gpuos-check-gen" "$out/tasks.mlir" --manifest="$out/image.manifest.json" \
    --image=../image.cubin -o "$out/check" >/dev/null
  "$bin/gpuos-gpu-check" "$out/check/check.txt" --quick | tail -1
else
  echo "No GPU here: the compiled image and the CPU reference check above are the result."
fi
