/* The dispatcher under every policy gives the serial codec's bytes, and a policy never makes a
 * read fail: PARZ_EXEC=cuda on a machine (or build) without a GPU warns once and decodes with
 * OpenMP; invalid settings decode as auto. Also run by ctest with PARZ_EXEC=cuda preset. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dispatch.h"
#include "test_chunk_common.h"

typedef struct {
  const char* exec;
  const char* threads;
} env_case;

static const env_case envs[] = {
    {NULL, NULL},   {"serial", NULL}, {"omp", NULL}, {"omp", "1"}, {"omp", "3"},     {"auto", "2"},
    {"cuda", NULL}, {"cuda", "2"},    {"gpu", "x"},  {"", ""},     {" OMP ", " 7 "},
};

static void set(const char* name, const char* value) {
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
}

/* A parz_chunk_alloc that keeps one buffer and what it was asked. */
struct asked {
  void* ptr;
  size_t bytes;
  int calls;
};

static void* alloc_asked(void* arg, size_t bytes) {
  struct asked* a = (struct asked*)arg;
  free(a->ptr);
  a->ptr = malloc(bytes ? bytes : 1);
  a->bytes = bytes;
  a->calls++;
  return a->ptr;
}

int main(void) {
  parz_array a = test_array(PARZ_FLOAT, 3, 33, 41, 37, 0);
  void* data = test_data(&a, 5);
  size_t raw = test_count(&a) * sizeof(float), n_ref = 0, cap;
  parz_chunk_config cfg, off;
  unsigned char *ref, *ref_off, *chunk, *dec_ref, *dec;
  size_t n_off = 0;
  parz_error err;
  size_t i;
  memset(&cfg, 0, sizeof cfg);
  parz_params_precision(&cfg.params, 18, NULL);
  cfg.segment_blocks = 16;
  ((float*)data)[77] = 0.0f / 0.0f; /* an exception to restore on every path */
  /* cfg masks the NaN (the default), off stores it as an exception: under every policy (the GPU
   * where one is usable) each gives the serial encoder's bytes */
  off = cfg;
  off.mask = PARZ_MASK_OFF;
  cap = parz_chunk_bound(&a, &cfg);
  ref = (unsigned char*)malloc(cap);
  ref_off = (unsigned char*)malloc(cap);
  chunk = (unsigned char*)malloc(cap);
  dec_ref = (unsigned char*)malloc(raw);
  dec = (unsigned char*)malloc(raw);
  CHECK(parz_chunk_encode(&a, data, &cfg, ref, cap, &n_ref, &err) == PARZ_OK, "%s", err.message);
  CHECK(parz_chunk_decode(ref, n_ref, dec_ref, raw, &err) == PARZ_OK, "%s", err.message);
  CHECK(parz_chunk_encode(&a, data, &off, ref_off, cap, &n_off, &err) == PARZ_OK, "%s",
        err.message);
  CHECK(n_off != n_ref || memcmp(ref_off, ref, n_ref), "the NaN went to a mask: other bytes");
  {
    /* the environment ctest preset (PARZ_EXEC=cuda for dispatch_cuda_no_gpu) comes first */
    size_t n = 0;
    memset(dec, 0, raw);
    CHECK(parz_dispatch_decode(ref, n_ref, dec, raw, &err) == PARZ_OK && !memcmp(dec, dec_ref, raw),
          "preset environment (PARZ_EXEC=%s): decode differs", getenv("PARZ_EXEC"));
    CHECK(parz_dispatch_encode(&a, data, &cfg, chunk, cap, &n, &err) == PARZ_OK && n == n_ref &&
              !memcmp(chunk, ref, n),
          "preset environment: encode differs");
    CHECK(parz_dispatch_encode(&a, data, &off, chunk, cap, &n, &err) == PARZ_OK && n == n_off &&
              !memcmp(chunk, ref_off, n),
          "preset environment: encode with the mask off differs");
  }
  for (i = 0; i < sizeof envs / sizeof envs[0]; i++) {
    size_t n = 0;
    int rc;
    set("PARZ_EXEC", envs[i].exec);
    set("PARZ_THREADS", envs[i].threads);
    memset(dec, 0, raw);
    rc = parz_dispatch_decode(ref, n_ref, dec, raw, &err);
    CHECK(rc == PARZ_OK && !memcmp(dec, dec_ref, raw), "PARZ_EXEC=%s PARZ_THREADS=%s: decode %s",
          envs[i].exec ? envs[i].exec : "(unset)", envs[i].threads ? envs[i].threads : "(unset)",
          rc == PARZ_OK ? "differs" : err.message);
    memset(chunk, 0, cap);
    rc = parz_dispatch_encode(&a, data, &cfg, chunk, cap, &n, &err);
    CHECK(rc == PARZ_OK && n == n_ref && !memcmp(chunk, ref, n), "PARZ_EXEC=%s: encode %s",
          envs[i].exec ? envs[i].exec : "(unset)", rc == PARZ_OK ? "differs" : err.message);
    memset(chunk, 0, cap);
    rc = parz_dispatch_encode(&a, data, &off, chunk, cap, &n, &err);
    CHECK(rc == PARZ_OK && n == n_off && !memcmp(chunk, ref_off, n),
          "PARZ_EXEC=%s: encode with the mask off %s", envs[i].exec ? envs[i].exec : "(unset)",
          rc == PARZ_OK ? "differs" : err.message);
    {
      /* into the filter's kind of buffer: asked for the chunk's size (GPU) or the bound (CPU) */
      struct asked got = {NULL, 0, 0};
      const parz_chunk_config* both[2] = {&cfg, &off};
      const unsigned char* refs[2] = {ref, ref_off};
      const size_t ns[2] = {n_ref, n_off};
      for (int k = 0; k < 2; k++) {
        const size_t bound = parz_chunk_bound_data(&a, data, both[k]);
        rc = parz_dispatch_encode_alloc(&a, data, both[k], alloc_asked, &got, &n, &err);
        CHECK(rc == PARZ_OK && n == ns[k] && !memcmp(got.ptr, refs[k], n) &&
                  (got.bytes == n || got.bytes == bound) && got.calls == 1,
              "PARZ_EXEC=%s: encode into an allocated buffer (%s): %s, %zu bytes asked, %d calls",
              envs[i].exec ? envs[i].exec : "(unset)", k ? "mask off" : "mask on",
              rc == PARZ_OK ? "differs" : err.message, got.bytes, got.calls);
        got.calls = 0;
      }
      free(got.ptr);
    }
    /* errors still come through every policy */
    rc = parz_dispatch_decode(ref, n_ref - 8, dec, raw, &err);
    CHECK(rc != PARZ_OK && err.message[0], "PARZ_EXEC=%s: truncated chunk accepted",
          envs[i].exec ? envs[i].exec : "(unset)");
    rc = parz_dispatch_decode(ref, n_ref, dec, raw - 4, &err);
    CHECK(rc == PARZ_ERR_BUFFER, "PARZ_EXEC=%s: short buffer gives %d",
          envs[i].exec ? envs[i].exec : "(unset)", rc);
  }
  free(ref);
  free(ref_off);
  free(chunk);
  free(dec_ref);
  free(dec);
  free(data);
  return test_finish("test_policy_dispatch");
}
