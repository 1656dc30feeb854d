#!/usr/bin/env bash
# Installs the peers the benchmarks in tools/bench compare against, from
# Debian packages only: libtorch (PyTorch's C++ API), OpenBLAS for it, and
# the Fashion-MNIST data set. The library and its tests need none of them
# (tools/bootstrap.sh installs what they need). Idempotent: when everything
# is present it checks and exits at once; `apt-get update` runs only when
# something is missing.
#
# Installing libopenblas0-pthread switches the system's libblas.so.3 to
# OpenBLAS; the benchmarks do not rely on that: they run their libtorch peer
# with LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-pthread themselves
# (see tools/bench/peer_env.h).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$HERE/../bootstrap.sh"

PACKAGES=(
  libtorch-dev            # the CPU peer, 1.13
  libopenblas0-pthread    # a fair BLAS for it (the default netlib BLAS is ~3 GFLOP/s)
  dataset-fashion-mnist   # /usr/share/datasets/fashion-mnist/*.gz
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap_peers: all ${#PACKAGES[@]} peer packages present"
  exit 0
fi

echo "bootstrap_peers: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "bootstrap_peers: error: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get update -qq; then
  echo "bootstrap_peers: error: 'apt-get update' failed; is the Debian archive reachable?" >&2
  exit 1
fi
if ! $SUDO apt-get install -y -qq "${missing[@]}"; then
  echo "bootstrap_peers: error: could not install: ${missing[*]}" >&2
  exit 1
fi
echo "bootstrap_peers: installed ${missing[*]}"
# A running Bazel server keeps the @libtorch stub it made before the install.
if command -v bazel >/dev/null 2>&1 && [ -f "$HERE/../../WORKSPACE" ]; then
  echo "bootstrap_peers: if a Bazel server was running, run 'bazel sync --configure' (or 'bazel shutdown') so that @libtorch finds the package"
fi
