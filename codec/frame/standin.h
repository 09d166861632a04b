/* Which values are exceptions, and the stand-in that replaces them in the array the codec encodes
 * (codec/FORMAT.md, "Exceptions"), shared by the host encoder (exceptions.c) and the GPU encoder
 * so that both encode the same cleaned array (internal, header-only, the rules of
 * block_common.h). */
#ifndef PARZ_STANDIN_H
#define PARZ_STANDIN_H

#include "block_common.h"

/* Which bit patterns are exceptions, as one test for every type and mode:
 * ((bits + add) & mask) >> shift >= min. Floats compare their exponent field; integers shift
 * their range [-(2^k - 1), 2^k - 1] to [0, 2^(k+1) - 2] (mod 2^32 or 2^64). mask 0: none. */
typedef struct {
  uint64_t add, mask, min;
  unsigned shift;
} parz_exception_rule;

/* The rule of a type under parameters p: lossy modes (all but reversible, whose minexp is below
 * PARZ_MIN_EXP) also take the values zfp's transform has no room for. */
PARZ_HD parz_exception_rule parz_exception_rule_of(parz_type type, const parz_params* p) {
  const int lossy = p->minexp >= PARZ_MIN_EXP;
  parz_exception_rule r = {0, 0, 1, 0}; /* nothing: integers in reversible mode */
  switch (type) {
    case PARZ_FLOAT: /* exponent 255 is NaN/Inf; 253 and 254 are [2^126, 2^128) */
      r.mask = 0x7f800000u;
      r.shift = 23;
      r.min = lossy ? 253u : 255u;
      break;
    case PARZ_DOUBLE: /* 2047 is NaN/Inf; 2045 and 2046 are [2^1022, 2^1024) */
      r.mask = UINT64_C(0x7ff0000000000000);
      r.shift = 52;
      r.min = lossy ? 2045u : 2047u;
      break;
    case PARZ_INT32:
      if (lossy) {
        r.add = 0x3fffffffu;
        r.mask = 0xffffffffu;
        r.min = 0x7fffffffu;
      }
      break;
    default: /* PARZ_INT64 */
      if (lossy) {
        r.add = UINT64_C(0x3fffffffffffffff);
        r.mask = ~(uint64_t)0;
        r.min = UINT64_C(0x7fffffffffffffff);
      }
      break;
  }
  return r;
}

PARZ_HD unsigned parz_exception_test(const parz_exception_rule* r, uint64_t bits) {
  return (((bits + r->add) & r->mask) >> r->shift) >= r->min;
}

/* The values that put their block at risk of missing the bound of a mode that promises
 * |x - x'| <= 2^minexp (`bounded`: parz_params_bounded), a float block of rank `dims` (FORMAT.md,
 * "The accuracy bound"): zfp codes at most P = 32 (float32) or 64 (float64) bit planes of a
 * block, and a block whose largest exponent is emax (its magnitudes below 2^emax) needs
 * emax - minexp + 2 dims + 2 of them, so the block is at risk when it holds a value of exponent
 * above T = P + minexp - 2 dims - 2: an exponent field of at least T + bias, subnormals counting
 * as field 1 (zfp's clamp). Every nonzero value is at risk when that field is 0 or less, and when
 * minexp < 2 dims + P - 1 - bias (2 dims - 96, 2 dims - 960): then a block of magnitudes below
 * 2^(P - 2 - bias) (2^-97, 2^-961) gets a plane, and zfp, whose scale 2^(P - 2 - emax) for it
 * overflows the type, decodes all its values as -2^(emax + 1). mask 0 (no value) when not bounded
 * or when T is beyond every exponent. */
PARZ_HD parz_exception_rule parz_risk_rule_of(parz_type type, unsigned dims, const parz_params* p,
                                              int bounded) {
  parz_exception_rule r = {0, 0, 1, 0};
  const int wide = type == PARZ_DOUBLE, bias = wide ? 1023 : 127, top = wide ? 2047 : 255;
  const int planes = wide ? 64 : 32;
  const long long h = (long long)planes + p->minexp - 2 * (long long)dims - 2 + bias;
  const long long tiny = 2 * (long long)dims + planes - 1 - bias;
  if (!bounded || h >= top)
    return r;
  if (h <= 0 || p->minexp < tiny) { /* every nonzero magnitude */
    r.mask = wide ? UINT64_C(0x7fffffffffffffff) : 0x7fffffffu;
    return r;
  }
  r.mask = wide ? UINT64_C(0x7ff0000000000000) : 0x7f800000u;
  r.shift = wide ? 52 : 23;
  r.min = (uint64_t)h;
  return r;
}

/* A rule that takes every value a or b takes, for one pass that looks for either: a float
 * exception rule and a risk rule of the same type (both compare the exponent field, or b takes
 * every nonzero magnitude, which holds every value a takes: NaN, infinities and magnitudes of
 * 2^126 or more are nonzero); b with mask 0 leaves a. */
PARZ_HD parz_exception_rule parz_rule_union(const parz_exception_rule* a,
                                            const parz_exception_rule* b) {
  parz_exception_rule u = *a;
  if (!b->mask)
    return u;
  if (b->shift == 0 || !a->mask)
    return *b;
  u.min = PARZ_MIN(a->min, b->min);
  return u;
}

/* NaN or an infinity of a floating-point type: every exponent bit set (what format version 1's
 * exceptions hold). */
PARZ_HD int parz_nonfinite32(uint32_t u) { return (u & 0x7f800000u) == 0x7f800000u; }
PARZ_HD int parz_nonfinite64(uint64_t u) {
  return (u & UINT64_C(0x7ff0000000000000)) == UINT64_C(0x7ff0000000000000);
}
PARZ_HD int parz_nonfinite(uint64_t bits, parz_type type) {
  return type == PARZ_FLOAT    ? parz_nonfinite32((uint32_t)bits)
         : type == PARZ_DOUBLE ? parz_nonfinite64(bits)
                               : 0;
}

/* The value of a bit pattern of the type, as a double (int64 values rounded). */
PARZ_HD double parz_exception_value(uint64_t bits, parz_type type) {
  switch (type) {
    case PARZ_FLOAT: return (double)parz_f32_from((uint32_t)bits);
    case PARZ_DOUBLE: return parz_f64_from(bits);
    case PARZ_INT32: return (double)(int32_t)(uint32_t)bits;
    default: return (double)(int64_t)bits;
  }
}

/* The stand-in for the holes among the n values v of one block (those inside the array, in C
 * order, as bit patterns; hole[i] nonzero for an exception): the mean of the others, accumulated
 * in binary64 in that order, each term divided first so that values near the largest double
 * cannot overflow the sum, converted to the type (floats rounded, integers truncated toward
 * zero); 0 when the mean is not finite or would itself be an exception under r. */
PARZ_HD uint64_t parz_standin_of(const uint64_t* v, const unsigned char* hole, unsigned n,
                                 parz_type type, const parz_exception_rule* r) {
  unsigned i, kept = 0;
  double mean = 0;
  uint64_t bits = 0;
  for (i = 0; i < n; i++)
    kept += !hole[i];
  for (i = 0; i < n; i++)
    if (!hole[i])
      mean += parz_exception_value(v[i], type) / kept;
  if (!(mean - mean == 0))
    return 0;
  switch (type) {
    case PARZ_FLOAT: bits = parz_f32_bits((float)mean); break;
    case PARZ_DOUBLE: bits = parz_f64_bits(mean); break;
    case PARZ_INT32:
      if (!(mean > -2147483648.0 && mean < 2147483648.0))
        return 0;
      bits = (uint32_t)(int32_t)mean;
      break;
    default:
      if (!(mean > -9223372036854775808.0 && mean < 9223372036854775808.0))
        return 0;
      bits = (uint64_t)(int64_t)mean;
      break;
  }
  return parz_exception_test(r, bits) ? 0 : bits;
}

/* The same with the rule's exceptions as the holes. */
PARZ_HD uint64_t parz_standin(const uint64_t* v, unsigned n, parz_type type,
                              const parz_exception_rule* r) {
  unsigned char hole[256];
  unsigned i;
  for (i = 0; i < n; i++)
    hole[i] = (unsigned char)parz_exception_test(r, v[i]);
  return parz_standin_of(v, hole, n, type, r);
}

#endif
