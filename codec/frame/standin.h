/* Rules that say which values are exceptions, and the stand-in that replaces them in the array the
 * codec encodes (codec/FORMAT.md, "Exceptions"), shared by the host encoder (exceptions.c) and the
 * GPU encoder so that both encode the same cleaned array (internal, header-only, the rules of
 * block_common.h). Which values a codec cannot carry is the codec's (codecs.h, exception_rules;
 * zfp's in zfp/zfp_rules.h); NaN and the infinities are exceptions under every codec. */
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

/* NaN and the infinities of a floating-point type (every exponent bit set); nothing of an
 * integer type: the values every codec's chunks keep apart from its payload. */
PARZ_HD parz_exception_rule parz_nonfinite_rule(parz_type type) {
  parz_exception_rule r = {0, 0, 1, 0};
  if (type == PARZ_FLOAT) {
    r.mask = 0x7f800000u;
    r.shift = 23;
    r.min = 255u;
  } else if (type == PARZ_DOUBLE) {
    r.mask = UINT64_C(0x7ff0000000000000);
    r.shift = 52;
    r.min = 2047u;
  }
  return r;
}

PARZ_HD unsigned parz_exception_test(const parz_exception_rule* r, uint64_t bits) {
  return (((bits + r->add) & r->mask) >> r->shift) >= r->min;
}

/* A rule of 4-byte values in 32-bit words, so that loops over them take 4 values a vector. */
typedef struct {
  uint32_t add, mask, min, shift;
} parz_rule32;

/* r in 32-bit words where it tests every 4-byte value as parz_exception_test does: its mask
 * below bit 32 (which drops the sum's carry past it) and its shift below 32; a min past 32 bits,
 * which no 32-bit field reaches, as a rule that takes nothing. 0 for any other rule. */
PARZ_HD int parz_rule32_of(const parz_exception_rule* r, parz_rule32* out) {
  const int never = r->min > UINT32_MAX;
  if (r->mask >> 32 || r->shift >= 32)
    return 0;
  out->add = (uint32_t)r->add;
  out->mask = never ? 0u : (uint32_t)r->mask;
  out->min = never ? 1u : (uint32_t)r->min;
  out->shift = r->shift;
  return 1;
}

PARZ_HD uint32_t parz_rule32_test(const parz_rule32* r, uint32_t u) {
  return (uint32_t)((((u + r->add) & r->mask) >> r->shift) >= r->min);
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
