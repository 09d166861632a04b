/* The lossless codec's value transform (internal): each value becomes an unsigned integer of
 * its width (32 or 64 bits) that the predictor works on.
 *
 * Transform 0, integer images: a monotone map of the bit pattern (negative floats have all bits
 * flipped, the others their sign bit set), exact and invertible for every pattern, NaN payloads,
 * -0.0, subnormals and infinities included. Integer types are their two's-complement bits.
 *
 * Transform k >= 1, scaled integers (float types only): every value v is exactly (T)i / S_k for
 * an integer i (T the value's type: one correctly rounded IEEE division, so the same on every
 * conforming machine; no result is subnormal), and i is coded. Sensor records (counts / gain)
 * and whole numbers stored as floats are such arrays. The encoder chooses it only after checking
 * every value; where C evaluates float expressions in wider precision (FLT_EVAL_METHOD != 0) or
 * the file is compiled with -ffast-math it is neither chosen nor decoded. */
#ifndef PARZ_LL_TRANSFORM_H
#define PARZ_LL_TRANSFORM_H

#include <stddef.h>
#include <stdint.h>

#include "parz.h"
#include "transform_decode.h" /* the scales, the inverse per value */

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when transform k can be decoded here and applies to arrays of this type. */
int parz_ll_transform_valid(unsigned k, parz_type type);

/* 1 when every one of the n values fits transform k (k >= 1). */
int parz_ll_scale_fits(parz_type type, const void* values, size_t n, unsigned k);

/* Values [at, at + n) of the array, transformed, into u; and back from u. */
void parz_ll_load_row(parz_type type, const void* values, size_t at, size_t n, unsigned k,
                      uint64_t* u);
void parz_ll_store_row(parz_type type, void* values, size_t at, size_t n, unsigned k,
                       const uint64_t* u);

#ifdef __cplusplus
}
#endif

#endif
