/* parz_omp_populate_during: the work runs once, on the calling thread, and its status comes back;
 * bytes written before and during the call survive, untouched bytes of a fresh mapping stay
 * zero; and where the kernel can populate, every page of a fresh destination is resident
 * afterwards although the work never touched it. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise, mincore */
#endif
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "parz_omp.h"

#define BYTES ((size_t)24 << 20) /* several 2 MiB pages per thread of a small team */

struct work {
  pthread_t caller;
  unsigned char* dst;
  int calls;
  int on_caller;
  int status;
};

/* Writes a pattern into every 7th page while the team populates the same range. */
static int write_pages(void* arg) {
  struct work* w = (struct work*)arg;
  size_t at;
  w->calls++;
  w->on_caller = pthread_equal(pthread_self(), w->caller);
  if (w->dst)
    for (at = 0; at < BYTES; at += 7 * 4096)
      memset(w->dst + at, 0xa5, 100);
  return w->status;
}

static unsigned char* fresh(void) {
  void* p = mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : (unsigned char*)p;
}

static size_t resident_pages(unsigned char* p) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE), n = BYTES / page;
  unsigned char vec[(BYTES / 4096) + 1];
  size_t i, count = 0;
  if (mincore(p, BYTES, vec) != 0)
    return 0;
  for (i = 0; i < n; i++)
    count += vec[i] & 1;
  return count;
}

/* Whether this kernel populates on advice (MADV_POPULATE_WRITE, Linux 5.14). */
static int kernel_populates(void) {
#ifdef MADV_POPULATE_WRITE
  unsigned char* p = fresh();
  int ok = p && madvise(p, 4096, MADV_POPULATE_WRITE) == 0;
  if (p)
    munmap(p, BYTES);
  return ok;
#else
  return 0;
#endif
}

int main(void) {
  const int threads[] = {1, 2, 4};
  size_t k, at;
  for (k = 0; k < sizeof threads / sizeof threads[0]; k++) {
    unsigned char* dst = fresh();
    struct work w = {pthread_self(), dst, 0, 0, (int)k == 1 ? PARZ_ERR_FORMAT : PARZ_OK};
    size_t bad = 0;
    int rc;
    CHECK(dst != NULL);
    if (!dst)
      break;
    memset(dst + 4096 * 3, 0x3c, 5000); /* written before the call, across a page boundary */
    rc = parz_omp_populate_during(dst, BYTES, threads[k], write_pages, &w);
    CHECK(rc == w.status, "%d threads: status %d, work returned %d", threads[k], rc, w.status);
    CHECK(w.calls == 1 && w.on_caller, "%d threads: %d calls, on the caller %d", threads[k],
          w.calls, w.on_caller);
    for (at = 0; at < BYTES; at++) {
      unsigned char want = 0;
      if (at >= 4096 * 3 && at < 4096 * 3 + 5000)
        want = 0x3c;
      if (at % (7 * 4096) < 100)
        want = 0xa5;
      bad += dst[at] != want;
    }
    CHECK(bad == 0, "%d threads: %zu bytes changed", threads[k], bad);
    munmap(dst, BYTES);
  }
  /* an untouched fresh destination comes out resident when a team and the kernel can do it */
  if (parz_omp_enabled() && sysconf(_SC_NPROCESSORS_ONLN) > 1 && kernel_populates()) {
    unsigned char* dst = fresh();
    struct work w = {pthread_self(), NULL, 0, 0, PARZ_OK};
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    CHECK(dst != NULL);
    if (dst) {
      CHECK(resident_pages(dst) == 0);
      CHECK(parz_omp_populate_during(dst, BYTES, 2, write_pages, &w) == PARZ_OK);
      CHECK(resident_pages(dst) == BYTES / page, "%zu of %zu pages resident", resident_pages(dst),
            BYTES / page);
      munmap(dst, BYTES);
    }
  } else {
    printf("residency not checked (no OpenMP team or no MADV_POPULATE_WRITE)\n");
  }
  /* no destination: the work alone */
  {
    struct work w = {pthread_self(), NULL, 0, 0, PARZ_ERR_NOMEM};
    CHECK(parz_omp_populate_during(NULL, 0, 4, write_pages, &w) == PARZ_ERR_NOMEM);
    CHECK(w.calls == 1 && w.on_caller);
  }
  return test_finish("omp_populate");
}
