/* Non-finite values survive every mode bit for bit: NaNs with any payload and sign, +-Inf, next
 * to -0.0 and subnormals (which reversible mode keeps exactly), with the mask (NaN masked, Inf
 * exceptions) and without it (both exceptions). Without the mask the payload must be exactly
 * libzfp's stream of the cleaned array (each non-finite value replaced by the mean of the finite
 * values of its block, 0 if none), and the exception records must be sorted;
 * test_chunk_mask checks the masked chunks' payloads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_chunk_common.h"

static uint32_t f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static float u2f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint64_t d2u(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}
static double u2d(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}

static const uint32_t special32[] = {
    0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff812345u, 0x7fbfffffu, /* NaNs, some signalling */
    0x7f800000u, 0xff800000u,                                        /* +-Inf */
};
static const uint64_t special64[] = {
    0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
    0xfff123456789abcdull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
};

/* Puts special values at scattered positions, a whole block of NaN, -0.0 and subnormals. */
static void plant(const parz_array* a, void* data) {
  size_t n = test_count(a), i, k = 0;
  int dbl = a->type == PARZ_DOUBLE;
  for (i = 3; i < n; i += 7 + (i % 5)) {
    if (dbl)
      ((double*)data)[i] = u2d(special64[k++ % (sizeof special64 / 8)]);
    else
      ((float*)data)[i] = u2f(special32[k++ % (sizeof special32 / 4)]);
  }
  for (i = 0; i < 4 && i < n; i++) { /* the first four values: NaN (a whole 1-D block) */
    if (dbl)
      ((double*)data)[i] = u2d(0x7ff8000000000123ull);
    else
      ((float*)data)[i] = u2f(0x7fc00123u);
  }
  if (n > 6) {
    if (dbl) {
      ((double*)data)[5] = -0.0;
      ((double*)data)[6] = u2d(0x0000000000000003ull); /* subnormal */
    } else {
      ((float*)data)[5] = -0.0f;
      ((float*)data)[6] = u2f(0x00000005u);
    }
  }
}

static int nonfinite_at(const parz_array* a, const void* data, size_t i) {
  return a->type == PARZ_DOUBLE ? !isfinite(((const double*)data)[i])
                                : !isfinite(((const float*)data)[i]);
}

static int inf_at(const parz_array* a, const void* data, size_t i) {
  return a->type == PARZ_DOUBLE ? isinf(((const double*)data)[i]) != 0
                                : isinf(((const float*)data)[i]) != 0;
}

/* Independent re-derivation of the cleaned array for 1-D and 2-D (as FORMAT.md describes). */
static void* cleaned_copy(const parz_array* a, const void* data) {
  size_t n = test_count(a), size = parz_type_size(a->type), i, j, bi, bj;
  size_t ny = a->dims == 2 ? a->shape[0] : 1, nx = a->shape[a->dims - 1];
  unsigned char* c = malloc(n * size);
  memcpy(c, data, n * size);
  for (bi = 0; bi < ny; bi += (a->dims == 2 ? 4 : 1))
    for (bj = 0; bj < nx; bj += 4) {
      size_t ey = a->dims == 2 ? (ny - bi < 4 ? ny - bi : 4) : 1, ex = nx - bj < 4 ? nx - bj : 4;
      unsigned finite = 0;
      double mean = 0;
      for (i = 0; i < ey; i++)
        for (j = 0; j < ex; j++)
          if (!nonfinite_at(a, data, (bi + i) * nx + bj + j))
            finite++;
      for (i = 0; i < ey; i++)
        for (j = 0; j < ex; j++) {
          size_t p = (bi + i) * nx + bj + j;
          if (!nonfinite_at(a, data, p))
            mean += (a->type == PARZ_DOUBLE ? ((const double*)data)[p]
                                            : (double)((const float*)data)[p]) /
                    finite;
        }
      for (i = 0; i < ey; i++)
        for (j = 0; j < ex; j++) {
          size_t p = (bi + i) * nx + bj + j;
          if (nonfinite_at(a, data, p)) {
            if (a->type == PARZ_DOUBLE)
              ((double*)c)[p] = mean;
            else
              ((float*)c)[p] = (float)mean;
          }
        }
    }
  return c;
}

static void one(const parz_array* a, int mode, parz_table_kind kind, parz_mask_mode mask) {
  parz_chunk_config cfg;
  parz_chunk_view v;
  parz_error err;
  size_t n = test_count(a), size = parz_type_size(a->type), bytes = 0, i, expect_exc = 0;
  void* data = test_data(a, 7);
  void* back = malloc(n * size);
  unsigned char* chunk;
  memset(&cfg, 0, sizeof cfg);
  cfg.params = test_params(mode, a->type, a->dims);
  cfg.table = kind;
  cfg.segment_blocks = 2;
  cfg.partition_segments = 3;
  cfg.mask = mask;
  plant(a, data);
  for (i = 0; i < n; i++)
    expect_exc += mask == PARZ_MASK_OFF ? nonfinite_at(a, data, i) : inf_at(a, data, i);
  chunk = test_encode(a, data, &cfg, &bytes);
  CHECK(chunk != NULL, "%s %uD: encode", test_mode_name(mode), a->dims);
  if (!chunk)
    goto done;
  CHECK(parz_chunk_parse(chunk, bytes, &v, &err) == PARZ_OK, "parse: %s", err.message);
  CHECK(v.nexceptions == expect_exc, "%s %uD: %llu exceptions, expected %zu", test_mode_name(mode),
        a->dims, (unsigned long long)v.nexceptions, expect_exc);
  CHECK(parz_chunk_decode(chunk, bytes, back, n * size, &err) == PARZ_OK, "decode: %s",
        err.message);
  for (i = 0; i < n; i++) {
    int exact = nonfinite_at(a, data, i) || mode == 4; /* reversible: everything exact */
    if (!exact)
      continue;
    if (a->type == PARZ_DOUBLE)
      CHECK(d2u(((double*)back)[i]) == d2u(((double*)data)[i]),
            "%s %uD: value %zu %016llx != %016llx", test_mode_name(mode), a->dims, i,
            (unsigned long long)d2u(((double*)back)[i]),
            (unsigned long long)d2u(((double*)data)[i]));
    else
      CHECK(f2u(((float*)back)[i]) == f2u(((float*)data)[i]), "%s %uD: value %zu %08x != %08x",
            test_mode_name(mode), a->dims, i, f2u(((float*)back)[i]), f2u(((float*)data)[i]));
  }
  CHECK((v.mask.nvalues != 0) == (mask != PARZ_MASK_OFF), "%s %uD: mask %d, %u masked values",
        test_mode_name(mode), a->dims, (int)mask, (unsigned)v.mask.nvalues);
  if (a->dims <= 2 && mask == PARZ_MASK_OFF) {
    /* the payload is libzfp's stream of the cleaned array */
    void* c = cleaned_copy(a, data);
    size_t zbytes = 0;
    void* z = zfp_oracle_compress(a, c, &cfg.params, &zbytes);
    CHECK(test_payload_is_zfp(v.payload, v.payload_bytes, z, zbytes),
          "%s %uD: payload is not zfp's stream of the cleaned array", test_mode_name(mode),
          a->dims);
    free(z);
    free(c);
  }
  free(chunk);
done:
  free(data);
  free(back);
}

/* An array without non-finite values has no exceptions; integer arrays never do. */
static void none(void) {
  parz_array a = test_array(PARZ_INT32, 1, 100, 0, 0, 0);
  void* data = test_data(&a, 1);
  parz_chunk_config cfg;
  parz_chunk_view v;
  parz_error err;
  size_t bytes = 0;
  unsigned char* chunk;
  memset(&cfg, 0, sizeof cfg);
  parz_params_reversible(&cfg.params);
  ((int32_t*)data)[3] = (int32_t)0x7fc00000; /* a NaN's bits, but an integer */
  chunk = test_encode(&a, data, &cfg, &bytes);
  CHECK(chunk && parz_chunk_parse(chunk, bytes, &v, &err) == PARZ_OK && v.nexceptions == 0,
        "int32 chunk has exceptions");
  free(chunk);
  free(data);
}

int main(void) {
  static const size_t shapes[][5] = {
      {1, 97, 0, 0, 0}, {2, 11, 13, 0, 0}, {3, 6, 5, 9, 0}, {4, 3, 5, 6, 7}, {1, 3, 0, 0, 0},
  };
  size_t si;
  int mode, kind, t;
  for (t = 0; t < 2; t++)
    for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
      parz_array a = test_array(t ? PARZ_DOUBLE : PARZ_FLOAT, (unsigned)shapes[si][0],
                                shapes[si][1], shapes[si][2], shapes[si][3], shapes[si][4]);
      for (mode = 0; mode < TEST_MODES; mode++)
        for (kind = PARZ_TABLE_AUTO; kind <= PARZ_TABLE_HYBRID; kind++)
          if (kind != PARZ_TABLE_NONE || mode == 0) {
            one(&a, mode, (parz_table_kind)kind, PARZ_MASK_OFF);
            one(&a, mode, (parz_table_kind)kind, PARZ_MASK_DEFAULT);
          }
    }
  none();
  return test_finish("test_chunk_nonfinite");
}
