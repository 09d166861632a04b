/* Division of 32-bit block indices by a divisor fixed for a launch, as a multiply and a shift.
 * The GPU has no integer divider: a division by a value known only at run time is a routine of
 * about twenty instructions, which block_kernel's scatter would pay once per dimension above the
 * first for every block. The host computes the multiplier once per chunk (parz_fast_div_make);
 * the kernel then takes the quotient from the high word of one product (Granlund and
 * Montgomery's round-up method: for 2^(l-1) < d <= 2^l and m = floor(2^32 (2^l - d) / d) + 1,
 * floor(n / d) = (floor(m n / 2^32) + n) >> l for every n < 2^32). Plain C and CUDA, so that
 * tests/test_gpu_parse_host.cpp checks it against the division on the CPU. Internal to gpu/. */
#ifndef PARZ_GPU_FAST_DIV_H
#define PARZ_GPU_FAST_DIV_H

#include <stdint.h>

#include "block_common.h"

typedef struct {
  uint32_t mul;   /* m above */
  uint32_t shift; /* l above, 0 to 32 */
} parz_fast_div;

/* The multiplier and shift for divisor d, 1 <= d < 2^32. */
PARZ_HD parz_fast_div parz_fast_div_make(uint32_t d) {
  parz_fast_div f;
  uint32_t l = 0;
  while (l < 32 && ((uint64_t)1 << l) < d)
    l++;
  f.shift = l;
  f.mul = (uint32_t)((((uint64_t)1 << 32) * (((uint64_t)1 << l) - d)) / d + 1);
  return f;
}

/* floor(n / d) for the divisor f was made for. */
PARZ_HD uint32_t parz_fast_div_of(uint32_t n, parz_fast_div f) {
#ifdef __CUDA_ARCH__
  const uint32_t hi = __umulhi(n, f.mul);
#else
  const uint32_t hi = (uint32_t)(((uint64_t)n * f.mul) >> 32);
#endif
  return (uint32_t)(((uint64_t)hi + n) >> f.shift);
}

#endif
