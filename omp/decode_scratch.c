/* OpenMP decoder of a chunk of a scratch codec (codec/frame/chunk_scratch.h): one team runs the
 * steps in order, each step's units spread over it and handed out dynamically, with a barrier
 * between steps (every value needs every segment, every pass the one before). The values are
 * the serial decoder's, whatever the thread count: every step writes each value from the same
 * inputs, only the order of independent units changes.
 *
 * A barrier costs a team of sleeping threads tens of microseconds (each is woken), as much as
 * thousands of values' work, so steps that need no barrier between them share one: the payload
 * checksums and the segments (both only read the payload), and a row of passes of few values
 * each (an interpolation's coarse levels), which one thread runs in order. A step without units
 * (no mask, no exceptions) is skipped.
 *
 * The passes of few values that come first read only the codes of the first segments (their
 * codes come first in code order): the thread that finishes the last range of those segments
 * runs them at once, inside the step of the segments, while the team decodes the others, rather
 * than one thread after that step's barrier with the team waiting. */
#include <stdint.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "chunk_scratch.h"
#include "exceptions.h" /* PARZ_EXCEPTION_BYTES */
#include "team.h"

/* Ranges per thread of each step: enough for dynamic hand-out to even out segments of uneven
 * cost (a fill region's codes cost almost nothing). */
#define RANGES_PER_THREAD 8u

/* Passes of fewer values than this run on one thread, together with the small passes next to
 * them: their work is less than the barrier a pass of their own would cost. */
#define SMALL_PASS_VALUES 8192u

/* What one step does to units [first, first + count). STEP_PASSES is passes [pass, pass_end)
 * whole, in order, on one thread (a single unit). */
typedef enum {
  STEP_VERIFY,
  STEP_SEGMENTS,
  STEP_PASS,
  STEP_PASSES,
  STEP_STORE,
  STEP_MASK,
  STEP_PATCH
} step;

typedef struct {
  const parz_chunk_view* v;
  const parz_chunk_dest* d;
  parz_chunk_scratch* s;
  unsigned row;        /* passes [0, row) run inside the segments' step (0: none) */
  uint64_t row_ranges; /* the segment ranges holding their codes: [0, row_ranges) */
  uint64_t done;       /* of those ranges, the ones finished (atomic) */
} job;

/* Passes [pass, end) whole, in order. */
static int run_passes(const job* j, unsigned pass, unsigned end, parz_error* e) {
  int rc = PARZ_OK;
  for (; pass < end && rc == PARZ_OK; pass++)
    rc = parz_chunk_scratch_pass(j->s, pass, 0, parz_chunk_scratch_units(j->s, pass), e);
  return rc;
}

static int run_step(const job* j, step k, unsigned pass, unsigned pass_end, uint64_t first,
                    uint64_t count, parz_error* e) {
  parz_chunk_view part;
  switch (k) {
    case STEP_VERIFY: return parz_chunk_verify(j->v, first, count, e);
    case STEP_SEGMENTS: return parz_chunk_scratch_segments(j->s, first, count, e);
    case STEP_PASS: return parz_chunk_scratch_pass(j->s, pass, first, count, e);
    case STEP_PASSES: return run_passes(j, pass, pass_end, e);
    case STEP_STORE: parz_chunk_scratch_store(j->s, j->d, first, count); return PARZ_OK;
    case STEP_MASK: parz_mask_restore_to(j->v, j->d, first, count); return PARZ_OK;
    default:
      part = *j->v;
      part.exceptions = j->v->exceptions + first * PARZ_EXCEPTION_BYTES;
      part.nexceptions = count;
      return parz_chunk_patch_exceptions_to(&part, j->d, e);
  }
}

/* Ranges a step of `units` units is cut into. */
static uint64_t step_ranges(uint64_t units, int nthreads) {
  const uint64_t ranges = (uint64_t)nthreads * RANGES_PER_THREAD;
  return ranges < units ? ranges : units;
}

/* Range r of `ranges` of `units` units: [*lo, *hi). */
static void step_range(uint64_t units, uint64_t ranges, uint64_t r, uint64_t* lo, uint64_t* hi) {
  *lo = units * r / ranges;
  *hi = units * (r + 1) / ranges;
}

/* Runs range r of step k (item number `item`), recording its error. */
static void run_range(const job* j, step k, unsigned pass, unsigned pass_end, uint64_t units,
                      uint64_t ranges, uint64_t r, uint64_t item, parz_omp_first_error* first) {
  uint64_t lo, hi;
  parz_error e;
  int rc;
  step_range(units, ranges, r, &lo, &hi);
  if (parz_omp_first_error_skip(first, item) || lo == hi)
    return;
  if ((rc = run_step(j, k, pass, pass_end, lo, hi - lo, &e)) != PARZ_OK)
    parz_omp_first_error_record(first, item, rc, &e);
}

/* The units of one step cut into ranges on the team (inside its parallel region); item numbers
 * continue from *base so that the first error is that of the earliest step. Every thread skips
 * a step without units alike, so no barrier is missed. */
static void team_step(const job* j, step k, unsigned pass, unsigned pass_end, uint64_t units,
                      int nthreads, uint64_t* base, parz_omp_first_error* first) {
  const uint64_t ranges = step_ranges(units, nthreads), b = *base;
  int64_t r;
  if (!units)
    return;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
  for (r = 0; r < (int64_t)ranges; r++)
    run_range(j, k, pass, pass_end, units, ranges, (uint64_t)r, b + (uint64_t)r, first);
  /* the loop's implicit barrier ends the step on every thread */
  *base = b + ranges;
}

/* The leading passes of fewer than SMALL_PASS_VALUES values each, and the segment ranges (of
 * step_ranges(nsegments, nthreads)) that hold the codes they read, into j->row and
 * j->row_ranges. */
static void plan_row(job* j, int nthreads) {
  const unsigned passes = parz_chunk_scratch_passes(j->s);
  const uint64_t nseg = j->v->nsegments, ranges = step_ranges(nseg, nthreads);
  uint64_t codes, segments, lo, hi;
  unsigned q;
  for (q = 0; q < passes && parz_chunk_scratch_values(j->s, q) < SMALL_PASS_VALUES; q++)
    ;
  j->row = q;
  j->row_ranges = 0;
  j->done = 0;
  if (!q)
    return;
  codes = parz_chunk_scratch_codes(j->s, q - 1);
  segments = codes / j->v->segment_blocks + (codes % j->v->segment_blocks != 0);
  do /* at least the first range: a row without codes still runs once */
    step_range(nseg, ranges, j->row_ranges++, &lo, &hi);
  while (hi < segments && j->row_ranges < ranges);
}

/* Counts a finished range of the row's segments; nonzero for the last of them. Each range's
 * codes are written before its count (the flushes order them), so the thread that counts the
 * last sees them all. */
static int row_range_done(job* j) {
  uint64_t done;
#ifdef _OPENMP
#pragma omp flush
#pragma omp atomic capture
#endif
  done = ++j->done;
#ifdef _OPENMP
#pragma omp flush
#endif
  return done == j->row_ranges;
}

/* The payload checksums and the segments in one step: the checksums' items first, so that a
 * checksum's error comes before a segment's, as in the serial decoder. The leading row of
 * passes runs once its segments are decoded; its item comes after every segment's, as its
 * passes do in the serial decoder. */
static void team_verify_segments(job* j, int nthreads, uint64_t* base,
                                 parz_omp_first_error* first) {
  const uint64_t nsums = j->v->nchecksums, nseg = j->v->nsegments;
  const uint64_t rv = step_ranges(nsums, nthreads), rs = step_ranges(nseg, nthreads);
  const uint64_t b = *base, row_item = b + rv + rs;
  int64_t r;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
  for (r = 0; r < (int64_t)(rv + rs); r++) {
    const uint64_t k = (uint64_t)r - rv;
    if ((uint64_t)r < rv) {
      run_range(j, STEP_VERIFY, 0, 0, nsums, rv, (uint64_t)r, b + (uint64_t)r, first);
      continue;
    }
    run_range(j, STEP_SEGMENTS, 0, 0, nseg, rs, k, b + (uint64_t)r, first);
    /* a range skipped for an earlier failure counts too: the row then skips as well */
    if (k < j->row_ranges && row_range_done(j))
      run_range(j, STEP_PASSES, 0, j->row, 1, 1, 0, row_item, first);
  }
  *base = row_item + (j->row != 0);
}

/* The codec's inverse passes in order after the leading row: a row of small passes as one step
 * on one thread, every other pass a step of the team. */
static void team_passes(const job* j, int nthreads, uint64_t* base, parz_omp_first_error* first) {
  const unsigned passes = parz_chunk_scratch_passes(j->s);
  unsigned p = j->row, q;
  while (p < passes) {
    for (q = p; q < passes && parz_chunk_scratch_values(j->s, q) < SMALL_PASS_VALUES; q++)
      ;
    if (q > p + 1) {
      team_step(j, STEP_PASSES, p, q, 1, nthreads, base, first);
      p = q;
    } else {
      team_step(j, STEP_PASS, p, p + 1, parz_chunk_scratch_units(j->s, p), nthreads, base, first);
      p++;
    }
  }
}

int parz_omp_decode_scratch(const parz_chunk_view* view, const parz_chunk_dest* d, int nthreads,
                            parz_error* err) {
  parz_omp_first_error first;
  parz_chunk_view v;
  parz_chunk_scratch* s;
  void* offsets = NULL;
  job j;
  int rc;
  /* a LENGTHS table as offsets, so that a range of segments starts without summing the lengths
   * before it */
  if (parz_chunk_offsets_bytes(view)) {
    if (!(offsets = malloc(parz_chunk_offsets_bytes(view))))
      return parz_fail(err, PARZ_ERR_NOMEM, "no memory for the offsets of %llu segments",
                       (unsigned long long)view->nsegments);
    parz_chunk_offsets_view(view, offsets, &v);
  } else {
    v = *view;
  }
  if ((rc = parz_chunk_scratch_begin(&v, &s, err)) != PARZ_OK) {
    free(offsets);
    return rc;
  }
  j.v = &v;
  j.d = d;
  j.s = s;
  plan_row(&j, nthreads);
  parz_omp_first_error_init(&first);
#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads)
#endif
  {
    uint64_t base = 0;
    team_verify_segments(&j, nthreads, &base, &first);
    team_passes(&j, nthreads, &base, &first);
    team_step(&j, STEP_STORE, 0, 0, parz_chunk_dest_rows(&v, d), nthreads, &base, &first);
    team_step(&j, STEP_MASK, 0, 0, v.mask.nvalues ? v.mask.ngroups : 0, nthreads, &base, &first);
    team_step(&j, STEP_PATCH, 0, 0, v.nexceptions, nthreads, &base, &first);
  }
  rc = parz_omp_first_error_result(&first, err);
  parz_chunk_scratch_free(s);
  free(offsets);
  return rc;
}
