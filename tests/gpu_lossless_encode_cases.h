/* The cases of the lossless codec's GPU encoder tests, shared by the test that runs its steps on
 * the CPU (test_gpu_lossless_encode_host.cpp) and the one on the device
 * (test_gpu_lossless_encode.cu): float32, float64, int32 and int64 values of ranks 1 to 4 in odd
 * shapes (dimensions of extent 1 among them), the predictors asked for (Lorenzo, stack, rows) and
 * the encoder's choice of the row predictor for independent rows, the integer images and the scaled
 * transforms (the first 256 values passing scales that later values miss), NaN
 * payloads, -0.0, subnormals and infinities, every coder (raw noise, one code,
 * codes per context, coder 3's runs and segments of one run), every table kind, segment sizes,
 * checksums off, stored chunks, strided arrays, and the chunks the GPU encoder refuses (series
 * whose predictor is chosen, segments of more than 32 blocks, runs other than the writers'),
 * each with what the encoder must answer. C++ (tests only). */
#ifndef PARZ_TEST_GPU_LOSSLESS_ENCODE_CASES_H
#define PARZ_TEST_GPU_LOSSLESS_ENCODE_CASES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <string>
#include <vector>

#include "gpu_encode_case.h"
#include "parz_chunk.h"

using ll_case = gpu_encode_case;

static inline parz_chunk_config ll_config(unsigned predictor) {
  parz_chunk_config c;
  memset(&c, 0, sizeof c);
  c.codec = PARZ_CODEC_LOSSLESS;
  c.settings.predictor = predictor;
  return c;
}

static inline size_t ll_size(parz_type t) { return t == PARZ_FLOAT || t == PARZ_INT32 ? 4 : 8; }

/* The elements a's buffer holds: as far as its strides reach. */
static inline size_t ll_reach(const parz_array& a) {
  size_t last = 0, run = 1;
  for (unsigned k = a.dims; k-- > 0;) {
    last += (a.shape[k] - 1) * (size_t)(a.stride[k] ? a.stride[k] : (ptrdiff_t)run);
    run *= a.shape[k];
  }
  return last + 1;
}

/* a's values (at data, through its strides) in C order, contiguous. */
static inline std::vector<unsigned char> ll_contiguous(const parz_array& a, const void* data) {
  const size_t n = gpu_case_count(a), w = ll_size(a.type);
  std::vector<unsigned char> out(n * w);
  for (size_t i = 0; i < n; i++)
    memcpy(&out[i * w], (const unsigned char*)data + gpu_case_offset(a, i) * w, w);
  return out;
}

/* How the values are made. */
enum ll_kind {
  LL_SMOOTH,   /* a smooth field with noise */
  LL_WHOLE,    /* whole numbers (floats: the scaled transform of scale 1) */
  LL_CENTS,    /* hundredths (floats: a scale of 100) */
  LL_NOISE,    /* random bits: raw segments */
  LL_CONSTANT, /* one value: a code of one symbol */
  LL_SPECIAL,  /* a smooth field sprinkled with NaN payloads, -0.0, subnormals and infinities */
  LL_ROWS,     /* independent records along the last dimension: random walks far apart */
  LL_HALVES    /* whole numbers, halves past the first 256 and, for odd seeds, fifths
                  (floats: the encoders' probe of 256 values passes scales 1, 2, 4, 5 and 8,
                  which later values miss; scale 2 fits, or for odd seeds 10) */
};

/* Value x (or, for LL_NOISE, the random bits r) at i of d. */
static inline void ll_put(std::vector<unsigned char>& d, parz_type t, size_t i, double x,
                          uint64_t r, int bits) {
  if (t == PARZ_FLOAT) {
    const float f = (float)x;
    uint32_t b;
    memcpy(&b, &f, 4);
    if (bits)
      b = (uint32_t)r;
    memcpy(&d[i * 4], &b, 4);
  } else if (t == PARZ_DOUBLE) {
    uint64_t b;
    memcpy(&b, &x, 8);
    if (bits)
      b = r;
    memcpy(&d[i * 8], &b, 8);
  } else if (t == PARZ_INT32) {
    const int32_t v = bits ? (int32_t)(uint32_t)r : (int32_t)llround(x);
    memcpy(&d[i * 4], &v, 4);
  } else {
    const int64_t v = bits ? (int64_t)r : (int64_t)llround(x * 1000.0);
    memcpy(&d[i * 8], &v, 8);
  }
}

static inline std::vector<unsigned char> ll_values(const parz_array& a, ll_kind kind,
                                                   unsigned seed) {
  const size_t n = gpu_case_count(a);
  std::vector<unsigned char> d(n * ll_size(a.type));
  uint64_t r = 0x9e3779b97f4a7c15ull * (seed + 1);
  const size_t row = a.shape[a.dims - 1];
  double walk = 0;
  for (size_t i = 0; i < n; i++) {
    r = r * 6364136223846793005ull + 1442695040888963407ull;
    const double u = (double)(r >> 11) / 9007199254740992.0 - 0.5;
    double x = sin(0.001 * (double)i) * 100 + cos(0.037 * (double)(i % 977)) * 20 + u;
    walk = i % row ? walk + 8 * u : (double)(i / row % 7) * 1000;
    if (kind == LL_ROWS)
      x = walk;
    else if (kind == LL_WHOLE)
      x = floor(x * 10);
    else if (kind == LL_HALVES)
      x = floor(x * 10) + (i >= 256 && i % 3 == 0 ? 0.5 : 0.0) +
          (seed % 2 && i >= 256 && i % 5 == 1 ? 0.2 : 0.0);
    else if (kind == LL_CENTS)
      x = floor(x * 100) / 100;
    else if (kind == LL_CONSTANT)
      x = 42.5;
    ll_put(d, a.type, i, x, r ^ (r >> 29), kind == LL_NOISE);
  }
  if (kind == LL_SPECIAL && (a.type == PARZ_FLOAT || a.type == PARZ_DOUBLE)) {
    const int f = a.type == PARZ_FLOAT;
    const uint64_t specials[8] = {
        f ? 0x7fc00001ull : 0x7ff8000000000123ull, /* quiet NaN with a payload */
        f ? 0xffa00005ull : 0xfff4000000000007ull, /* signalling NaN, negative */
        f ? 0x80000000ull : 0x8000000000000000ull, /* -0.0 */
        f ? 0x00000001ull : 0x0000000000000001ull, /* the least subnormal */
        f ? 0x807fffffull : 0x800fffffffffffffull, /* the largest negative subnormal */
        f ? 0x7f800000ull : 0x7ff0000000000000ull, /* +Inf */
        f ? 0xff800000ull : 0xfff0000000000000ull, /* -Inf */
        f ? 0x7f7fffffull : 0x7fefffffffffffffull, /* the largest finite */
    };
    for (size_t i = 0; i < n; i += 1 + i % 97) {
      const uint64_t b = specials[(i / 7) % 8];
      memcpy(&d[i * ll_size(a.type)], &b, ll_size(a.type));
    }
  }
  return d;
}

static inline ll_case ll_make(const char* name, parz_type t, unsigned dims, const size_t* shape,
                              ll_kind kind, unsigned predictor, unsigned seed) {
  ll_case c;
  c.name = name;
  c.a = parz_test_array(t, dims, shape);
  c.data = ll_values(c.a, kind, seed);
  c.cfg = ll_config(predictor);
  c.refused = 0;
  return c;
}

static inline std::vector<ll_case> ll_cases(void) {
  std::vector<ll_case> out;
  const parz_type types[4] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  const char* tnames[4] = {"float32", "float64", "int32", "int64"};
  static const size_t s1[1] = {70001}, s2[2] = {131, 517}, s3[3] = {19, 37, 45},
                      s4[4] = {5, 9, 17, 23}, s2e[4] = {1, 300, 1, 211}, tiny[2] = {9, 31},
                      one[1] = {1};
  struct shape {
    unsigned dims;
    const size_t* s;
    const char* name;
  } shapes[7] = {{1, s1, "70001"},     {2, s2, "131x517"},      {3, s3, "19x37x45"},
                 {4, s4, "5x9x17x23"}, {4, s2e, "1x300x1x211"}, {2, tiny, "9x31"},
                 {1, one, "1"}};
  const ll_kind kinds[7] = {LL_SMOOTH,   LL_WHOLE,   LL_CENTS, LL_NOISE,
                            LL_CONSTANT, LL_SPECIAL, LL_HALVES};
  const char* knames[7] = {"smooth", "whole", "cents", "noise", "constant", "special", "halves"};
  char name[200];
  unsigned seed = 1;
  for (unsigned t = 0; t < 4; t++)
    for (unsigned s = 0; s < 7; s++)
      for (unsigned k = 0; k < 7; k++)
        for (unsigned pred = 0; pred <= 1; pred++) {
          /* series take predictor 1 (the GPU encodes them); predictor 0 is refused below */
          if (shapes[s].dims == 1 && pred == 0)
            continue;
          snprintf(name, sizeof name, "%s %s %s, predictor %u", tnames[t], shapes[s].name,
                   knames[k], pred);
          out.push_back(
              ll_make(name, types[t], shapes[s].dims, shapes[s].s, kinds[k], pred, seed++));
        }
  /* independent rows and smooth fields, the predictor chosen (the row predictor where it stores
   * less) and the row predictor asked for; a row longer than a block */
  static const size_t r2[2] = {7, 5000}, r3[3] = {3, 11, 700}, r4[4] = {2, 3, 1, 90};
  const shape rshapes[4] = {
      {2, r2, "7x5000"}, {3, r3, "3x11x700"}, {4, r4, "2x3x1x90"}, {2, s2, "131x517"}};
  const ll_kind rkinds[2] = {LL_ROWS, LL_SMOOTH};
  for (unsigned t = 0; t < 4; t++)
    for (unsigned s = 0; s < 4; s++)
      for (unsigned k = 0; k < 2; k++)
        for (unsigned pred = 0; pred <= 3; pred += 3) {
          snprintf(name, sizeof name, "%s %s %s, predictor %u", tnames[t], rshapes[s].name,
                   k ? "smooth" : "rows", pred);
          out.push_back(
              ll_make(name, types[t], rshapes[s].dims, rshapes[s].s, rkinds[k], pred, seed++));
        }
  /* the table's kinds, segment sizes, checksums off */
  const parz_table_kind tables[3] = {PARZ_TABLE_HYBRID, PARZ_TABLE_LENGTHS, PARZ_TABLE_OFFSETS};
  const unsigned Cs[5] = {1, 2, 3, 8, 32};
  for (unsigned k = 0; k < 3; k++)
    for (unsigned j = 0; j < 5; j++) {
      ll_case c = ll_make("", PARZ_FLOAT, 2, s2, LL_SMOOTH, 0, seed++);
      c.cfg.table = tables[k];
      c.cfg.segment_blocks = Cs[j];
      c.cfg.partition_segments = j == 2 ? 3 : 0;
      c.cfg.checksum = j == 0 ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_DEFAULT;
      snprintf(name, sizeof name, "float32 131x517, table %d, C %u", (int)tables[k], Cs[j]);
      c.name = name;
      out.push_back(c);
    }
  /* a chunk that encoding would enlarge, stored where the configuration asks */
  {
    ll_case c = ll_make("float64 131x517 noise, stored when smaller", PARZ_DOUBLE, 2, s2, LL_NOISE,
                        0, seed++);
    c.cfg.stored = PARZ_STORED_WHEN_SMALLER;
    out.push_back(c);
  }
  /* strided arrays; refused: series whose predictor is chosen, segments of 33 blocks, runs
   * other than the writers' */
  {
    ll_case c = ll_make("float32 70001, predictor chosen (refused)", PARZ_FLOAT, 1, s1, LL_SMOOTH,
                        0, seed++);
    c.refused = 1;
    out.push_back(c);
    ll_case d = ll_make("int32 1x300x1x211, predictor chosen (refused)", PARZ_INT32, 4, s2e,
                        LL_SMOOTH, 0, seed++);
    d.refused = 0; /* two dimensions of extent above 1: not a series */
    out.push_back(d);
    ll_case e = ll_make("float32 131x517 transposed", PARZ_FLOAT, 2, s2, LL_WHOLE, 0, seed++);
    e.a.stride[0] = 1;
    e.a.stride[1] = 131;
    out.push_back(e);
    /* every other value of the last dimension of a 19x37x90 array */
    static const size_t s3w[3] = {19, 37, 90};
    ll_case g =
        ll_make("float64 19x37x45, every other column", PARZ_DOUBLE, 3, s3w, LL_SPECIAL, 0, seed++);
    g.a.shape[2] = 45;
    g.a.stride[0] = 37 * 90;
    g.a.stride[1] = 90;
    g.a.stride[2] = 2;
    out.push_back(g);
    ll_case f = ll_make("float32 131x517, C 33 (refused)", PARZ_FLOAT, 2, s2, LL_SMOOTH, 0, seed++);
    f.cfg.segment_blocks = 33;
    f.refused = 1;
    out.push_back(f);
    ll_case q =
        ll_make("float32 131x517, runs of 2^7 (refused)", PARZ_FLOAT, 2, s2, LL_SMOOTH, 0, seed++);
    q.cfg.settings.run_q = 7;
    q.refused = 1;
    out.push_back(q);
  }
  /* a segment of 2,400 residuals (38 pieces, 5 runs), so that a warp of segment_kernel sizes a
   * fourth piece a round (PARZ_GPU_LL_SIZED) and writes five pieces one after the other; small
   * enough for compute-sanitizer (--small takes these) */
  static const size_t four[2] = {40, 60};
  for (unsigned t = 0; t < 4; t++)
    for (unsigned k = 0; k < 2; k++) {
      snprintf(name, sizeof name, "%s 40x60 %s, predictor 0", tnames[t], k ? "cents" : "smooth");
      out.push_back(ll_make(name, types[t], 2, four, k ? LL_CENTS : LL_SMOOTH, 0, seed++));
    }
  return out;
}

#endif
