/* A fixed set of host threads for the filter path's host copies (C++/CUDA only, internal).
 *
 * parz_gpu_chunk_decode moves each chunk through pinned memory with several host threads, twice
 * per chunk. Starting and joining those threads on every call costs tens of microseconds per
 * thread, a real share of a 4 MiB chunk's time, so the context keeps one pool for its life. One
 * job runs at a time; the context, like its streams, serves one caller at a time. */
#ifndef PARZ_GPU_HOST_POOL_H
#define PARZ_GPU_HOST_POOL_H

struct parz_host_pool;

/* A pool of nthreads threads counting the caller, so nthreads - 1 are started; NULL when none
 * could be (the caller then runs jobs alone). A thread that has finished a job, and a caller
 * waiting for one to end, spin up to spin_us microseconds before they sleep (0: sleep at once). */
parz_host_pool* parz_host_pool_create(int nthreads, unsigned spin_us);

/* The spin of the filter path's pools: none when OpenMP's threads are told to sleep at once
 * (OMP_WAIT_POLICY=passive, any case), else 2 ms, which covers the gap between the jobs of one
 * chunk and HDF5's work between chunks of 4 MiB. */
unsigned parz_host_pool_spin_from_env(void);
void parz_host_pool_free(parz_host_pool* pool);

/* Threads a job runs on (1 for a NULL pool). */
int parz_host_pool_size(const parz_host_pool* pool);

/* Runs fn(arg, t) for every t in [0, size), t = 0 on the calling thread, and returns when all
 * have returned. */
void parz_host_pool_run(parz_host_pool* pool, void (*fn)(void* arg, int t), void* arg);

/* Starts fn(arg, t) for every t in [1, size) on the pool's own threads and returns at once, the
 * caller free for other work: a job the caller does not need done (a NULL pool runs nothing).
 * parz_host_pool_wait returns once it is over; parz_host_pool_run and parz_host_pool_free wait
 * for it first. */
void parz_host_pool_start(parz_host_pool* pool, void (*fn)(void* arg, int t), void* arg);
void parz_host_pool_wait(parz_host_pool* pool);

/* Runs fn(arg, i) once for every i in [0, parts) and returns when all have returned: each part
 * goes to whichever thread asks first, the caller included. With wake, at most parts - 1 of the
 * pool's sleeping threads are woken (parts far longer than a sleeping thread's wake-up, tens to
 * hundreds of microseconds on a virtual machine's host); without, only threads still spinning
 * after their last job take parts, and the caller the rest (small parts, which a woken thread
 * would take late and keep the caller waiting for). A job with a part for every thread is
 * parz_host_pool_run's. */
void parz_host_pool_parts(parz_host_pool* pool, int parts, int wake, void (*fn)(void* arg, int i),
                          void* arg);

/* parz_host_pool_run with any callable fn(t). */
template <typename F>
static inline void parz_host_pool_each(parz_host_pool* pool, F fn) {
  parz_host_pool_run(
      pool, [](void* f, int t) { (*(F*)f)(t); }, &fn);
}

/* parz_host_pool_parts with any callable fn(i). */
template <typename F>
static inline void parz_host_pool_each_part(parz_host_pool* pool, int parts, int wake, F fn) {
  parz_host_pool_parts(
      pool, parts, wake, [](void* f, int i) { (*(F*)f)(i); }, &fn);
}

#endif
