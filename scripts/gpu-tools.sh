#!/usr/bin/env bash
# The compiler tools for a GPU machine without LLVM/MLIR (the device tool's
# machines): the Python front-end and other harnesses compile graphs there.
#
# HERE:   bash scripts/gpu-tools.sh pack
#   strips gpuos-opt, gpuos-jit (and gpuos-jit-core) and gpuos-interp from
#   $BUILD_DIR (default build) into .gpu-tools/tools.tar.xz with the runtime
#   device libraries (latency and throughput, docs/codegen.md), and
#   downloads the Debian packages of the shared libraries they need
#   (libllvm22, libz3-4 and small ones) into .gpu-tools/ (about 53 MB; the
#   device tool carries 64 MiB), and
#   writes .gpu-tools/commit: the commit the tools were built from, which
#   bench/suite/run.sh compares with the prepared images' (.bench/commit).
# THERE:  eval "$(bash scripts/gpu-tools.sh unpack)"
#   unpacks into /opt/gpuos-tools (never into /, where dpkg -x could break
#   the machine) and prints the exports: PATH, LD_LIBRARY_PATH,
#   GPUOS_BIN_DIR, GPUOS_RUNTIME_LIB, GPUOS_RUNTIME_THROUGHPUT_LIB.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/.gpu-tools
prefix=${GPUOS_TOOLS_PREFIX:-/opt/gpuos-tools}

pack() {
  local build=${BUILD_DIR:-$root/build}
  rm -rf "$dir" && mkdir -p "$dir/stage/bin" "$dir/stage/lib"
  for tool in gpuos-opt gpuos-jit gpuos-jit-core gpuos-interp; do
    strip -o "$dir/stage/bin/$tool" "$build/bin/$tool"
  done
  local lib name
  for name in gpuos_runtime_device.o gpuos_runtime_device_throughput.o; do
    lib=$(find "$build" -name "$name" -print -quit)
    [[ -n $lib ]] && cp "$lib" "$dir/stage/lib/"
  done
  tar -cJf "$dir/tools.tar.xz" -C "$dir/stage" bin lib
  rm -rf "$dir/stage"
  # The tools compile the Python path's graphs on the GPU machine, so they
  # must be the same compiler as the images the C++ path runs; run.sh
  # refuses a pair from different commits (a stale pack once made the
  # Python columns time another codegen). "-dirty" as in run.sh prepare.
  if git -C "$root" rev-parse HEAD 2>/dev/null | tr -d '\n' > "$dir/commit"; then
    git -C "$root" diff --quiet HEAD -- 2>/dev/null || printf -- '-dirty' >> "$dir/commit"
  else
    echo unknown > "$dir/commit"
  fi
  (cd "$dir" && apt-get download libllvm22 libz3-4 libxml2 libicu72 libedit2 libffi8 libbsd0 \
    libmd0 libtinfo6 >/dev/null 2>&1)
  echo "packed $dir ($(du -sh "$dir" | cut -f1)); carry [\".gpu-tools\"]" >&2
}

unpack() {
  mkdir -p "$prefix"
  local deb
  for deb in "$dir"/*.deb; do dpkg -x "$deb" "$prefix"; done
  tar -xJf "$dir/tools.tar.xz" -C "$prefix"
  echo "export PATH=$prefix/bin:\$PATH"
  echo "export LD_LIBRARY_PATH=$prefix/usr/lib/llvm-22/lib:$prefix/usr/lib/x86_64-linux-gnu:$prefix/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
  echo "export GPUOS_BIN_DIR=$prefix/bin"
  echo "export GPUOS_RUNTIME_LIB=$prefix/lib/gpuos_runtime_device.o"
  echo "export GPUOS_RUNTIME_THROUGHPUT_LIB=$prefix/lib/gpuos_runtime_device_throughput.o"
}

case ${1:-} in
  pack) pack ;;
  unpack) unpack ;;
  *) echo "usage: $0 pack|unpack" >&2; exit 2 ;;
esac
