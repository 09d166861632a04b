/* Host thread pool of the filter path (host_pool.h). Plain C++ threads: nothing here touches
 * the GPU. */
#include "host_pool.h"

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
  unsigned long long job = 0; /* jobs handed out so far */
  int running = 0;            /* workers still in the current job */
  bool stop = false;
};

static void worker(parz_host_pool* p, int t) {
  unsigned long long seen = 0;
  std::unique_lock<std::mutex> lock(p->mutex);
  for (;;) {
    p->start.wait(lock, [&] { return p->stop || p->job != seen; });
    if (p->stop)
      return;
    seen = p->job;
    void (*fn)(void*, int) = p->fn;
    void* arg = p->arg;
    lock.unlock();
    fn(arg, t);
    lock.lock();
    if (--p->running == 0)
      p->done.notify_all();
  }
}

void parz_host_pool_free(parz_host_pool* p) {
  if (!p)
    return;
  parz_host_pool_wait(p);
  {
    std::lock_guard<std::mutex> lock(p->mutex);
    p->stop = true;
  }
  p->start.notify_all();
  for (std::thread& th : p->threads)
    th.join();
  delete p;
}

parz_host_pool* parz_host_pool_create(int nthreads) {
  parz_host_pool* p = new (std::nothrow) parz_host_pool;
  if (!p)
    return nullptr;
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

int parz_host_pool_size(const parz_host_pool* p) { return p ? (int)p->threads.size() + 1 : 1; }

void parz_host_pool_wait(parz_host_pool* p) {
  if (!p)
    return;
  std::unique_lock<std::mutex> lock(p->mutex);
  p->done.wait(lock, [&] { return p->running == 0; });
}

void parz_host_pool_start(parz_host_pool* p, void (*fn)(void*, int), void* arg) {
  if (!p)
    return;
  parz_host_pool_wait(p);
  {
    std::lock_guard<std::mutex> lock(p->mutex);
    p->fn = fn;
    p->arg = arg;
    p->running = (int)p->threads.size();
    p->job++;
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
