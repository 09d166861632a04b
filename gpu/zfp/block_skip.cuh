/* Length-only parse of one encoded block: how many bits it occupies, without decoding values.
 *
 * The segment decoders (decode_kernels.cuh) need the bit offset of every block of a segment
 * before threads can decode its blocks in parallel. Only the bit-plane coder's control flow
 * decides a block's length: the raw bits of already-significant coefficients can be skipped in
 * one step, and once every coefficient is significant the rest of the planes cost one skip in
 * all. This walks exactly the paths of parz_decode_ints / parz_decode_iblock /
 * parz_decode_fblock (codec/zfp/block_decode_w.h), including libzfp's unsigned budget arithmetic, so
 * its answer equals the bits parz_decode_block returns. A disagreement cannot go unnoticed: the
 * decoder checks every segment's end against the table, and the GPU tests run every mode, type
 * and rank through these parsers against the serial decoder. codec/FORMAT.md ("Where the bit
 * grammar is implemented") lists these parsers with every other reader and writer. */
#ifndef PARZ_GPU_BLOCK_SKIP_CUH
#define PARZ_GPU_BLOCK_SKIP_CUH

#include "block_decode.h"

/* Bits taken by the embedded coder of `size` coefficients of `intprec` bits. */
__device__ __forceinline__ unsigned parz_skip_ints(parz_reader* r, unsigned maxbits,
                                                   unsigned maxprec, unsigned size,
                                                   unsigned intprec) {
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
                                                     unsigned intprec, unsigned pbits) {
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
__device__ __forceinline__ unsigned parz_skip_block(parz_reader* r, const parz_params* p) {
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
    return bits + parz_skip_iblock(r, p->minbits > bits ? p->minbits - bits : 0, p->maxbits - bits,
                                   0, DIMS, 1, intprec, pbits);
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

/* A 64-bit window on the payload: bit 0 of w is the next unread bit, and at least 32 bits of w
 * are valid after every step. Positions are counted in 32 bits from where the window was
 * opened (a segment is shorter than 2^32 bits). Loads go through parz_window_word, the one
 * bounds check: words past the payload read as zero, so a corrupt segment cannot make a read
 * out of bounds; its parse cannot end where the table says, and the caller's end check
 * reports it. */
struct parz_window {
  const uint32_t* base; /* the word holding the opening bit (the payload is 8-byte aligned) */
  uint64_t w;
  uint32_t nfull;           /* words from base wholly inside the payload */
  uint32_t tail;            /* the word in which the payload ends, zero padded (0 if none) */
  uint32_t next;            /* index from base of the word in `ahead` */
  uint32_t ahead;           /* loaded one refill early, so the load's latency is hidden */
  const uint32_t* ahead_at; /* base + next (see parz_window_step_flat) */
  uint32_t at;              /* bits consumed since the opening */
  unsigned lead;            /* bit of base[0] where the window was opened */
  unsigned cnt;             /* valid bits in w */
};

/* Word j from base (at `at`, base + j) if `want`, else `keep`: a select, then a load predicated
 * into the same register, no branch. The order matters: written as `j == nfull ? tail : v`
 * after the load, nvcc puts the select after the load, which then makes every refill wait for
 * the very word it prefetches. */
__device__ __forceinline__ uint32_t parz_window_load_at(const parz_window* b, const uint32_t* at,
                                                        uint32_t j, bool want, uint32_t keep) {
  uint32_t v = want ? (j == b->nfull ? b->tail : 0u) : keep;
#ifdef __CUDA_ARCH__
  asm("{\n\t.reg .pred q, r;\n\tsetp.ne.u32 r, %4, 0;\n\tsetp.lt.and.u32 q, %1, %2, r;"
      "\n\t@q ld.global.nc.u32 %0, [%3];\n\t}"
      : "+r"(v)
      : "r"(j), "r"(b->nfull), "l"(at), "r"((unsigned)want));
#else
  if (want && j < b->nfull)
    v = __ldg(at);
#endif
  return v;
}

/* parz_window_load_at of word j, at base + j. */
__device__ __forceinline__ uint32_t parz_window_load(const parz_window* b, uint32_t j, bool want,
                                                     uint32_t keep) {
  return parz_window_load_at(b, b->base + j, j, want, keep);
}

__device__ __forceinline__ uint32_t parz_window_word(const parz_window* b, uint32_t j) {
  return parz_window_load(b, j, true, 0u);
}

/* Places the window at bit `rel` after the opening (any position). */
__device__ __forceinline__ void parz_window_seek(parz_window* b, uint32_t rel) {
  const uint32_t bit = b->lead + rel;
  const unsigned off = bit & 31u;
  const uint32_t j = bit >> 5;
  b->at = rel;
  b->w = (uint64_t)(parz_window_word(b, j) >> off) |
         ((uint64_t)parz_window_word(b, j + 1) << (32 - off));
  b->cnt = 64 - off;
  b->next = j + 2;
  b->ahead_at = b->base + b->next;
  b->ahead = parz_window_word(b, b->next);
}

/* The window at absolute bit `start` of a payload of nbytes bytes. */
__device__ __forceinline__ parz_window parz_window_open(const unsigned char* data,
                                                        unsigned long long nbytes,
                                                        unsigned long long start) {
  parz_window b;
  const unsigned long long first = start >> 5, full = nbytes >> 2;
  const unsigned long long left = full > first ? full - first : 0;
  b.base = (const uint32_t*)data + first;
  b.nfull = left < 0xffffffffull ? (uint32_t)left : 0xffffffffu;
  /* the partial word at the end, if the window can reach it */
  b.tail = (nbytes & 3u) && full >= first && full - first < 0xffffffffull
               ? (uint32_t)parz_tail_load(data, nbytes, 4 * full, 4)
               : 0u;
  b.lead = (unsigned)(start & 31u);
  parz_window_seek(&b, 0);
  return b;
}

/* c ? x : y as a select. nvcc turns some conditional expressions into branches; when the lanes
 * of a warp stand in different states they then run both sides one after the other, with the
 * branch and reconvergence on top. The inline PTX makes both values exist first. */
__device__ __forceinline__ unsigned parz_sel(bool c, unsigned x, unsigned y) {
#ifdef __CUDA_ARCH__
  unsigned r;
  asm("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %1, 0;\n\tselp.b32 %0, %2, %3, q;\n\t}"
      : "=r"(r)
      : "r"((unsigned)c), "r"(x), "r"(y));
  return r;
#else
  return c ? x : y;
#endif
}

/* v, which the compiler must then keep in a register: inside a loop it would otherwise
 * recompute some values from the kernel parameters on every step (the segment's block count,
 * 64-bit arithmetic, and the address of rel[i]: about 10 instructions a step of the parser). */
template <typename T>
__device__ __forceinline__ T parz_opaque(T v) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == 8)
    asm("" : "+l"(v));
  else
    asm("" : "+r"(v));
#endif
  return v;
}

/* Drops adv <= 32 bits; at least 32 stay valid. The refill is a branch, which suits the window
 * decoder: its many warps hide it, and a refill by selects (parz_window_step_flat) is no faster
 * there. */
__device__ __forceinline__ void parz_window_step(parz_window* b, unsigned adv) {
  b->w >>= adv;
  b->cnt -= adv;
  b->at += adv;
  if (b->cnt < 32) {
    b->w |= (uint64_t)b->ahead << b->cnt;
    b->cnt += 32;
    b->ahead = parz_window_word(b, ++b->next);
    b->ahead_at = b->base + b->next;
  }
}

/* parz_window_step without a branch, for the lockstep parser: nearly every step of a warp has
 * some lane refilling, so a branch would diverge on most steps. With the load predicated into a
 * selected register (parz_window_load) this is faster than the branch there. */
__device__ __forceinline__ void parz_window_step_flat(parz_window* b, unsigned adv) {
  const unsigned cnt = b->cnt - adv;
  const bool need = cnt < 32;
  const uint64_t w = b->w >> adv;
  b->w = need ? w | ((uint64_t)b->ahead << cnt) : w;
  b->cnt = cnt + (need ? 32u : 0u);
  b->at += adv;
  b->next += need;
  /* the address is carried from step to step, by an opaque step that the compiler cannot fold
   * back into base + next: from base, it rebuilds the address from the kernel's parameters at
   * every step of the lockstep walk */
  b->ahead_at += parz_opaque((unsigned)need);
  b->ahead = parz_window_load_at(b, b->ahead_at, b->next, need, b->ahead);
}

/* Drops n bits (any number). */
__device__ __forceinline__ void parz_window_skip(parz_window* b, uint32_t n) {
  if (n <= 32)
    parz_window_step(b, n);
  else
    parz_window_seek(b, b->at + n);
}

/* The place of the lowest one of x != 0: the highest one of x & -x, which is that one alone.
 * That is two integer operations and a FLO, where __ffs is a bit reversal and a FLO: both of
 * those run on the SM's quarter-rate unit, whose latency lies on the chain of the walk's
 * steps. */
__device__ __forceinline__ unsigned parz_low_one(uint32_t x) {
#ifdef __CUDA_ARCH__
  unsigned r;
  asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(x & (0u - x)));
  return r;
#else
  return 31u - (unsigned)__builtin_clz(x & (0u - x));
#endif
}

/* The zeros after a 1 group test: z = the run from bit `from` of lo, at most lim (the last
 * coefficient needs no terminating one, so a stop bit at lim ends the search). */
__device__ __forceinline__ unsigned parz_window_run(uint32_t lo, unsigned from, unsigned lim) {
  return parz_low_one((lo >> from) | (1u << lim));
}

/* A block header as the window paths read it, from the low 32 bits of the window: its
 * length, the bit planes the block codes, and for floats whether anything is coded (nz), the
 * block exponent and (REV, reversible mode) whether the block holds bit patterns. Lossy floats:
 * 0, or 1 and the exponent; lossy integers: nothing. Reversible floats: 0, or 1, then 0 and the
 * exponent or 1 (patterns), then the block's precision less one; reversible integers: the
 * precision less one (parz_decode_rblock, parz_decode_iblock). */
struct parz_head {
  unsigned adv, planes;
  int emax;
  bool nz, patterns;
};

template <parz_type TYPE, unsigned DIMS, bool REV>
__device__ __forceinline__ parz_head parz_window_header(uint32_t lo, unsigned maxprec, int minexp) {
  const bool wide = TYPE == PARZ_DOUBLE || TYPE == PARZ_INT64;
  const bool header = TYPE == PARZ_FLOAT || TYPE == PARZ_DOUBLE;
  const unsigned intprec = wide ? 64u : 32u, ebits = wide ? 11u : 8u, pbits = wide ? 6u : 5u;
  const int ebias = wide ? 1023 : 127;
  parz_head h;
  h.nz = !header || (lo & 1u);
  h.patterns = REV && header && ((lo >> 1) & 1u);
  if (REV) {
    const unsigned flags = header ? (h.patterns ? 2u : 2u + ebits) : 0u;
    h.emax = (int)((lo >> 2) & ((1u << ebits) - 1u)) - ebias;
    h.adv = h.nz ? flags + pbits : 1u;
    h.planes = h.nz ? PARZ_MIN(((lo >> flags) & ((1u << pbits) - 1u)) + 1u, intprec) : 0u;
  } else {
    h.emax = (int)((lo >> 1) & ((1u << ebits) - 1u)) - ebias;
    h.adv = header ? (h.nz ? 1u + ebits : 1u) : 0u;
    h.planes =
        !header
            ? PARZ_MIN(maxprec, intprec)
            : parz_sel(h.nz, PARZ_MIN(parz_block_precision(h.emax, maxprec, minexp, DIMS), intprec),
                       0u);
  }
  return h;
}

/* Whether maxbits exceeds the most a block with a header of `header` bits can take: at most
 * intprec planes of `size` raw bits, at most one 0 group test per plane, and per coefficient at
 * most one 1 group test and one run bit -- so the budget never ends a block, and a parser may
 * skip the budget arithmetic. Fixed rate (minbits == maxbits) never qualifies. */
__host__ __device__ inline bool parz_budget_free(parz_type type, unsigned dims,
                                                 unsigned long long header, const parz_params* p) {
  const bool wide = type == PARZ_DOUBLE || type == PARZ_INT64;
  const unsigned long long intprec = wide ? 64 : 32, size = 1ull << (2 * dims);
  return p->minbits < p->maxbits && header + intprec * (size + 1) + 2 * size <= p->maxbits;
}

/* Whether parz_skip_segment applies: a lossy mode (not reversible) without a binding budget.
 * Fixed accuracy and precision always qualify. */
__host__ __device__ inline bool parz_skip_segment_ok(parz_type type, unsigned dims,
                                                     const parz_params* p) {
  const unsigned long long header = type == PARZ_FLOAT ? 9 : type == PARZ_DOUBLE ? 12 : 0;
  return p->minexp >= PARZ_MIN_EXP && parz_budget_free(type, dims, header, p);
}

/* Whether parz_skip_segment_small and parz_decode_block_small (block_small.cuh) apply: 1D and
 * 2D blocks in a mode whose budget cannot end a block -- the lossy modes of
 * parz_skip_segment_ok, and reversible mode without minbits padding (its all-zero blocks are
 * never padded, unlike lossy ones, so the window paths leave padding to the general parser).
 * A reversible header is the two flag bits, the exponent and the block's precision. */
__host__ __device__ inline bool parz_skip_small_ok(parz_type type, unsigned dims,
                                                   const parz_params* p) {
  const unsigned long long pbits = type == PARZ_DOUBLE || type == PARZ_INT64 ? 6 : 5;
  const unsigned long long header = (type == PARZ_FLOAT    ? 2 + 8
                                     : type == PARZ_DOUBLE ? 2 + 11
                                                           : 0) +
                                    pbits;
  if (dims > 2)
    return false;
  if (p->minexp >= PARZ_MIN_EXP)
    return parz_skip_segment_ok(type, dims, p);
  return p->minbits <= 1 && parz_budget_free(type, dims, header, p);
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
                                                                uint32_t* rel) {
  const unsigned intprec = TYPE == PARZ_DOUBLE || TYPE == PARZ_INT64 ? 64u : 32u;
  const unsigned size = 1u << (2 * DIMS);
  parz_window b = parz_window_open(data, nbytes, start);
  for (unsigned i = 0; i < nb; i++) {
    const uint32_t block_start = b.at;
    rel[i] = block_start;
    const parz_head h = parz_window_header<TYPE, DIMS, false>((uint32_t)b.w, p->maxprec, p->minexp);
    parz_window_skip(&b, h.adv);
    unsigned k = intprec, n = 0;
    const unsigned kmin = intprec - h.planes;
    while (k > kmin) {
      if (n == size) {
        parz_window_skip(&b, size * (k - kmin)); /* raw bits only */
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
    const uint32_t bits = b.at - block_start;
    if (bits < p->minbits)
      parz_window_skip(&b, p->minbits - bits);
  }
  return start + b.at;
}

/* Group-test positions for parz_skip_segment_small: with n significant coefficients a plane
 * that adds none is n raw bits and a 0 test, so consecutive such planes put their tests every
 * n + 1 bits. parz_test_pattern(n) has a one every n + 1 bits from bit 0 (n < 16). */
__host__ __device__ inline uint32_t parz_test_pattern(unsigned n) {
  uint32_t t = 0;
  for (unsigned i = 0; i < 32; i += n + 1)
    t |= 1u << i;
  return t;
}

/* parz_skip_small_walk's patterns, parz_tests_sh[n] = parz_test_pattern(n), filled by the
 * kernel that runs it (every thread < 16, then a barrier; on the host, where __shared__ is
 * empty, by the caller once). At a fixed shared address they need no register: passed as a
 * pointer, the address would be rebuilt on every step or kept in local memory. */
static __shared__ uint32_t parz_tests_sh[16];

/* parz_skip_segment for blocks of at most 16 values (1D, 2D), with the lanes of a warp in step:
 * every iteration is one step of the same code for every lane, whatever its block is doing,
 * and chooses its result with selects. A step is
 * - at a block's start, its header: the nonzero flag and exponent of a float block, nothing for
 *   an integer one (REV, reversible mode: the flags, exponent and precision of
 *   parz_decode_rblock or the precision of an integer block); it gives the planes the block
 *   codes, and the step goes on with those planes in the bits left after it;
 * - then either raw planes, once every coefficient is significant (up to 32 bits of them, or in
 *   reversible mode all of them), or a run of planes that add no significant coefficient (each
 *   n raw bits and a 0 test; the tests within the valid bits are found at once through
 *   parz_tests_sh), then, if the first test that is a 1 has its run of zeros (up to the next
 *   significant coefficient, at most 15) inside the valid bits, that event, and a second one
 *   if the plane's next test is a 1 as well and its run ends inside them too.
 * A segment's steps form one dependency chain, and the kernel lasts as long as its longest
 * chain, so a step takes as much of the block as the window's valid bits hold: on etopo5 at
 * accuracy 1e-2 a block takes 4.7 steps, against 15.2 with one group test or event per step.
 * In the lossy modes no step takes more than 32 bits, so a step has no branch (the window's
 * refill is selects, parz_window_step_flat) but for minbits padding (expert settings only).
 * In reversible mode, whose nearly incompressible blocks end in long raw runs, a step takes
 * every raw plane left at once, with a reload of the window (twice the speed of 32-bit steps
 * on hst at C = 16). Same bits as parz_skip_segment. */
template <parz_type TYPE, unsigned DIMS, bool REV, bool PAD>
__device__ __forceinline__ unsigned long long parz_skip_small_walk(
    const unsigned char* data, unsigned long long nbytes, unsigned long long start, unsigned nb,
    const parz_params* p, uint32_t* rel) {
  const unsigned size = 1u << (2 * DIMS);
  const unsigned raw_planes = 32u / size; /* raw planes per step (lossy modes) */
  const unsigned minbits = parz_opaque(p->minbits), maxprec = parz_opaque(p->maxprec);
  const int minexp = parz_opaque(p->minexp);
  nb = parz_opaque(nb);
  parz_window b = parz_window_open(data, nbytes, start);
  uint32_t block_at = 0;
  /* left: blocks not yet started; to: where the next one's start goes. Both are carried from
   * step to step, by opaque steps that the compiler cannot fold into one block index: from an
   * index it rebuilds the block count and the address from the kernel's parameters at every
   * step. planes: planes of the block not yet over; n: significant
   * coefficients; off: where the next group test sits in the window (a plane's n raw bits
   * come first, none inside a plane); pattern: parz_tests_sh[n]. The block is over when
   * planes == 0; raw planes remain when n == size. */
  unsigned left = nb, planes = 0, n = 0, off = 0;
  uint32_t* to = parz_opaque(rel);
  const uint32_t pattern0 = parz_tests_sh[0];
  uint32_t pattern = pattern0;
  for (;;) {
    const bool over = planes == 0;
    if (PAD && over && left < nb && b.at - block_at < minbits)
      parz_window_seek(&b, block_at + minbits); /* pad to minbits: a reload */
    if (over && left == 0)
      break;
    if (over)
      *to = b.at;
    block_at = parz_sel(over, b.at, block_at);
    to += parz_opaque((unsigned)over);
    left -= parz_opaque((unsigned)over);
    /* a block's header and its first planes are one step: after a header of hadv bits,
     * V = 32 - hadv bits of the window are sure to be valid, and the limits below count from
     * V (bits past it read as zeros or as the payload) */
    /* the window's low word, opaque: else nvcc tests its bit 0 (nz) as a 64-bit value, two
     * compares more on the step's chain */
    const parz_head h =
        parz_window_header<TYPE, DIMS, REV>(parz_opaque((uint32_t)b.w), maxprec, minexp);
    const unsigned hadv = parz_sel(over, h.adv, 0u);
    const uint32_t lo = (uint32_t)(b.w >> hadv);
    const unsigned pl = parz_sel(over, h.planes, planes);
    n = parz_sel(over, 0u, n);
    off = parz_sel(over, 0u, off);
    pattern = parz_sel(over, pattern0, pattern);
    /* planes without a new coefficient: c of them before the first test that is a 1 */
    const uint32_t t = (pattern << off) & (0xffffffffu >> hadv); /* off <= 15 here */
    const uint32_t hits = lo & t;
    const unsigned c0 = (unsigned)__popc(t & ((hits & (0u - hits)) - 1u));
    const unsigned c = PARZ_MIN(c0, pl);
    const unsigned q = off + c * (n + 1); /* the test after them */
    /* the event: a 1 test at q, then zeros up to the next significant coefficient, at most
     * lim of them (the last coefficient needs no terminating one): a stop bit at lim makes
     * z = min(run, lim). It is taken when the stop bit, q + 1 + lim, lies inside V. */
    const unsigned lim = (size - 1 - n) & 31u;
    const bool event = hits && c0 < pl && q + 1 + lim < 32u - hadv;
    const unsigned z = parz_window_run(lo, (q + 1) & 31u, lim);
    const unsigned more1 = event & (z < lim); /* the plane goes on */
    /* a second event in the same plane, when the test after the first one's terminating 1 is
     * a 1 too and the event ends inside V: its terminating 1 at q2 + 1 + z2, or without one
     * (z2 == lim2) its last zero at q2 + lim2. At q2 = 31 the run is read from the wrong
     * place, so both cases are checked against V. As z2 <= lim2 (the stop bit), that last bit is
     * q2 + min(z2 + 1, lim2), inside V when either is: the test of q2 + lim2 needs no z2, and
     * leaves the step's chain of dependent operations. */
    const unsigned q2 = q + 2 + z, n2 = n + z + 1;
    const unsigned lim2 = (size - 1 - n2) & 31u;
    const unsigned z2 = parz_window_run(lo, (q2 + 1) & 31u, lim2);
    const unsigned inside2 = (q2 + z2 + 1 < 32u - hadv) | (q2 + lim2 < 32u - hadv);
    const unsigned two = more1 & inside2 & ((lo >> (q2 & 31u)) & 1u);
    const unsigned more = parz_sel(two, z2 < lim2, more1);
    const unsigned ev_n = parz_sel(event, parz_sel(two, n2 + z2 + 1, n2), n);
    /* raw planes (never in a header's step: n == 0 there): up to 32 bits of them, or in
     * reversible mode, where nearly incompressible blocks end in many, all at once */
    const bool raw = n == size;
    const unsigned r = REV ? pl : PARZ_MIN(pl, raw_planes);
    const unsigned adv =
        hadv + parz_sel(raw, size * r,
                        parz_sel(event, parz_sel(two, q2 + 1 + z2, q + 1 + z) + more, q - n));
    planes = parz_sel(raw, pl - r, pl - c - (event & (more ^ 1u)));
    off = parz_sel(raw, off, parz_sel(more, 0u, ev_n)); /* <= 16 */
    n = parz_sel(raw, n, ev_n);
    pattern = parz_tests_sh[n & 15u];
    if (REV)
      parz_window_skip(&b, adv); /* a reload after raw planes of more than 32 bits */
    else
      parz_window_step_flat(&b, adv); /* adv <= 32 */
  }
  return start + b.at;
}

template <parz_type TYPE, unsigned DIMS, bool REV>
__device__ __forceinline__ unsigned long long parz_skip_segment_small(
    const unsigned char* data, unsigned long long nbytes, unsigned long long start, unsigned nb,
    const parz_params* p, uint32_t* rel) {
  static_assert(DIMS <= 2, "blocks of at most 16 values");
  const bool header = TYPE == PARZ_FLOAT || TYPE == PARZ_DOUBLE;
  /* every block takes a bit but an integer one of no planes, so fixed accuracy and precision
   * (minbits 1) never pad; the check for padding stays out of their steps */
  if (p->minbits > (header || p->maxprec > 0 ? 1u : 0u))
    return parz_skip_small_walk<TYPE, DIMS, REV, true>(data, nbytes, start, nb, p, rel);
  return parz_skip_small_walk<TYPE, DIMS, REV, false>(data, nbytes, start, nb, p, rel);
}

#endif
