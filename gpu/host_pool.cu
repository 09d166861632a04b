/* Host thread pool of the filter path (host_pool.h). Plain C++ threads: nothing here touches
 * the GPU.
 *
 * A worker that has finished a job spins on the job counter for a while before it sleeps on the
 * condition variable, and so does a caller waiting for a job's end. A chunk through the filter
 * runs two or three jobs a fraction of a millisecond apart, with HDF5's own work between
 * chunks, and waking sleeping threads for each job is a visible share of a chunk's time on a
 * virtual machine's host. The spin is bounded
 * (the pool's spin_us), as OpenMP's is, so an idle pool costs no CPU for long; a pool made with
 * 0 sleeps at once.
 *
 * A job of parts (parz_host_pool_parts) hands its parts to whichever thread asks first, the
 * caller among them, and ends when every part has: the caller never waits for a thread to wake,
 * only for the parts that threads took. A sleeping thread wakes in tens to hundreds of
 * microseconds on a virtual machine's host, so a job of small parts wakes none: the threads
 * still spinning take parts at once, and the caller the rest. */
#include "host_pool.h"

#include <ctype.h>
#include <stdlib.h>
#include <strings.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

struct parz_host_pool {
  std::mutex mutex;
  std::condition_variable start; /* a new job, or stop */
  std::condition_variable done;  /* the last worker finished the job */
  std::vector<std::thread> threads;
  void (*fn)(void*, int) = nullptr;
  void* arg = nullptr;
  unsigned nparts = 0; /* a job of parts: how many */
  /* written under the mutex, also read without it by the spinning threads */
  std::atomic<unsigned long long> job{0}; /* jobs handed out so far, times 2; + 1: of parts */
  std::atomic<int> running{0};            /* workers still in the current job */
  /* a job of parts: its number (the job word's high bits) in the high half, the parts not yet
   * taken in the low half; one word, so that a thread late for a job takes no part of the next */
  std::atomic<unsigned long long> claim{0};
  std::atomic<unsigned> left{0}; /* a job of parts: the parts not yet done */
  std::atomic<bool> stop{false};
  unsigned spin_us = 0; /* how long a thread spins before it sleeps */
};

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Spins until ready() or spin_us have passed; whether ready() came true. It yields the core now
 * and then: where the pool has more threads than the host has cores, a spinning thread must not
 * keep one that still has work off its core. */
template <typename F>
static bool spin_until(unsigned spin_us, F ready) {
  if (spin_us == 0)
    return ready();
  const auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_us);
  for (unsigned k = 0;; k++) {
    if (ready())
      return true;
    relax();
    if ((k & 63) == 63) {
      if (std::chrono::steady_clock::now() >= end)
        return ready();
      std::this_thread::yield();
    }
  }
}

/* The parts of job `job` (the job word, parts mode) taken and run until none is left; the last
 * part's end wakes the caller. A part taken holds the job open, so fn and arg stay its own. */
static void take_parts(parz_host_pool* p, unsigned long long job) {
  const unsigned long long id = (job >> 1) & 0xffffffffull;
  unsigned long long c = p->claim.load(std::memory_order_acquire);
  for (;;) {
    if (c >> 32 != id || (unsigned)c == 0)
      return;
    if (!p->claim.compare_exchange_weak(c, c - 1, std::memory_order_acq_rel,
                                        std::memory_order_acquire))
      continue;
    p->fn(p->arg, (int)(p->nparts - (unsigned)c));
    if (p->left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(p->mutex);
      p->done.notify_all();
    }
    c = p->claim.load(std::memory_order_acquire);
  }
}

static void worker(parz_host_pool* p, int t) {
  unsigned long long seen = 0;
  for (;;) {
    auto news = [&] {
      return p->stop.load(std::memory_order_acquire) ||
             p->job.load(std::memory_order_acquire) != seen;
    };
    if (!spin_until(p->spin_us, news)) {
      std::unique_lock<std::mutex> lock(p->mutex);
      p->start.wait(lock, news);
    }
    if (p->stop.load(std::memory_order_acquire))
      return;
    /* fn and arg were written before the job's number (release), read after it (acquire) */
    seen = p->job.load(std::memory_order_acquire);
    if (seen & 1) {
      take_parts(p, seen);
      continue;
    }
    p->fn(p->arg, t);
    if (p->running.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      /* under the mutex, so that a waiter between its check and its sleep cannot miss it */
      std::lock_guard<std::mutex> lock(p->mutex);
      p->done.notify_all();
    }
  }
}

void parz_host_pool_free(parz_host_pool* p) {
  if (!p)
    return;
  parz_host_pool_wait(p);
  {
    std::lock_guard<std::mutex> lock(p->mutex);
    p->stop.store(true, std::memory_order_release);
  }
  p->start.notify_all();
  for (std::thread& th : p->threads)
    th.join();
  delete p;
}

parz_host_pool* parz_host_pool_create(int nthreads, unsigned spin_us) {
  parz_host_pool* p = new (std::nothrow) parz_host_pool;
  if (!p)
    return nullptr;
  p->spin_us = spin_us;
  try {
    for (int t = 1; t < nthreads; t++)
      p->threads.emplace_back(worker, p, t);
  } catch (...) {
    /* fewer threads than asked: keep those that started, numbered 1..k */
  }
  if (p->threads.empty()) {
    delete p;
    return nullptr;
  }
  return p;
}

unsigned parz_host_pool_spin_from_env(void) {
  const char* v = getenv("OMP_WAIT_POLICY");
  if (!v)
    return 2000;
  while (isspace((unsigned char)*v))
    v++;
  if (strncasecmp(v, "passive", 7) != 0)
    return 2000;
  for (v += 7; isspace((unsigned char)*v);)
    v++;
  return *v ? 2000 : 0;
}

int parz_host_pool_size(const parz_host_pool* p) { return p ? (int)p->threads.size() + 1 : 1; }

void parz_host_pool_wait(parz_host_pool* p) {
  if (!p)
    return;
  auto over = [&] { return p->running.load(std::memory_order_acquire) == 0; };
  if (spin_until(p->spin_us, over))
    return;
  std::unique_lock<std::mutex> lock(p->mutex);
  p->done.wait(lock, over);
}

void parz_host_pool_start(parz_host_pool* p, void (*fn)(void*, int), void* arg) {
  if (!p)
    return;
  parz_host_pool_wait(p);
  {
    std::lock_guard<std::mutex> lock(p->mutex);
    p->fn = fn;
    p->arg = arg;
    p->running.store((int)p->threads.size(), std::memory_order_relaxed);
    p->job.store((p->job.load(std::memory_order_relaxed) | 1) + 1, std::memory_order_release);
  }
  p->start.notify_all();
}

void parz_host_pool_run(parz_host_pool* p, void (*fn)(void*, int), void* arg) {
  if (!p) {
    fn(arg, 0);
    return;
  }
  parz_host_pool_start(p, fn, arg);
  fn(arg, 0);
  parz_host_pool_wait(p);
}

void parz_host_pool_parts(parz_host_pool* p, int parts, int wake, void (*fn)(void*, int),
                          void* arg) {
  if (!p || parts <= 1) {
    for (int i = 0; i < parts; i++)
      fn(arg, i);
    return;
  }
  parz_host_pool_wait(p);
  unsigned long long job;
  {
    std::lock_guard<std::mutex> lock(p->mutex);
    p->fn = fn;
    p->arg = arg;
    p->nparts = (unsigned)parts;
    job = (p->job.load(std::memory_order_relaxed) | 1) + 2;
    p->left.store((unsigned)parts, std::memory_order_relaxed);
    p->claim.store(((job >> 1) & 0xffffffffull) << 32 | (unsigned)parts, std::memory_order_relaxed);
    p->job.store(job, std::memory_order_release);
  }
  /* spinning threads see the job at once; of the sleeping ones, no more than would find a part */
  const int most = parts - 1 < (int)p->threads.size() ? parts - 1 : (int)p->threads.size();
  const int woken = wake ? most : 0;
  for (int k = 0; k < woken; k++)
    p->start.notify_one();
  take_parts(p, job);
  auto over = [&] { return p->left.load(std::memory_order_acquire) == 0; };
  if (spin_until(p->spin_us, over))
    return;
  std::unique_lock<std::mutex> lock(p->mutex);
  p->done.wait(lock, over);
}
