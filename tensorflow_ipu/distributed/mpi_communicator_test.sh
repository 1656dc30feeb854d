#!/bin/bash
# The communicator over 2 and 4 processes.
#   $1: mpirun_for_tests.sh   $2: mpi_communicator_ranks
set -u
RUN=$1
RANKS=$2
fail() { echo "FAIL: $*"; exit 1; }
for n in 2 4; do
  out=$("$RUN" "$n" "$RANKS" basic 2>&1) || fail "basic over $n ranks: $out"
  [ "$(echo "$out" | grep -c ": OK$")" -eq "$n" ] || fail "not every rank of $n said OK: $out"
done
start=$(date +%s)
out=$("$RUN" 2 "$RANKS" timeout 2>&1) || fail "timeout: $out"
[ "$(echo "$out" | grep -c ": OK$")" -eq 2 ] || fail "timeout: $out"
[ $(( $(date +%s) - start )) -lt 20 ] || fail "the timeout case took too long"
out=$("$RUN" 2 "$RANKS" mismatch 2>&1) || fail "mismatch: $out"
[ "$(echo "$out" | grep -c ": OK$")" -eq 2 ] || fail "mismatch: $out"
echo PASS
