/* The error-bounded codec's encoding arithmetic per value, compiled for the CPU and the GPU alike
 * (every function PARZ_HD, block_common.h's contract): the quantization of one value, Lorenzo's
 * prediction, the interpolation's code of one value with error feedback, and the split of a
 * segment's codes into tokens (symbol, raw bits, codes consumed). bounded_quant.c,
 * bounded_predict.c and bounded_huff.c encode with them, and so does the GPU's encoder
 * (gpu/bounded/), so that both write the same codes and symbols bit for bit. Internal to the codec
 * and its GPU encoder. */
#ifndef PARZ_BOUNDED_FORWARD_H
#define PARZ_BOUNDED_FORWARD_H

#include <float.h>
#include <math.h>

#include "bounded_inverse.h"

/* a * b as the GPU and the CPU both round it (block_common.h). */
PARZ_HD double parz_bounded_mul(double a, double b) { return parz_mul_rn(a, b); }

/* nearbyint(t) (to nearest, ties to even) wherever its callers accept the result, |t| <= QMAX
 * and well past it: t itself from 2^51 on, which they refuse as nearbyint's. Inline on the CPU,
 * where nearbyint is a call that spills every register of the loops around it: adding and taking
 * away 1.5 * 2^52 leaves no bits below the units (where C evaluates doubles wider or may reorder
 * the sum, nearbyint itself). */
PARZ_HD double parz_bounded_round(double t) {
#if defined(__CUDA_ARCH__) || FLT_EVAL_METHOD != 0 || defined(__FAST_MATH__)
  return nearbyint(t);
#else
  const double big = 6755399441055744.0; /* 1.5 * 2^52 */
  return fabs(t) < 2251799813685248.0 ? (t + big) - big : t;
#endif
}

/* The grid's step for values whose largest finite magnitude is top, at bound eb
 * (parz_bounded_step_of): 2 eb less the margin of half an ulp of top, in the type's precision,
 * that the rounding of a reconstruction to the type may take (at most a quarter). */
PARZ_HD double parz_bounded_grid_step(parz_type type, double top, double eb) {
  const double half_ulp = top > 0 ? ldexp(1.0, ilogb(top) - (type == PARZ_FLOAT ? 24 : 53)) : 0;
  double shrink = 2 * half_ulp / eb;
  if (shrink > 0.25)
    shrink = 0.25;
  return 2 * eb * (1 - shrink);
}

/* The reconstruction of q in units of `unit` as the decoder computes it (bounded_inverse.h's
 * parz_bounded_value_*), as a double, for the check of a value against the bound. */
PARZ_HD double parz_bounded_check_value(parz_type type, int32_t q, double unit) {
  const double y = parz_bounded_mul((double)q, unit);
  return type == PARZ_FLOAT ? (double)(float)y : y;
}

/* The quantized value of x on the grid of `step` (inv_step = 1 / step only guesses it: the check
 * with the decoder's arithmetic decides) into *q: 1, or 0 when x is not finite, lies outside
 * +-QMAX steps or misses eb at both grid points around it. */
PARZ_HD int parz_bounded_quantize_one(parz_type type, double x, double eb, double step,
                                      double inv_step, int32_t* q) {
  double t = parz_bounded_mul(x, inv_step), r;
  /* values not finite, and those whose grid points around them both lie past QMAX, at once */
  if (!(fabs(t) < (double)PARZ_BOUNDED_QMAX + 2))
    return 0;
  r = parz_bounded_round(t);
  /* a value halfway between two grid points may miss by rounding at the nearer one and fit at
   * the other (found only then: a branch on which side t lies would be a coin toss per value) */
  for (int k = 0; k<2; k++, r += t> r ? 1 : -1) {
    if (!(fabs(r) <= (double)PARZ_BOUNDED_QMAX))
      continue;
    *q = (int32_t)r;
    if (fabs(parz_bounded_check_value(type, *q, step) - x) <= eb)
      return 1;
  }
  return 0;
}

PARZ_HD int32_t parz_bounded_clamp(int64_t v, int32_t max) {
  return v > max ? max : v < -max ? -max : (int32_t)v;
}

/* Lorenzo's prediction of the value at idx, of coordinates c (along the four extents of
 * parz_bounded_shape4, C-order strides st), from the values before it, those outside the array
 * taken as 0: for a caller that walks the values in order and keeps their coordinates. */
PARZ_HD int64_t parz_bounded_lorenzo_pred_at(const int32_t* q, const size_t c[4],
                                             const size_t st[4], size_t idx) {
  int64_t p = 0;
  for (unsigned m = 1; m < 16; m++) {
    size_t off = 0;
    int bits = 0, ok = 1;
    for (unsigned k = 0; k < 4; k++)
      if (m & (1u << k)) {
        if (c[k] == 0)
          ok = 0;
        off += st[k];
        bits++;
      }
    if (ok)
      p += (bits & 1) ? q[idx - off] : -(int64_t)q[idx - off];
  }
  return p;
}

/* The same at idx alone (extents n): its coordinates found by division. */
PARZ_HD int64_t parz_bounded_lorenzo_pred(const int32_t* q, const size_t n[4], const size_t st[4],
                                          size_t idx) {
  size_t c[4], r = idx;
  for (int k = 3; k >= 0; k--) {
    c[k] = r % n[k];
    r /= n[k];
  }
  return parz_bounded_lorenzo_pred_at(q, c, st, idx);
}

/* The interpolation's code of the value x at idx, predicted as pr (fine units), when hole[idx]
 * says it is known: the residual from the prediction in steps of 2 eb with error feedback, the
 * reconstruction checked with the decoder's arithmetic (inv_unit = 1 / unit only guesses the
 * code). A value that misses eb becomes an exception in hole; a hole gets the prediction and
 * the code 0. Writes q[idx] and codes[pos]. */
PARZ_HD void parz_bounded_interp_value(parz_type type, double x, int64_t pr, double unit,
                                       double inv_unit, double eb, size_t idx, size_t pos,
                                       int32_t* q, uint8_t* hole, int32_t* codes) {
  int known = hole[idx] == PARZ_BOUNDED_KNOWN;
  if (known) {
    double tq = (parz_bounded_mul(x, inv_unit) - (double)pr) * (1.0 / PARZ_BOUNDED_FINE);
    double c = parz_bounded_round(tq);
    known = 0;
    /* the other step around tq tried when the nearer misses by rounding (found only then) */
    for (int k = 0; k < 2 && !known; k++, c += tq > c ? 1 : -1) {
      if (!(fabs(c) <= (double)PARZ_BOUNDED_QMAX))
        continue;
      int64_t v = pr + (int64_t)c * PARZ_BOUNDED_FINE;
      if (v > PARZ_BOUNDED_QMAX_FINE || v < -PARZ_BOUNDED_QMAX_FINE)
        continue;
      if (fabs(parz_bounded_check_value(type, (int32_t)v, unit) - x) <= eb) {
        q[idx] = (int32_t)v;
        codes[pos] = (int32_t)c;
        known = 1;
      }
    }
    if (!known)
      hole[idx] = PARZ_BOUNDED_EXCEPTION;
  }
  if (!known) {
    q[idx] = parz_bounded_clamp(pr, PARZ_BOUNDED_QMAX_FINE);
    codes[pos] = 0;
  }
}

/* One token of the code stream: a symbol and the raw bits after it. */
typedef struct {
  uint32_t sym;
  uint32_t extra;
  unsigned extra_bits;
  size_t advance; /* codes consumed */
} parz_bounded_token;

/* The most codes one run token stands for: the longest run of the last run symbol. */
#define PARZ_BOUNDED_RUN_MAX (((size_t)2 << PARZ_BOUNDED_RUNS) - 1)

/* The token at the first of `len` zeros (len >= 1: the zeros up to the segment's end or the next
 * code not 0): with runs and two or more of them, a run of as many as a run symbol holds (at
 * most PARZ_BOUNDED_RUN_MAX, the rest the next token's); else a single 0's symbol. The split of
 * a run depends on its length alone, so a caller that knows where a run ends (the GPU encoder's
 * lanes, which meet runs that cross their shares) gives the serial walk's tokens. */
PARZ_HD parz_bounded_token parz_bounded_zero_token(size_t len, int runs) {
  parz_bounded_token t;
  t.extra = 0;
  t.extra_bits = 0;
  t.advance = 1;
  t.sym = PARZ_BOUNDED_SYM_ZERO;
  if (runs && len >= 2) {
    unsigned k = 0;
    while ((len >> (k + 1)) != 0)
      k++;
    if (k > PARZ_BOUNDED_RUNS)
      k = PARZ_BOUNDED_RUNS;
    if (len > PARZ_BOUNDED_RUN_MAX)
      len = PARZ_BOUNDED_RUN_MAX;
    t.sym = k;
    t.extra = (uint32_t)(len - ((size_t)1 << k));
    t.extra_bits = k;
    t.advance = len;
  }
  return t;
}

/* The token at codes[i] of a segment ending at codes[end]: with runs, a run of two or more zeros
 * (parz_bounded_zero_token, never past the segment's end); else the residual's symbol, or the
 * escape with the zig-zagged residual in 32 raw bits. */
PARZ_HD parz_bounded_token parz_bounded_next_token(const int32_t* codes, size_t i, size_t end,
                                                   int runs) {
  parz_bounded_token t;
  int32_t v = codes[i];
  if (v == 0) {
    size_t j = i + 1;
    while (runs && j < end && codes[j] == 0)
      j++;
    return parz_bounded_zero_token(j - i, runs);
  }
  t.advance = 1;
  t.extra = 0;
  t.extra_bits = 0;
  if (v >= -PARZ_BOUNDED_RADIUS && v <= PARZ_BOUNDED_RADIUS) {
    t.sym = (uint32_t)((int64_t)PARZ_BOUNDED_SYM_ZERO + v);
  } else {
    t.sym = PARZ_BOUNDED_SYM_ESCAPE;
    t.extra = v < 0 ? ~((uint32_t)v << 1) : (uint32_t)v << 1; /* zig-zag */
    t.extra_bits = 32;
  }
  return t;
}

#endif
