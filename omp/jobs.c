/* The team as the codec's jobs (codec/parz_chunk.h, parz_jobs): the reads of the whole array
 * that encoding begins with (the scan for masked values and exceptions, the cleaned copy, the
 * mask) and a codec's passes cut into parts that the team's threads take. Read by one thread,
 * they cost as much as the parallel encode itself at 16 threads, and for an array with masked
 * values several times more.
 *
 * Inside one parallel region (parz_omp_team_jobs) every run of parts is a loop of tasks: the
 * encoder's begin, a hundred runs and more, wakes the team once rather than once per run, and a
 * part may run parts of its own (a codec's trials, each cut into passes), which the threads
 * idle at that moment take. */
#include "parz_omp.h"
#include "team.h"

/* Parts per thread, handed out dynamically: blocks with masked values cost more than others. */
#define PARTS_PER_THREAD 4u

static void run_on_team(void* ctx, uint64_t n, void (*job)(void* arg, uint64_t i), void* arg) {
  const int nthreads = *(const int*)ctx;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1)
#endif
  for (int64_t i = 0; i < (int64_t)n; i++)
    job(arg, (uint64_t)i);
}

void parz_omp_jobs_init(parz_jobs* jobs, int* nthreads) {
  jobs->run = run_on_team;
  jobs->ctx = nthreads;
  jobs->parts = *nthreads > 1 ? PARTS_PER_THREAD * (uint64_t)*nthreads : 1;
}

/* A run of parts as tasks see it (clang 14 fails to compile a task that captures a function
 * pointer itself). */
typedef struct {
  void (*job)(void* arg, uint64_t i);
  void* arg;
} task_run;

static void run_part(const task_run* r, uint64_t i) { r->job(r->arg, i); }

/* Every part but the last a task of the region's team, the last the caller's; the caller then
 * takes tasks too until its parts are done (the taskwait), its own parts' parts included. */
static void run_as_tasks(void* ctx, uint64_t n, void (*job)(void* arg, uint64_t i), void* arg) {
  const task_run run = {job, arg};
  const task_run* r = &run;
  (void)ctx;
  for (uint64_t i = 0; i + 1 < n; i++) {
#ifdef _OPENMP
#pragma omp task firstprivate(i, r)
#endif
    run_part(r, i);
  }
  if (n)
    run_part(r, n - 1);
#ifdef _OPENMP
#pragma omp taskwait
#endif
}

int parz_omp_team_jobs(int nthreads, parz_team_work work, void* arg) {
  parz_jobs jobs;
  int rc = PARZ_OK;
  jobs.run = run_as_tasks;
  jobs.ctx = NULL;
  jobs.parts = nthreads > 1 ? PARTS_PER_THREAD * (uint64_t)nthreads : 1;
  if (nthreads <= 1)
    return work(arg, NULL);
#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads)
#pragma omp single
#endif
  rc = work(arg, &jobs);
  return rc;
}

size_t parz_omp_chunk_bound_data(const parz_array* a, const void* data,
                                 const parz_chunk_config* cfg, int threads) {
  size_t raw =
      parz_array_check(a, NULL) == PARZ_OK ? parz_array_count(a) * parz_type_size(a->type) : 0;
  int nthreads = raw < PARZ_OMP_ENCODE_MIN_BYTES ? 1 : parz_omp_team_size(threads);
  parz_jobs jobs;
  parz_omp_jobs_init(&jobs, &nthreads);
  return parz_chunk_bound_data_jobs(a, data, cfg, &jobs);
}
