/* The finite stand-in for a block's non-finite values (codec/FORMAT.md, "Exceptions"), shared by
 * the host encoder (exceptions.c) and the GPU encoder so that both encode the same cleaned
 * array (internal, header-only, the rules of block_common.h). */
#ifndef PARZ_STANDIN_H
#define PARZ_STANDIN_H

#include "block_common.h"

/* NaN or an infinity: every exponent bit set. */
PARZ_HD int parz_nonfinite32(uint32_t u) { return (u & 0x7f800000u) == 0x7f800000u; }
PARZ_HD int parz_nonfinite64(uint64_t u)
{
  return (u & UINT64_C(0x7ff0000000000000)) == UINT64_C(0x7ff0000000000000);
}

/* The stand-in for the non-finite values among the n values v of one block (those inside the
 * array, in C order, as bit patterns): the mean of the finite ones in binary64, summed in that
 * order as x / count (so that values near the largest double cannot overflow the sum), rounded
 * to the type; 0 when none is finite or the mean is not finite. */
PARZ_HD uint32_t parz_standin32(const uint32_t* v, unsigned n)
{
  unsigned i, finite = 0;
  double mean = 0;
  float f;
  for (i = 0; i < n; i++)
    finite += !parz_nonfinite32(v[i]);
  for (i = 0; i < n; i++)
    if (!parz_nonfinite32(v[i]))
      mean += (double)parz_f32_from(v[i]) / finite;
  if (!(mean - mean == 0)) /* rounding pushed a mean of huge values past the range */
    mean = 0;
  f = (float)mean;
  if (!(f - f == 0))
    f = 0;
  return parz_f32_bits(f);
}

PARZ_HD uint64_t parz_standin64(const uint64_t* v, unsigned n)
{
  unsigned i, finite = 0;
  double mean = 0;
  for (i = 0; i < n; i++)
    finite += !parz_nonfinite64(v[i]);
  for (i = 0; i < n; i++)
    if (!parz_nonfinite64(v[i]))
      mean += parz_f64_from(v[i]) / finite;
  if (!(mean - mean == 0))
    mean = 0;
  return parz_f64_bits(mean);
}

#endif
