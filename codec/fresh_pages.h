/* Fresh host memory faulted in by several threads (not used by the codec itself: the OpenMP and
 * GPU drivers above it share it for their destinations).
 *
 * Fresh memory (the filter's output, which glibc maps afresh on every allocation above its
 * 32 MiB mmap threshold; a new numpy array) is faulted in as it is first written, and each fault
 * zeroes a page, 2 MiB at a time with transparent huge pages. Whoever writes it first (decoders
 * writing blocks in stream order, a download's copies) takes those faults on the way. Each thread
 * populating its own contiguous slice first (whole 2 MiB pages where the buffer has enough)
 * zeroes it in parallel. A slice whose first page is already resident is left alone, so a warm
 * buffer costs one mincore call per thread. MADV_POPULATE_WRITE (Linux 5.14) leaves resident
 * pages and their contents alone, so threads already writing into the slice lose nothing; where
 * the system lacks it, the writes fault the pages in as before. A C99 translation unit including
 * this defines _DEFAULT_SOURCE before its first system header (mincore, madvise). */
#ifndef PARZ_FRESH_PAGES_H
#define PARZ_FRESH_PAGES_H

#include <stddef.h>
#include <stdint.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* Below this many bytes per thread the threads leave the faults to the writes. */
#define PARZ_POPULATE_MIN_PER_THREAD ((size_t)64 << 10)

/* Faults in slice t of nt of dst[0, bytes): whole pages, the first slice taking the ragged start
 * and the last the ragged end (the pages holding them in full); contents unchanged. */
static inline void parz_populate_slice(void* dst, size_t bytes, int t, int nt) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  const uintptr_t page = 4096u, huge = (uintptr_t)2 << 20;
  const uintptr_t base = (uintptr_t)dst, end = base + bytes;
  const uintptr_t grain = bytes >= (size_t)nt * huge ? huge : page;
  const uintptr_t first = (base + grain - 1) & ~(grain - 1);
  const uintptr_t n = end > first ? (end - first) / grain : 0;
  uintptr_t lo, hi;
  unsigned char resident = 1;
  if (!dst || nt < 1 || t < 0 || t >= nt || bytes < (size_t)nt * PARZ_POPULATE_MIN_PER_THREAD)
    return;
  lo = t == 0 ? base : first + grain * (n * (uintptr_t)t / (uintptr_t)nt);
  hi = t + 1 == nt ? end : first + grain * (n * (uintptr_t)(t + 1) / (uintptr_t)nt);
  lo &= ~(page - 1); /* the page holding dst[0] is mapped: the start may round down */
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

#endif
