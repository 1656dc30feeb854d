#!/bin/bash
# Runs a test program under Open MPI on this host, as the tests need it:
#   mpirun_for_tests.sh <ranks> <program> [args...]
# mpirun refuses root unless told, and needs --oversubscribe for more ranks
# than cores (these machines have 2).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ranks=$1
shift
exec mpirun --oversubscribe --bind-to none --tag-output -np "$ranks" "$@"
