/* Transparent huge pages for large fresh buffers (huge_pages.h). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* madvise */
#endif
#include "huge_pages.h"

#include <stdint.h>
#include <sys/mman.h>

#define HUGE_PAGE ((uintptr_t)2 << 20)

void parz_advise_huge_pages(void* p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  const uintptr_t first = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  const uintptr_t end = ((uintptr_t)p + bytes) & ~(HUGE_PAGE - 1);
  if (p && bytes >= PARZ_HUGE_PAGES_MIN_BYTES && end > first)
    (void)madvise((void*)first, end - first, MADV_HUGEPAGE); /* advice: failure changes nothing */
#else
  (void)p;
  (void)bytes;
#endif
}
