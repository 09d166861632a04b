/* The lossless codec's inverse value transform (internal, header-only; transform.h describes the
 * transforms): a w-bit integer back into its value's bit pattern. Compiled as C99 for the CPU
 * decoder (transform.c) and as CUDA C++ for the GPU's (gpu/lossless/), so that both run this very
 * code: block_common.h's contract. A scaled integer's value is one IEEE division in the value's
 * type, correctly rounded on both (nvcc divides as IEEE does unless told to be fast). */
#ifndef PARZ_LL_TRANSFORM_DECODE_H
#define PARZ_LL_TRANSFORM_DECODE_H

#include <stdint.h>
#include <string.h>

#include "block_common.h"

#define PARZ_LL_SCALES 37u

/* Decimal and binary scales: the i in v = i / S of counts divided by a gain, and S = 1, whole
 * numbers; 10^7 to 10^15 for decimals printed with a fixed count of significant digits (a
 * density written as 0.12345678901E+03 is i / 10^11). Fixed by the format: the transform's
 * number is the index here plus one. */
/* clang-format off */
#define PARZ_LL_SCALE_LIST 1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100, 128, 200, 250, 256, 400, \
                           500, 512, 1000, 1024, 2000, 2048, 4096, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,  \
                           1e10, 1e11, 1e12, 1e13, 1e14, 1e15
/* clang-format on */
PARZ_DEFINE_TABLE(double, parz_ll_scales, PARZ_LL_SCALES, PARZ_LL_SCALE_LIST)

/* The scale of transform k (1..PARZ_LL_SCALES), 1 for any other k. */
PARZ_HD double parz_ll_scale_of(unsigned k) {
  return k >= 1 && k <= PARZ_LL_SCALES ? PARZ_TABLE(parz_ll_scales)[k - 1] : 1.0;
}

/* Integer images: the bit pattern of a float whose image is u (w-bit: top = 2^(w-1), mask =
 * 2^w - 1), and back. */
PARZ_HD uint64_t parz_ll_image(uint64_t bits, uint64_t top, uint64_t mask) {
  return (bits & top) ? (~bits & mask) : (bits | top);
}
PARZ_HD uint64_t parz_ll_unimage(uint64_t u, uint64_t top, uint64_t mask) {
  return (u & top) ? (u & ~top) : (~u & mask);
}

/* i / S in the value's type; the encoder's check and the decoders all go through these. */
PARZ_HD double parz_ll_scaled_double(int64_t i, double s) { return (double)i / s; }
PARZ_HD float parz_ll_scaled_float(int32_t i, double s) { return (float)i / (float)s; }

/* The bit pattern of the value whose transformed integer is u, for a float64 (wide) or float32
 * value under transform k (scale s = parz_ll_scale_of(k)); integer types are u itself. */
PARZ_HD uint64_t parz_ll_float_bits(int wide, unsigned k, double s, uint64_t u) {
  if (wide) {
    double v;
    uint64_t b;
    if (!k)
      return parz_ll_unimage(u, (uint64_t)1 << 63, ~(uint64_t)0);
    v = parz_ll_scaled_double((int64_t)u, s);
    memcpy(&b, &v, 8);
    return b;
  } else {
    float v;
    uint32_t b;
    if (!k)
      return parz_ll_unimage(u, (uint64_t)1 << 31, 0xffffffffu);
    v = parz_ll_scaled_float((int32_t)(uint32_t)u, s);
    memcpy(&b, &v, 4);
    return b;
  }
}

#endif
