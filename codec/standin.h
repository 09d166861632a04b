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

/* The stand-in for the exceptions among the n values v of one block (those inside the array, in
 * C order, as bit patterns): the mean of the others, accumulated in binary64 in that order, each
 * term divided first so that values near the largest double cannot overflow the sum, converted
 * to the type (floats rounded, integers truncated toward zero); 0 when the mean is not finite or
 * would itself be an exception. */
PARZ_HD uint64_t parz_standin(const uint64_t* v, unsigned n, parz_type type,
                              const parz_exception_rule* r) {
  unsigned i, kept = 0;
  double mean = 0;
  uint64_t bits = 0;
  for (i = 0; i < n; i++)
    kept += !parz_exception_test(r, v[i]);
  for (i = 0; i < n; i++)
    if (!parz_exception_test(r, v[i]))
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

#endif
