/* The filter path's host thread pool (gpu/host_pool.h): every job runs each thread index exactly
 * once and returns only after all have finished; a NULL pool runs jobs on the caller. A started
 * job runs indices 1.. on the pool's threads alone, and wait, the next run or the next start
 * return only once it is over; so too with threads that sleep at once (no spin). A job of parts
 * runs each part exactly once, however many parts against threads, waking threads or not (then
 * the caller runs what the spinning ones do not take), and returns only after all, between and
 * after jobs of the other kinds. The spin follows OMP_WAIT_POLICY. A job that never returns
 * fails the test with a message naming it, by a watchdog, instead of hanging it. Needs no GPU, so
 * it runs in CI. */
#include <stdio.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

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

/* A job that never returns (a part never run, a wait never woken) ends the test with a message
 * naming it: the main thread says which round of jobs it is in and counts those that return, and
 * a watchdog thread ends the process once the count has stood still for WATCH_SECONDS, far more
 * than any round takes on a loaded machine. */
#define WATCH_SECONDS 30
static struct {
  std::mutex mutex;
  std::condition_variable wake;
  bool stop = false;
  std::atomic<unsigned long long> returned{0};
  std::atomic<const char*> kind{"no job"};
  std::atomic<int> size{0}, job{0}, spin{0};
} watch;

static void watch_round(const char* kind, int spin_us, int size, int job) {
  watch.kind = kind;
  watch.spin = spin_us;
  watch.size = size;
  watch.job = job;
}

static void watchdog(void) {
  unsigned long long seen = watch.returned.load();
  auto last = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(watch.mutex);
  while (!watch.wake.wait_for(lock, std::chrono::milliseconds(100), [] { return watch.stop; })) {
    const unsigned long long now = watch.returned.load();
    if (now != seen) {
      seen = now;
      last = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - last > std::chrono::seconds(WATCH_SECONDS)) {
      fprintf(stderr,
              "test_host_pool: %s %d (pool of %d threads, spin %d us) has not returned in %d s: "
              "a part never run or a wait never woken; %d checks had failed\n",
              watch.kind.load(), watch.job.load(), watch.size.load(), watch.spin.load(),
              WATCH_SECONDS, failures);
      fflush(stderr);
      _Exit(1);
    }
  }
}

/* OMP_WAIT_POLICY as parz_host_pool_spin_from_env reads it: passive (any case, blanks around)
 * sleeps at once; anything else, or nothing, spins. */
static void check_spin_from_env(void) {
  static const struct {
    const char* value;
    unsigned spin_us;
  } cases[] = {{NULL, 2000},        {"passive", 0},   {"PASSIVE", 0},
               {" Passive \n", 0},  {"active", 2000}, {"", 2000},
               {"passively", 2000}, {"pass", 2000},   {"ACTIVE ", 2000}};
  for (const auto& c : cases) {
    if (c.value)
      setenv("OMP_WAIT_POLICY", c.value, 1);
    else
      unsetenv("OMP_WAIT_POLICY");
    const unsigned got = parz_host_pool_spin_from_env();
    CHECK(got == c.spin_us, "OMP_WAIT_POLICY=%s: spin %u us, expected %u",
          c.value ? c.value : "(unset)", got, c.spin_us);
  }
  unsetenv("OMP_WAIT_POLICY");
}

int main(void) {
  int jobs = 0;
  std::thread dog(watchdog);
  check_spin_from_env();
  /* threads that spin between jobs, then threads that sleep at once (fewer jobs: each wakes
   * them all) */
  for (int spin_pass = 0; spin_pass < 2; spin_pass++)
    for (int n = 0; n <= 16; n++) {
      const unsigned spin_us = spin_pass == 0 ? 2000 : 0;
      const int runs = spin_pass == 0 ? 2000 : 400, starts = spin_pass == 0 ? 500 : 100;
      parz_host_pool* pool = n ? parz_host_pool_create(n, spin_us) : NULL;
      const int size = parz_host_pool_size(pool);
      CHECK(n <= 1 ? size == 1 : size >= 1 && size <= n, "pool of %d threads asked, %d made", n,
            size);
      for (int j = 0; j < runs; j++, jobs++, watch.returned++) {
        job_state s;
        watch_round("run", (int)spin_us, size, j);
        for (int t = 0; t < 16; t++)
          s.hits[t] = 0;
        s.sum = 0;
        parz_host_pool_run(pool, touch, &s);
        /* everything is done when run returns: each index exactly once, no other */
        for (int t = 0; t < 16; t++)
          CHECK(s.hits[t] == (t < size ? 1 : 0), "thread index %d (pool of %d, job %d)", t, size,
                j);
      }
      /* started jobs: the caller's index never runs; the next job waits for the one before */
      for (int j = 0; j < starts; j++, jobs++, watch.returned++) {
        job_state s, after;
        watch_round("started job", (int)spin_us, size, j);
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
          CHECK(s.hits[t] == want, "started job, index %d (pool of %d, job %d): %d runs", t, size,
                j, (int)s.hits[t]);
          const int later = j % 3 == 0 ? 0 : j % 3 == 1 ? t < size : want;
          CHECK(after.hits[t] == later, "job after a started one, index %d (pool of %d, job %d)", t,
                size, j);
        }
      }
      /* jobs of parts, waking threads and not: fewer, as many and more parts than threads, after
       * jobs of each kind, with the next job at once or after the threads have gone back to
       * sleep */
      for (int j = 0; j < runs; j++, jobs++, watch.returned++) {
        static const int counts[] = {0, 1, 2, 3, 5, 16};
        const int parts = counts[j % 6];
        job_state s, after;
        watch_round("job of parts", (int)spin_us, size, j);
        for (int t = 0; t < 16; t++)
          s.hits[t] = after.hits[t] = 0;
        s.sum = after.sum = 0;
        if (j % 5 == 1)
          parz_host_pool_start(pool, touch, &after);
        else if (j % 5 == 2)
          parz_host_pool_run(pool, touch, &after);
        parz_host_pool_parts(pool, parts, j % 7 < 3, touch, &s);
        for (int t = 0; t < 16; t++)
          CHECK(s.hits[t] == (t < parts ? 1 : 0), "part %d of %d (pool of %d, job %d): %d runs", t,
                parts, size, j, (int)s.hits[t]);
        if (j % 5 == 3)
          parz_host_pool_start(pool, touch, &after);
        else if (j % 5 == 4)
          parz_host_pool_run(pool, touch, &after);
        parz_host_pool_wait(pool);
        for (int t = 0; t < 16; t++) {
          const int started = j % 5 == 1 || j % 5 == 3, ran = j % 5 == 2 || j % 5 == 4;
          const int later = started ? t > 0 && t < size && pool : ran ? t < size : 0;
          CHECK(after.hits[t] == later, "job beside parts, index %d (pool of %d, job %d)", t, size,
                j);
        }
        if (spin_pass == 0 && j % 200 == 199) /* past the spin: the next job finds them asleep */
          std::this_thread::sleep_for(std::chrono::milliseconds(3));
      }
      /* freed while a started job runs: it finishes first */
      {
        job_state s;
        watch_round("pool freed beside job", (int)spin_us, size, 0);
        for (int t = 0; t < 16; t++)
          s.hits[t] = 0;
        s.sum = 0;
        parz_host_pool_start(pool, touch, &s);
        parz_host_pool_free(pool);
        watch.returned++;
        for (int t = 0; t < 16; t++)
          CHECK(s.hits[t] == (t > 0 && t < size && pool ? 1 : 0), "freed pool, index %d", t);
      }
    }
  {
    std::lock_guard<std::mutex> lock(watch.mutex);
    watch.stop = true;
  }
  watch.wake.notify_all();
  dog.join();
  printf("%d jobs\n", jobs);
  return test_finish("test_host_pool");
}
