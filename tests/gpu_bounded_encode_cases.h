/* The cases of the error-bounded codec's GPU encoder tests, shared by the test that runs its
 * steps on the CPU (test_gpu_bounded_encode_host.cpp) and the one on the device
 * (test_gpu_bounded_encode.cu): every rank, both types, every predictor asked for and the
 * chosen one, codes past the residuals' radius (escapes), long zero runs, every table kind and
 * segment sizes, the values not finite and out of the grid's range that become exceptions, and
 * the chunks the GPU encoder refuses (values the configuration masks; values not finite with the
 * predictor chosen), each with what the encoder must answer. C++ (tests only). */
#ifndef PARZ_TEST_GPU_BOUNDED_ENCODE_CASES_H
#define PARZ_TEST_GPU_BOUNDED_ENCODE_CASES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <string>
#include <vector>

#include "gpu_encode_case.h"
#include "parz_chunk.h"

using bnd_case = gpu_encode_case;

static inline parz_chunk_config bnd_config(double eb, unsigned predictor) {
  parz_chunk_config c;
  memset(&c, 0, sizeof c);
  c.codec = PARZ_CODEC_BOUNDED;
  c.settings.error_bound = eb;
  c.settings.predictor = predictor;
  return c;
}

/* The values of a (at data, through its strides) that back (a's values decoded, C order,
 * contiguous) does not hold within eb; a value not finite must come back bit for bit. */
static inline size_t bnd_outside(const parz_array& a, const void* data,
                                 const std::vector<unsigned char>& back, double eb) {
  const size_t n = gpu_case_count(a), w = a.type == PARZ_FLOAT ? 4 : 8;
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    const unsigned char* v = (const unsigned char*)data + w * gpu_case_offset(a, i);
    double x, y;
    if (w == 4) {
      float f, g;
      memcpy(&f, v, 4);
      memcpy(&g, &back[4 * i], 4);
      x = f, y = g;
    } else {
      memcpy(&x, v, 8);
      memcpy(&y, &back[8 * i], 8);
    }
    if (isfinite(x) ? !(fabs(x - y) <= eb) : memcmp(v, &back[w * i], w) != 0)
      bad++;
  }
  return bad;
}

/* Values of a smooth field with noise of amplitude `noise`, value i set by put. */
static inline std::vector<unsigned char> bnd_values(const parz_array& a, double noise,
                                                    unsigned seed) {
  const size_t n = gpu_case_count(a), w = a.type == PARZ_FLOAT ? 4 : 8;
  std::vector<unsigned char> d(n * w);
  uint64_t r = 0x9e3779b97f4a7c15ull * (seed + 1);
  for (size_t i = 0; i < n; i++) {
    r = r * 6364136223846793005ull + 1442695040888963407ull;
    const double u = (double)(r >> 11) / 9007199254740992.0 - 0.5;
    const double x = sin(0.001 * (double)i) * 100 + cos(0.037 * (double)(i % 977)) * 20 + noise * u;
    if (w == 4) {
      const float f = (float)x;
      memcpy(&d[i * 4], &f, 4);
    } else {
      memcpy(&d[i * 8], &x, 8);
    }
  }
  return d;
}

static inline void bnd_set(bnd_case& c, size_t i, double x) {
  if (c.a.type == PARZ_FLOAT) {
    const float f = (float)x;
    memcpy(&c.data[i * 4], &f, 4);
  } else {
    memcpy(&c.data[i * 8], &x, 8);
  }
}

/* The cases whose codebook the GPU encoder builds on the device over a range just wide enough,
 * with few used symbols, so that its shared-memory steps run under compute-sanitizer's racecheck
 * in seconds (test_gpu_bounded_encode --tiny): Lorenzo residuals of exact integers (eb 0.5, so
 * the grid's step is 1 but for rounding far below it), +-1100 once each (a range of 2,201
 * residuals, over PARZ_GPU_BND_HOST_BOOK) and 20 more residuals with Fibonacci counts, whose
 * Huffman code is 21 bits deep: package-merge cuts it to PARZ_BOUNDED_MAX_LEN. Their order is
 * shuffled, so that every segment holds several. With the predictor given and chosen. */
static inline std::vector<bnd_case> bnd_tiny_cases(void) {
  std::vector<int32_t> d;
  uint64_t fa = 1, fb = 1;
  for (int j = 0; j < 22; j++) {
    const int32_t r = j < 2 ? (j ? -1100 : 1100) : (j % 2 ? -1 : 1) * (j / 2 + 1);
    d.insert(d.end(), (size_t)fa, r);
    const uint64_t t = fa + fb;
    fa = fb;
    fb = t;
  }
  uint64_t x = 12345;
  for (size_t i = d.size(); i > 1; i--) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const size_t k = (size_t)((x >> 33) % i);
    const int32_t t = d[i - 1];
    d[i - 1] = d[k];
    d[k] = t;
  }
  std::vector<bnd_case> out;
  const size_t s[1] = {d.size()};
  bnd_case c;
  c.a = parz_test_array(PARZ_DOUBLE, 1, s);
  c.data.assign(d.size() * 8, 0);
  double v = 0;
  for (size_t i = 0; i < d.size(); i++) {
    v += d[i];
    bnd_set(c, i, v);
  }
  c.refused = 0;
  for (unsigned pred : {1u, 0u}) {
    c.cfg = bnd_config(0.5, pred);
    c.name = "a wide codebook over the length limit, predictor " + std::to_string(pred);
    out.push_back(c);
  }
  return out;
}

/* The crafted cases. */
static inline std::vector<bnd_case> bnd_cases(void) {
  std::vector<bnd_case> out;
  const size_t s1[1] = {10007}, s2[2] = {97, 131}, s3[3] = {13, 17, 19}, s4[4] = {5, 6, 7, 9};
  const size_t* shapes[4] = {s1, s2, s3, s4};
  char name[160];
  for (unsigned dims = 1; dims <= 4; dims++)
    for (int t = 0; t < 2; t++)
      for (unsigned pred = 0; pred <= 5; pred++) {
        bnd_case c;
        const parz_type type = t ? PARZ_DOUBLE : PARZ_FLOAT;
        c.a = parz_test_array(type, dims, shapes[dims - 1]);
        c.data = bnd_values(c.a, 0.5, dims * 10 + pred);
        c.cfg = bnd_config(0.01, pred);
        c.refused = 0;
        snprintf(name, sizeof name, "%uD %s predictor %u", dims, t ? "f64" : "f32", pred);
        c.name = name;
        out.push_back(c);
      }
  /* escapes: a bound far below the noise, codes past +-32767 */
  for (unsigned pred = 1; pred <= 3; pred++) {
    bnd_case c;
    c.a = parz_test_array(PARZ_FLOAT, 2, s2);
    c.data = bnd_values(c.a, 50, pred);
    c.cfg = bnd_config(1e-4, pred);
    c.refused = 0;
    c.name = "escapes, predictor " + std::to_string(pred);
    out.push_back(c);
  }
  /* a codebook of tens of thousands of symbols (residuals spread over most of +-32767): the GPU
   * encoder builds it on the device, its weights in 64 bits */
  {
    const size_t s[1] = {60000};
    bnd_case c;
    c.a = parz_test_array(PARZ_FLOAT, 1, s);
    c.data = bnd_values(c.a, 30, 7);
    c.cfg = bnd_config(1e-3, 1);
    c.refused = 0;
    c.name = "a wide codebook";
    out.push_back(c);
  }
  /* long zero runs: a constant array, and one constant but for a few values */
  for (unsigned pred = 0; pred <= 2; pred += 2) {
    bnd_case c;
    c.a = parz_test_array(PARZ_DOUBLE, 2, s2);
    c.data.assign(gpu_case_count(c.a) * 8, 0);
    c.cfg = bnd_config(1e-3, pred);
    c.refused = 0;
    c.name = "zeros, predictor " + std::to_string(pred);
    out.push_back(c);
    for (size_t i = 0; i < gpu_case_count(c.a); i += 1000)
      bnd_set(c, i, 3.25);
    c.name = "zeros but a few, predictor " + std::to_string(pred);
    out.push_back(c);
  }
  /* the table's kinds, segment sizes and partitions, checksums off */
  const parz_table_kind tables[3] = {PARZ_TABLE_HYBRID, PARZ_TABLE_LENGTHS, PARZ_TABLE_OFFSETS};
  for (int k = 0; k < 3; k++)
    for (uint32_t C : {0u, 100u, 1u}) {
      bnd_case c;
      c.a = parz_test_array(PARZ_FLOAT, 2, s2);
      c.data = bnd_values(c.a, 1, 7);
      c.cfg = bnd_config(0.01, 1 + (unsigned)k);
      c.cfg.table = tables[k];
      c.cfg.segment_blocks = C;
      c.cfg.partition_segments = C == 100 ? 3 : 0;
      c.cfg.checksum = C == 1 ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_DEFAULT;
      c.refused = 0;
      snprintf(name, sizeof name, "table %d, C %u", (int)tables[k], C);
      c.name = name;
      out.push_back(c);
    }
  /* exceptions: the infinities (the frame's), NaN with the mask off, values out of the grid's
   * range (the codec's), for Lorenzo and the interpolation */
  for (unsigned pred = 1; pred <= 5; pred++)
    for (int t = 0; t < 2; t++) {
      bnd_case c;
      c.a = parz_test_array(t ? PARZ_DOUBLE : PARZ_FLOAT, 3, s3);
      c.data = bnd_values(c.a, 0.5, 40 + pred);
      c.cfg = bnd_config(1e-3, pred);
      c.cfg.mask = PARZ_MASK_OFF;
      c.refused = 0;
      const size_t n = gpu_case_count(c.a);
      bnd_set(c, 0, INFINITY);
      bnd_set(c, 5, -INFINITY);
      bnd_set(c, n / 2, NAN);
      bnd_set(c, n / 3, 1e30);
      bnd_set(c, n / 3 + 1, -3e29);
      bnd_set(c, n - 1, INFINITY);
      for (size_t i = 100; i < 140; i++)
        bnd_set(c, i, 1e12 * (double)(i % 3)); /* past +-QMAX steps */
      snprintf(name, sizeof name, "exceptions %s, predictor %u", t ? "f64" : "f32", pred);
      c.name = name;
      out.push_back(c);
      /* the infinities with the mask on: still the frame's exceptions */
      c.cfg.mask = PARZ_MASK_DEFAULT;
      bnd_set(c, n / 2, 7.0);
      c.name += ", mask on";
      out.push_back(c);
    }
  /* refused: NaN the configuration masks; the fill value, masked; values not finite with the
   * predictor chosen */
  {
    bnd_case c;
    c.a = parz_test_array(PARZ_FLOAT, 2, s2);
    c.data = bnd_values(c.a, 0.5, 90);
    c.cfg = bnd_config(1e-3, 1);
    c.refused = 1;
    bnd_set(c, 17, NAN);
    c.name = "refused: NaN, mask on";
    out.push_back(c);
    c.data = bnd_values(c.a, 0.5, 90);
    bnd_set(c, 33, -999.0);
    c.cfg.fill = 1;
    const float f = -999.0f;
    uint32_t u;
    memcpy(&u, &f, 4);
    c.cfg.fill_bits = u;
    c.name = "refused: the fill value, masked";
    out.push_back(c);
    c.cfg = bnd_config(1e-3, 0);
    c.cfg.mask = PARZ_MASK_OFF;
    c.data = bnd_values(c.a, 0.5, 90);
    bnd_set(c, 3, INFINITY);
    c.name = "refused: predictor chosen, a value not finite";
    out.push_back(c);
  }
  /* stored: noise at a bound far below it, larger coded than as it is */
  {
    bnd_case c;
    c.a = parz_test_array(PARZ_DOUBLE, 1, s1);
    c.data = bnd_values(c.a, 1e6, 3);
    c.cfg = bnd_config(1e-9, 1);
    c.cfg.stored = PARZ_STORED_WHEN_SMALLER;
    c.refused = 0;
    c.name = "stored";
    out.push_back(c);
  }
  for (const bnd_case& c : bnd_tiny_cases())
    out.push_back(c);
  return out;
}

/* Segment sizes the writers use or may (codes per segment): the GPU encoder must give the CPU's
 * bytes at each, whatever the codec's default is; 65536, the largest, is read where it lies,
 * not staged in shared memory (bounded_encode.cu). */
static const uint32_t bnd_segment_sizes[3] = {1024u, 4096u, 65536u};

/* The cases, and again at each of the segment sizes those at the codec's default size. */
static inline std::vector<bnd_case> bnd_cases_segments(void) {
  std::vector<bnd_case> out = bnd_cases();
  const size_t crafted = out.size();
  for (uint32_t C : bnd_segment_sizes)
    for (size_t i = 0; i < crafted; i++) {
      if (out[i].cfg.segment_blocks)
        continue;
      bnd_case c = out[i];
      c.cfg.segment_blocks = C;
      c.name += ", segments of " + std::to_string(C);
      out.push_back(c);
    }
  return out;
}

#endif
