#define _POSIX_C_SOURCE 200809L
#include "bench_clock.h"

#include <time.h>

static double seconds(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double bench_now(void) { return seconds(CLOCK_MONOTONIC); }
double bench_thread_cpu(void) { return seconds(CLOCK_THREAD_CPUTIME_ID); }
double bench_process_cpu(void) { return seconds(CLOCK_PROCESS_CPUTIME_ID); }
