/* Block decoder for one integer width; included twice by block_decode.h (PARZ_W = 32, 64).
 * Integers are kept as unsigned two's complement patterns so that overflow on corrupt input
 * wraps (as libzfp's arithmetic does in practice) instead of being undefined. */
#include "block_width.h"

/* Negabinary to two's complement. */
PARZ_HD PARZ_UINT PARZ_FN(parz_uint2int)(PARZ_UINT x) {
  return (PARZ_UINT)((x ^ PARZ_NBMASK) - PARZ_NBMASK);
}

/* Inverse of zfp's non-orthogonal lifting step on p[0], p[s], p[2s], p[3s]. */
PARZ_HD void PARZ_FN(parz_inv_lift)(PARZ_UINT* p, unsigned s) {
  PARZ_UINT x = p[0], y = p[s], z = p[2 * s], w = p[3 * s];
  PARZ_INV_LIFT_STEPS(x, y, z, w, PARZ_ASR1);
  p[0] = x;
  p[s] = y;
  p[2 * s] = z;
  p[3 * s] = w;
}

/* Inverse of the reversible (Lorenzo) lifting step. */
PARZ_HD void PARZ_FN(parz_rev_inv_lift)(PARZ_UINT* p, unsigned s) {
  PARZ_UINT x = p[0], y = p[s], z = p[2 * s], w = p[3 * s];
  PARZ_REV_INV_LIFT_STEPS(x, y, z, w);
  p[1 * s] = y;
  p[2 * s] = z;
  p[3 * s] = w;
}

/* Inverse decorrelating transform: axes in reverse order of the forward one (w, z, y, x).
 * Along the axis of stride s (4^axis) the 4-vectors start at hi + lo, hi a multiple of 4 s and
 * lo < s: consecutive lo are independent lifts on adjacent values. One call per axis with a
 * literal stride, so that with a constant rank every loop has constant bounds and strides and
 * unrolls. */
PARZ_HD void PARZ_FN(parz_inv_axis)(PARZ_UINT* p, unsigned size, unsigned s, int reversible) {
  unsigned hi, lo;
  for (hi = 0; hi < size; hi += 4 * s)
    for (lo = 0; lo < s; lo++) {
      if (reversible)
        PARZ_FN(parz_rev_inv_lift)(p + hi + lo, s);
      else
        PARZ_FN(parz_inv_lift)(p + hi + lo, s);
    }
}

#if PARZ_VECTOR
/* Four values side by side, one lane per lift (see PARZ_VECTOR). Left to itself the compiler
 * vectorizes the scalar loops above across the wrong loop (the y axis with a shuffle per value);
 * written with lanes, every axis but x is plain vertical arithmetic, and x costs two 4 x 4
 * transpositions per four lifts. */
typedef PARZ_UINT PARZ_FN(parz_lanes) __attribute__((vector_size(4 * sizeof(PARZ_UINT))));
typedef PARZ_INT PARZ_FN(parz_slanes) __attribute__((vector_size(4 * sizeof(PARZ_INT))));
/* the same lanes at any address of a value, for loads and stores in a block */
typedef PARZ_UINT PARZ_FN(parz_lanes_at)
    __attribute__((vector_size(4 * sizeof(PARZ_UINT)), aligned(sizeof(PARZ_UINT)), may_alias));
#define PARZ_LANES PARZ_FN(parz_lanes)
#define PARZ_LANES_AT(q) (*(PARZ_FN(parz_lanes_at)*)(q))
#if PARZ_W == 64
/* no 64-bit arithmetic shift before AVX-512: logical shift, sign bit kept (see PARZ_ASR1) */
#define PARZ_LANES_ASR1(v) (((v) >> 1) | ((v)&PARZ_SIGN))
#else
#define PARZ_LANES_ASR1(v) ((PARZ_LANES)((PARZ_FN(parz_slanes))(v) >> 1))
#endif

/* Four lifts at once: lane i of v[0], v[1], v[2], v[3] is one lift's x, y, z, w. */
PARZ_HD void PARZ_FN(parz_inv_lift4)(PARZ_LANES* v, int reversible) {
  PARZ_LANES x = v[0], y = v[1], z = v[2], w = v[3];
  if (reversible)
    PARZ_REV_INV_LIFT_STEPS(x, y, z, w);
  else
    PARZ_INV_LIFT_STEPS(x, y, z, w, PARZ_LANES_ASR1);
  v[0] = x;
  v[1] = y;
  v[2] = z;
  v[3] = w;
}

/* Lane j of v[i] trades places with lane i of v[j]. */
PARZ_HD void PARZ_FN(parz_lanes_transpose)(PARZ_LANES* v) {
  PARZ_LANES t0 = __builtin_shufflevector(v[0], v[1], 0, 4, 1, 5);
  PARZ_LANES t1 = __builtin_shufflevector(v[0], v[1], 2, 6, 3, 7);
  PARZ_LANES t2 = __builtin_shufflevector(v[2], v[3], 0, 4, 1, 5);
  PARZ_LANES t3 = __builtin_shufflevector(v[2], v[3], 2, 6, 3, 7);
  v[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
  v[1] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
  v[2] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
  v[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

/* parz_inv_axis for s >= 4 (lanes: four consecutive lo) and for s == 1 (lanes: the four rows
 * of 4 values at hi, transposed in and out). */
PARZ_HD void PARZ_FN(parz_inv_axis4)(PARZ_UINT* p, unsigned size, unsigned s, int reversible) {
  unsigned hi, lo, i;
  for (hi = 0; hi < size; hi += s == 1 ? 16 : 4 * s)
    for (lo = 0; lo < (s == 1 ? 1 : s); lo += 4) {
      const unsigned d = s == 1 ? 4 : s;
      PARZ_LANES v[4];
      for (i = 0; i < 4; i++)
        v[i] = PARZ_LANES_AT(p + hi + lo + i * d);
      if (s == 1)
        PARZ_FN(parz_lanes_transpose)(v);
      PARZ_FN(parz_inv_lift4)(v, reversible);
      if (s == 1)
        PARZ_FN(parz_lanes_transpose)(v);
      for (i = 0; i < 4; i++)
        PARZ_LANES_AT(p + hi + lo + i * d) = v[i];
    }
}
#undef PARZ_LANES_ASR1
#undef PARZ_LANES_AT
#undef PARZ_LANES
#endif

PARZ_HD void PARZ_FN(parz_inv_xform)(PARZ_UINT* p, unsigned dims, int reversible) {
  unsigned size = 1u << (2 * dims);
#if PARZ_VECTOR
  if (dims > 1) {
    if (dims > 3)
      PARZ_FN(parz_inv_axis4)(p, size, 64, reversible);
    if (dims > 2)
      PARZ_FN(parz_inv_axis4)(p, size, 16, reversible);
    PARZ_FN(parz_inv_axis4)(p, size, 4, reversible);
    /* x: 64-bit lanes take two SSE2 registers each, and their transpositions cost more than
     * the scalar lifts save (AVX2 breaks even) */
    if (PARZ_W == 32)
      PARZ_FN(parz_inv_axis4)(p, size, 1, reversible);
    else
      PARZ_FN(parz_inv_axis)(p, size, 1, reversible);
    return;
  }
#endif
  if (dims > 3)
    PARZ_FN(parz_inv_axis)(p, size, 64, reversible);
  if (dims > 2)
    PARZ_FN(parz_inv_axis)(p, size, 16, reversible);
  if (dims > 1)
    PARZ_FN(parz_inv_axis)(p, size, 4, reversible);
  PARZ_FN(parz_inv_axis)(p, size, 1, reversible);
}

#if PARZ_PLANAR
#if PARZ_VECTOR
/* Coefficients j and j + 1 from the low PARZ_W bits of w's two lanes (negabinary) into
 * data[order[j]], data[order[j + 1]] (data[j], data[j + 1] without an order), in two's
 * complement: parz_uint2int in each lane, for 32 bits on the low half of it. */
PARZ_HD void PARZ_FN(parz_pair_out)(parz_pair w, PARZ_UINT* PARZ_RESTRICT data,
                                    const unsigned char* order, unsigned j) {
  const parz_pair nb = parz_pair_of((uint64_t)PARZ_NBMASK);
  w = (w ^ nb) - nb;
  data[order ? order[j] : j] = (PARZ_UINT)w[0];
  data[order ? order[j + 1] : j + 1] = (PARZ_UINT)w[1];
}
#endif

/* The coefficients of one group of 64 from its planes in rows pl[intprec - u .. intprec) (rows
 * below k not decoded), by transposing u x u tiles: with u < 64 a row holds 64 / u tiles, and
 * tile c of row i becomes coefficient c u + i's bits intprec - u and up. Coefficient j goes to
 * data[order[j]] (data[j] without an order), in two's complement. */
PARZ_HD void PARZ_FN(parz_planes_out)(uint64_t* pl, unsigned k, unsigned u,
                                      PARZ_UINT* PARZ_RESTRICT data, const unsigned char* order) {
  const unsigned intprec = PARZ_W;
  uint64_t* a = pl + (intprec - u);
  unsigned c, i;
#if PARZ_VECTOR
  /* Rows two to a vector (parz_transpose_pairs); a tile's values come out two at a time, by
   * one shift and one mask that move tile c of both rows to the top bits. */
  parz_pair v[32];
  const parz_pair top = parz_pair_of(~UINT64_C(0) << (64 - u));
  for (i = 0; i < u / 2; i++)
    v[i] = parz_pair_load(a + 2 * i, intprec - u + 2 * i, k);
  parz_transpose_pairs(v, u);
  for (c = 0; c < 64 / u; c++)
    for (i = 0; i < u / 2; i++)
      PARZ_FN(parz_pair_out)
      (((v[i] << (64 - u * (c + 1))) & top) >> (64 - intprec), data, order, c * u + 2 * i);
#else
  const uint64_t umask = u == 64 ? ~UINT64_C(0) : (UINT64_C(1) << u) - 1;
  for (i = intprec - u; i < k; i++)
    pl[i] = 0;
  parz_transpose_tiles(a, u);
  for (c = 0; c < 64 / u; c++)
    for (i = 0; i < u; i++) {
      PARZ_UINT v = (PARZ_UINT)(((a[i] >> (c * u)) & umask) << (intprec - u));
      data[order ? order[c * u + i] : c * u + i] = PARZ_FN(parz_uint2int)(v);
    }
#endif
}
#endif

/* Embedded bit-plane decoder (parz_decode_ints, with budget 0 only where maxbits cannot run
 * out): decodes the size coefficients of a block from at most maxbits
 * bits and maxprec bit planes and returns the bits read. Reproduces zfp's decode_ints /
 * decode_many_ints bit for bit, including where the budget runs out in the middle of a plane.
 * On the CPU (PARZ_PLANAR) the planes of each group of up to 64 values are collected as rows of
 * bit tiles and transposed at the end, and coefficient i goes to data[order[i]] (data[i] when
 * order is NULL) in two's complement, ready for the inverse transform: the transposition
 * touches every value anyway. The GPU deposits each plane's bits as it goes and leaves the
 * coefficients in coding order and negabinary, for parz_decode_finish (order unused).
 * codec/FORMAT.md lists every other place that implements this grammar. */
PARZ_HD unsigned PARZ_FN(parz_decode_planes)(parz_reader* r, unsigned maxbits, unsigned maxprec,
                                             PARZ_UINT* PARZ_RESTRICT data, unsigned size,
                                             const unsigned char* order, int budget) {
  parz_reader s = *r; /* local copy: data[] cannot alias it */
  const uint64_t start = parz_reader_tell(r);
  const unsigned intprec = PARZ_W;
  unsigned kmin = intprec > maxprec ? intprec - maxprec : 0;
  unsigned bits = maxbits;
  unsigned i, k = intprec, n = 0;
#if PARZ_PLANAR
  unsigned c;
  /* groups of gs values; tile side t: plane k goes to row k % t, tile k / t (see
   * parz_transpose_tiles). With t == intprec (3D and 4D blocks, 64 values per group) every
   * plane has a row of its own, which is written once and needs no clearing
   * (parz_planes_out); otherwise (1D, 2D) t == gs and after the transposition row i holds
   * value i. */
  const unsigned gs = PARZ_MIN(size, 64u), ng = size / gs, t = PARZ_MIN(gs, intprec);
  const int own = t == intprec;
  /* t is 4, 16, 32 or 64: plane k's row and tile by mask and shift, not by division (the
   * compiler cannot see that t is a power of two) */
  const unsigned tbits = t == 64 ? 6u : t == 32 ? 5u : t == 16 ? 4u : 2u;
  const uint64_t gmask = gs == 64 ? ~UINT64_C(0) : (UINT64_C(1) << gs) - 1;
  uint64_t pl[4][64];
  if (!own)
    for (c = 0; c < ng; c++)
      for (i = 0; i < t; i++)
        pl[c][i] = 0;
#else
  (void)order;
  for (i = 0; i < size; i++)
    data[i] = 0;
#endif
  while ((bits || !budget) && k > kmin) {
    uint64_t x[4] = {0, 0, 0, 0};
    unsigned m;
    k--;
    /* the first n values are known significant: one raw bit each */
    m = budget ? PARZ_MIN(n, bits) : n;
    bits -= budget ? m : 0;
    if (size <= 64) /* one word: lets x[0] live in a register */
      x[0] = parz_read_bits(&s, m);
    else
      for (i = 0; i < m; i += 64)
        x[i >> 6] = parz_read_bits(&s, PARZ_MIN(64u, m - i));
    /* the rest: group tests, each followed by a unary-coded position of the next one bit */
    while (n < size && (bits || !budget)) {
      unsigned lim, z;
      bits -= budget ? 1 : 0;
      lim = budget ? PARZ_MIN(size - 1 - n, bits) : size - 1 - n;
      z = parz_read_group(&s, lim);
      if (!z)
        break;
      z--;
      bits -= !budget ? 0 : z < lim ? z + 1 : lim;
      n += z;
      x[size <= 64 ? 0 : n >> 6] |= UINT64_C(1) << (n & 63u);
      n++;
    }
#if PARZ_PLANAR
    for (c = 0; c < ng; c++) {
      if (own)
        pl[c][k] = x[c];
      else
        pl[c][k & (t - 1)] |= x[c] << ((k >> tbits) << tbits);
    }
#else
    for (i = 0; i < size; i++)
      data[i] += (PARZ_UINT)((x[i >> 6] >> (i & 63u)) & 1u) << k;
#endif
  }
  if (!budget)
    bits = maxbits - (unsigned)(parz_reader_tell(&s) - start);
#if PARZ_PLANAR
  {
    /* planes decoded; with a row per plane, only the u rows of the last u planes need the
     * transposition, in u x u tiles (64 / u per row) */
    const unsigned np = intprec - k;
    const unsigned u = !own ? t : np <= 16 ? 16u : np <= 32 || intprec == 32 ? 32u : 64u;
    if (maxbits - bits <= PARZ_SPARSE_BITS(u, gs) * ng) {
      /* few bits, so few one bits: setting them one by one beats the transposition */
      for (i = 0; i < size; i++)
        data[i] = 0;
      for (; k < intprec; k++)
        for (c = 0; c < ng; c++) {
          uint64_t x = (pl[c][k & (t - 1)] >> ((k >> tbits) << tbits)) & gmask;
          for (; x; x &= x - 1) {
            unsigned j = gs * c + parz_ctz64(x);
            data[order ? order[j] : j] |= (PARZ_UINT)1 << k;
          }
        }
      for (i = 0; i < size; i++)
        data[i] = PARZ_FN(parz_uint2int)(data[i]);
      *r = s;
      return maxbits - bits;
    }
    for (c = 0; c < ng; c++) {
      const unsigned char* oc = order ? order + 64 * c : order;
      PARZ_UINT* dc = order ? data : data + 64 * c;
      if (own) {
        /* one call per tile side, so that each unrolls */
        if (u == 16)
          PARZ_FN(parz_planes_out)(pl[c], k, 16, dc, oc);
        else if (u == 32)
          PARZ_FN(parz_planes_out)(pl[c], k, 32, dc, oc);
        else
          PARZ_FN(parz_planes_out)(pl[c], k, 64, dc, oc);
        continue;
      }
      /* t == gs here (1D, 2D): row i becomes value i, one tile per plane group */
#if PARZ_VECTOR
      if (t == 16) {
        parz_pair v[8];
        for (i = 0; i < 8; i++)
          v[i] = parz_pair_load(pl[c] + 2 * i, 0, 0);
        parz_transpose_pairs(v, 16);
        for (i = 0; i < 8; i++)
          PARZ_FN(parz_pair_out)(v[i], data, order, 16 * c + 2 * i);
        continue;
      }
#endif
      parz_transpose_tiles(pl[c], t);
      for (i = 0; i < gs; i++) {
        unsigned j = gs * c + i;
        data[order ? order[j] : j] = PARZ_FN(parz_uint2int)((PARZ_UINT)pl[c][i]);
      }
    }
  }
#endif
  *r = s;
  return maxbits - bits;
}

/* parz_decode_planes with the budget checked where it can run out. A block of P planes reads at
 * most P (size + 1) + 2 size bits: per plane size raw bits and one 0 group test, per
 * coefficient one 1 group test and one run bit. With more than that (accuracy and precision
 * modes, P the block's precision) the CPU runs the plane loop without the budget arithmetic
 * and counts the bits by the reader's position. The GPU keeps the one budgeted loop. */
PARZ_HD unsigned PARZ_FN(parz_decode_ints)(parz_reader* r, unsigned maxbits, unsigned maxprec,
                                           PARZ_UINT* PARZ_RESTRICT data, unsigned size,
                                           const unsigned char* order) {
#if PARZ_PLANAR
  const unsigned planes = PARZ_MIN(maxprec, (unsigned)PARZ_W);
  if ((uint64_t)maxbits > (uint64_t)planes * (size + 1) + 2 * size)
    return PARZ_FN(parz_decode_planes)(r, maxbits, maxprec, data, size, order, 0);
#endif
  return PARZ_FN(parz_decode_planes)(r, maxbits, maxprec, data, size, order, 1);
}

/* Decoded coefficients u (sequency order, negabinary) to the block: reorder, two's complement,
 * inverse transform. The GPU's decoders keep the coefficients in coding order (u) and reorder
 * here, with constant indices in 2D. */
PARZ_HD void PARZ_FN(parz_decode_finish)(const PARZ_UINT* u, unsigned dims, int reversible,
                                         PARZ_UINT* block) {
  const unsigned char* perm = parz_perm(dims);
  unsigned size = 1u << (2 * dims), i;
#if defined(__CUDA_ARCH__)
  if (dims == 2) {
    /* A local copy of the order with the loop unrolled makes every index a constant, so the
     * block stays in registers; indexing through the __constant__ table would put it in local
     * memory, and every transform step after it would go through memory. */
    const unsigned char p2[16] = {PARZ_PERM2_LIST};
#pragma unroll
    for (i = 0; i < 16; i++)
      block[p2[i]] = PARZ_FN(parz_uint2int)(u[i]);
  } else
#endif
      if (perm) {
    for (i = 0; i < size; i++)
      block[perm[i]] = PARZ_FN(parz_uint2int)(u[i]);
  } else {
    for (i = 0; i < size; i++)
      block[i] = PARZ_FN(parz_uint2int)(u[i]);
  }
  PARZ_FN(parz_inv_xform)(block, dims, reversible);
}

/* Lossy integer block: coefficients, padding to minbits, reorder, inverse transform. On the
 * CPU the coefficients arrive at their places in the block in two's complement (see
 * parz_decode_ints), which leaves the transform. */
PARZ_HD unsigned PARZ_FN(parz_decode_iblock)(parz_reader* r, unsigned minbits, unsigned maxbits,
                                             unsigned maxprec, unsigned dims, int reversible,
                                             PARZ_UINT* block) {
  unsigned size = 1u << (2 * dims);
  unsigned bits = 0;
#if !PARZ_PLANAR
  PARZ_UINT u[256];
#endif
  if (reversible) {
    maxprec = (unsigned)parz_read_bits(r, PARZ_PBITS) + 1;
    bits = PARZ_PBITS;
  }
#if PARZ_PLANAR
  bits += PARZ_FN(parz_decode_ints)(r, maxbits - bits, maxprec, block, size, parz_perm(dims));
#else
  bits += PARZ_FN(parz_decode_ints)(r, maxbits - bits, maxprec, u, size, (const unsigned char*)0);
#endif
  if (bits < minbits) {
    parz_reader_skip(r, minbits - bits);
    bits = minbits;
  }
#if PARZ_PLANAR
  PARZ_FN(parz_inv_xform)(block, dims, reversible);
#else
  PARZ_FN(parz_decode_finish)(u, dims, reversible, block);
#endif
  return bits;
}

/* Integer arrays (int32, int64): no exponent, zfp's parameters used directly. */
PARZ_HD unsigned PARZ_FN(parz_decode_sblock)(parz_reader* r, const parz_params* p, unsigned dims,
                                             PARZ_UINT* out) {
  int reversible = p->minexp < PARZ_MIN_EXP;
  return PARZ_FN(parz_decode_iblock)(r, p->minbits, p->maxbits, p->maxprec, dims, reversible, out);
}

/* Block-floating-point to floating point: value = integer * 2^(emax - (W - 2)). ib may be out
 * (in place): the decoders below decode the integers straight into the caller's block, so no
 * second block-sized array lives on the stack (on the GPU it would sit in local memory). */
PARZ_HD void PARZ_FN(parz_inv_cast)(const PARZ_UINT* ib, PARZ_UINT* out, unsigned n, int emax) {
  PARZ_SCALAR s = PARZ_POW2(emax - (PARZ_W - 2));
  unsigned i;
  for (i = 0; i < n; i++)
    out[i] = PARZ_TO_BITS((PARZ_SCALAR)(s * (PARZ_SCALAR)(PARZ_INT)ib[i]));
}

/* Reversible blocks stored as bit patterns: the decoded integers are the floats' sign-magnitude
 * patterns in two's complement order; map them back. */
PARZ_HD void PARZ_FN(parz_rev_patterns)(PARZ_UINT* out, unsigned n) {
  unsigned i;
  for (i = 0; i < n; i++) {
    PARZ_UINT x = out[i];
    out[i] = (x & PARZ_SIGN) ? x ^ PARZ_TCMASK : x;
  }
}

/* Floating-point arrays, reversible mode: a zero bit for an all-zero block; else 1, then 0 and
 * the exponent for a block-floating-point block, or 1 for a block stored as bit patterns. */
PARZ_HD unsigned PARZ_FN(parz_decode_rblock)(parz_reader* r, const parz_params* p, unsigned dims,
                                             PARZ_UINT* out) {
  unsigned n = 1u << (2 * dims);
  unsigned bits = 2, i;
  if (!parz_read_bit(r)) {
    for (i = 0; i < n; i++)
      out[i] = 0;
    return 1;
  }
  if (!parz_read_bit(r)) {
    int emax = (int)parz_read_bits(r, PARZ_EBITS) - PARZ_EBIAS;
    bits += PARZ_EBITS;
    bits += PARZ_FN(parz_decode_iblock)(r, p->minbits > bits ? p->minbits - bits : 0,
                                        p->maxbits - bits, 0, dims, 1, out);
    PARZ_FN(parz_inv_cast)(out, out, n, emax);
  } else {
    bits += PARZ_FN(parz_decode_iblock)(r, p->minbits > bits ? p->minbits - bits : 0,
                                        p->maxbits - bits, 0, dims, 1, out);
    PARZ_FN(parz_rev_patterns)(out, n);
  }
  return bits;
}

/* Floating-point arrays, lossy modes: a zero bit for a block with nothing to code, else 1 and
 * the biased block exponent, then the coefficients. */
PARZ_HD unsigned PARZ_FN(parz_decode_fblock)(parz_reader* r, const parz_params* p, unsigned dims,
                                             PARZ_UINT* out) {
  unsigned n = 1u << (2 * dims);
  unsigned bits = 1, i;
  if (p->minexp < PARZ_MIN_EXP)
    return PARZ_FN(parz_decode_rblock)(r, p, dims, out);
  if (parz_read_bit(r)) {
    int emax = (int)parz_read_bits(r, PARZ_EBITS) - PARZ_EBIAS;
    unsigned maxprec = parz_block_precision(emax, p->maxprec, p->minexp, dims);
    bits += PARZ_EBITS;
    /* budgets wrap like libzfp's unsigned arithmetic; minbits below the header pads nothing */
    bits += PARZ_FN(parz_decode_iblock)(r, p->minbits > bits ? p->minbits - bits : 0,
                                        p->maxbits - bits, maxprec, dims, 0, out);
    PARZ_FN(parz_inv_cast)(out, out, n, emax);
  } else {
    for (i = 0; i < n; i++)
      out[i] = 0;
    if (p->minbits > bits) {
      parz_reader_skip(r, p->minbits - bits);
      bits = p->minbits;
    }
  }
  return bits;
}

#include "block_width_end.h"
