/* Round trips: fixed accuracy keeps max |error| <= tolerance on random data; reversible mode
 * returns the exact bits of every value, NaN payloads, +-Inf, -0.0 and subnormals included
 * (and its stream still equals libzfp's, which round-trips them too: a block that the
 * block-floating-point path cannot reproduce is stored as bit patterns). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_codec_common.h"

static double max_error(parz_type t, const void* a, const void* b, size_t n) {
  double m = 0;
  size_t i;
  for (i = 0; i < n; i++) {
    double x = t == PARZ_FLOAT ? ((const float*)a)[i] : ((const double*)a)[i];
    double y = t == PARZ_FLOAT ? ((const float*)b)[i] : ((const double*)b)[i];
    double e = fabs(x - y);
    if (e > m || e != e)
      m = e;
  }
  return m;
}

static double max_abs(parz_type t, const void* a, size_t n) {
  double m = 0;
  size_t i;
  for (i = 0; i < n; i++) {
    double x = fabs(t == PARZ_FLOAT ? ((const float*)a)[i] : ((const double*)a)[i]);
    if (x > m)
      m = x;
  }
  return m;
}

static void reversible_case(const parz_array* a, const void* data, const char* what) {
  parz_params p;
  size_t n = parz_array_count(a), es = parz_type_size(a->type);
  size_t bound, written = 0, zbytes;
  unsigned char *s, *z;
  void* out = malloc(n * es);
  parz_error err;
  parz_params_reversible(&p);
  bound = parz_stream_bound(a->type, a->dims, &p, parz_block_count(a));
  s = malloc(bound);
  z = malloc(bound + 64);
  CHECK(parz_compress(a, data, &p, s, bound, &written, &err) == PARZ_OK, "%s: %s", what,
        err.message);
  CHECK(parz_decompress(a, out, &p, s, written, &err) == PARZ_OK, "%s: %s", what, err.message);
  CHECK(!memcmp(out, data, n * es), "%s: reversible round trip not bit-exact", what);
  zbytes = tc_zfp_compress(a, data, &p, z, bound + 64);
  CHECK(tc_same_stream(s, written, z, zbytes), "%s: reversible stream differs from libzfp", what);
  free(out);
  free(s);
  free(z);
}

int main(void) {
  uint64_t st = 12345;
  parz_type ft[2] = {PARZ_FLOAT, PARZ_DOUBLE};
  double tols[] = {1e-10, 1e-5, 1e-2, 0.5, 3, 1000};
  int t, k;
  unsigned d;
  /* accuracy bound on random data of every kind, every rank */
  for (t = 0; t < 2; t++)
    for (d = 1; d <= 4; d++)
      for (k = 0; k < TC_KINDS; k++) {
        parz_array a;
        size_t n, i, bound, written;
        void *data, *out;
        unsigned char* s;
        memset(&a, 0, sizeof a);
        a.type = ft[t];
        a.dims = d;
        for (i = 0; i < d; i++)
          a.shape[i] = d == 1 ? 1001 : d == 2 ? 37 : d == 3 ? 13 : 6 + i;
        n = parz_array_count(&a);
        data = malloc(n * 8);
        out = malloc(n * 8);
        tc_fill(a.type, data, n, k, &st);
        for (i = 0; i < sizeof tols / sizeof tols[0]; i++) {
          parz_params p;
          parz_error err;
          double e;
          parz_params_accuracy(&p, tols[i], NULL, NULL);
          bound = parz_stream_bound(a.type, d, &p, parz_block_count(&a));
          s = malloc(bound);
          CHECK(parz_compress(&a, data, &p, s, bound, &written, &err) == PARZ_OK, "%s",
                err.message);
          CHECK(parz_decompress(&a, out, &p, s, written, &err) == PARZ_OK, "%s", err.message);
          e = max_error(a.type, data, out, n);
          /* the bound holds where the block-floating-point precision (W - 2 bits below the
           * largest magnitude, less a few bits of transform growth) can reach the tolerance */
          if (tols[i] < ldexp(max_abs(a.type, data, n), a.type == PARZ_FLOAT ? -20 : -50))
            e = 0;
          CHECK(e <= tols[i], "%s %uD %s: max error %g above tolerance %g", parz_type_name(a.type),
                d, tc_kind_name(k), e, tols[i]);
          free(s);
        }
        free(data);
        free(out);
      }
  /* reversible: special values mixed into every block position */
  for (t = 0; t < 2; t++)
    for (d = 1; d <= 4; d++) {
      parz_array a;
      size_t n, i;
      void* data;
      char what[64];
      memset(&a, 0, sizeof a);
      a.type = ft[t];
      a.dims = d;
      for (i = 0; i < d; i++)
        a.shape[i] = d == 1 ? 203 : d == 2 ? 19 : d == 3 ? 9 : 5;
      n = parz_array_count(&a);
      data = malloc(n * 8);
      for (k = 0; k < TC_KINDS; k++) {
        tc_fill(a.type, data, n, k, &st);
        snprintf(what, sizeof what, "%s %uD %s", parz_type_name(a.type), d, tc_kind_name(k));
        reversible_case(&a, data, what);
        /* sprinkle specials: NaNs with payloads, infinities, -0.0, subnormals, extremes */
        for (i = 0; i < n; i++) {
          uint64_t r = tc_rand(&st);
          if (r % 5)
            continue;
          if (a.type == PARZ_FLOAT) {
            uint32_t specials[] = {0x7fc00001u, 0xffa5a5a5u, 0x7f800001u, 0x7f800000u, 0xff800000u,
                                   0x80000000u, 0x00000001u, 0x807fffffu, 0x7f7fffffu, 0x00800000u};
            memcpy((float*)data + i, &specials[(r >> 8) % 10], 4);
          } else {
            uint64_t specials[] = {UINT64_C(0x7ff8000000000123), UINT64_C(0xfff0000000000001),
                                   UINT64_C(0x7ff0000000000000), UINT64_C(0xfff0000000000000),
                                   UINT64_C(0x8000000000000000), UINT64_C(1),
                                   UINT64_C(0x800fffffffffffff), UINT64_C(0x7fefffffffffffff),
                                   UINT64_C(0x0010000000000000), UINT64_C(0x7ff7ffffffffffff)};
            memcpy((double*)data + i, &specials[(r >> 8) % 10], 8);
          }
        }
        snprintf(what, sizeof what, "%s %uD %s+specials", parz_type_name(a.type), d,
                 tc_kind_name(k));
        reversible_case(&a, data, what);
      }
      /* all-zero and all -0.0 arrays */
      memset(data, 0, n * 8);
      reversible_case(&a, data, "zeros");
      for (i = 0; i < n; i++) {
        if (a.type == PARZ_FLOAT)
          ((float*)data)[i] = -0.0f;
        else
          ((double*)data)[i] = -0.0;
      }
      reversible_case(&a, data, "negative zeros");
      free(data);
    }
  /* integers: reversible on random bit patterns */
  {
    parz_type it[2] = {PARZ_INT32, PARZ_INT64};
    for (t = 0; t < 2; t++)
      for (d = 1; d <= 4; d++) {
        parz_array a;
        size_t i;
        void* data;
        memset(&a, 0, sizeof a);
        a.type = it[t];
        a.dims = d;
        for (i = 0; i < d; i++)
          a.shape[i] = 7;
        data = malloc(parz_array_count(&a) * 8);
        for (k = 0; k < TC_KINDS; k++) {
          tc_fill(a.type, data, parz_array_count(&a), k, &st);
          reversible_case(&a, data, parz_type_name(a.type));
        }
        free(data);
      }
  }
  return test_finish("test_codec_roundtrip");
}
