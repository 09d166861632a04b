/* The team as the codec's jobs (codec/parz_chunk.h, parz_jobs): the reads of the whole array
 * that encoding begins with (the scan for masked values and exceptions, the cleaned copy, the
 * mask) cut into parts that the team's threads take. Read by one thread, they cost as much as
 * the parallel encode itself at 16 threads, and for an array with masked values several times
 * more. */
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

size_t parz_omp_chunk_bound_data(const parz_array* a, const void* data,
                                 const parz_chunk_config* cfg, int threads) {
  size_t raw =
      parz_array_check(a, NULL) == PARZ_OK ? parz_array_count(a) * parz_type_size(a->type) : 0;
  int nthreads = raw < PARZ_OMP_ENCODE_MIN_BYTES ? 1 : parz_omp_team_size(threads);
  parz_jobs jobs;
  parz_omp_jobs_init(&jobs, &nthreads);
  return parz_chunk_bound_data_jobs(a, data, cfg, &jobs);
}
