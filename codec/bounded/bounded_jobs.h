/* The encoder's passes over a chunk on a caller's threads (parz_jobs, codec/parz_chunk.h): a pass
 * of `units` independent units cut into at most the jobs' parts, each a run of consecutive units,
 * or run whole on the calling thread without jobs. Every unit writes what no other unit of its
 * pass reads or writes, so the results are those of the serial pass whatever the cut. */
#ifndef PARZ_BOUNDED_JOBS_H
#define PARZ_BOUNDED_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "parz_chunk.h"

/* The most parts of one pass: each part of a symbol count holds histograms of its own. */
#define PARZ_BOUNDED_PARTS_MAX 64u

/* Values a part holds at least: a pass of fewer runs whole, where handing it to the jobs would
 * cost more than it saves (the interpolation's coarse levels are passes of a few values). */
#define PARZ_BOUNDED_PART_VALUES 8192u

/* Parts a pass of `units` units and `values` values is cut into: 1 without jobs. */
static inline uint64_t parz_bounded_parts(const parz_jobs* jobs, uint64_t units, uint64_t values) {
  uint64_t p = jobs && jobs->run && jobs->parts > 1 ? jobs->parts : 1;
  if (p > PARZ_BOUNDED_PARTS_MAX)
    p = PARZ_BOUNDED_PARTS_MAX;
  if (p > values / PARZ_BOUNDED_PART_VALUES)
    p = values / PARZ_BOUNDED_PART_VALUES;
  if (p > units)
    p = units;
  return p ? p : 1;
}

/* Part i of `parts` of `units` units: [*first, *first + *count). */
static inline void parz_bounded_part(uint64_t units, uint64_t parts, uint64_t i, size_t* first,
                                     size_t* count) {
  const uint64_t lo = units * i / parts, hi = units * (i + 1) / parts;
  *first = (size_t)lo;
  *count = (size_t)(hi - lo);
}

/* job(arg, i) for every part i of `parts`: on the jobs when there are more than one. */
static inline void parz_bounded_run(const parz_jobs* jobs, uint64_t parts,
                                    void (*job)(void* arg, uint64_t i), void* arg) {
  if (parts > 1 && jobs && jobs->run) {
    jobs->run(jobs->ctx, parts, job, arg);
    return;
  }
  for (uint64_t i = 0; i < parts; i++)
    job(arg, i);
}

#endif
