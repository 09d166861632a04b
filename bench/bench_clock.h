/* The benchmarks' clocks. */
#ifndef PARZ_BENCH_CLOCK_H
#define PARZ_BENCH_CLOCK_H

/* Seconds of a monotonic clock. */
double bench_now(void);
/* Seconds of CPU time of the calling thread, and of the whole process (all its threads): work
 * done, which time slices lost to other processes on a shared machine do not inflate. */
double bench_thread_cpu(void);
double bench_process_cpu(void);

#endif
