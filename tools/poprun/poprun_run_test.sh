#!/bin/bash
# Runs poprun for real (mpirun on this host) with a program that prints the
# PopDist environment each instance receives.
#   $1: poprun   $2: popdist_echo
set -u
POPRUN=$1
ECHO=$2
fail() { echo "FAIL: $*"; exit 1; }

# Two instances, four replicas: each instance its own block of replicas,
# each line tagged by mpirun with the rank.
out=$("$POPRUN" --num-instances 2 --num-replicas 4 "$ECHO" 2>&1) || fail "poprun failed: $out"
echo "$out" | grep -qxF "[1,0]<stdout>:instance 0 of 2: replicas [0, 2) of 4, 1 IPU per replica" \
  || fail "instance 0's line missing from: $out"
echo "$out" | grep -qxF "[1,1]<stdout>:instance 1 of 2: replicas [2, 4) of 4, 1 IPU per replica" \
  || fail "instance 1's line missing from: $out"

# Four instances on a two-core machine: poprun oversubscribes by itself.
out=$("$POPRUN" --num-instances 4 --num-replicas 8 --ipus-per-replica 2 --print-topology \
      "$ECHO" 2>&1) || fail "4 instances failed: $out"
echo "$out" | grep -qxF "instance 3 on localhost: replicas [6, 8) of 8, IPUs 0-3 (2 per replica)" \
  || fail "topology missing from: $out"
echo "$out" | grep -qxF "[1,3]<stdout>:instance 3 of 4: replicas [6, 8) of 8, 2 IPUs per replica" \
  || fail "instance 3's line missing from: $out"

# Only instance 1 speaks.
out=$("$POPRUN" --num-instances 2 --num-replicas 2 --only-output-from-instance 1 "$ECHO" 2>&1) \
  || fail "--only-output-from-instance failed: $out"
[ "$out" = "[1,1]<stdout>:instance 1 of 2: replicas [1, 2) of 2, 1 IPU per replica" ] \
  || fail "expected only instance 1's line, got: $out"

# -vv prints the mpirun command first.
out=$("$POPRUN" -vv --num-instances 2 --num-replicas 2 "$ECHO" 2>&1) || fail "-vv failed: $out"
echo "$out" | head -1 | grep -q "^poprun: mpirun .*--tag-output.* -np 1 -x POPDIST_NUM_TOTAL_REPLICAS=2" \
  || fail "-vv did not print the command: $out"

# A failed instance ends the job within seconds, with its status, although
# the other instance would sleep for a minute. mpirun names the instance
# (process [[job,1],1] is rank 1); the instance's own last lines may be lost
# when it exits at once (Open MPI stops forwarding output as it aborts).
start=$(date +%s)
out=$("$POPRUN" --num-instances 2 --num-replicas 2 "$ECHO" --fail-instance 1 2>&1)
rc=$?
elapsed=$(( $(date +%s) - start ))
[ "$rc" -eq 3 ] || fail "expected the failed instance's status 3, got $rc: $out"
[ "$elapsed" -lt 20 ] || fail "the job took ${elapsed}s to end after instance 1 failed"
echo "$out" | grep -q "Process name: \[\[[0-9]*,1\],1\]" || fail "mpirun did not name rank 1: $out"
echo "$out" | grep -q "Exit code: *3" || fail "mpirun did not report the status: $out"

# Validation happens before mpirun runs, with the numbers in the message.
out=$("$POPRUN" --num-instances 2 --num-replicas 3 "$ECHO" 2>&1)
rc=$?
[ "$rc" -eq 2 ] || fail "expected status 2 for bad numbers, got $rc: $out"
[ "$out" = "poprun: error: --num-replicas 3 is not divisible by --num-instances 2: replicas are divided evenly among the instances; use a multiple of 2 replicas or a divisor of 3 instances" ] \
  || fail "unexpected message: $out"
echo PASS
