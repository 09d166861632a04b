/* OpenMP decoder of a chunk of a scratch codec (codec/frame/chunk_scratch.h): one team runs the
 * steps in order, each step's units spread over it and handed out dynamically, no range of a step
 * starting before every range of the step before has ended (every value needs every segment,
 * every pass the one before). The values are the serial decoder's, whatever the thread count:
 * every step writes each value from the same inputs, only the order of independent units
 * changes.
 *
 * Every thread walks the steps in order, taking ranges of each until none is left; a thread that
 * takes a range of a step whose previous step has ranges still running waits for those alone,
 * spinning briefly, then yielding its processor. The wait is the tail of a step (its last ranges,
 * microseconds), where a barrier of the team would put it to sleep and wake it again at every
 * step under a passive wait policy (tens of microseconds each).
 *
 * The segments' ranges come from one counter, in order (their costs differ: a fill region's codes
 * cost almost nothing). Every later step's ranges are cut into one block per thread, which the
 * thread takes first and then takes from the others' blocks: range r of every pass, and of the
 * window's rows, covers about the same part of the chunk (units follow C order), so a thread
 * mostly reads what it wrote in the step before, from its own cache, rather than lines another
 * core holds; and a thread's own ranges are taken through a count no other thread writes until
 * it steals. The counts threads write lie apart from each other and from what the team only
 * reads (SPREAD).
 *
 * A step's end still costs its tail, so steps that need not wait for each other share one: the
 * payload checksums and the segments (both only read the payload), and a row of passes of few
 * values each (an interpolation's coarse levels), which one thread runs in order. A step without
 * units (no mask, no exceptions) is left out.
 *
 * The passes of few values that come first read only the codes of the first segments (their
 * codes come first in code order): the thread that finishes the last range of those segments
 * runs them at once, inside the step of the segments, while the team decodes the others, rather
 * than one thread after that step's end with the team waiting.
 *
 * The codec's state (its codebook read into a decoder, on one thread: tens to hundreds of
 * microseconds) is the queue's first place, and the payload checksums' ranges, which need no
 * state, the places after it: the team checks them while the first thread reads the codebook
 * (and while the others, asleep between chunks under a passive wait policy, wake), and the steps
 * that need the state, planned by that thread once it has it, follow. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sched.h>
#define YIELD() sched_yield()
#else
#define YIELD() ((void)0)
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#include "chunk_scratch.h"
#include "exceptions.h" /* PARZ_EXCEPTION_BYTES */
#include "team.h"

/* Ranges per thread of each step: enough for dynamic hand-out to even out segments of uneven
 * cost, and for the blocks of the later steps to even out a thread that starts late. */
#define RANGES_PER_THREAD 8u

/* Passes of fewer values than this run on one thread, together with the small passes next to
 * them: their work is less than the tail and the hand-out of a step of their own. */
#define SMALL_PASS_VALUES 8192u

/* Words of a cache line (of 64 bytes, or less): counts that threads write are this many words
 * apart, so that no two share a line, nor one a line of what the team only reads. Every taker of
 * a range reads its step's description, and every finisher writes its step's count: in one line,
 * each count would take the line from every reader. */
#define SPREAD 8u

/* Checks of a step's end a waiting thread makes before it yields its processor between checks:
 * tens of microseconds, the tail of a step on an idle machine. */
#define SPINS 2048u

/* What one step does to units [first, first + count). STEP_PASSES is passes [pass, pass_end)
 * whole, in order, on one thread (a single unit). STEP_FIRST is the segments' ranges, with the
 * leading row of passes. */
typedef enum {
  STEP_FIRST,
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

/* One step: its ranges are error items [item, item + ranges), in the order of the serial
 * decoder's steps. Read only once planned, but for its counts, which lie apart (SPREAD). */
typedef struct {
  step kind;
  unsigned pass, pass_end;
  uint64_t units, ranges;
  uint64_t item;
  uint64_t* done; /* ranges finished (atomic) */
  uint64_t* next; /* the next range to take (atomic): next[0], or block i's at next[SPREAD * i] */
  int owned;      /* the ranges cut into one block per thread of the team */
} queued_step;

/* Appends a step of `units` units to q[*n] unless it has none. */
static void add_step(queued_step* q, unsigned* n, step kind, unsigned pass, unsigned pass_end,
                     uint64_t units, int nthreads) {
  if (!units)
    return;
  q[*n].kind = kind;
  q[*n].pass = pass;
  q[*n].pass_end = pass_end;
  q[*n].units = units;
  q[*n].ranges = step_ranges(units, nthreads);
  ++*n;
}

/* The first of block i's ranges of `ranges` cut into `team` blocks (block team: the end). */
static uint64_t block_first(uint64_t ranges, int i, int team) {
  return ranges * (uint64_t)i / (uint64_t)team;
}

/* Words of the counts of passes + 4 steps for a team of `team` threads. */
static size_t counts_words(unsigned passes, int team) {
  return SPREAD * ((size_t)(passes + 4u) * (2u + (size_t)team) + 2u);
}

/* Bytes of passes + 4 steps and, after them, their counts. */
static size_t steps_bytes(unsigned passes, int team) {
  return (passes + 4u) * sizeof(queued_step) + counts_words(passes, team) * sizeof(uint64_t);
}

/* The steps of the chunk into q (at most passes + 4), their count returned, their error items
 * from `item` on, their counts in `counts` (zeros, counts_words(passes, team) words): first the
 * segments (and the leading row of passes), then the codec's inverse passes in order after the
 * row (a row of small passes as one step on one thread, every other pass a step of the team), the
 * window's values, the mask, the exceptions; steps without units left out but the first. Every
 * step after the segments' is cut into blocks for the `team` threads. */
static unsigned plan_steps(const job* j, int nthreads, int team, uint64_t item, queued_step* q,
                           uint64_t* counts) {
  const parz_chunk_view* v = j->v;
  const unsigned passes = parz_chunk_scratch_passes(j->s);
  unsigned n = 1, p = j->row, e;
  q[0].kind = STEP_FIRST;
  q[0].units = 0;
  q[0].ranges = step_ranges(v->nsegments, nthreads);
  q[0].item = item;
  while (p < passes) {
    for (e = p; e < passes && parz_chunk_scratch_values(j->s, e) < SMALL_PASS_VALUES; e++)
      ;
    if (e > p + 1) {
      add_step(q, &n, STEP_PASSES, p, e, 1, nthreads);
      p = e;
    } else {
      add_step(q, &n, STEP_PASS, p, p + 1, parz_chunk_scratch_units(j->s, p), nthreads);
      p++;
    }
  }
  add_step(q, &n, STEP_STORE, 0, 0, parz_chunk_dest_rows(v, j->d), nthreads);
  add_step(q, &n, STEP_MASK, 0, 0, v->mask.nvalues ? v->mask.ngroups : 0, nthreads);
  add_step(q, &n, STEP_PATCH, 0, 0, v->nexceptions, nthreads);
  counts += SPREAD;
  for (unsigned k = 0; k < n; k++) {
    q[k].done = counts;
    q[k].next = counts + SPREAD;
    q[k].owned = k > 0;
    counts += SPREAD * (q[k].owned ? 1u + (size_t)team : 2u);
    for (int i = 0; q[k].owned && i < team; i++) /* block i: its first range */
      q[k].next[SPREAD * (size_t)i] = block_first(q[k].ranges, i, team);
  }
  /* the row's item follows the first step's ranges, as its passes follow the segments in the
   * serial decoder */
  for (unsigned k = 1; k < n; k++) {
    q[k].item = q[k - 1].item + q[k - 1].ranges + (k == 1 && j->row != 0);
  }
  return n;
}

/* Range r of the first step, the segments', the leading row run by the thread that finishes the
 * last range of the segments holding its codes. */
static void run_first(job* j, const queued_step* q, uint64_t r, parz_omp_first_error* first) {
  run_range(j, STEP_SEGMENTS, 0, 0, j->v->nsegments, q->ranges, r, q->item + r, first);
  /* a range skipped for an earlier failure counts too: the row then skips as well */
  if (r < j->row_ranges && row_range_done(j))
    run_range(j, STEP_PASSES, 0, j->row, 1, 1, 0, q->item + q->ranges, first);
}

/* Counts n finished ranges of step q; their writes are flushed before the count, so that a
 * thread that sees the step finished sees them. */
static void steps_done(const queued_step* q, uint64_t n) {
#ifdef _OPENMP
#pragma omp flush
#pragma omp atomic update
#endif
  *q->done += n;
}

/* Returns once every range of step q has finished. */
static void step_wait(const queued_step* q) {
  for (unsigned spins = 0;; spins++) {
    uint64_t done;
#ifdef _OPENMP
#pragma omp atomic read
#endif
    done = *q->done;
    if (done == q->ranges)
      break;
    if (spins >= SPINS)
      YIELD();
  }
#ifdef _OPENMP
#pragma omp flush
#endif
}

/* What the team shares: the opening queue's places are the codec's state (place 0, error item
 * rv) and the checksums' rv ranges (places and items from 1 and 0); then the planned steps (q,
 * items from rv + 1). */
typedef struct {
  job j;
  uint64_t rv;      /* the checksums' ranges */
  queued_step sums; /* their count of ranges done */
  queued_step plan; /* place 0, done once the steps are planned or the state failed */
  queued_step* q;   /* the steps, once planned, and after them their counts */
  unsigned nsteps;  /* their number */
  int planned;      /* once plan is done: 1, or 0 when the state failed */
  int nthreads;     /* asked for */
  int size;         /* the team's threads, which the blocks are cut for */
  parz_omp_first_error first;
  /* the opening queue's next place (atomic), and plan's and sums' counts, at words SPREAD,
   * 2 SPREAD and 3 SPREAD */
  uint64_t lines[4 * SPREAD];
} team;

#define TEAM_NEXT(t) ((t)->lines[SPREAD])

/* Place 0: the codec's state and the steps that need it. */
static void begin_and_plan(team* t) {
  parz_chunk_scratch* s = NULL;
  parz_error e;
  int rc;
  t->size = 1;
#ifdef _OPENMP
  t->size = omp_get_num_threads(); /* the blocks' count: the team's, not the one asked for */
#endif
  if ((rc = parz_chunk_scratch_begin(t->j.v, &s, &e)) != PARZ_OK) {
    parz_omp_first_error_record(&t->first, t->rv, rc, &e);
  } else if (!(t->q =
                   (queued_step*)calloc(1, steps_bytes(parz_chunk_scratch_passes(s), t->size)))) {
    parz_omp_first_error_record(
        &t->first, t->rv, PARZ_ERR_NOMEM,
        (parz_fail(&e, PARZ_ERR_NOMEM, "no memory for a chunk's decoding steps"), &e));
  } else {
    t->j.s = s;
    plan_row(&t->j, t->nthreads);
    t->nsteps = plan_steps(&t->j, t->nthreads, t->size, t->rv + 1, t->q,
                           (uint64_t*)(t->q + parz_chunk_scratch_passes(s) + 4u));
    t->planned = 1;
  }
  t->j.s = s;
  steps_done(&t->plan, 1);
}

/* The next range of block o of step q (thread o's), UINT64_MAX once none is left; another's
 * block is looked at first, so that one taken to its end is read, not written. */
static uint64_t take_from(const queued_step* q, int o, int size, int look) {
  const uint64_t end = block_first(q->ranges, o + 1, size);
  uint64_t* next = q->next + SPREAD * (size_t)o;
  uint64_t r;
  if (look) {
#ifdef _OPENMP
#pragma omp atomic read
#endif
    r = *next;
    if (r >= end)
      return UINT64_MAX;
  }
#ifdef _OPENMP
#pragma omp atomic capture
#endif
  r = (*next)++;
  return r < end ? r : UINT64_MAX;
}

/* What one thread knows of the queue: the steps it has seen finished. */
typedef struct {
  team* t;
  unsigned waited; /* steps [0, waited) seen finished */
  int summed;      /* the checksums seen done */
} thread_view;

/* Range r of step k, once the step before it (and, for the destination's steps, the checksums)
 * has finished. */
static void run_place(thread_view* w, unsigned k, uint64_t r) {
  team* t = w->t;
  const queued_step* q = t->q;
  if (k > w->waited) {
    step_wait(&q[k - 1]);
    w->waited = k;
  }
  /* no value reaches the destination before every checksum has been checked, as in the serial
   * decoder (the checksums end long before: no wait in practice) */
  if (q[k].kind >= STEP_STORE && !w->summed) {
    step_wait(&t->sums);
    w->summed = 1;
  }
  if (k == 0)
    run_first(&t->j, &q[0], r, &t->first);
  else
    run_range(&t->j, q[k].kind, q[k].pass, q[k].pass_end, q[k].units, q[k].ranges, r, q[k].item + r,
              &t->first);
}

/* One thread's part: places of the opening queue (the codec's state, the checksums) taken in
 * order until none is left, then every planned step in order, its ranges taken until none is
 * left: the segments' from their counter; a later step's from the thread's own block, counted
 * once it is done, then from the other blocks in turn. */
static void team_queue(team* t) {
  const uint64_t rv = t->rv;
  thread_view w = {t, 0, 0};
  int self = 0;
#ifdef _OPENMP
  self = omp_get_thread_num();
#endif
  for (;;) {
    uint64_t at;
#ifdef _OPENMP
#pragma omp atomic capture
#endif
    at = TEAM_NEXT(t)++;
    if (at == 0) {
      begin_and_plan(t);
      continue;
    }
    if (at > rv)
      break;
    run_range(&t->j, STEP_VERIFY, 0, 0, t->j.v->nchecksums, rv, at - 1, at - 1, &t->first);
    steps_done(&t->sums, 1);
  }
  step_wait(&t->plan);
  if (!t->planned)
    return;
  const queued_step* q = t->q;
  const int size = t->size;
  for (unsigned k = 0; k < t->nsteps; k++) {
    uint64_t r, ran = 0;
    if (!q[k].owned) {
      for (;;) {
#ifdef _OPENMP
#pragma omp atomic capture
#endif
        r = (*q[k].next)++;
        if (r >= q[k].ranges)
          break;
        run_place(&w, k, r);
        steps_done(&q[k], 1);
      }
      continue;
    }
    while ((r = take_from(&q[k], self, size, 0)) != UINT64_MAX) {
      run_place(&w, k, r);
      ran++;
    }
    if (ran)
      steps_done(&q[k], ran);
    for (int o = 1; o < size; o++) {
      const int from = (self + o) % size;
      while ((r = take_from(&q[k], from, size, 1)) != UINT64_MAX) {
        run_place(&w, k, r);
        steps_done(&q[k], 1);
      }
    }
  }
}

int parz_omp_decode_scratch(const parz_chunk_view* view, const parz_chunk_dest* d, int nthreads,
                            parz_error* err) {
  parz_chunk_view v;
  void* offsets = NULL;
  team t;
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
  memset(&t, 0, sizeof t);
  t.j.v = &v;
  t.j.d = d;
  t.rv = step_ranges(v.nchecksums, nthreads);
  t.sums.ranges = t.rv;
  t.sums.done = &t.lines[3 * SPREAD];
  t.plan.ranges = 1;
  t.plan.done = &t.lines[2 * SPREAD];
  t.nthreads = nthreads;
  parz_omp_first_error_init(&t.first);
#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads)
#endif
  team_queue(&t);
  rc = parz_omp_first_error_result(&t.first, err);
  free(t.q);
  parz_chunk_scratch_free(t.j.s);
  free(offsets);
  return rc;
}
