/* Fresh destinations faulted in by the whole team (team.h: parz_omp_populate_share). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* madvise, mincore */
#endif
#include "parz_omp.h"
#include "team.h"

#include <stdint.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many bytes per thread the team leaves the faults to the decode. */
#define POPULATE_MIN_PER_THREAD ((size_t)64 << 10)

/* Fresh memory (the filter's output, which glibc maps afresh on every allocation above its
 * 32 MiB mmap threshold; a new numpy array) is faulted in as it is first written, and each fault
 * zeroes a page, 2 MiB at a time with transparent huge pages. The decoders write blocks in stream
 * order, so all threads write into the same few pages at once and the zeroing runs on about one
 * thread. Each thread populating its own contiguous slice first (whole 2 MiB pages where the
 * buffer has enough) zeroes it in parallel. A slice whose first page is already resident is left
 * alone, so a warm buffer costs one mincore call per thread. MADV_POPULATE_WRITE (Linux 5.14)
 * leaves resident pages and their contents alone, so threads already writing into the slice lose
 * nothing; where the system lacks it, the writes fault the pages in as before.
 *
 * populate_slice faults in slice t of nt of dst[0, bytes): whole pages (whole 2 MiB pages where every slice gets some),
 * the first slice taking the ragged start and the last the ragged end. */
static void populate_slice(void* dst, size_t bytes, int t, int nt) {
#if defined(MADV_POPULATE_WRITE)
  const uintptr_t page = 4096u, huge = (uintptr_t)2 << 20;
  const uintptr_t base = (uintptr_t)dst, end = base + bytes;
  const uintptr_t grain = bytes >= (size_t)nt * huge ? huge : page;
  const uintptr_t first = (base + grain - 1) & ~(grain - 1);
  const uintptr_t n = end > first ? (end - first) / grain : 0;
  uintptr_t lo = t == 0 ? base : first + grain * (n * (uintptr_t)t / (uintptr_t)nt);
  uintptr_t hi = t + 1 == nt ? end : first + grain * (n * (uintptr_t)(t + 1) / (uintptr_t)nt);
  unsigned char resident = 1;
  if (!dst || nt < 1 || bytes < (size_t)nt * POPULATE_MIN_PER_THREAD)
    return;
  lo = (lo + page - 1) & ~(page - 1);
  if (hi <= lo || mincore((void*)lo, 1, &resident) != 0 || (resident & 1))
    return;
  (void)madvise((void*)lo, hi - lo, MADV_POPULATE_WRITE); /* advice: failure changes nothing */
#else
  (void)dst;
  (void)bytes;
  (void)t;
  (void)nt;
#endif
}

void parz_omp_populate_share(void* dst, size_t bytes) {
#ifdef _OPENMP
  populate_slice(dst, bytes, omp_get_thread_num(), omp_get_num_threads());
#else
  (void)dst;
  (void)bytes;
#endif
}

/* The team's other threads share the destination; the calling thread (team member 0) does the
 * work, and the faults it would otherwise take later, in the copy into dst, are gone. */
int parz_omp_populate_during(void* dst, size_t bytes, int threads, int (*work)(void*), void* arg) {
  int rc = PARZ_OK;
#ifdef _OPENMP
  const int nt = parz_omp_team_size(threads);
  if (nt > 1) {
#pragma omp parallel num_threads(nt)
    {
      const int t = omp_get_thread_num(), n = omp_get_num_threads();
      if (t == 0)
        rc = work(arg);
      else
        populate_slice(dst, bytes, t - 1, n - 1);
    }
    return rc;
  }
#endif
  (void)dst;
  (void)bytes;
  (void)threads;
  return work(arg);
}
