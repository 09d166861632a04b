/* The filter path's host thread pool (gpu/host_pool.h): every job runs each thread index exactly
 * once and returns only after all have finished; a NULL pool runs jobs on the caller. A started
 * job runs indices 1.. on the pool's threads alone, and wait, the next run or the next start
 * return only once it is over. Needs no GPU, so it runs in CI. */
#include <stdio.h>

#include <atomic>

#include "check.h"
#include "host_pool.h"

struct job_state {
  std::atomic<int> hits[16];
  std::atomic<long long> sum;
};

static void touch(void* arg, int t) {
  job_state* s = (job_state*)arg;
  s->hits[t]++;
  /* a little work, so that threads overlap and a missed wait would show */
  long long x = 0;
  for (int i = 0; i < 1000 * (t + 1); i++)
    x += i ^ t;
  s->sum += x;
}

int main(void) {
  int jobs = 0;
  for (int n = 0; n <= 16; n++) {
    parz_host_pool* pool = n ? parz_host_pool_create(n) : NULL;
    const int size = parz_host_pool_size(pool);
    CHECK(n <= 1 ? size == 1 : size >= 1 && size <= n, "pool of %d threads asked, %d made", n,
          size);
    for (int j = 0; j < 2000; j++, jobs++) {
      job_state s;
      for (int t = 0; t < 16; t++)
        s.hits[t] = 0;
      s.sum = 0;
      parz_host_pool_run(pool, touch, &s);
      /* everything is done when run returns: each index exactly once, no other */
      for (int t = 0; t < 16; t++)
        CHECK(s.hits[t] == (t < size ? 1 : 0), "thread index %d (pool of %d, job %d)", t, size, j);
    }
    /* started jobs: the caller's index never runs; the next job waits for the one before */
    for (int j = 0; j < 500; j++, jobs++) {
      job_state s, after;
      for (int t = 0; t < 16; t++)
        s.hits[t] = after.hits[t] = 0;
      s.sum = after.sum = 0;
      parz_host_pool_start(pool, touch, &s);
      if (j % 3 == 0)
        parz_host_pool_wait(pool);
      else if (j % 3 == 1)
        parz_host_pool_run(pool, touch, &after);
      else
        parz_host_pool_start(pool, touch, &after);
      parz_host_pool_wait(pool);
      for (int t = 0; t < 16; t++) {
        const int want = t > 0 && t < size && pool ? 1 : 0;
        CHECK(s.hits[t] == want, "started job, index %d (pool of %d, job %d): %d runs", t, size, j,
              (int)s.hits[t]);
        const int later = j % 3 == 0 ? 0 : j % 3 == 1 ? t < size : want;
        CHECK(after.hits[t] == later, "job after a started one, index %d (pool of %d, job %d)", t,
              size, j);
      }
    }
    /* freed while a started job runs: it finishes first */
    {
      job_state s;
      for (int t = 0; t < 16; t++)
        s.hits[t] = 0;
      s.sum = 0;
      parz_host_pool_start(pool, touch, &s);
      parz_host_pool_free(pool);
      for (int t = 0; t < 16; t++)
        CHECK(s.hits[t] == (t > 0 && t < size && pool ? 1 : 0), "freed pool, index %d", t);
    }
  }
  printf("%d jobs\n", jobs);
  return test_finish("test_host_pool");
}
