/* OpenMP decoder of a chunk of a scratch codec (codec/frame/chunk_scratch.h): one team runs the
 * steps in order, each step's units spread over it and handed out dynamically, with a barrier
 * between steps (every value needs every segment, every pass the one before). The values are
 * the serial decoder's, whatever the thread count: every step writes each value from the same
 * inputs, only the order of independent units changes. */
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

/* What one step does to units [first, first + count). */
typedef enum { STEP_VERIFY, STEP_SEGMENTS, STEP_PASS, STEP_STORE, STEP_MASK, STEP_PATCH } step;

typedef struct {
  const parz_chunk_view* v;
  const parz_chunk_dest* d;
  parz_chunk_scratch* s;
} job;

static int run_step(const job* j, step k, unsigned pass, uint64_t first, uint64_t count,
                    parz_error* e) {
  parz_chunk_view part;
  switch (k) {
    case STEP_VERIFY: return parz_chunk_verify(j->v, first, count, e);
    case STEP_SEGMENTS: return parz_chunk_scratch_segments(j->s, first, count, e);
    case STEP_PASS: return parz_chunk_scratch_pass(j->s, pass, first, count, e);
    case STEP_STORE: parz_chunk_scratch_store(j->s, j->d, first, count); return PARZ_OK;
    case STEP_MASK: parz_mask_restore_to(j->v, j->d, first, count); return PARZ_OK;
    default:
      part = *j->v;
      part.exceptions = j->v->exceptions + first * PARZ_EXCEPTION_BYTES;
      part.nexceptions = count;
      return parz_chunk_patch_exceptions_to(&part, j->d, e);
  }
}

/* The units of one step cut into ranges on the team (inside its parallel region); item numbers
 * continue from *base so that the first error is that of the earliest step. */
static void team_step(const job* j, step k, unsigned pass, uint64_t units, int nthreads,
                      uint64_t* base, parz_omp_first_error* first) {
  uint64_t ranges = (uint64_t)nthreads * RANGES_PER_THREAD, b = *base;
  int64_t r;
  if (ranges > units)
    ranges = units;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
  for (r = 0; r < (int64_t)ranges; r++) {
    const uint64_t lo = units * (uint64_t)r / ranges, hi = units * (uint64_t)(r + 1) / ranges;
    parz_error e;
    int rc;
    if (parz_omp_first_error_skip(first, b + (uint64_t)r) || lo == hi)
      continue;
    if ((rc = run_step(j, k, pass, lo, hi - lo, &e)) != PARZ_OK)
      parz_omp_first_error_record(first, b + (uint64_t)r, rc, &e);
  }
  /* the loop's implicit barrier ends the step on every thread */
  *base = b + ranges;
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
  parz_omp_first_error_init(&first);
#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads)
#endif
  {
    const unsigned passes = parz_chunk_scratch_passes(s);
    uint64_t base = 0;
    unsigned p;
    team_step(&j, STEP_VERIFY, 0, v.nchecksums, nthreads, &base, &first);
    team_step(&j, STEP_SEGMENTS, 0, v.nsegments, nthreads, &base, &first);
    for (p = 0; p < passes; p++)
      team_step(&j, STEP_PASS, p, parz_chunk_scratch_units(s, p), nthreads, &base, &first);
    team_step(&j, STEP_STORE, 0, parz_chunk_dest_rows(&v, d), nthreads, &base, &first);
    team_step(&j, STEP_MASK, 0, v.mask.ngroups, nthreads, &base, &first);
    team_step(&j, STEP_PATCH, 0, v.nexceptions, nthreads, &base, &first);
  }
  rc = parz_omp_first_error_result(&first, err);
  parz_chunk_scratch_free(s);
  free(offsets);
  return rc;
}
