#!/usr/bin/env bash
# Where a benchmark's time goes: samples one run with `perf record` and
# prints the hottest functions, self time, C++ template arguments elided.
#
#   tools/bench/perf_profile.sh infer_mlp --only=tfipu-ipu --repeats=1
#   TOP=60 CALLERS=1 tools/bench/perf_profile.sh train_mlp --only=tfipu-cpu-fed
#
# Builds the benchmark with `bazel build -c opt` first (set BAZEL to add
# startup options, e.g. BAZEL="bazel --output_base=/tmp/ob"). Needs `perf`
# (Debian linux-perf) and kernel.perf_event_paranoid <= 2. Use --only to
# profile one contestant: the peers' libraries load and run in the same
# process otherwise.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 <benchmark> [benchmark flags...]" >&2
  exit 2
fi
BENCH="$1"
shift
BAZEL="${BAZEL:-bazel}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
$BAZEL build -c opt "//tools/bench:$BENCH" >&2
BIN="$($BAZEL info -c opt bazel-bin 2>/dev/null)/tools/bench/$BENCH"
OUT="$(mktemp -d)/perf.data"
# The peer environment is set here, so that perf samples the process that
# runs (the benchmark would otherwise re-exec itself).
export LD_LIBRARY_PATH="/usr/lib/x86_64-linux-gnu/openblas-pthread${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
export TFIPU_BENCH_PEER_ENV=1
perf record -F "${FREQ:-2000}" -g -o "$OUT" "$BIN" "$@" >&2
# Strip template arguments (nested up to 6 deep) so that names fit a line.
strip_templates() {
  sed -E ':a; s/<[^<>]*>//g; ta' | cut -c1-"${WIDTH:-150}"
}
echo "== self time, top ${TOP:-40} =="
{ perf report -i "$OUT" --no-children --sort symbol -g none --stdio 2>/dev/null |
  grep '%' | strip_templates | head -n "${TOP:-40}"; } || true
if [ -n "${CALLERS:-}" ]; then
  echo "== inclusive time (children), top ${TOP:-40} =="
  { perf report -i "$OUT" --children --sort symbol -g none --stdio 2>/dev/null |
    grep '%' | strip_templates | head -n "${TOP:-40}"; } || true
fi
echo "(perf data: $OUT)"
