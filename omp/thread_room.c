/* Room for more threads under a memory limit (team.h: parz_omp_threads_that_fit).
 *
 * OpenMP cannot report a thread it fails to start: GCC's libgomp prints "Thread creation failed"
 * and exits the process, LLVM's libomp aborts it. Under a limit on address space (ulimit -v,
 * RLIMIT_AS), on data (RLIMIT_DATA, which counts thread stacks since Linux 4.7) or on committed
 * memory (vm.overcommit_memory = 2), a thread fails to start when its stack cannot be mapped. So
 * before a region that may start threads, the drivers map, and at once unmap, as much memory as
 * the new stacks need, the way a stack is mapped (private, writable), and ask for no more
 * threads than fitted. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_getattr_default_np */
#endif
#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "team.h"

/* Besides its stack, what one more thread takes: guard page, TLS, libgomp's per-thread state. */
#define THREAD_SLACK ((size_t)256 << 10)
/* Left free once the stacks are in: the team's own small allocations and the rest of the
 * program's, which may run meanwhile. */
#define KEEP_FREE ((size_t)4 << 20)

static int strict_overcommit; /* vm.overcommit_memory = 2, read once at load */

__attribute__((constructor)) static void read_overcommit(void) {
  FILE* f = fopen("/proc/sys/vm/overcommit_memory", "r");
  int mode = 0;
  if (f) {
    if (fscanf(f, "%d", &mode) != 1)
      mode = 0;
    fclose(f);
  }
  strict_overcommit = mode == 2;
}

/* OMP_STACKSIZE's syntax (as libgomp reads it): a size with an optional B, K, M or G suffix,
 * kilobytes without one; 0 when it cannot be read. */
static size_t parse_stack_size(const char* s) {
  char* end = NULL;
  unsigned long long v = strtoull(s, &end, 10);
  size_t unit = (size_t)1 << 10;
  if (end == s)
    return 0;
  while (isspace((unsigned char)*end))
    end++;
  switch (toupper((unsigned char)*end)) {
    case 'B':
      unit = 1;
      end++;
      break;
    case 'K': end++; break;
    case 'M':
      unit = (size_t)1 << 20;
      end++;
      break;
    case 'G':
      unit = (size_t)1 << 30;
      end++;
      break;
    default: break;
  }
  while (isspace((unsigned char)*end))
    end++;
  if (*end || v > SIZE_MAX / unit)
    return 0;
  return (size_t)v * unit;
}

/* The stack of a thread OpenMP starts: OMP_STACKSIZE (or GOMP_STACKSIZE) when set, else the
 * C library's default for new threads (from ulimit -s). */
static size_t thread_stack_bytes(void) {
  const char* env = getenv("OMP_STACKSIZE");
  size_t s;
  if (!env)
    env = getenv("GOMP_STACKSIZE");
  s = env ? parse_stack_size(env) : 0;
#ifdef __GLIBC__
  if (!s) {
    pthread_attr_t a;
    if (pthread_getattr_default_np(&a) == 0) {
      pthread_attr_getstacksize(&a, &s);
      pthread_attr_destroy(&a);
    }
  }
#endif
  return s ? s : (size_t)8 << 20;
}

static int memory_limited(void) {
  struct rlimit r;
  if (strict_overcommit)
    return 1;
  if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
    return 1;
  return getrlimit(RLIMIT_DATA, &r) == 0 && r.rlim_cur != RLIM_INFINITY;
}

unsigned parz_omp_threads_that_fit(unsigned extra) {
  size_t per;
  unsigned k;
  if (extra == 0 || !memory_limited())
    return extra;
  per = thread_stack_bytes() + THREAD_SLACK;
  for (k = extra; k > 0; k /= 2) {
    size_t bytes;
    void* p;
    if (k > (SIZE_MAX - KEEP_FREE) / per)
      continue;
    bytes = (size_t)k * per + KEEP_FREE;
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
      munmap(p, bytes);
      return k;
    }
  }
  return 0;
}
