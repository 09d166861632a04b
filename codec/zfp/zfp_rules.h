/* Which values zfp cannot code within a chunk's mode (internal, header-only like standin.h, so
 * that the GPU encoder applies the very rules the host encoder does): the exceptions of its lossy
 * modes and the values that put a block at risk of missing the accuracy bound (codec/FORMAT.md,
 * "Exceptions" and "The accuracy bound"); zfp's exception_rules in the codec table (codecs.h). */
#ifndef PARZ_ZFP_RULES_H
#define PARZ_ZFP_RULES_H

#include "standin.h"

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

#endif
