/* Fresh destinations faulted in by the whole team (team.h: parz_omp_populate_share), slice by
 * slice as codec/fresh_pages.h explains. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* madvise, mincore */
#endif
#include "fresh_pages.h"
#include "team.h"

#ifdef _OPENMP
#include <omp.h>
#endif

void parz_omp_populate_share(void* dst, size_t bytes) {
#ifdef _OPENMP
  parz_populate_slice(dst, bytes, omp_get_thread_num(), omp_get_num_threads());
#else
  (void)dst;
  (void)bytes;
#endif
}
