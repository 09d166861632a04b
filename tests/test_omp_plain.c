/* The OpenMP encoder's parallel read of an array: whether it is plain (codec/parz_chunk.h), its
 * parts read by a team (omp/plain.c).
 *
 * One value that the payload cannot carry (a NaN or the fill value under a mask, an Inf or an
 * integer beyond zfp's range as an exception) is put at every place where a split of the array
 * into parts could lose it: the first and last value, and both sides of every boundary between
 * the parts of 2, 3, 7 and 16 threads; in contiguous arrays (runs) and in strided views (slabs
 * along the first dimension). Each time the team must find it, at every thread count, as the
 * serial parz_chunk_plain does; parz_omp_chunk_bound_data must equal parz_chunk_bound_data; and
 * the OpenMP encoder (which begins with the same read) must write parz_chunk_encode's bytes.
 * Arrays without such a value are plain at every thread count, with the bound of
 * parz_chunk_bound_plain. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parz_omp.h"
#include "team.h"
#include "test_chunk_common.h"

static const int thread_counts[] = {2, 3, 7, 16};
#define NTHREADS (int)(sizeof thread_counts / sizeof thread_counts[0])

/* The special value of case k, as the bits of a value of the array's type. */
typedef struct {
  const char* name;
  parz_type type;
  int mask_off, fill;
  uint64_t bits;
} special_case;

static const special_case cases[] = {
    {"float NaN, masked", PARZ_FLOAT, 0, 0, 0x7fc00001u},
    {"float Inf, exception", PARZ_FLOAT, 0, 0, 0x7f800000u},
    {"float NaN, mask off", PARZ_FLOAT, 1, 0, 0xffc00000u},
    {"double -Inf, exception", PARZ_DOUBLE, 0, 0, 0xfff0000000000000ull},
    {"double fill value", PARZ_DOUBLE, 0, 1, 0x4059000000000000ull}, /* 100.0 */
    {"int32 beyond 2^30, exception", PARZ_INT32, 0, 0, 0x7ffffff0u},
    {"int32 fill value", PARZ_INT32, 0, 1, 0xfffffc18u}, /* -1000 */
    {"int64 beyond 2^62, exception", PARZ_INT64, 0, 0, 0x8000000000000001ull},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

static void put(unsigned char* p, size_t size, uint64_t bits) {
  if (size == 4) {
    uint32_t u = (uint32_t)bits;
    memcpy(p, &u, 4);
  } else {
    memcpy(p, &bits, 8);
  }
}

/* Places where a split into parts of nthreads (units: values of a contiguous array, slabs of a
 * strided one) begins or ends, and their neighbours; returns how many were written to at (up
 * to max), each below n. */
static size_t boundaries(size_t n, size_t* at, size_t max) {
  size_t k = 0;
  at[k++] = 0;
  at[k++] = n - 1;
  for (int t = 0; t < NTHREADS; t++)
    for (size_t i = 1; i < (size_t)thread_counts[t]; i++) {
      size_t b = n * i / (size_t)thread_counts[t]; /* the first unit of part i, or near it */
      for (size_t d = 0; d < 3 && k < max; d++)
        if (b + d >= 1 && b + d - 1 < n)
          at[k++] = b + d - 1;
    }
  return k;
}

/* The array a over data: the team's answer and bound against the serial ones at every thread
 * count; the encoder's bytes too when `encode` is set. */
static void compare(const char* what, const parz_array* a, const void* data,
                    const parz_chunk_config* cfg, int want_plain, int encode) {
  size_t ref_bound = parz_chunk_bound_data(a, data, cfg), ref_n = 0;
  unsigned char* ref = encode ? test_encode(a, data, cfg, &ref_n) : NULL;
  CHECK(parz_chunk_plain(a, data, cfg) == want_plain, "%s: serial plain", what);
  if (want_plain)
    CHECK(parz_chunk_bound_plain(a, cfg) == ref_bound, "%s: bound of a plain array", what);
  CHECK(!encode || ref, "%s: serial encode failed", what);
  for (int t = 0; t < NTHREADS; t++) {
    int n = thread_counts[t];
    CHECK(parz_omp_plain(a, data, cfg, n) == want_plain, "%s: %d threads: plain should be %d", what,
          n, want_plain);
    CHECK(parz_omp_chunk_bound_data(a, data, cfg, n) == ref_bound, "%s: %d threads: bound", what,
          n);
    if (ref) {
      unsigned char* c = (unsigned char*)malloc(ref_bound);
      size_t got = 0;
      parz_error err;
      int rc = parz_omp_chunk_encode_above(a, data, cfg, c, ref_bound, &got, n, 0, &err);
      CHECK(rc == PARZ_OK && got == ref_n && !memcmp(c, ref, got),
            "%s: %d threads: chunk differs (rc %d, %zu vs %zu bytes)", what, n, rc, got, ref_n);
      free(c);
    }
  }
  free(ref);
}

/* Case k on a contiguous 2D array and on a strided 3D view (every other element of every other
 * row of a larger buffer). */
static void one_case(int k) {
  const special_case* s = &cases[k];
  const size_t size = parz_type_size(s->type);
  parz_chunk_config cfg;
  size_t at[256], nat, i;
  char what[200];
  memset(&cfg, 0, sizeof cfg);
  cfg.params = test_params(2, s->type, 2); /* accuracy: lossy, so big integers are exceptions */
  cfg.mask = s->mask_off ? PARZ_MASK_OFF : PARZ_MASK_DEFAULT;
  cfg.fill = s->fill;
  cfg.fill_bits = s->fill ? s->bits : 0;

  { /* contiguous: the parts are runs of values */
    parz_array a = test_array(s->type, 2, 61, 67, 0, 0);
    size_t n = test_count(&a);
    unsigned char* data = (unsigned char*)test_data(&a, 7u + (unsigned)k);
    snprintf(what, sizeof what, "%s, contiguous, none", s->name);
    compare(what, &a, data, &cfg, 1, 1);
    nat = boundaries(n, at, sizeof at / sizeof at[0]);
    for (i = 0; i < nat; i++) {
      unsigned char keep[8];
      memcpy(keep, data + at[i] * size, size);
      put(data + at[i] * size, size, s->bits);
      snprintf(what, sizeof what, "%s, contiguous, at %zu of %zu", s->name, at[i], n);
      compare(what, &a, data, &cfg, 0, i % 5 == 0);
      memcpy(data + at[i] * size, keep, size);
    }
    free(data);
  }
  { /* strided: slabs along the first dimension, every other value of every other row */
    const size_t n0 = 37, n1 = 9, n2 = 11;
    parz_array full = test_array(s->type, 3, n0, 2 * n1, 2 * n2, 0);
    unsigned char* buf = (unsigned char*)test_data(&full, 11u + (unsigned)k);
    parz_array view = test_array(s->type, 3, n0, n1, n2, 0);
    view.stride[0] = (ptrdiff_t)(4 * n1 * n2);
    view.stride[1] = (ptrdiff_t)(4 * n2);
    view.stride[2] = 2;
    snprintf(what, sizeof what, "%s, strided, none", s->name);
    compare(what, &view, buf, &cfg, 1, 1);
    nat = boundaries(n0, at, sizeof at / sizeof at[0]);
    for (i = 0; i < nat; i++) {
      /* the slab's last value: the place a slab cut one short would miss */
      size_t off = at[i] * 4 * n1 * n2 + (n1 - 1) * 4 * n2 + (n2 - 1) * 2;
      unsigned char keep[8];
      memcpy(keep, buf + off * size, size);
      put(buf + off * size, size, s->bits);
      snprintf(what, sizeof what, "%s, strided, slab %zu of %zu", s->name, at[i], n0);
      compare(what, &view, buf, &cfg, 0, i % 5 == 0);
      memcpy(buf + off * size, keep, size);
      /* the same place in a row the view skips: the view stays plain */
      put(buf + (off + 2 * n2) * size, size, s->bits);
      snprintf(what, sizeof what, "%s, strided, beside slab %zu", s->name, at[i]);
      compare(what, &view, buf, &cfg, 1, 0);
      memcpy(buf + (off + 2 * n2) * size, keep, size);
    }
    free(buf);
  }
}

int main(void) {
  printf("OpenMP %s\n", parz_omp_enabled() ? "enabled" : "disabled (serial fallback)");
  for (int k = 0; k < NCASES; k++)
    one_case(k);
  return test_finish("test_omp_plain");
}
