/* Thread counts and first-error collection shared by the OpenMP decode and encode drivers. */
#include "team.h"

#include <pthread.h>
#include <string.h>

#include "parz_omp.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* A process made by fork() (without exec) inherits OpenMP's state but none of its worker threads:
 * GCC's libgomp then waits forever at the child's next parallel region for the workers of the
 * pool the parent started. So a forked child runs every chunk on its calling thread; the flag is
 * set once, in the child, by the fork handler registered when this library is loaded. */
static volatile int forked_child;

static void mark_forked_child(void) { forked_child = 1; }

__attribute__((constructor)) static void watch_fork(void) {
  pthread_atfork(NULL, NULL, mark_forked_child);
}

int parz_omp_enabled(void) {
#ifdef _OPENMP
  return 1;
#else
  return 0;
#endif
}

int parz_omp_threads_max(void) {
#ifdef _OPENMP
  const int procs = omp_get_num_procs(), limit = omp_get_thread_limit();
  const int most = procs > PARZ_OMP_THREADS_MIN_CAP / PARZ_OMP_THREADS_PER_CPU
                       ? procs * PARZ_OMP_THREADS_PER_CPU
                       : PARZ_OMP_THREADS_MIN_CAP;
  return limit > 0 && limit < most ? limit : most;
#else
  return 1;
#endif
}

int parz_omp_team_size(int threads) {
  if (forked_child)
    return 1;
#ifdef _OPENMP
  /* Inside an application's parallel region with nesting exhausted, a nested region runs on one
   * thread: skip it rather than pay for it. Only queries; no OpenMP setting is changed. */
  if (omp_get_active_level() >= omp_get_max_active_levels())
    return 1;
  if (threads <= 0) {
    threads = omp_get_max_threads(); /* OMP_NUM_THREADS may ask for more than there are CPUs */
    if (threads > omp_get_num_procs())
      threads = omp_get_num_procs();
  } else if (threads > parz_omp_threads_max()) {
    threads = parz_omp_threads_max();
  }
  /* A thread OpenMP fails to start ends the process: start only those whose stacks fit. */
  return threads > 1 ? 1 + (int)parz_omp_threads_that_fit((unsigned)threads - 1) : 1;
#else
  (void)threads;
  return 1;
#endif
}

void parz_omp_first_error_init(parz_omp_first_error* f) {
  f->index = UINT64_MAX;
  memset(&f->err, 0, sizeof f->err);
}

void parz_omp_first_error_record(parz_omp_first_error* f, uint64_t index, int code,
                                 const parz_error* e) {
#ifdef _OPENMP
#pragma omp critical(parz_omp_first_error)
#endif
  {
    if (index < f->index) {
      f->err = *e;
      f->err.code = code; /* the returned status is authoritative */
#ifdef _OPENMP
#pragma omp atomic write
#endif
      f->index = index;
    }
  }
}

int parz_omp_first_error_skip(parz_omp_first_error* f, uint64_t index) {
  uint64_t first;
#ifdef _OPENMP
#pragma omp atomic read
#endif
  first = f->index;
  return index > first;
}

int parz_omp_first_error_result(const parz_omp_first_error* f, parz_error* err) {
  if (f->index == UINT64_MAX)
    return PARZ_OK;
  if (err)
    *err = f->err;
  return f->err.code;
}
