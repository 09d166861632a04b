/* The lossless codec's core (codec/lossless/): every value comes back bit for bit (every special
 * bit pattern of every type, ranks 1 to 4, edge-cut blocks, every segment count, scaled
 * integers, both predictors, every real array), and damaged segments are refused with
 * PARZ_ERR_STREAM without a read outside them or a write outside their values.
 *   test_lossless [SHARED_DATA_DIR [SERIES_DIR]] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fnv_hash.h"
#include "lossless.h"
#include "lossless_forward.h"
#include "real_arrays.h"
#include "residual_decode.h"
#include "test_chunk_common.h"
#include "transform.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

typedef struct {
  uint8_t* bytes;
  size_t* start; /* segment s in bytes[start[s], start[s + 1]) */
  size_t segments;
} coded;

/* The fingerprint of every segment encode_all wrote since it was last reset: the payload bytes
 * must not change once a chunk format carries them. */
static uint64_t written_hash = FNV_START;

static void coded_free(coded* c) {
  free(c->bytes);
  free(c->start);
}

static int encode_all(const parz_array* a, const void* v, unsigned t, unsigned p, size_t c,
                      coded* out) {
  size_t s, bound = parz_ll_segment_bound(a, p, c);
  parz_error err;
  out->segments = parz_ll_segment_count(a, p, c);
  out->bytes = malloc(out->segments * bound);
  out->start = calloc(out->segments + 1, sizeof *out->start);
  for (s = 0; s < out->segments; s++) {
    size_t n = 0;
    int rc = parz_ll_encode_segment(a, v, t, p, c, s, out->bytes + out->start[s], bound, &n, &err);
    if (rc != PARZ_OK) {
      printf("encode segment %zu: %s\n", s, err.message);
      return rc;
    }
    out->start[s + 1] = out->start[s] + n;
    written_hash = fnv_u64(fnv_bytes(written_hash, out->bytes + out->start[s], n), n);
  }
  return PARZ_OK;
}

static int decode_all(const parz_array* a, unsigned t, unsigned p, size_t c, const coded* in,
                      void* v) {
  size_t s;
  parz_error err;
  for (s = 0; s < in->segments; s++) {
    int rc = parz_ll_decode_segment(a, t, p, c, s, in->bytes + in->start[s],
                                    in->start[s + 1] - in->start[s], v, &err);
    if (rc != PARZ_OK) {
      printf("decode segment %zu: %s\n", s, err.message);
      return rc;
    }
  }
  return PARZ_OK;
}

static size_t count_of(const parz_array* a) {
  size_t n = 1;
  unsigned i;
  for (i = 0; i < a->dims; i++)
    n *= a->shape[i];
  return n;
}

/* Round trip of v under transform t at C = c; returns the coded size. */
static size_t round_trip(const char* what, const parz_array* a, const void* v, unsigned t,
                         unsigned p, size_t c) {
  size_t bytes = count_of(a) * parz_type_size(a->type), size = 0;
  void* back = malloc(bytes ? bytes : 1);
  coded cd;
  memset(back, 0xa5, bytes);
  if (encode_all(a, v, t, p, c, &cd) == PARZ_OK) {
    size = cd.start[cd.segments];
    CHECK(decode_all(a, t, p, c, &cd, back) == PARZ_OK, "%s: decode (C %zu)", what, c);
    CHECK(memcmp(back, v, bytes) == 0, "%s: not bit-exact (C %zu, transform %u)", what, c, t);
  } else {
    CHECK(0, "%s: encode (C %zu)", what, c);
  }
  coded_free(&cd);
  free(back);
  return size;
}

/* Special bit patterns of each type mixed into smooth and random arrays, every rank. */
static void test_special_patterns(void) {
  static const uint32_t f32[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                 0xffc00000u, 0x7fc00001u, 0xffc12345u, 0x7f800001u, 0xff800001u,
                                 0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu, 0x00800000u,
                                 0x7f7fffffu, 0xff7fffffu, 0x3f800000u, 0xbf800000u};
  static const uint64_t f64[] = {0x0ull,
                                 0x8000000000000000ull,
                                 0x7ff0000000000000ull,
                                 0xfff0000000000000ull,
                                 0x7ff8000000000000ull,
                                 0xfff8000000000001ull,
                                 0x7ff0000000000001ull,
                                 0x7ff7ffffffffffffull,
                                 0x0000000000000001ull,
                                 0x800fffffffffffffull,
                                 0x0010000000000000ull,
                                 0x7fefffffffffffffull,
                                 0xffefffffffffffffull,
                                 0x3ff0000000000000ull};
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  static const size_t shapes[][5] = {{1, 1, 0, 0, 0},   {1, 7, 0, 0, 0},    {1, 5000, 0, 0, 0},
                                     {2, 3, 5, 0, 0},   {2, 65, 130, 0, 0}, {2, 1, 300, 0, 0},
                                     {3, 17, 3, 33, 0}, {3, 20, 18, 36, 0}, {4, 9, 2, 10, 11},
                                     {4, 3, 9, 17, 8}};
  static const size_t cs[] = {1, 3, 1000};
  unsigned ti, si, ci, kind;
  for (ti = 0; ti < 4; ti++)
    for (si = 0; si < sizeof shapes / sizeof *shapes; si++)
      for (kind = 0; kind < 3; kind++) {
        const size_t* sh = shapes[si];
        parz_array a = test_array(types[ti], (unsigned)sh[0], sh[1], sh[2] ? sh[2] : 1,
                                  sh[3] ? sh[3] : 1, sh[4] ? sh[4] : 1);
        size_t n = count_of(&a), i, w = parz_type_size(a.type);
        uint8_t* v = malloc(n * w);
        char what[96];
        for (i = 0; i < n; i++) {
          uint64_t bits;
          if (kind == 0) { /* random bits */
            bits = next();
          } else if (a.type == PARZ_FLOAT) { /* smooth, with specials sprinkled */
            float f = (float)(1000.0 + (double)(i % 97) * 0.25 + (double)(i / 97));
            uint32_t b;
            memcpy(&b, &f, 4);
            bits = (kind == 2 && next() % 5 == 0) ? f32[next() % (sizeof f32 / 4)] : b;
          } else if (a.type == PARZ_DOUBLE) {
            double f = 1e-3 * (double)i + 7.0;
            memcpy(&bits, &f, 8);
            if (kind == 2 && next() % 5 == 0)
              bits = f64[next() % (sizeof f64 / 8)];
          } else {
            bits = (uint64_t)(int64_t)(i * 3) - (kind == 2 && next() % 5 == 0 ? next() : 0);
          }
          memcpy(v + i * w, &bits, w);
        }
        if (kind == 2 && a.type == PARZ_FLOAT) /* every pattern at least once */
          for (i = 0; i < n && i < sizeof f32 / 4; i++)
            memcpy(v + i * w, &f32[i], 4);
        if (kind == 2 && a.type == PARZ_DOUBLE)
          for (i = 0; i < n && i < sizeof f64 / 8; i++)
            memcpy(v + i * w, &f64[i], 8);
        for (ci = 0; ci < 3; ci++) {
          snprintf(what, sizeof what, "%s rank %u shape %zu kind %u", parz_type_name(a.type),
                   a.dims, n, kind);
          {
            unsigned t = parz_ll_choose_transform(&a, v, NULL);
            round_trip(what, &a, v, t, PARZ_LL_PREDICT_ALL, cs[ci]);
            round_trip(what, &a, v, t, PARZ_LL_PREDICT_STACK, cs[ci]);
          }
        }
        free(v);
      }
}

/* Decimals with a fixed count of significant digits (a charge density printed with 11): the
 * scales 10^7 to 10^15 find them, and their integers code smaller than the images. */
static void test_decimal_scales(void) {
  parz_array a = test_array(PARZ_DOUBLE, 1, 5000, 1, 1, 1);
  double* v = malloc(5000 * sizeof *v);
  size_t i, plain, scaled;
  unsigned t;
  for (i = 0; i < 5000; i++)
    v[i] = (double)(414081135001ll + 7919ll * (long long)(i * i)) / 1e11;
  t = parz_ll_choose_transform(&a, v, NULL);
  CHECK(t >= 1 && parz_ll_scale_of(t) == 1e11, "11 significant digits not found (transform %u)", t);
  scaled = round_trip("f64 / 1e11", &a, v, t, 0, 2);
  plain = round_trip("f64 / 1e11 as images", &a, v, 0, 0, 2);
  CHECK(scaled < plain, "1e11 scale (%zu bytes) not smaller than images (%zu)", scaled, plain);
  for (i = 0; i < 5000; i++)
    v[i] = (double)(-123456789012345ll + 104729ll * (long long)i) / 1e15;
  t = parz_ll_choose_transform(&a, v, NULL);
  CHECK(t >= 1 && parz_ll_scale_of(t) == 1e15, "15 decimals not found (transform %u)", t);
  round_trip("f64 / 1e15", &a, v, t, 0, 3);
  free(v);
}

/* Holt's predictor on series: exact for every gain pair, type and bit pattern (wrap-around at
 * the extremes); gains 8 and 0 are the delta's bytes; refused for grids and gains above 8; the
 * encoder's choice takes it for a trending series and leaves noise to the delta. */
static void test_holt(void) {
  static const parz_type types[4] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  const size_t n = 9000; /* three blocks, the last cut */
  unsigned ti, al, be, kind;
  uint8_t* v = malloc(n * 8);
  for (ti = 0; ti < 4; ti++)
    for (kind = 0; kind < 2; kind++) {
      parz_array a = test_array(types[ti], 1, n, 1, 1, 1);
      const size_t w = parz_type_size(types[ti]);
      char what[96];
      size_t i;
      for (i = 0; i < n; i++) {
        /* a trend with wobble, or raw bit patterns (extremes, NaNs, wrap-around) */
        uint64_t bits;
        if (kind == 0 && (types[ti] == PARZ_FLOAT || types[ti] == PARZ_DOUBLE)) {
          double x = 3.0 + 1e-3 * (double)i + 0.01 * (double)(next() % 7);
          float f = (float)x;
          if (w == 4)
            memcpy(&bits, &f, 4);
          else
            memcpy(&bits, &x, 8);
        } else if (kind == 0) {
          bits = (uint64_t)(int64_t)(40 * (int64_t)i - 5000 + (int64_t)(next() % 9));
        } else {
          bits = next() % 3 ? next() : (next() % 2 ? ~(uint64_t)0 >> 1 : (uint64_t)1 << 63);
          if (w == 4)
            bits = next() % 3 ? bits >> 32 : (next() % 2 ? 0x7fffffffu : 0x80000000u);
        }
        memcpy(v + i * w, &bits, w);
      }
      for (al = 0; al <= 8; al++)
        for (be = 0; be <= 8; be++) {
          snprintf(what, sizeof what, "%s holt %u %u kind %u", parz_type_name(types[ti]), al, be,
                   kind);
          round_trip(what, &a, v, 0, PARZ_LL_HOLT(al, be), 2);
        }
      {
        coded delta = {0}, holt = {0};
        CHECK(encode_all(&a, v, 0, PARZ_LL_PREDICT_ALL, 1, &delta) == PARZ_OK &&
                  encode_all(&a, v, 0, PARZ_LL_HOLT(8, 0), 1, &holt) == PARZ_OK &&
                  delta.start[delta.segments] == holt.start[holt.segments] &&
                  memcmp(delta.bytes, holt.bytes, delta.start[delta.segments]) == 0,
              "%s: Holt 8 0 is not the delta", parz_type_name(types[ti]));
        coded_free(&delta);
        coded_free(&holt);
      }
    }
  {
    parz_array a = test_array(PARZ_DOUBLE, 1, n, 1, 1, 1);
    parz_array grid = test_array(PARZ_DOUBLE, 2, 90, 100, 1, 1);
    parz_array column = test_array(PARZ_DOUBLE, 3, 1, n, 1, 1);
    double* x = (double*)v;
    uint8_t out[8 * 4096 + 1];
    size_t i, bytes_delta, bytes_holt, got;
    unsigned p;
    parz_error err;
    /* a slow trend under a fast one: the level lags, the trend catches it up */
    for (i = 0; i < n; i++)
      x[i] = 100.0 + 0.37 * (double)i + 0.05 * (double)((int)(i % 400) - 200);
    p = parz_ll_choose_predictor(&a, x, 0, PARZ_LL_PREDICT_ALL, 4);
    CHECK(PARZ_LL_PREDICTOR_KIND(p) == PARZ_LL_PREDICT_HOLT, "trend: Holt not chosen (%u)", p);
    bytes_holt = round_trip("trend, chosen", &a, x, 0, p, 4);
    bytes_delta = round_trip("trend, delta", &a, x, 0, PARZ_LL_PREDICT_ALL, 4);
    CHECK(bytes_holt < bytes_delta, "trend: Holt %zu bytes, delta %zu", bytes_holt, bytes_delta);
    CHECK(parz_ll_choose_predictor(&column, x, 0, PARZ_LL_PREDICT_ALL, 4) == p,
          "a series of shape 1 x n not a series");
    CHECK(parz_ll_choose_predictor(&a, x, 0, PARZ_LL_PREDICT_STACK, 4) == PARZ_LL_PREDICT_STACK,
          "the stack predictor overridden");
    CHECK(parz_ll_choose_predictor(&grid, x, 0, PARZ_LL_PREDICT_ALL, 4) == PARZ_LL_PREDICT_ALL,
          "Holt chosen for a grid");
    for (i = 0; i < n; i++) {
      uint64_t r = next() & 0x000fffffffffffffull;
      r |= 0x3ff0000000000000ull;
      memcpy(&x[i], &r, 8);
    }
    /* noise: whichever is chosen stores no more than the delta */
    p = parz_ll_choose_predictor(&a, x, 0, PARZ_LL_PREDICT_ALL, 4);
    bytes_holt = round_trip("noise, chosen", &a, x, 0, p, 4);
    bytes_delta = round_trip("noise, delta", &a, x, 0, PARZ_LL_PREDICT_ALL, 4);
    CHECK(bytes_holt <= bytes_delta, "noise: chosen %zu bytes, delta %zu", bytes_holt, bytes_delta);
    /* a random walk is the delta's own series */
    {
      parz_array walk = test_array(PARZ_INT64, 1, n, 1, 1, 1);
      int64_t* y = (int64_t*)v;
      for (i = 0; i < n; i++)
        y[i] = (i ? y[i - 1] : 0) + (int64_t)(next() % 2001) - 1000;
      CHECK(parz_ll_choose_predictor(&walk, y, 0, PARZ_LL_PREDICT_ALL, 4) == PARZ_LL_PREDICT_ALL,
            "random walk: Holt chosen");
    }
    CHECK(parz_ll_encode_segment(&grid, x, 0, PARZ_LL_HOLT(4, 2), 1, 0, out, sizeof out, &got,
                                 &err) == PARZ_ERR_PARAM,
          "Holt taken for a grid");
    CHECK(parz_ll_decode_segment(&grid, 0, PARZ_LL_HOLT(4, 2), 1, 0, out, 1, x, &err) ==
              PARZ_ERR_PARAM,
          "Holt taken for a grid by the decoder");
    CHECK(parz_ll_encode_segment(&a, x, 0, PARZ_LL_HOLT(9, 0), 1, 0, out, sizeof out, &got, &err) ==
              PARZ_ERR_PARAM,
          "alpha 9/8 taken");
    CHECK(
        parz_ll_decode_segment(&a, 0, PARZ_LL_HOLT(0, 9), 1, 0, out, 1, x, &err) == PARZ_ERR_PARAM,
        "beta 9/8 taken by the decoder");
    CHECK(parz_ll_encode_segment(&a, x, 0, PARZ_LL_PREDICT_STACK | 1u << 8, 1, 0, out, sizeof out,
                                 &got, &err) == PARZ_ERR_PARAM,
          "gains taken with the stack predictor");
  }
  free(v);
}

/* Scaled integers: chosen when every value fits, refused when one does not (-0.0, a NaN). */
static void test_scaled(void) {
  parz_array a = test_array(PARZ_DOUBLE, 1, 5000, 1, 1, 1);
  parz_array f = test_array(PARZ_FLOAT, 2, 50, 100, 1, 1);
  double* v = malloc(5000 * sizeof *v);
  float* g = malloc(5000 * sizeof *g);
  size_t i, plain, scaled;
  unsigned t;
  for (i = 0; i < 5000; i++) {
    v[i] = (double)((int)(i % 300) - 100) / 200.0;
    g[i] = (float)((int)(i % 977) - 400);
  }
  t = parz_ll_choose_transform(&a, v, NULL);
  CHECK(t >= 1 && parz_ll_scale_of(t) == 200.0, "counts / 200 not found (transform %u)", t);
  scaled = round_trip("f64 / 200", &a, v, t, 0, 2);
  plain = round_trip("f64 / 200 as images", &a, v, 0, 0, 2);
  CHECK(scaled < plain, "scaled integers (%zu bytes) not smaller than images (%zu)", scaled, plain);
  t = parz_ll_choose_transform(&f, g, NULL);
  CHECK(t >= 1 && parz_ll_scale_of(t) == 1.0, "whole numbers not found (transform %u)", t);
  round_trip("f32 whole numbers", &f, g, t, 0, 1);
  g[4321] = -0.0f;
  CHECK(parz_ll_choose_transform(&f, g, NULL) == 0, "-0.0 taken as a whole number");
  round_trip("f32 whole numbers and -0.0", &f, g, 0, 0, 1);
  g[4321] = 3.5f;
  CHECK(parz_ll_choose_transform(&f, g, NULL) != 1, "3.5 taken as a whole number");
  /* float32 values are checked in groups: a misfit at a group's edges and in the last value */
  g[4321] = 7.0f;
  g[63] = 2.5f;
  t = parz_ll_choose_transform(&f, g, NULL);
  CHECK(t != 1 && t != 0, "2.5 at value 63: transform %u", t);
  g[63] = 7.0f;
  g[64] = 0.25f;
  CHECK(parz_ll_choose_transform(&f, g, NULL) > 2, "0.25 at value 64 taken as a half or whole");
  g[64] = 7.0f;
  g[4999] = 0.0f / 0.0f;
  CHECK(parz_ll_choose_transform(&f, g, NULL) == 0, "float NaN last taken as a scaled integer");
  g[4999] = 3e9f;
  CHECK(parz_ll_choose_transform(&f, g, NULL) == 0, "3e9 taken as a scaled int32");
  g[4999] = 2.0e9f;
  CHECK(parz_ll_choose_transform(&f, g, NULL) == 1, "2e9, a whole number in range, not found");
  v[17] = 0.0 / 0.0;
  CHECK(parz_ll_choose_transform(&a, v, NULL) == 0, "NaN taken as a scaled integer");
  {
    parz_array ia = test_array(PARZ_INT32, 1, 10, 1, 1, 1);
    int32_t iv[10] = {0};
    uint8_t out[16385];
    size_t n;
    parz_error err;
    CHECK(parz_ll_encode_segment(&ia, iv, 1, 0, 1, 0, out, sizeof out, &n, &err) == PARZ_ERR_PARAM,
          "scaled transform taken for int32");
    CHECK(parz_ll_encode_segment(&a, v, 99, 0, 1, 0, out, sizeof out, &n, &err) != PARZ_OK,
          "transform 99 taken");
    CHECK(parz_ll_encode_segment(&a, v, 0, 4, 1, 0, out, sizeof out, &n, &err) == PARZ_ERR_PARAM,
          "predictor 4 taken");
    CHECK(parz_ll_decode_segment(&a, 0, 4, 1, 0, out, 1, v, &err) == PARZ_ERR_PARAM,
          "predictor 4 taken by the decoder");
    CHECK(parz_ll_encode_segment(&a, v, 0, PARZ_LL_PREDICT_ROWS | 8u << 8, 1, 0, out, sizeof out,
                                 &n, &err) == PARZ_ERR_PARAM,
          "the row predictor with a gain taken");
    { /* the row predictor's blocks: a row of 4096 values at most, whatever the rank */
      parz_array r2 = test_array(PARZ_INT32, 2, 5, 9000, 1, 1);
      parz_array r4 = test_array(PARZ_INT32, 4, 2, 1, 3, 70);
      CHECK(parz_ll_block_count(&r2, PARZ_LL_PREDICT_ROWS) == 15 &&
                parz_ll_block_count(&r4, PARZ_LL_PREDICT_ROWS) == 6 &&
                parz_ll_block_count(&ia, PARZ_LL_PREDICT_ROWS) == 1,
            "rows: %zu and %zu blocks", parz_ll_block_count(&r2, PARZ_LL_PREDICT_ROWS),
            parz_ll_block_count(&r4, PARZ_LL_PREDICT_ROWS));
    }
  }
  free(v);
  free(g);
}

/* The check of float32 whole numbers (transform 1) against parz_ll_fits32 at scale 1, value by
 * value: the edges of its range and of 2^22 and 2^23 (where a float's spacing passes 1/2 and 1),
 * halves, -0.0, the infinities and NaN, and a million random bit patterns. */
static void test_whole_numbers(void) {
  static const float edges[] = {0.0f,         -0.0f,        0.5f,        1.0f,        1.5f,
                                4194303.5f,   4194304.0f,   4194304.5f,  8388607.0f,  8388607.5f,
                                8388608.0f,   8388609.0f,   16777216.0f, 16777218.0f, 2.1e9f,
                                2.0999999e9f, 2.1000001e9f, 3e9f,        1e-45f,      3.4e38f,
                                INFINITY,     NAN};
  unsigned long long differ = 0;
  uint64_t x = 0x2545f4914f6cdd1dull; /* its own sequence: the others' inputs stay as pinned */
  size_t i;
  for (i = 0; i < 2 * sizeof edges / sizeof edges[0] + 1000000; i++) {
    float v;
    uint32_t b;
    if (i < 2 * sizeof edges / sizeof edges[0]) { /* each edge and its negative */
      v = i % 2 ? -edges[i / 2] : edges[i / 2];
      memcpy(&b, &v, 4);
    } else {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      b = (uint32_t)(x >> 32);
      if (i % 2) /* a whole number, or one near one, of every magnitude */
        b = (b & 0x80000000u) | (uint32_t)(0x3f800000u + (x % 31) * 0x00800000u) |
            (b & (i % 4 == 1 ? 0x007fffffu : 0x00000003u));
      memcpy(&v, &b, 4);
    }
    differ += parz_ll_scale_fits(PARZ_FLOAT, &v, 1, 1) != parz_ll_fits32(v, b, 1.0);
  }
  CHECK(differ == 0, "float32 whole numbers: %llu values differ from parz_ll_fits32", differ);
}

/* Segment 1 at C = 1: of a 100 x 100 (or 8 x 100) array, block (0, 1), rows 0..63 and columns
 * 64..99; of 8192 (or 4608) values in a row, values 4096 on. */
static int in_square(size_t j) { return j / 100 < 64 && j % 100 >= 64; }
static int in_row(size_t j) { return j >= 4096; }

/* A coder 3 segment (src, len bytes; seg: room for len + 1) whose header lies: every run
 * length one byte longer or shorter (the runs then start elsewhere), run 0 as long as the whole
 * segment, the runs' code and q outside their ranges; each refused. */
static void lying_runs(const char* what, const parz_array* a, size_t c, size_t s, size_t values,
                       const uint8_t* src, size_t len, uint8_t* seg, float* back) {
  unsigned coder = 0, q = 0;
  size_t lengths_bytes = 0, runs = 0, first = 0, r;
  int d;
  parz_error err;
  CHECK(parz_ll_runs_layout(src, len, values, 32, &coder, &q, &lengths_bytes, &runs, &first) ==
            PARZ_LL_OK,
        "%s: the encoder's runs refused", what);
  CHECK(runs >= 2 && first < len, "%s: %zu runs from byte %zu of %zu", what, runs, first, len);
  for (r = 0; r + 1 < runs; r++)
    for (d = -1; d <= 1; d += 2) {
      uint8_t* field = seg + PARZ_LL_RUN_HEAD + lengths_bytes + 2 * r;
      unsigned was;
      memcpy(seg, src, len);
      was = field[0] | field[1] << 8;
      field[0] = (uint8_t)(was + d);
      field[1] = (uint8_t)((was + d) >> 8);
      CHECK(parz_ll_decode_segment(a, 0, 0, c, s, seg, len, back, &err) == PARZ_ERR_STREAM,
            "%s: run %zu's length %u told as %u accepted", what, r, was, was + d);
    }
  /* run r - 1 one byte short (its residuals pass its bytes) and run r past the segment: the
   * refusal is run r - 1's, the first at fault, wherever the two sit among the runs a decoder
   * reads side by side */
  for (r = 1; r + 1 < runs; r++) {
    uint8_t* field = seg + PARZ_LL_RUN_HEAD + lengths_bytes + 2 * (r - 1);
    unsigned was;
    memcpy(seg, src, len);
    was = field[0] | field[1] << 8;
    if (!was)
      continue; /* coder 4's empty run: no byte to take off */
    field[0] = (uint8_t)(was - 1);
    field[1] = (uint8_t)((was - 1) >> 8);
    field[2] = field[3] = 0xff;
    CHECK(parz_ll_decode_segment(a, 0, 0, c, s, seg, len, back, &err) == PARZ_ERR_STREAM &&
              strstr(err.message, "pass") && !strstr(err.message, "passes"),
          "%s: runs %zu and %zu damaged: %s", what, r - 1, r, err.message);
  }
  memcpy(seg, src, len);
  seg[PARZ_LL_RUN_HEAD + lengths_bytes] = (uint8_t)len;
  seg[PARZ_LL_RUN_HEAD + lengths_bytes + 1] = (uint8_t)(len >> 8);
  CHECK(parz_ll_decode_segment(a, 0, 0, c, s, seg, len, back, &err) == PARZ_ERR_STREAM,
        "%s: run 0 as long as the segment accepted", what);
  CHECK(strstr(err.message, "run 0") != NULL, "%s: message does not name the run: %s", what,
        err.message);
  {
    static const uint8_t code_q[][2] = {{0, 9}, {3, 9}, {2, 3}, {2, 13}, {1, 255}};
    size_t i;
    for (i = 0; i < sizeof code_q / sizeof code_q[0]; i++) {
      memcpy(seg, src, len);
      seg[1] = code_q[i][0];
      seg[2] = code_q[i][1];
      CHECK(parz_ll_decode_segment(a, 0, 0, c, s, seg, len, back, &err) == PARZ_ERR_STREAM,
            "%s: runs of code %u, q %u accepted", what, code_q[i][0], code_q[i][1]);
    }
  }
}

/* Damaged segments, for a segment of each coder: every truncation, an extra byte, every single
 * bit flip; values outside the segment stay as they were. */
static void damage(const char* what, const parz_array* a, const float* v, unsigned coder,
                   int (*inside)(size_t)) {
  size_t n = count_of(a), i, bytes = n * 4, c = 1, s = 1, len, bit, values = 0;
  float* back = malloc(bytes);
  float* canary = malloc(bytes);
  coded cd;
  parz_error err;
  uint8_t* seg;
  CHECK(encode_all(a, v, 0, 0, c, &cd) == PARZ_OK, "%s: encode", what);
  len = cd.start[s + 1] - cd.start[s];
  for (i = 0; i < n; i++)
    values += (size_t)inside(i);
  CHECK(cd.bytes[cd.start[s]] == coder, "%s: segment %zu coder %u, not %u", what, s,
        cd.bytes[cd.start[s]], coder);
  memset(canary, 0x5a, bytes);
  for (i = 0; i < len; i++) {
    /* a copy of exactly i bytes, so that a read past it is a sanitizer's error */
    seg = malloc(i ? i : 1);
    memcpy(seg, cd.bytes + cd.start[s], i);
    CHECK(parz_ll_decode_segment(a, 0, 0, c, s, i ? seg : NULL, i, back, &err) == PARZ_ERR_STREAM,
          "%s: truncated to %zu of %zu bytes accepted", what, i, len);
    free(seg);
  }
  seg = malloc(len + 1);
  memcpy(seg, cd.bytes + cd.start[s], len);
  seg[len] = 0;
  CHECK(parz_ll_decode_segment(a, 0, 0, c, s, seg, len + 1, back, &err) == PARZ_ERR_STREAM,
        "%s: a byte appended accepted", what);
  CHECK(strstr(err.message, "segment 1") != NULL, "%s: message does not name the segment: %s", what,
        err.message);
  for (bit = 0; bit < len * 8; bit++) {
    int rc;
    size_t j, touched = 0;
    memcpy(back, canary, bytes);
    memcpy(seg, cd.bytes + cd.start[s], len);
    seg[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    rc = parz_ll_decode_segment(a, 0, 0, c, s, seg, len, back, &err);
    CHECK(rc == PARZ_OK || rc == PARZ_ERR_STREAM, "%s: bit %zu: status %d", what, bit, rc);
    for (j = 0; j < n; j++)
      if (memcmp(&back[j], &canary[j], 4) != 0 && !inside(j))
        touched++;
    CHECK(touched == 0, "%s: bit %zu: %zu values outside segment %zu written", what, bit, touched,
          s);
  }
  if (coder == PARZ_LL_CODER_RUNS || coder == PARZ_LL_CODER_ZERO_RUNS)
    lying_runs(what, a, c, s, values, cd.bytes + cd.start[s], len, seg, back);
  if (coder == PARZ_LL_CODER_ZERO_RUNS) {
    /* its empty runs are coder 4's alone: as coder 3, they pass their no bytes */
    memcpy(seg, cd.bytes + cd.start[s], len);
    seg[0] = PARZ_LL_CODER_RUNS;
    CHECK(parz_ll_decode_segment(a, 0, 0, c, s, seg, len, back, &err) == PARZ_ERR_STREAM,
          "%s: empty runs accepted under coder 3", what);
    /* and they take no byte: runs 2 on hold only zeros, the last one too */
    {
      unsigned code = 0, q = 0;
      size_t lengths_bytes = 0, runs = 0, first = 0, r, told = 0;
      const uint8_t* src = cd.bytes + cd.start[s];
      CHECK(parz_ll_runs_layout(src, len, values, 32, &code, &q, &lengths_bytes, &runs, &first) ==
                    PARZ_LL_OK &&
                runs == 8,
            "%s: %zu runs", what, runs);
      for (r = 0; r + 1 < runs; r++) {
        const size_t bytes = parz_ll_run_bytes(src, lengths_bytes, r);
        CHECK((r >= 2) == (bytes == 0), "%s: run %zu of %zu bytes", what, r, bytes);
        told += bytes;
      }
      CHECK(first + told == len, "%s: the last run of %zu bytes", what, len - first - told);
    }
  }
  memcpy(seg, cd.bytes + cd.start[s], len);
  seg[0] = 7;
  CHECK(parz_ll_decode_segment(a, 0, 0, c, s, seg, len, back, &err) == PARZ_ERR_STREAM,
        "%s: unknown coder accepted", what);
  free(seg);
  coded_free(&cd);
  free(back);
  free(canary);
}

static void test_hostile(void) {
  parz_array a = test_array(PARZ_FLOAT, 2, 100, 100, 1, 1);
  parz_array row = test_array(PARZ_FLOAT, 1, 8192, 1, 1, 1);
  /* segment 1 of 8 x 36 and of 512 values: no more than one run, so coders 1 and 2 */
  parz_array short_square = test_array(PARZ_FLOAT, 2, 8, 100, 1, 1);
  parz_array short_row = test_array(PARZ_FLOAT, 1, 4608, 1, 1, 1);
  size_t n = 10000, i, len;
  float* v = malloc(10000 * sizeof *v);
  coded cd;
  parz_error err;
  /* a smooth ramp: one code serves */
  for (i = 0; i < n; i++)
    v[i] = (float)(i % 100) * 0.01f + (float)(i / 100);
  damage("ramp", &a, v, PARZ_LL_CODER_RUNS, in_square);
  damage("short ramp", &short_square, v, PARZ_LL_CODER_LENGTHS, in_square);
  /* runs of 256 equal values between runs of 256 noisy ones: the context code pays */
  for (i = 0; i < 8192; i++) {
    float mantissa = 1.0f + (float)(next() % 1000000) * 1e-6f;
    int exponent = (int)(next() % 11) - 5;
    v[i] = (i / 256) % 2 ? 5.0f : ldexpf(mantissa, exponent);
  }
  damage("runs", &row, v, PARZ_LL_CODER_RUNS, in_row);
  /* 512 noisy values, then one fill value: runs 2 on of segment 1 are zeros (coder 4), the last
   * one too */
  for (i = 4096; i < 8192; i++)
    v[i] = i < 4608 ? (float)(next() % 1000000) * 1e-3f : -1e10f;
  damage("zero runs", &row, v, PARZ_LL_CODER_ZERO_RUNS, in_row);
  /* a chain of residual bit lengths, each drawn from the bucket after its predecessor's: five
   * bits a length under one code, two in context, which pays for the context code's lengths
   * even in a segment of one run */
  for (i = 0; i < 4608; i++) {
    static uint32_t u, k;
    uint32_t z, r, b;
    k = i % 4096 == 0 ? 0 : 4 * ((k + 3) / 4 % 8) + 1 + (uint32_t)(next() % 4);
    z = k == 0 ? 0 : 1u << (k - 1) | ((uint32_t)next() & ((1u << (k - 1)) - 1u));
    r = (z >> 1) ^ (0u - (z & 1u));
    u = (i % 4096 == 0 ? 0 : u) + r;
    b = u >> 31 ? u & 0x7fffffffu : ~u; /* transform 0's integer image back to float bits */
    memcpy(&v[i], &b, 4);
  }
  damage("short runs", &short_row, v, PARZ_LL_CODER_CONTEXT, in_row);
  /* random bits are stored raw; a raw segment of the wrong size is refused */
  for (i = 0; i < n; i++) {
    uint32_t b = (uint32_t)next();
    memcpy(&v[i], &b, 4);
  }
  CHECK(encode_all(&a, v, 0, 0, 1, &cd) == PARZ_OK, "encode random");
  len = cd.start[1] - cd.start[0];
  CHECK(cd.bytes[0] == 0, "random bits not stored raw (coder %u)", cd.bytes[0]);
  CHECK(parz_ll_decode_segment(&a, 0, 0, 1, 0, cd.bytes, len - 1, v, &err) == PARZ_ERR_STREAM,
        "short raw segment accepted");
  CHECK(parz_ll_decode_segment(&a, 0, 0, 1, 4, cd.bytes, len, v, &err) == PARZ_ERR_ARG,
        "segment past the last accepted");
  coded_free(&cd);
  free(v);
}

/* The bytes each real array's segments were written as (both predictors where the array has
 * 4 dimensions) under the transform the encoder chooses, as integer images ("images") where
 * that is a scale, and under Holt's predictor ("holt") where the encoder chooses it for a
 * series: the encoder may get faster, never different. */
static const fnv_pinned real_written[] = {
    {"ccsm_trefht_ens", 0x275ef4ae437b291aull},
    {"egm96_geoid", 0x7fce4b83fa497a98ull},
    {"etopo5_relief", 0xc68d71cdaa52be2full},
    {"hst_acs_hrc_ngc104_sci", 0x2f7a3f49784365caull},
    {"levitus_temp", 0xbadbadedc94d81f2ull},
    {"vasp_fepo4_chgcar images", 0xce49c8a2b2ed61eaull},
    {"vasp_fepo4_chgcar", 0x0245f9a7b8118069ull},
    {"etopo5_relief images", 0xe77490a0dfe002a9ull},
    {"ecg_mitbih208 images", 0xa02a7327c18bb11cull},
    {"ecg_mitbih208 holt", 0xc20b947333a474c0ull},
    {"ecg_mitbih208", 0xf44659ab60dd87ffull},
    {"eeg", 0xebffcb05165615acull},
    {"membrane", 0xb87a4ab21a7e4773ull},
};

/* Every real array: exact, at the C the codec's first registration is likely to use. */
static void test_real(const char* dir) {
  size_t n = 0, k;
  real_array* list = real_arrays_load(dir, 0, &n);
  for (k = 0; k < n; k++) {
    unsigned chosen = parz_ll_choose_transform(&list[k].array, list[k].data, NULL), t = chosen;
    unsigned p, last = list[k].array.dims == 4 ? PARZ_LL_PREDICT_STACK : PARZ_LL_PREDICT_ALL;
    /* the chosen transform, then integer images where the chosen one is a scale */
    for (;;) {
      char key[64];
      snprintf(key, sizeof key, "%s%s", list[k].name, t == chosen ? "" : " images");
      written_hash = FNV_START;
      for (p = PARZ_LL_PREDICT_ALL; p <= last; p++) {
        size_t size = round_trip(list[k].name, &list[k].array, list[k].data, t, p, 4);
        printf("%-24s transform %2u predictor %u ratio %.3f\n", list[k].name, t, p,
               size ? (double)list[k].bytes / (double)size : 0.0);
      }
      printf("%-31s bytes written: %016llx\n", key, (unsigned long long)written_hash);
      CHECK(!fnv_pinned_differs(real_written, sizeof real_written / sizeof real_written[0], key,
                                written_hash),
            "%s: the segments' bytes changed (%016llx)", key, (unsigned long long)written_hash);
      if (t == 0)
        break;
      t = 0;
    }
    /* a series: the encoder's choice of predictor, where it is Holt's */
    {
      unsigned p =
          parz_ll_choose_predictor(&list[k].array, list[k].data, chosen, PARZ_LL_PREDICT_ALL, 4);
      char key[64];
      if (PARZ_LL_PREDICTOR_KIND(p) == PARZ_LL_PREDICT_HOLT) {
        size_t size = round_trip(list[k].name, &list[k].array, list[k].data, chosen, p, 4);
        snprintf(key, sizeof key, "%s holt", list[k].name);
        written_hash = FNV_START;
        round_trip(list[k].name, &list[k].array, list[k].data, chosen, p, 4);
        printf("%-24s transform %2u Holt %u/8 %u/8 ratio %.3f\n", list[k].name, chosen,
               PARZ_LL_HOLT_ALPHA(p), PARZ_LL_HOLT_BETA(p),
               size ? (double)list[k].bytes / (double)size : 0.0);
        printf("%-31s bytes written: %016llx\n", key, (unsigned long long)written_hash);
        CHECK(!fnv_pinned_differs(real_written, sizeof real_written / sizeof real_written[0], key,
                                  written_hash),
              "%s: the segments' bytes changed (%016llx)", key, (unsigned long long)written_hash);
      }
    }
  }
  real_arrays_free(list, n);
}

/* The encoder's measure of the row predictor: by hand, for the rows 7 + x, 50 - 2x and -5 (6
 * values each: one block of predictor 0, so every value measured), the residuals' bit lengths
 * sum to 58 under predictor 0 (7 1 1 1 1 1 / 43 -3 -3 -3 -3 -3 / -55 2 2 2 2 2: zigzagged of 4,
 * 2 x 5 / 7, 3 x 5 / 7, 3 x 5 bits) and to 35 along the rows (7 1 1 1 1 1 / 50 -2 -2 -2 -2 -2 /
 * -5 0 0 0 0 0); in a grid of 64 blocks or more, only every 16th block from the 9th counts; a
 * series takes no measure. */
static void test_rows_measure(void) {
  parz_array a = test_array(PARZ_INT32, 2, 3, 6, 1, 1);
  int32_t v[18];
  uint64_t bits[2] = {0, 0};
  size_t x;
  for (x = 0; x < 6; x++) {
    v[x] = 7 + (int32_t)x;
    v[6 + x] = 50 - 2 * (int32_t)x;
    v[12 + x] = -5;
  }
  CHECK(parz_ll_rows_measure(&a, v, 0, bits) == 0 && bits[0] == 58 && bits[1] == 35,
        "rows measure: %llu and %llu bits", (unsigned long long)bits[0],
        (unsigned long long)bits[1]);
  {
    /* 64 x 4096 ones but x 512..575 (block 8 of 64) 4, 7, 10, ..., the same in every row: only
     * blocks 8, 24, 40 and 56 count. Predictor 0 in block 8: its first value 4 (zigzagged 8: 4
     * bits), the rest of row 0 residuals 3 (6: 3 bits), all else 0: 193 bits; in the 3 others
     * of ones, their first value (2: 2 bits): 6. Along the rows: each of block 8's 64 x 64
     * values 3 above the one before it (3 bits): 12288; the others 0. Block 9, which starts at
     * 1 after 193, would count otherwise. */
    parz_array g = test_array(PARZ_INT32, 2, 64, 4096, 1, 1);
    int32_t* w = malloc(64 * 4096 * sizeof *w);
    size_t y;
    for (y = 0; y < 64; y++)
      for (x = 0; x < 4096; x++)
        w[y * 4096 + x] = x >= 512 && x < 576 ? 1 + 3 * (int32_t)(x - 511) : 1;
    CHECK(parz_ll_rows_measure(&g, w, 0, bits) == 0 && bits[0] == 199 && bits[1] == 12288,
          "rows measure of a grid: %llu and %llu bits", (unsigned long long)bits[0],
          (unsigned long long)bits[1]);
    free(w);
  }
  a = test_array(PARZ_INT32, 1, 18, 1, 1, 1);
  CHECK(parz_ll_rows_measure(&a, v, 0, bits) == 1 && bits[0] == 0 && bits[1] == 0,
        "rows measure of a series taken");
}

/* Float32 tenths (scale 10, whose division rounds) and their integer images, ranks 1 to 3 of
 * extents that are not multiples of four: the decoder's rows of 32-bit lanes, four values a
 * vector and the rest one at a time, give back every bit under each predictor. */
static void test_float32_rows(void) {
  static const size_t shapes[3][3] = {{4099, 1, 1}, {67, 70, 1}, {17, 18, 19}};
  unsigned d, p;
  for (d = 0; d < 3; d++) {
    parz_array a = test_array(PARZ_FLOAT, d + 1, shapes[d][0], shapes[d][1], shapes[d][2], 1);
    const size_t n = count_of(&a);
    float* v = malloc(n * sizeof *v);
    size_t i;
    unsigned t;
    char what[64];
    for (i = 0; i < n; i++) /* a smooth field of tenths, both signs */
      v[i] = (float)((long)((i * 7) % 1501 + i / 97) - 800) / 10.0f;
    t = parz_ll_choose_transform(&a, v, NULL);
    CHECK(t >= 1 && parz_ll_scale_of(t) == 10.0, "rank %u tenths: transform %u", d + 1, t);
    for (p = 0; p < 2; p++) {
      const unsigned predictor = p ? PARZ_LL_PREDICT_STACK : PARZ_LL_PREDICT_ALL;
      snprintf(what, sizeof what, "float32 tenths rank %u predictor %u", d + 1, predictor);
      round_trip(what, &a, v, t, predictor, 3);
      round_trip(what, &a, v, 0, predictor, 3);
    }
    free(v);
  }
}

int main(int argc, char** argv) {
  test_special_patterns();
  test_scaled();
  test_whole_numbers();
  /* every coder, type, rank and transform of the crafted arrays above */
  printf("crafted arrays, bytes written: %016llx\n", (unsigned long long)written_hash);
  CHECK(written_hash == 0xab9aae82c7d4fcaaull,
        "crafted arrays: the segments' bytes changed (%016llx)", (unsigned long long)written_hash);
  written_hash = FNV_START;
  test_decimal_scales();
  printf("decimal scales, bytes written: %016llx\n", (unsigned long long)written_hash);
  CHECK(written_hash == 0x06bf2daf4c9d1c4eull,
        "decimal scales: the segments' bytes changed (%016llx)", (unsigned long long)written_hash);
  written_hash = FNV_START;
  test_holt();
  printf("Holt, bytes written: %016llx\n", (unsigned long long)written_hash);
  CHECK(written_hash == 0xa215b1beb299709bull, "Holt: the segments' bytes changed (%016llx)",
        (unsigned long long)written_hash);
  test_float32_rows();
  test_rows_measure();
  test_hostile();
  if (argc > 1)
    test_real(argv[1]);
  if (argc > 2)
    test_real(argv[2]);
  return test_finish("test_lossless");
}
