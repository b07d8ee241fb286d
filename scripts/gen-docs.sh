#!/usr/bin/env bash
# Regenerates the dialect and pass reference in docs/reference from ODS.
# test/Docs checks that the committed copy is current.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
bash "$root/scripts/build.sh" --target gpuos-doc
for doc in GpuosDialect GpuosPasses; do
  cp "$build/docs/$doc.md" "$root/docs/reference/$doc.md"
done
echo "docs/reference regenerated"
