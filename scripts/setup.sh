#!/usr/bin/env bash
# Installs the Debian packages gpuos builds with. Idempotent: when everything
# is present it only checks (well under a second) and touches no network.
set -euo pipefail

packages=(
  cmake ninja-build g++ python3 python3-psutil python3-venv libgtest-dev
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools libfmt-dev
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libcurl4-openssl-dev
)
[[ "${GPUOS_FUZZ:-0}" == 1 ]] && packages+=(clang-22 libclang-rt-22-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The CUDA toolkit is optional for the compiler; say so when it is missing.
if [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "setup: note: no CUDA toolkit at /usr/local/cuda; GPU parts are skipped"
fi
