/* The OpenMP encoder out of memory in its begin (the scan, the cleaned copy and the exception
 * records, on a team, omp/jobs.c: parz_omp_team_jobs): a chunk of NaN without a mask, whose 16-byte
 * exception records take four times its values, encoded under an address-space limit (RLIMIT_AS, as
 * ulimit -v sets it) with room for its values but not for its records, fails with PARZ_ERR_NOMEM
 * and the message of the records that did not fit, on one thread and on two alike; with the limit
 * lifted, the same call gives the serial encoder's bytes.
 *
 * Each case runs in a child process (this program again, through exec: a forked child without exec
 * would run serially anyway), which first encodes a small chunk with NaN on its threads, so that
 * the team, its threads' stacks and their malloc arenas exist, then encodes the chunk under limits
 * of its mapped size plus a margin, none and 20 MiB, one after the other. glibc gives each thread
 * that allocates or frees memory (libgomp frees a task where it ran) an arena of its own, up to
 * M_ARENA_MAX, whose heap reserves 64 MiB of address space at once, and moves a thread whose arena
 * cannot grow onto another arena: after the first failure the records would come out of that
 * reserve, mapped before the limit (with M_ARENA_MAX 2 the second encode on two threads succeeds,
 * on one thread it fails). The child sets M_ARENA_MAX to 1, so that every allocation of the encoder
 * is one the limit counts. Skipped (77) under AddressSanitizer, whose shadow memory does not live
 * with an address limit, and without glibc or OpenMP. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "parz_chunk.h"
#include "parz_omp.h"
#include "address_limit.h"
#include "test_chunk_common.h"

/* 8 MiB of float: its exception records 32 MiB, its cleaned copy 8 MiB */
#define ROWS 1024
#define COLS 2048

static void fill_nan(float* v, size_t n) {
  const float nan = (float)NAN;
  for (size_t i = 0; i < n; i++)
    v[i] = nan;
}

/* In the child: exit status 0 when every limited encode failed for want of memory and the
 * unlimited one gave the serial encoder's bytes. */
static int run_limited(int threads, int arenas) {
  parz_array a = test_array(PARZ_FLOAT, 2, ROWS, COLS, 0, 0);
  parz_array small = test_array(PARZ_FLOAT, 2, 64, COLS, 0, 0);
  const size_t n = parz_array_count(&a);
  float* data = (float*)malloc(n * sizeof *data);
  parz_chunk_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.params = test_params(2, a.type, a.dims);
  cfg.mask = PARZ_MASK_OFF; /* every NaN an exception */
  const size_t cap = parz_chunk_bound(&a, &cfg);
  unsigned char *ref = (unsigned char*)malloc(cap), *got = (unsigned char*)malloc(cap);
  size_t nref = 0, ngot = 0;
  parz_error e;
  struct rlimit old, r;
  /* none, then room for the cleaned copy and one more thread's stack (omp/thread_room.c) but
   * not for the records: each limited encode after one that failed, as a caller's next */
  static const size_t margins[] = {0, (size_t)20 << 20};
  char records[64];
  snprintf(records, sizeof records, "out of memory for %zu exceptions", n);
#ifdef __GLIBC__
  if (arenas && !mallopt(M_ARENA_MAX, arenas))
    return 2;
#else
  (void)arenas;
#endif
  if (!data || !ref || !got)
    return 2;
  fill_nan(data, n);
  if (parz_chunk_encode(&a, data, &cfg, ref, cap, &nref, &e) != PARZ_OK)
    return 2;
  /* the team, its stacks and arenas made before the limit, as a caller's earlier chunks would */
  if (parz_omp_chunk_encode(&small, data, &cfg, got, cap, &ngot, threads, &e) != PARZ_OK)
    return 2;
  memset(got, 0, cap);
  if (getrlimit(RLIMIT_AS, &old) != 0)
    return 2;
  for (size_t m = 0; m < sizeof margins / sizeof margins[0]; m++) {
    r = old;
    r.rlim_cur = mapped_bytes() + margins[m];
    if (setrlimit(RLIMIT_AS, &r) != 0)
      return 2;
    int rc = parz_omp_chunk_encode(&a, data, &cfg, got, cap, &ngot, threads, &e);
    setrlimit(RLIMIT_AS, &old);
    /* the begin's own error, as the serial encoder reports it: not one of a later step that
     * went on without it */
    if (rc != PARZ_ERR_NOMEM || !strstr(e.message, records)) {
      fprintf(stderr, "under mapped size + %zu MiB: status %d%s%s\n", margins[m] >> 20, rc,
              rc ? ", " : "", rc ? e.message : "");
      return 3;
    }
    printf("under mapped size + %zu MiB: %s\n", margins[m] >> 20, e.message);
  }
  if (parz_omp_chunk_encode(&a, data, &cfg, got, cap, &ngot, threads, &e) != PARZ_OK) {
    fprintf(stderr, "without the limit: %s\n", e.message);
    return 4;
  }
  return ngot == nref && memcmp(got, ref, nref) == 0 ? 0 : 5;
}

static int child_case(const char* self, int threads, int arenas) {
  char count[32], arena[32];
  snprintf(count, sizeof count, "%d", threads);
  snprintf(arena, sizeof arena, "%d", arenas);
  const int status = run_child(self, count, arena);
  if (status < 0)
    return 0;
  const int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  printf("%d threads, M_ARENA_MAX %d: %s (status %d, signal %d)\n", threads, arenas,
         ok ? "ok" : "FAILED", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
         WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return ok;
}

/* test_omp_nomem: runs every case; test_omp_nomem THREADS ARENAS: one case (the child). */
int main(int argc, char** argv) {
#if defined(UNDER_ASAN) || !defined(__GLIBC__)
  (void)argc;
  (void)argv;
  printf("SKIP: needs glibc's M_ARENA_MAX and no AddressSanitizer under an address limit\n");
  return 77;
#else
  if (argc > 2)
    return run_limited(atoi(argv[1]), atoi(argv[2]));
  if (!parz_omp_enabled()) {
    printf("SKIP: no OpenMP\n");
    return 77;
  }
  int ok = child_case(argv[0], 1, 1);
  ok = child_case(argv[0], 2, 1) && ok;
  return ok ? 0 : 1;
#endif
}
