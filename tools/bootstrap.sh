#!/usr/bin/env bash
# Installs what building and testing tensorflow_ipu needs, from Debian
# packages only, and any further packages named as arguments. Idempotent: when everything is present it checks and exits
# in about a second; it runs `apt-get update` only when something is missing.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap     # Bazel 4.2.3, WORKSPACE mode
  bazel-rules-java    # Bazel resolves Java toolchains even for C++ builds
  g++
  libabsl-dev
  libeigen3-dev
  libprotobuf-dev
  protobuf-compiler
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  libdnnl-dev         # oneDNN: dnnl_sgemm, the CPU kernels' float GEMM (core/kernels/gemm.cc)
  nlohmann-json3-dev  # JSON: engine options, profile and trace reports
  zlib1g-dev          # gzip-compressed IDX data sets
  libsnappy-dev       # Snappy-compressed blocks of TensorFlow's SSTable indexes (SavedModel variables)
  libre2-dev          # ipu_saved_model_cli: users' node-name patterns, matched in linear time
  libssl-dev          # ipu_saved_model_cli: MD5 of the converted saved_model.pb (libcrypto)
  python3             # tools/check_layering.py, run by .ci/run
  libopenmpi-dev      # multi-process replicated runs: MPI between instances (tensorflow_ipu/distributed)
  openmpi-bin         # ... and mpirun, which tools/poprun launches them with
  dataset-fashion-mnist  # examples/fashion_mnist trains on it; its tests read it
  chromium            # the profile viewer's browser test opens its pages headless
  chromium-driver     # ... driven through chromedriver's WebDriver API
)
# Packages named on the command line are installed too (the benchmarks'
# peers: tools/bench/bootstrap_peers.sh).
PACKAGES+=("$@")

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "bootstrap: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "bootstrap: error: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get update -qq; then
  echo "bootstrap: error: 'apt-get update' failed; is the Debian archive reachable?" >&2
  exit 1
fi
if ! $SUDO apt-get install -y -qq "${missing[@]}"; then
  echo "bootstrap: error: could not install: ${missing[*]}" >&2
  exit 1
fi
echo "bootstrap: installed ${missing[*]}"
