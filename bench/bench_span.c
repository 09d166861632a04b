#include "bench_span.h"

#include "bench_clock.h"

/* The work and span of the runs inside what is being timed now (a part, or the measurement). */
static double inner_work, inner_span, started;

static void run_measured(void* ctx, uint64_t n, void (*job)(void* arg, uint64_t i), void* arg) {
  const double outer_work = inner_work, outer_span = inner_span;
  double work = 0, span = 0;
  (void)ctx;
  for (uint64_t i = 0; i < n; i++) {
    double t0, dt, part_span;
    inner_work = inner_span = 0;
    t0 = bench_thread_cpu();
    job(arg, i);
    dt = bench_thread_cpu() - t0;
    /* the part's own time, its inner runs counted by their span */
    part_span = dt - inner_work + inner_span;
    work += dt;
    span = part_span > span ? part_span : span;
  }
  inner_work = outer_work + work;
  inner_span = outer_span + span;
}

void bench_span_jobs(parz_jobs* jobs, uint64_t parts) {
  jobs->run = run_measured;
  jobs->ctx = NULL;
  jobs->parts = parts;
}

void bench_span_begin(void) {
  inner_work = inner_span = 0;
  started = bench_thread_cpu();
}

void bench_span_end(double* work, double* span) {
  *work = bench_thread_cpu() - started;
  *span = *work - inner_work + inner_span;
}
