/* parz_populate_slice (codec/fresh_pages.h): the slices of every thread count together fault in
 * a whole fresh destination, whatever its alignment; bytes written before and during the calls
 * survive and untouched bytes stay zero; and a slice out of range does nothing. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise, mincore */
#endif
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "fresh_pages.h"

#define MAPPED ((size_t)24 << 20) /* several 2 MiB pages per slice of a small team */

struct slice {
  unsigned char* dst;
  size_t bytes;
  int t, nt;
};

static void* populate(void* arg) {
  const struct slice* s = (const struct slice*)arg;
  parz_populate_slice(s->dst, s->bytes, s->t, s->nt);
  return NULL;
}

/* Writes a pattern into every 7th page while the slices are populated. */
static void* write_pages(void* arg) {
  const struct slice* s = (const struct slice*)arg;
  size_t at;
  for (at = 0; at + 100 <= s->bytes; at += 7 * 4096)
    memset(s->dst + at, 0xa5, 100);
  return NULL;
}

/* A fresh mapping of 4 KiB pages: with transparent huge pages the writer's first touch of a
 * 2 MiB region would fault in all of it, and residency would not show what the slices did. */
static unsigned char* fresh(void) {
  void* p = mmap(NULL, MAPPED, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
#ifdef MADV_NOHUGEPAGE
  (void)madvise(p, MAPPED, MADV_NOHUGEPAGE);
#endif
  return (unsigned char*)p;
}

/* Pages of [p, p + bytes) resident, counting the pages the range touches. */
static size_t resident_pages(unsigned char* p, size_t bytes, size_t* touched) {
  static unsigned char vec[MAPPED / 4096 + 2];
  const uintptr_t page = 4096, lo = (uintptr_t)p & ~(page - 1);
  const size_t n = (size_t)(((uintptr_t)p + bytes + page - 1 - lo) / page);
  size_t i, count = 0;
  *touched = n;
  if (mincore((void*)lo, n * page, vec) != 0)
    return 0;
  for (i = 0; i < n; i++)
    count += vec[i] & 1;
  return count;
}

static int kernel_populates(void) {
#ifdef MADV_POPULATE_WRITE
  unsigned char* p = fresh();
  int ok = p && madvise(p, 4096, MADV_POPULATE_WRITE) == 0;
  if (p)
    munmap(p, MAPPED);
  return ok;
#else
  return 0;
#endif
}

/* nt slices of dst + offset, bytes long, populated on nt threads: untouched before, all pages
 * resident after (check_resident); or written before and while a writer writes (a slice whose
 * first page is resident may then be left alone), the contents checked. */
static void run_case(int nt, size_t offset, size_t bytes, int check_resident) {
  unsigned char* map = fresh();
  unsigned char* dst = map + offset;
  pthread_t th[9];
  struct slice s[9];
  size_t at, bad = 0, touched, resident;
  int t;
  CHECK(map != NULL);
  if (!map)
    return;
  if (!check_resident) {
    memset(dst + 4096 * 3 + 17, 0x3c, 5000); /* written before, across a page boundary */
    s[nt] = (struct slice){dst, bytes, 0, 0};
    pthread_create(&th[nt], NULL, write_pages, &s[nt]);
  }
  for (t = 0; t < nt; t++) {
    s[t] = (struct slice){dst, bytes, t, nt};
    pthread_create(&th[t], NULL, populate, &s[t]);
  }
  for (t = 0; t < nt + !check_resident; t++)
    pthread_join(th[t], NULL);
  /* residency first: reading the contents would fault in what is left */
  resident = resident_pages(dst, bytes, &touched);
  if (check_resident)
    CHECK(resident == touched, "%d slices of %zu bytes at offset %zu: %zu of %zu pages resident",
          nt, bytes, offset, resident, touched);
  for (at = 0; at < bytes; at++) {
    unsigned char want = 0;
    if (!check_resident && at >= 4096 * 3 + 17 && at < 4096 * 3 + 17 + 5000)
      want = 0x3c;
    if (!check_resident && at % (7 * 4096) < 100 && at - at % (7 * 4096) + 100 <= bytes)
      want = 0xa5;
    bad += dst[at] != want;
  }
  CHECK(bad == 0, "%d slices at offset %zu: %zu bytes changed", nt, offset, bad);
  munmap(map, MAPPED);
}

int main(void) {
  const int populates = kernel_populates();
  const int teams[] = {1, 2, 3, 8};
  size_t k;
  if (!populates)
    printf("this kernel cannot populate on advice: contents checked, residency not\n");
  for (k = 0; k < sizeof teams / sizeof teams[0]; k++) {
    run_case(teams[k], 0, MAPPED, populates);                 /* aligned, huge-page grain */
    run_case(teams[k], 1000, MAPPED - 5000, populates);       /* ragged ends */
    run_case(teams[k], 4096 + 3, (size_t)3 << 20, populates); /* page grain for 2+ slices */
  }
  /* below the minimum per slice: nothing is faulted in, contents as before */
  run_case(8, 0, 8 * PARZ_POPULATE_MIN_PER_THREAD - 4096, 0);
  {
    unsigned char* map = fresh();
    size_t touched;
    CHECK(map != NULL);
    if (map) {
      parz_populate_slice(map, MAPPED, 2, 2); /* out of range */
      parz_populate_slice(map, MAPPED, -1, 2);
      parz_populate_slice(map, 8 * PARZ_POPULATE_MIN_PER_THREAD - 4096, 0, 8);
      CHECK(resident_pages(map, MAPPED, &touched) == 0);
      munmap(map, MAPPED);
    }
  }
  parz_populate_slice(NULL, MAPPED, 0, 1);
  return test_finish("fresh_pages");
}
