#!/usr/bin/env bash
# A fuzzing campaign over every ParZ harness: runs each libFuzzer binary for a fixed
# time on a scratch copy of its seed corpus and regression inputs, then prints one summary line
# per harness (executions, coverage, findings). See tests/fuzz/README.md, section "Campaign".
#
#   bash tests/fuzz/campaign.sh [options]
#     --bin PATH       fuzzer binaries: a directory holding fuzz_<name> (default build-fuzz/tests),
#                      or a tarball made by --pack (unpacked into the scratch directory)
#     --seconds N      fuzzing time per harness (default 60)
#     --parallel N     N workers per harness (libFuzzer -fork=N; crashes, timeouts and OOMs are
#                      recorded and the run goes on). Default 1: one plain libFuzzer process,
#                      which stops at its first finding.
#     --keep-going     with --parallel 1: still fork mode (-fork=1), so a finding does not end
#                      the harness's time
#     --concurrent     run all harnesses at the same time (default: one after another)
#     --only a,b       only these harnesses (chunk_parse chunk_decode decode_blocks omp_decode filter)
#     --work DIR       scratch directory (default: a new /tmp/parz-fuzz.XXXXXX); an earlier
#                      run's directory goes on from the corpora it grew
#     --out DIR        copy the summary, the log tails and every finding there
#     --report DIR     fuzz nothing: print the summary of an earlier run's scratch directory
#     --lib DIR        add DIR to LD_LIBRARY_PATH (repeatable); /opt/h5's HDF5 (GPU machine) and
#                      the tarball's lib/ are added by themselves
#   bash tests/fuzz/campaign.sh --pack BUILD_TESTS_DIR OUT.tar.xz
#                      packs the five fuzz_* binaries (symbols kept, DWARF stripped) and the
#                      shared libraries they load, except glibc,
#                      libstdc++ and libgcc_s (clang's libomp, HDF5 and its dependencies)
#
# Exit status: 0 no finding, 1 findings (listed in the summary), 2 usage or setup error.
set -uo pipefail
# Everything below is one { } block, which bash reads whole before running it: editing this file
# while a campaign runs does not derail the running one.
{
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FUZZ="$ROOT/tests/fuzz"
ALL="chunk_parse chunk_decode decode_blocks omp_decode filter"

die() { echo "campaign.sh: $*" >&2; exit 2; }

pack() {
  local dir="$1" out="$2" stage lib
  [ -d "$dir" ] || die "no directory $dir"
  stage="$(mktemp -d)"
  mkdir -p "$stage/lib"
  for h in $ALL; do
    [ -x "$dir/fuzz_$h" ] || die "missing $dir/fuzz_$h (build with tests/fuzz/README.md)"
    # Without DWARF (symbol names stay): a third of the size. Findings come back as inputs and
    # are replayed with the full binaries of the build directory for file:line reports.
    strip --strip-debug -o "$stage/fuzz_$h" "$dir/fuzz_$h" 2>/dev/null || cp "$dir/fuzz_$h" "$stage/"
    # Every shared library but glibc's, libstdc++ and libgcc_s travels along (clang's libomp;
    # for fuzz_filter libhdf5 and its dependencies), so a host without clang or HDF5 runs them.
    for lib in $(ldd "$dir/fuzz_$h" | awk '$3 ~ /^\// {print $3}'); do
      case "$(basename "$lib")" in
        libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libresolv.so*|ld-linux*|libstdc++.so*|libgcc_s.so*) ;;
        *) cp -L "$lib" "$stage/lib/" ;;
      esac
    done
  done
  tar -C "$stage" -cJf "$out" . || die "tar failed"
  rm -rf "$stage"
  echo "campaign.sh: packed the fuzz_* binaries of $ALL into $out ($(du -h "$out" | cut -f1))"
}

BIN="$ROOT/build-fuzz/tests" SECONDS_EACH=60 PAR=1 FORK=0 CONCURRENT=0 ONLY="$ALL" WORK="" OUTDIR=""
LIBS="" REPORT=0
while [ $# -gt 0 ]; do
  case "$1" in
    --pack) [ $# -eq 3 ] || die "usage: --pack BUILD_TESTS_DIR OUT.tar.xz"; pack "$2" "$3"; exit 0 ;;
    --bin) BIN="$2"; shift ;;
    --seconds) SECONDS_EACH="$2"; shift ;;
    --parallel) PAR="$2"; shift ;;
    --keep-going) FORK=1 ;;
    --concurrent) CONCURRENT=1 ;;
    --only) ONLY="${2//,/ }"; shift ;;
    --work) WORK="$2"; shift ;;
    --out) OUTDIR="$2"; shift ;;
    --report) WORK="$2"; REPORT=1; shift ;;
    --lib) LIBS="$LIBS:$2"; shift ;;
    -h|--help) sed -n '2,27p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
  shift
done
case "$SECONDS_EACH$PAR" in *[!0-9]*) die "--seconds and --parallel take whole numbers" ;; esac
[ "$PAR" -ge 1 ] || die "--parallel must be at least 1"
[ "$PAR" -gt 1 ] && FORK=1

if [ -z "$WORK" ]; then WORK="$(mktemp -d /tmp/parz-fuzz.XXXXXX)"; fi
mkdir -p "$WORK" || die "cannot create $WORK"
WORK="$(cd "$WORK" && pwd)"

if [ $REPORT = 1 ]; then
  ONLY="$(for h in $ONLY; do [ -d "$WORK/$h" ] && echo "$h"; done | tr '\n' ' ')"
elif [ -f "$BIN" ]; then
  mkdir -p "$WORK/bin" && tar -C "$WORK/bin" -xf "$BIN" || die "cannot unpack $BIN"
  BIN="$WORK/bin"
fi
if [ $REPORT = 0 ]; then
  [ -d "$BIN" ] || die "no binaries at $BIN"
  BIN="$(cd "$BIN" && pwd)"
fi
for d in "$BIN/lib" /opt/h5/usr/lib/x86_64-linux-gnu /opt/h5/usr/lib/x86_64-linux-gnu/hdf5/serial; do
  [ -d "$d" ] && LIBS="$LIBS:$d"
done
export LD_LIBRARY_PATH="${LIBS#:}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# libFuzzer's ASan: fatal reports; leaks are findings too (a decoder error path must free).
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

# clang-14's ASan maps its shadow at fixed addresses; kernels with 32 random mmap bits
# (vm.mmap_rnd_bits, e.g. Ubuntu 24.04's) can place libraries there and every start dies with
# "AddressSanitizer:DEADLYSIGNAL". Try one quick run; if it fails, run without address-space
# randomization (setarch -R), which fuzzing does not need.
LAUNCH=()
if [ $REPORT = 0 ]; then
  probe=""
  for h in $ONLY; do [ -x "$BIN/fuzz_$h" ] && { probe="$BIN/fuzz_$h"; break; }; done
  if [ -n "$probe" ] && ! (cd "$WORK" && "$probe" -runs=2 >"$WORK/probe.log" 2>&1); then
    if (cd "$WORK" && setarch "$(uname -m)" -R "$probe" -runs=2 >"$WORK/probe-setarch.log" 2>&1); then
      LAUNCH=(setarch "$(uname -m)" -R)
      echo "campaign.sh: fuzzers need setarch -R here (vm.mmap_rnd_bits" \
           "$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo ?)); using it"
    else
      echo "campaign.sh: $probe does not start here, even with setarch -R:" >&2
      tail -5 "$WORK/probe.log" >&2
    fi
  fi
fi

# The seeds are generated, not kept in git (README.md: robust_gen_corpus tests/fuzz/corpus).
[ -d "$FUZZ/corpus" ] ||
  echo "note: no seeds in $FUZZ/corpus (run robust_gen_corpus $FUZZ/corpus); starting from the regressions only" >&2

# One harness: scratch corpus = seeds + regressions; findings go to $wd/findings/.
run_one() {
  local h="$1" wd="$WORK/$1" bin="$BIN/fuzz_$1" t0 t1 missing
  mkdir -p "$wd/corpus" "$wd/findings"
  echo "$PAR $FORK" >"$wd/workers"
  if [ ! -x "$bin" ]; then echo "missing binary $bin" >"$wd/status"; return; fi
  missing="$(ldd "$bin" 2>/dev/null | awk '/not found/ {print $1}' | tr '\n' ' ')"
  if [ -n "$missing" ]; then echo "cannot load: ${missing% }" >"$wd/status"; return; fi
  for d in "$FUZZ/corpus/$h" "$FUZZ/regressions/$h"; do
    [ -d "$d" ] && find "$d" -maxdepth 1 -type f ! -name '.*' -exec cp {} "$wd/corpus/" \;
  done
  local args=(-max_total_time="$SECONDS_EACH" -timeout=30 -rss_limit_mb=2560
              -print_final_stats=1 -artifact_prefix="$wd/findings/")
  if [ "$FORK" = 1 ]; then
    args+=(-fork="$PAR" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  fi
  t0=$(date +%s)
  # The outer timeout only guards against a wedged fuzzer; libFuzzer stops itself on time.
  (cd "$wd" && timeout -k 10 $((SECONDS_EACH + 120)) "${LAUNCH[@]}" "$bin" "${args[@]}" "$wd/corpus" >"$wd/log" 2>&1)
  echo "rc=$?" >"$wd/status"
  t1=$(date +%s)
  echo $((t1 - t0)) >"$wd/seconds"
}

for h in $ONLY; do
  case " $ALL " in *" $h "*) ;; *) die "unknown harness $h" ;; esac
done
if [ $REPORT = 0 ]; then
  echo "campaign.sh: $ONLY; ${SECONDS_EACH}s each, $PAR worker(s) per harness," \
       "$([ $CONCURRENT = 1 ] && echo concurrently || echo one after another); scratch $WORK"
  for h in $ONLY; do
    if [ $CONCURRENT = 1 ]; then run_one "$h" & else run_one "$h"; fi
  done
  wait
fi

# Summary: executions from the final stats (plain mode, summed over processes) or from the fork
# parent's last status line; coverage (cov = edges reached, of all instrumented edges of the binary:
# harness, library and the codec's encoder too; ft = features) from the last status line.
found=0
summary="$WORK/summary.txt"
: >"$summary"
printf '%-14s %7s %4s %13s %9s %12s %7s %7s  %s\n' harness seconds wrk executions exec/s cov/edges ft corpus \
  findings | tee -a "$summary"
for h in $ONLY; do
  wd="$WORK/$h"
  if ! grep -q '^rc=' "$wd/status" 2>/dev/null; then
    printf '%-14s SKIPPED: %s\n' "$h" "$(cat "$wd/status" 2>/dev/null)" | tee -a "$summary"
    found=1
    continue
  fi
  secs="$(cat "$wd/seconds")"
  wrk=1 forked=0
  [ -f "$wd/workers" ] && read -r wrk forked <"$wd/workers"
  last="$(grep -E '^#[0-9]+:?[[:space:]]+([A-Z]+[[:space:]]+)?cov: ' "$wd/log" | tail -1)"
  execs="$(awk '/stat::number_of_executed_units:/ {s += $2} END {if (NR) print s}' "$wd/log")"
  if [ "$forked" = 1 ] || [ -z "$execs" ]; then
    execs="$(sed -E 's/^#([0-9]+).*/\1/' <<<"$last")"
  fi
  cov="$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")"
  edges="$(sed -nE 's/.*Loaded 1 modules +\(([0-9]+) inline 8-bit counters.*/\1/p' "$wd/log" | head -1)"
  ft="$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")"
  corp="$(sed -nE 's/.* corp: ([0-9]+).*/\1/p' <<<"$last")"
  findings="$(cd "$wd/findings" && ls 2>/dev/null | tr '\n' ' ')"
  [ -n "$findings" ] && found=1
  printf '%-14s %7s %4s %13s %9s %12s %7s %7s  %s\n' "$h" "$secs" "$wrk" "${execs:-?}" \
    "$(( ${execs:-0} / (secs > 0 ? secs : 1) ))" "${cov:-?}/${edges:-?}" "${ft:-?}" "${corp:-?}" \
    "${findings:-none} $(cat "$wd/status")" | tee -a "$summary"
done

if [ -n "$OUTDIR" ]; then
  mkdir -p "$OUTDIR"
  cp "$summary" "$OUTDIR/"
  for h in $ONLY; do
    mkdir -p "$OUTDIR/$h"
    [ -f "$WORK/$h/log" ] && tail -n 300 "$WORK/$h/log" >"$OUTDIR/$h/log.tail"
    [ -d "$WORK/$h/findings" ] && cp -r "$WORK/$h/findings" "$OUTDIR/$h/"
  done
  echo "campaign.sh: summary, log tails and findings copied to $OUTDIR"
fi
echo "campaign.sh: scratch corpora and full logs in $WORK"
exit $found
}
