/* A parz_jobs (codec/parz_chunk.h) that runs every part on the calling thread and measures what
 * the parts would cost a team of any size: the run's work (its CPU time) and its span (the
 * longest chain of parts that must run one after another: each run of parts counts as its
 * longest part, runs inside a part included). A team of P threads then takes at least
 * span and at most work / P + span (Brent's bound), which a machine of fewer cores than P can
 * estimate. Measured by the calling thread's CPU time, so other processes' load does not count;
 * single-threaded, for one measurement at a time. */
#ifndef PARZ_BENCH_SPAN_H
#define PARZ_BENCH_SPAN_H

#include "parz_chunk.h"

/* jobs that measure, each run cut into `parts` parts at most (the parts an OpenMP team of P
 * threads asks for: 4 P). */
void bench_span_jobs(parz_jobs* jobs, uint64_t parts);

/* Starts a measurement; bench_span_end gives its work and span in seconds. */
void bench_span_begin(void);
void bench_span_end(double* work, double* span);

#endif
