# Shared by the GPU machine's one-command checks (scripts/gpu_read_check.sh, gpu_checksum.sh,
# gpu_mask_check.sh; sourced, not run).
#
# gpu_check_prepare NAME OUT_DIR: builds with scripts/gpu_machine.sh (its log in
# OUT_DIR/setup.log; on failure prints the log's tail and "NAME: FAIL (build)" and exits), takes
# on that machine's environment, and sets OUT (absolute), BUILD, THREADS (PARZ_BENCH_THREADS,
# default 16); OUT_DIR/machine.txt gets the GPUs, the CPU count and h5py's and numpy's versions.
gpu_check_prepare() {
  local name="$1" root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  mkdir -p "$2" && OUT="$(cd "$2" && pwd)"
  THREADS="${PARZ_BENCH_THREADS:-16}"
  bash "$root/scripts/gpu_machine.sh" setup >"$OUT/setup.log" 2>&1 ||
    { tail -30 "$OUT/setup.log"; echo "$name: FAIL (build)"; exit 1; }
  eval "$(bash "$root/scripts/gpu_machine.sh" env)"
  BUILD="$PARZ_BUILD"
  nvidia-smi -L >"$OUT/machine.txt" 2>&1
  echo "$(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)" >>"$OUT/machine.txt"
  echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)," \
    "defrag $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null)" >>"$OUT/machine.txt"
  python3 -c "import h5py, numpy; print('h5py', h5py.__version__, 'HDF5',
        h5py.version.hdf5_version, 'numpy', numpy.__version__)" >>"$OUT/machine.txt" 2>&1
}

# gpu_check_step FILE SECONDS COMMAND...: runs COMMAND, its output in $OUT/FILE, for at most
# SECONDS and never past $deadline (a value of $SECONDS the caller sets); appends its verdict to
# the array `verdicts` and sets failed=1 unless it passed. A step that finds less than 5 s left
# is skipped, and counts as failed.
gpu_check_step() {
  local name="$1" limit="$2" rc
  shift 2
  [ $((deadline - SECONDS)) -lt "$limit" ] && limit=$((deadline - SECONDS))
  if [ "$limit" -lt 5 ]; then
    verdicts+=("$name: SKIPPED (no time left)")
    failed=1
    return
  fi
  timeout "$limit" "$@" >"$OUT/$name" 2>&1
  rc=$?
  case $rc in
    0) verdicts+=("$name: passed") ;;
    124) verdicts+=("$name: FAILED (stopped after ${limit} s)"); failed=1 ;;
    *) verdicts+=("$name: FAILED (exit $rc)"); failed=1 ;;
  esac
}
