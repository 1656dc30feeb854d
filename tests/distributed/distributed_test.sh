#!/bin/bash
# Multi-process replicated runs end to end, through tools/poprun (mpirun on
# this host, oversubscribed as needed):
#   - every instance's replication_index() is [offset, offset + local) and
#     cross_replica_sum(replication_index()) is the global sum (and, with
#     groups of 2 replicas, the pair's sum), for 2 x 1, 2 x 2 and 4 x 1
#     (instances x replicas);
#   - instance 0's initial variable values reach every instance;
#   - only instance 0 writes checkpoints, every instance restores instance
#     0's (from instance 0's directory, as if the others ran elsewhere), and
#     instance 0's errors reach everyone; infeeds of different lengths are
#     refused on every instance before anything runs;
#   - the example MLP trained as N processes x 1 replica has the same
#     weights, bit for bit, as 1 process x N replicas (N = 2, 4);
#   - an instance that exits non-zero, or is killed, while the others wait
#     for it in a cross-replica sum ends the job within seconds, non-zero.
# Args: poprun replica_index_program broadcast_program replicated_mlp
#       checkpoint_program
set -u
POPRUN=$1
INDEX=$2
BROADCAST=$3
MLP=$4
CKPT=$5
export TF_IPU_LOG_LEVEL=quiet
TMP=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }

expect_lines() {  # expect_lines "<output>" "<line>"...: each line present exactly
  local out=$1
  shift
  for line in "$@"; do
    echo "$out" | grep -qxF "$line" || fail "missing line '$line' in: $out"
  done
}

out=$("$POPRUN" --num-instances 2 --num-replicas 2 "$INDEX" 2>&1) || fail "2 x 1: $out"
expect_lines "$out" "[1,0]<stdout>:instance 0: replicas 0 0 sums 1 1 pair sums 1 1" \
                    "[1,1]<stdout>:instance 1: replicas 1 1 sums 1 1 pair sums 1 1"
out=$("$POPRUN" --num-instances 2 --num-replicas 4 "$INDEX" 2>&1) || fail "2 x 2: $out"
expect_lines "$out" "[1,0]<stdout>:instance 0: replicas 0 1 0 1 sums 6 6 6 6 pair sums 1 1 1 1" \
                    "[1,1]<stdout>:instance 1: replicas 2 3 2 3 sums 6 6 6 6 pair sums 5 5 5 5"
out=$("$POPRUN" --num-instances 4 --num-replicas 4 "$INDEX" 2>&1) || fail "4 x 1: $out"
expect_lines "$out" "[1,0]<stdout>:instance 0: replicas 0 0 sums 6 6 pair sums 1 1" \
                    "[1,1]<stdout>:instance 1: replicas 1 1 sums 6 6 pair sums 1 1" \
                    "[1,2]<stdout>:instance 2: replicas 2 2 sums 6 6 pair sums 5 5" \
                    "[1,3]<stdout>:instance 3: replicas 3 3 sums 6 6 pair sums 5 5"

out=$("$POPRUN" --num-instances 2 --num-replicas 2 "$BROADCAST" 2>&1) || fail "broadcast: $out"
expect_lines "$out" "[1,0]<stdout>:instance 0: after broadcast 1 2 3 after step 3 4 5" \
                    "[1,1]<stdout>:instance 1: after broadcast 1 2 3 after step 3 4 5"

expect_prefix() {  # expect_prefix "<output>" "<start of a line>"
  echo "$1" | grep -qF -- "$2" || fail "no line starting '$2' in: $1"
}

out=$("$POPRUN" --num-instances 2 --num-replicas 2 "$CKPT" "$TMP/ck{i}" 2>&1) || fail "checkpoints: $out"
n0=$(ls "$TMP/ck0" | wc -l)
[ "$n0" -ge 3 ] || fail "instance 0 wrote $n0 files (a checkpoint's index and data, the state file): $(ls "$TMP/ck0")"
[ -z "$(ls -A "$TMP/ck1")" ] || fail "instance 1 wrote files: $(ls -A "$TMP/ck1")"
expect_lines "$out" "[1,0]<stdout>:instance 0 saved model.ckpt-1; files in its directory: $n0" \
                    "[1,1]<stdout>:instance 1 saved model.ckpt-1; files in its directory: 0" \
                    "[1,0]<stdout>:instance 0 latest: ck0/model.ckpt-1" \
                    "[1,1]<stdout>:instance 1 latest: ck0/model.ckpt-1" \
                    "[1,0]<stdout>:instance 0 restored: 1 2 3" \
                    "[1,1]<stdout>:instance 1 restored: 1 2 3" \
                    "[1,0]<stdout>:instance 0 infeed of 4 elements: OK" \
                    "[1,1]<stdout>:instance 1 infeed of 4 elements: OK"
missing0=$(echo "$out" | sed -n 's/^\[1,0\]<stdout>:instance 0 missing checkpoint: //p')
case "$missing0" in
  "NOT_FOUND "*TMP/ck0/missing.ckpt*) ;;
  *) fail "instance 0's restore of a missing checkpoint: '$missing0' in: $out" ;;
esac
expect_lines "$out" "[1,1]<stdout>:instance 1 missing checkpoint: NOT_FOUND instance 0 (which reads and writes the job's checkpoints): ${missing0#NOT_FOUND }"
for i in 0 1; do
  expect_prefix "$out" "[1,$i]<stdout>:instance $i infeed of 4 + $i elements: FAILED_PRECONDITION The dataset of infeed 'unequal' has 4 elements on instance 0 but 5 on instance 1 (instances 0 to 1: 4, 5). Every instance"
done

for n in 2 4; do
  single=$("$MLP" --replicas "$n" --weights_out "$TMP/w_1x$n" 2>&1) || fail "1 x $n: $single"
  multi=$("$POPRUN" --num-instances "$n" --num-replicas "$n" "$MLP" --weights_out "$TMP/w_${n}x1" 2>&1) \
    || fail "$n x 1: $multi"
  [ -s "$TMP/w_1x$n" ] || fail "1 x $n wrote no weights"
  cmp "$TMP/w_1x$n" "$TMP/w_${n}x1" || fail "weights of $n x 1 differ from 1 x $n: $single / $multi"
  echo "$multi" | grep -q "^\[1,0\]<stdout>:replicas $n in $n processes" || fail "$multi"
done
# The comparison can fail: other replica counts train to other weights.
cmp -s "$TMP/w_1x2" "$TMP/w_1x4" && fail "2 and 4 replicas trained to the same weights"

for how in exit kill; do
  start=$(date +%s)
  out=$("$POPRUN" --num-instances 2 --num-replicas 2 "$INDEX" --fail-instance 1 "$how" 2>&1)
  rc=$?
  elapsed=$(( $(date +%s) - start ))
  [ "$rc" -ne 0 ] || fail "instance 1 failing ($how) left the job's status 0: $out"
  [ "$elapsed" -lt 30 ] || fail "the job took ${elapsed}s to end after instance 1 failed ($how)"
  echo "$out" | grep -q "rank 1\|\[\[[0-9]*,1\],1\]" || fail "mpirun did not name rank 1 ($how): $out"
done
echo PASS
