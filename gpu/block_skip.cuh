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

/* A 64-bit window on the payload for parz_skip_segment: bit 0 is the bit at `pos`, and at least
 * 32 bits are valid after every step. Words past the payload read as zero; such a parse cannot
 * end where the table says, and the caller's end check reports it. */
struct parz_window {
  const unsigned char* data;
  unsigned long long nbytes;
  unsigned long long next; /* index of the word in `ahead` */
  unsigned long long pos;
  uint64_t w;
  uint32_t ahead;          /* the next word, loaded one refill early to hide the load latency */
  unsigned cnt;
};

__device__ __forceinline__ uint32_t parz_window_word(const parz_window* b, unsigned long long i)
{
  if (4 * i + 4 <= b->nbytes)
    return __ldg((const uint32_t*)b->data + i); /* the payload is 8-byte aligned */
  return (uint32_t)parz_tail_load(b->data, b->nbytes, 4 * i, 4);
}

__device__ __forceinline__ void parz_window_seek(parz_window* b, unsigned long long pos)
{
  unsigned off = (unsigned)(pos & 31u);
  b->pos = pos;
  b->next = pos >> 5;
  b->w = (uint64_t)(parz_window_word(b, b->next) >> off) |
         ((uint64_t)parz_window_word(b, b->next + 1) << (32 - off));
  b->cnt = 64 - off;
  b->next += 2;
  b->ahead = parz_window_word(b, b->next);
}

/* Drops n bits (any number). */
__device__ __forceinline__ void parz_window_skip(parz_window* b, unsigned long long n)
{
  if (n < b->cnt) {
    b->w >>= n;
    b->cnt -= (unsigned)n;
    b->pos += n;
    if (b->cnt < 32) {
      b->w |= (uint64_t)b->ahead << b->cnt;
      b->cnt += 32;
      b->ahead = parz_window_word(b, ++b->next);
    }
  } else {
    parz_window_seek(b, b->pos + n);
  }
}

/* The window at bit `start` of a payload. */
__device__ __forceinline__ parz_window parz_window_open(const unsigned char* data,
                                                        unsigned long long nbytes,
                                                        unsigned long long start)
{
  parz_window b;
  b.data = data;
  b.nbytes = nbytes;
  parz_window_seek(&b, start);
  return b;
}

/* Reads a lossy block's header (floating point: the nonzero flag and the exponent; integers have
 * none) and returns the bit planes the block codes: 0 for a block with nothing coded. */
template <parz_type TYPE, unsigned DIMS>
__device__ __forceinline__ unsigned parz_window_header(parz_window* b, const parz_params* p)
{
  const bool wide = TYPE == PARZ_DOUBLE || TYPE == PARZ_INT64;
  const unsigned ebits = wide ? 11u : 8u;
  const int ebias = wide ? 1023 : 127;
  if (TYPE == PARZ_INT32 || TYPE == PARZ_INT64)
    return p->maxprec;
  if (!(b->w & 1u)) {
    parz_window_skip(b, 1);
    return 0;
  }
  int emax = (int)((b->w >> 1) & ((1u << ebits) - 1u)) - ebias;
  parz_window_skip(b, 1 + ebits);
  return parz_block_precision(emax, p->maxprec, p->minexp, DIMS);
}

/* Whether parz_skip_segment applies: a lossy mode (not reversible, not fixed rate) whose maxbits
 * exceeds the most a block can take -- header, at most intprec planes of `size` raw bits, at
 * most one 0 group test per plane, and per coefficient at most one 1 group test and one run bit
 * -- so the budget never ends a block. Fixed accuracy and precision always qualify. */
__host__ __device__ inline bool parz_skip_segment_ok(parz_type type, unsigned dims,
                                                     const parz_params* p)
{
  const bool wide = type == PARZ_DOUBLE || type == PARZ_INT64;
  const unsigned long long intprec = wide ? 64 : 32, size = 1ull << (2 * dims);
  const unsigned long long header = type == PARZ_FLOAT ? 9 : type == PARZ_DOUBLE ? 12 : 0;
  return p->minexp >= PARZ_MIN_EXP && p->minbits < p->maxbits &&
         header + intprec * (size + 1) + 2 * size <= p->maxbits;
}

/* Length-only parse of a whole segment of nb blocks starting at bit `start`, for the lossy modes
 * whose bit budget cannot run out inside a block (parz_skip_segment_ok): writes each block's
 * start relative to `start` into rel[] and returns where the segment ends. The same walk as
 * parz_skip_block, without the budget arithmetic, on a 64-bit window that always holds at least
 * 32 unread bits, so a group test and its run of zeros (up to 31 bits) take one step. */
template <parz_type TYPE, unsigned DIMS>
__device__ __forceinline__ unsigned long long parz_skip_segment(const unsigned char* data,
                                                                unsigned long long nbytes,
                                                                unsigned long long start,
                                                                unsigned nb, const parz_params* p,
                                                                uint32_t* rel)
{
  const unsigned intprec = TYPE == PARZ_DOUBLE || TYPE == PARZ_INT64 ? 64u : 32u;
  const unsigned size = 1u << (2 * DIMS);
  parz_window b = parz_window_open(data, nbytes, start);
  for (unsigned i = 0; i < nb; i++) {
    const unsigned long long block_start = b.pos;
    rel[i] = (uint32_t)(block_start - start);
    const unsigned maxprec = parz_window_header<TYPE, DIMS>(&b, p);
    unsigned k = intprec, n = 0;
    const unsigned kmin = intprec > maxprec ? intprec - maxprec : 0;
    while (k > kmin) {
      if (n == size) {
        parz_window_skip(&b, (unsigned long long)size * (k - kmin)); /* raw bits only */
        break;
      }
      k--;
      if (n < 32 && !((b.w >> n) & 1u)) {
        /* the common plane: raw bits, then a group test of 0 -- one step */
        parz_window_skip(&b, n + 1);
        continue;
      }
      parz_window_skip(&b, n); /* one raw bit per significant coefficient */
      /* group tests; after a 1, zeros up to the next significant coefficient, which is
       * coefficient size - 1 without a terminating one once the others are exhausted */
      while (b.w & 1u) {
        unsigned lim = size - 1 - n;
        uint32_t t = (uint32_t)(b.w >> 1) | 0x80000000u; /* bits 1..31 of w: valid */
        unsigned z = (unsigned)(__ffs((int)t) - 1);
        if (z < 31 && z < lim) {
          parz_window_skip(&b, 2 + z);
          n += z + 1;
          continue;
        }
        if (lim <= 31) {
          parz_window_skip(&b, 1 + lim);
          n = size;
          break;
        }
        /* a run longer than the window (3D, 4D): the 1, then zeros 32 at a time */
        parz_window_skip(&b, 32);
        n += 31;
        for (;;) {
          lim = size - 1 - n;
          t = (uint32_t)b.w;
          z = t ? (unsigned)(__ffs((int)t) - 1) : 32u;
          if (z < 32 && z < lim) {
            parz_window_skip(&b, z + 1);
            n += z + 1;
            break;
          }
          if (lim <= 32) {
            parz_window_skip(&b, lim);
            n = size;
            break;
          }
          parz_window_skip(&b, 32);
          n += 32;
        }
        if (n == size)
          break;
      }
      if (n < size)
        parz_window_skip(&b, 1); /* the group test that was 0 */
    }
    unsigned long long bits = b.pos - block_start;
    if (bits < p->minbits)
      parz_window_skip(&b, p->minbits - bits);
  }
  return b.pos;
}

/* parz_skip_segment for blocks of at most 16 values (1D, 2D), where the lanes of a warp stay
 * together: every step is one event -- a bit plane whose group test is 0 (its raw bits and the
 * test), or a group test of 1 with the run of zeros that follows, or the final 0 test of a plane
 * -- computed with selects instead of branches. A group test sits at most 15 bits into the
 * window and its run is at most 15 bits, so the window's 32 bits always hold a whole event.
 * Only a block's end (header of the next) branches. Same bits as parz_skip_segment. */
template <parz_type TYPE, unsigned DIMS>
__device__ __forceinline__ unsigned long long parz_skip_segment_small(
    const unsigned char* data, unsigned long long nbytes, unsigned long long start, unsigned nb,
    const parz_params* p, uint32_t* rel)
{
  static_assert(DIMS <= 2, "blocks of at most 16 values");
  const unsigned intprec = TYPE == PARZ_DOUBLE || TYPE == PARZ_INT64 ? 64u : 32u;
  const unsigned size = 1u << (2 * DIMS);
  parz_window b = parz_window_open(data, nbytes, start);
  unsigned i = 0, k = 0, kmin = 0, n = 0;
  bool in_plane = false;
  unsigned long long block_start = start;
  if (!nb)
    return start;
  for (bool over = true;;) {
    /* A block is over when no plane is left or every coefficient is significant (raw planes
     * remain). Its end and the next block's header share one branch, so the lanes of a warp
     * diverge once per block; empty blocks end at their header and go round again. */
    while (over) {
      if (i > 0) {
        if (k > kmin)
          parz_window_skip(&b, (unsigned long long)size * (k - kmin));
        unsigned long long bits = b.pos - block_start;
        if (bits < p->minbits)
          parz_window_skip(&b, p->minbits - bits);
        if (i == nb)
          return b.pos;
      }
      block_start = b.pos;
      rel[i++] = (uint32_t)(block_start - start);
      const unsigned maxprec = parz_window_header<TYPE, DIMS>(&b, p);
      k = intprec;
      kmin = intprec > maxprec ? intprec - maxprec : 0;
      n = 0;
      in_plane = false;
      over = k <= kmin;
    }
    /* one event; it lies in the low 32 bits of the window (group test at most 15 bits in,
     * run at most 15 bits), so 32-bit operations do */
    const uint32_t lo = (uint32_t)b.w;
    const unsigned off = in_plane ? 0u : n; /* where the group test is */
    const unsigned g = (lo >> off) & 1u;
    const uint32_t t = (lo >> (off + 1)) | 0x10000u; /* 16 valid bits, then a stop */
    const unsigned z = (unsigned)(__ffs((int)t) - 1);
    const unsigned lim = size - 1 - n;
    unsigned adv;
    if (!in_plane)
      k--;
    if (!g) {
      adv = off + 1; /* plane over */
      in_plane = false;
    } else if (z < lim) {
      adv = off + 2 + z; /* coefficient n + z becomes significant */
      n += z + 1;
      in_plane = true;
    } else {
      adv = off + 1 + lim; /* the last coefficient, without a terminating one */
      n = size;
      in_plane = false;
    }
    parz_window_skip(&b, adv);
    over = !in_plane && (k <= kmin || n == size);
  }
}

#endif
