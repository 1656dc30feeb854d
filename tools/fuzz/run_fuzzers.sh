#!/usr/bin/env bash
# Builds the libFuzzer targets of tools/fuzz with clang (AddressSanitizer and
# UndefinedBehaviorSanitizer, `--config=fuzz` in .bazelrc) in a Bazel output
# base of their own, then fuzzes each for a bounded time from its committed
# seed corpus. Prints executions and crashes per target; exits 1 if any
# target crashed (the reproducer is kept in the work directory).
#
#   tools/fuzz/run_fuzzers.sh                 # every target, 60 s each
#   tools/fuzz/run_fuzzers.sh 300 idx_fuzzer  # one target, 5 minutes
#   FUZZ_RUNS=1000000 tools/fuzz/run_fuzzers.sh 0 poplar_sim_fuzzer
#                                             # exactly 10^6 executions
#
# Environment:
#   FUZZ_OUTPUT_BASE  Bazel output base (default /tmp/bazel_tfipu_fuzz)
#   FUZZ_WORK_DIR     corpora grown by fuzzing, logs, crashes
#                     (default /tmp/tfipu_fuzz); the committed seed corpus
#                     is only read
#   FUZZ_FLAGS        extra libFuzzer flags (e.g. "-max_len=8192")
#   FUZZ_RUNS         a fixed number of executions per target (libFuzzer's
#                     -runs=) instead of a time limit, so that a campaign
#                     can be repeated: with FUZZ_SEED (libFuzzer's -seed=,
#                     default 1) and a fresh FUZZ_WORK_DIR it replays the
#                     same inputs
# A crash becomes a fix plus a regression case in tests/bad_input/, and its
# input joins tools/fuzz/corpus/<target>/ so the target's regression test
# replays it under any compiler.
set -euo pipefail
cd "$(dirname "$0")/../.."

ALL_TARGETS=(graph_def_text_fuzzer graph_def_binary_fuzzer checkpoint_fuzzer idx_fuzzer saved_model_fuzzer
             poplar_sim_fuzzer npy_fuzzer input_exprs_fuzzer application_executable_fuzzer)
SECONDS_PER_TARGET="${1:-60}"
if [ $# -gt 0 ]; then shift; fi
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then TARGETS=("${ALL_TARGETS[@]}"); fi
OUTPUT_BASE="${FUZZ_OUTPUT_BASE:-/tmp/bazel_tfipu_fuzz}"
WORK_DIR="${FUZZ_WORK_DIR:-/tmp/tfipu_fuzz}"

if ! command -v clang >/dev/null 2>&1; then
  echo "run_fuzzers: clang is needed (Debian: clang-14 libclang-rt-14-dev)" >&2
  exit 2
fi

# --symlink_prefix=/ : leave the workspace's bazel-* links to the usual build.
BAZEL=(bazel --output_base="$OUTPUT_BASE")
BUILD_FLAGS=(--config=fuzz --symlink_prefix=/)
labels=()
for t in "${TARGETS[@]}"; do labels+=("//tools/fuzz:$t"); done
echo "run_fuzzers: building ${TARGETS[*]} with clang"
CC=clang CXX=clang++ "${BAZEL[@]}" build "${BUILD_FLAGS[@]}" "${labels[@]}"
BIN_DIR="$(CC=clang CXX=clang++ "${BAZEL[@]}" info "${BUILD_FLAGS[@]}" bazel-bin 2>/dev/null)"

# The bound of each campaign: a time, or a fixed number of executions.
if [ -n "${FUZZ_RUNS:-}" ]; then
  LIMIT=(-runs="$FUZZ_RUNS" -seed="${FUZZ_SEED:-1}")
  LIMIT_TEXT="$FUZZ_RUNS executions"
else
  LIMIT=(-max_total_time="$SECONDS_PER_TARGET")
  LIMIT_TEXT="${SECONDS_PER_TARGET}s"
fi

status=0
summary=()
for t in "${TARGETS[@]}"; do
  dir="$WORK_DIR/$t"
  mkdir -p "$dir/corpus" "$dir/crashes"
  log="$dir/fuzz.log"
  echo "run_fuzzers: $t for $LIMIT_TEXT (log: $log)"
  # input_exprs_fuzzer's corpus holds a 200 KB expression (nested calls),
  # which would raise libFuzzer's input length to 200 KB and slow it about
  # 4x; expressions that long add nothing the 4 KB ones do not reach.
  # FUZZ_FLAGS, given after, can override it.
  target_flags=()
  if [ "$t" = input_exprs_fuzzer ]; then target_flags=(-max_len=4096); fi
  set +e
  # shellcheck disable=SC2086
  "$BIN_DIR/tools/fuzz/$t" "${LIMIT[@]}" -timeout=30 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$dir/crashes/" \
    "${target_flags[@]}" ${FUZZ_FLAGS:-} "$dir/corpus" "tools/fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  set -e
  execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)"
  crashes="$(find "$dir/crashes" -type f | wc -l)"
  summary+=("$(printf '%-26s %12s executions  %3s crash file(s)  exit %s' \
    "$t" "${execs:-?}" "$crashes" "$rc")")
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    status=1
    grep -m1 -A3 'ERROR: \|==ERROR\|deadly signal' "$log" || tail -20 "$log"
  fi
done

echo
echo "run_fuzzers: $LIMIT_TEXT per target"
printf '%s\n' "${summary[@]}"
exit "$status"
