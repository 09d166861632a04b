#!/bin/sh
# A checkpoint write that dies half way must leave the previous checkpoint whole and readable:
#   1. write a checkpoint;
#   2. write it again with one rank killed after its first collective write (SIGKILL): the job
#      must fail (not hang), and the file must still hold the first checkpoint, byte for byte;
#   3. read it back (every value checked);
#   4. write it again cleanly: the first checkpoint is kept as FILE.prev.
# Usage: test_mpi_keep.sh <file> <timeout s> <mpiexec ... program> -- <program options>
file=$1 limit=$2
shift 2
cmd=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do cmd="$cmd $1"; shift; done
[ "$1" = -- ] && shift
log=$(mktemp)
fail() { echo "test_mpi_keep: $*"; cat "$log"; rm -f "$log" "$file.before"; exit 1; }
run() {   # run <expect ok|fail> <args...>
  want=$1
  shift
  start=$(date +%s)
  timeout -k 5 "$limit" $cmd "$@" >"$log" 2>&1
  rc=$?
  # mpiexec itself exits 137 when a rank was killed: a time-out is told by the time taken
  [ $(( $(date +%s) - start )) -ge "$limit" ] && fail "timed out after ${limit}s: $*"
  if [ "$want" = ok ]; then
    [ "$rc" -eq 0 ] && grep -q "mpi_checkpoint: ok" "$log" || fail "failed (status $rc): $*"
  else
    [ "$rc" -ne 0 ] || fail "succeeded, should have failed: $*"
  fi
}
rm -f "$file" "$file.partial" "$file.prev" "$file.before"
run ok --write "$file" "$@"
cp "$file" "$file.before"
run fail --write "$file" "$@" --fault-kill-rank 1
cmp -s "$file" "$file.before" || fail "the previous checkpoint $file was changed by the killed write"
run ok --read "$file"
run ok --write "$file" "$@"
cmp -s "$file.prev" "$file.before" || fail "the previous checkpoint was not kept as $file.prev"
rm -f "$log" "$file.before"
echo "test_mpi_keep: the previous checkpoint survived a killed write and was kept on the next"
