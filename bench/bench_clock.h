/* The benchmarks' clock. */
#ifndef PARZ_BENCH_CLOCK_H
#define PARZ_BENCH_CLOCK_H

/* Seconds of a monotonic clock. */
double bench_now(void);

#endif
