/* Length-only parse of one encoded block: how many bits it occupies, without decoding values.
 *
 * The warp-cooperative decoder (decode.cu) needs the bit offset of every block of a segment
 * before its lanes can decode the blocks in parallel. Only the bit-plane coder's control flow
 * decides a block's length: the raw bits of already-significant coefficients can be skipped in
 * one step, and once every coefficient is significant the rest of the planes cost one skip in
 * all. This walks exactly the paths of parz_decode_ints / parz_decode_iblock /
 * parz_decode_fblock (codec/block_decode_w.h), including libzfp's unsigned budget arithmetic, so
 * its answer equals the bits parz_decode_block returns. A disagreement cannot go unnoticed: the
 * decoder checks every segment's end against the table, and the GPU tests run every mode, type
 * and rank through this parser (WARP scheme) against the serial decoder. */
#ifndef PARZ_GPU_BLOCK_SKIP_CUH
#define PARZ_GPU_BLOCK_SKIP_CUH

#include "block_decode.h"

/* Bits taken by the embedded coder of `size` coefficients of `intprec` bits. */
__device__ __forceinline__ unsigned parz_skip_ints(parz_reader* r, unsigned maxbits,
                                                   unsigned maxprec, unsigned size,
                                                   unsigned intprec)
{
  unsigned kmin = intprec > maxprec ? intprec - maxprec : 0;
  unsigned bits = maxbits;
  unsigned k = intprec, n = 0;
  while (bits && k > kmin) {
    unsigned m;
    if (n == size) {
      /* every coefficient is significant: each plane left is `size` raw bits */
      uint64_t rest = (uint64_t)size * (k - kmin);
      m = rest < bits ? (unsigned)rest : bits;
      parz_reader_skip(r, m);
      bits -= m;
      break;
    }
    k--;
    m = PARZ_MIN(n, bits);
    bits -= m;
    parz_reader_skip(r, m);
    while (n < size && bits) {
      unsigned lim, z;
      bits--;
      if (!parz_read_bit(r))
        break;
      lim = PARZ_MIN(size - 1 - n, bits);
      z = parz_read_zeros(r, lim);
      bits -= z < lim ? z + 1 : lim;
      n += z + 1;
    }
  }
  return maxbits - bits;
}

__device__ __forceinline__ unsigned parz_skip_iblock(parz_reader* r, unsigned minbits,
                                                     unsigned maxbits, unsigned maxprec,
                                                     unsigned dims, int reversible,
                                                     unsigned intprec, unsigned pbits)
{
  unsigned bits = 0;
  if (reversible) {
    maxprec = (unsigned)parz_read_bits(r, pbits) + 1;
    bits = pbits;
  }
  bits += parz_skip_ints(r, maxbits - bits, maxprec, 1u << (2 * dims), intprec);
  if (bits < minbits) {
    parz_reader_skip(r, minbits - bits);
    bits = minbits;
  }
  return bits;
}

/* Bits of one block of the given type and rank under p; the reader ends after the block. */
template <parz_type TYPE, unsigned DIMS>
__device__ __forceinline__ unsigned parz_skip_block(parz_reader* r, const parz_params* p)
{
  const bool wide = TYPE == PARZ_DOUBLE || TYPE == PARZ_INT64;
  const unsigned intprec = wide ? 64u : 32u;
  const unsigned pbits = wide ? 6u : 5u;
  const int reversible = p->minexp < PARZ_MIN_EXP;
  if (TYPE == PARZ_INT32 || TYPE == PARZ_INT64)
    return parz_skip_iblock(r, p->minbits, p->maxbits, p->maxprec, DIMS, reversible, intprec,
                            pbits);
  const unsigned ebits = wide ? 11u : 8u;
  const int ebias = wide ? 1023 : 127;
  unsigned bits = 1;
  if (reversible) {
    /* parz_decode_rblock: 0 = all-zero block; 1 0 exponent = block floating point;
     * 1 1 = bit patterns as integers */
    if (!parz_read_bit(r))
      return 1;
    bits = 2;
    if (!parz_read_bit(r)) {
      parz_reader_skip(r, ebits);
      bits += ebits;
    }
    return bits + parz_skip_iblock(r, p->minbits > bits ? p->minbits - bits : 0,
                                   p->maxbits - bits, 0, DIMS, 1, intprec, pbits);
  }
  if (parz_read_bit(r)) {
    int emax = (int)parz_read_bits(r, ebits) - ebias;
    unsigned maxprec = parz_block_precision(emax, p->maxprec, p->minexp, DIMS);
    bits += ebits;
    bits += parz_skip_iblock(r, p->minbits > bits ? p->minbits - bits : 0, p->maxbits - bits,
                             maxprec, DIMS, reversible, intprec, pbits);
  } else if (p->minbits > bits) {
    parz_reader_skip(r, p->minbits - bits);
    bits = p->minbits;
  }
  return bits;
}

#endif
