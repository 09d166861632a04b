/* The OpenMP drivers asked for far more threads than the machine runs: 4096 threads with little
 * address space left (RLIMIT_AS, as ulimit -v sets it), and 65536 with no limit (beyond the
 * kernel's limits on threads and mappings), they must encode and decode correctly and return, not
 * end the process (GCC's libgomp exits or crashes when it cannot start a thread). Each case runs
 * in a child process (this program again, through exec: a forked child without exec would run
 * serially anyway), which first allocates everything the test needs, then lowers its limit to its
 * current size plus a margin: 64 MiB (room for a few thread stacks) and 6 MiB (room for none, so
 * the drivers must run on the calling thread), or keeps none. The child checks that the bytes
 * equal the serial encoder's and the values the serial decoder's; the parent checks that it
 * exited 0.
 * Skipped (77) under AddressSanitizer, whose shadow memory does not live with an address limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "parz_chunk.h"
#include "parz_omp.h"
#include "address_limit.h"
#include "test_chunk_common.h"

#define THREADS_LIMITED 4096
#define THREADS_UNLIMITED 65536

/* In the child: everything allocated, then the limit, then the drivers. Exit status 0 when both
 * gave the serial codec's results. */
static int run_limited(size_t margin, int threads) {
  parz_array a = test_array(PARZ_FLOAT, 2, 512, 1024, 0, 0); /* 2 MiB */
  void* data = test_data(&a, 7);
  parz_chunk_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.params = test_params(2, a.type, a.dims); /* accuracy: variable-length blocks */
  const size_t raw = parz_array_count(&a) * 4, cap = parz_chunk_bound(&a, &cfg);
  unsigned char *ref = malloc(cap), *got = malloc(cap);
  float *ref_back = malloc(raw), *back = malloc(raw);
  size_t nref = 0, n = 0;
  parz_error e;
  if (!data || !ref || !got || !ref_back || !back ||
      parz_chunk_encode(&a, data, &cfg, ref, cap, &nref, &e) != PARZ_OK ||
      parz_chunk_decode(ref, nref, ref_back, raw, &e) != PARZ_OK)
    return 2;
  memset(got, 0, cap);
  memset(back, 0, raw);
  struct rlimit r;
  r.rlim_cur = r.rlim_max = mapped_bytes() + margin;
  if (margin && setrlimit(RLIMIT_AS, &r) != 0)
    return 2;
  if (parz_omp_chunk_encode(&a, data, &cfg, got, cap, &n, threads, &e) != PARZ_OK) {
    fprintf(stderr, "encode: %s\n", e.message);
    return 3;
  }
  if (n != nref || memcmp(got, ref, n) != 0)
    return 4;
  if (parz_omp_chunk_decode(got, n, back, raw, threads, &e) != PARZ_OK) {
    fprintf(stderr, "decode: %s\n", e.message);
    return 5;
  }
  return memcmp(back, ref_back, raw) == 0 ? 0 : 6;
}

/* margin 0: no limit. */
static int child_case(const char* self, size_t margin, int threads) {
  char mib[32], count[32];
  snprintf(mib, sizeof mib, "%zu", margin >> 20);
  snprintf(count, sizeof count, "%d", threads);
  const int status = run_child(self, mib, count);
  if (status < 0)
    return 0;
  printf("%d threads asked, limit = %s + %zu MiB: %s (status %d, signal %d)\n", threads,
         margin ? "mapped size" : "none", margin >> 20,
         WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ok" : "FAILED",
         WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* test_omp_limits: runs every case; test_omp_limits MIB THREADS: one case (the child). */
int main(int argc, char** argv) {
#ifdef UNDER_ASAN
  (void)argc;
  (void)argv;
  printf("SKIP: AddressSanitizer cannot run under an address-space limit\n");
  return 77;
#else
  if (argc > 2)
    return run_limited((size_t)strtoul(argv[1], NULL, 10) << 20, atoi(argv[2]));
  if (!parz_omp_enabled()) {
    printf("SKIP: no OpenMP\n");
    return 77;
  }
  int ok = child_case(argv[0], (size_t)64 << 20, THREADS_LIMITED);
  ok = child_case(argv[0], (size_t)6 << 20, THREADS_LIMITED) && ok;
  ok = child_case(argv[0], 0, THREADS_UNLIMITED) && ok;
  return ok ? 0 : 1;
#endif
}
