/* A fixed set of host threads for the filter path's host copies (C++/CUDA only, internal).
 *
 * parz_gpu_chunk_decode moves each chunk through pinned memory with several host threads, twice
 * per chunk. Starting and joining those threads on every call costs tens of microseconds per
 * thread, a real share of a 4 MiB chunk's time, so the context keeps one pool for its life. One
 * job runs at a time; the context, like its streams, serves one caller at a time. */
#ifndef PARZ_GPU_HOST_POOL_H
#define PARZ_GPU_HOST_POOL_H

#include <stddef.h>
#include <string.h>

struct parz_host_pool;

/* A pool of nthreads threads counting the caller, so nthreads - 1 are started; NULL when none
 * could be (the caller then runs jobs alone). */
parz_host_pool* parz_host_pool_create(int nthreads);
void parz_host_pool_free(parz_host_pool* pool);

/* Threads a job runs on (1 for a NULL pool). */
int parz_host_pool_size(const parz_host_pool* pool);

/* Runs fn(arg, t) for every t in [0, size), t = 0 on the calling thread, and returns when all
 * have returned. */
void parz_host_pool_run(parz_host_pool* pool, void (*fn)(void* arg, int t), void* arg);

/* Runs fn(t) for t in [0, size) on the pool's threads (a lambda; the caller is thread 0). */
template <typename F>
static void parz_host_pool_each(parz_host_pool* pool, F fn)
{
  parz_host_pool_run(pool, [](void* f, int t) { (*(F*)f)(t); }, &fn);
}

/* Thread t's share of n of a copy of `bytes` bytes. */
static inline void parz_copy_share(unsigned char* dst, const unsigned char* src, size_t bytes,
                                   int t, int n)
{
  size_t a = bytes * (size_t)t / (size_t)n, b = bytes * (size_t)(t + 1) / (size_t)n;
  if (b > a)
    memcpy(dst + a, src + a, b - a);
}

#endif
