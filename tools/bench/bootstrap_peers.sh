#!/usr/bin/env bash
# Installs the peers the benchmarks in tools/bench compare against, from
# Debian packages only: libtorch (PyTorch's C++ API) and OpenBLAS for it,
# and the GEMM libraries gemm_compare measures (OpenBLAS's headers, BLIS,
# libxsmm), with everything tools/bootstrap.sh installs (the Fashion-MNIST
# data set and oneDNN, which the library's CPU kernels use, among it). The
# library and its tests need none of the peers. Idempotent: when everything
# is present it checks and exits at once.
#
# Installing libopenblas0-pthread switches the system's libblas.so.3 to
# OpenBLAS; the benchmarks do not rely on that: they run their libtorch peer
# with LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-pthread themselves
# (see tools/bench/peer_env.h).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
had_torch=0
if dpkg-query -W -f='${Status}' libtorch-dev 2>/dev/null | grep -q "install ok installed"; then
  had_torch=1
fi
"$HERE/../bootstrap.sh" \
  libtorch-dev \
  libopenblas0-pthread \
  libopenblas-dev \
  libblis-dev \
  libxsmm-dev
# A running Bazel server keeps the @libtorch stub it made before the install.
if [ "$had_torch" -eq 0 ] && command -v bazel >/dev/null 2>&1; then
  echo "bootstrap_peers: if a Bazel server was running, run 'bazel sync --configure' (or 'bazel shutdown') so that @libtorch finds the package"
fi
