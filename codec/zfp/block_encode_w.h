/* Block encoder for one integer width; included twice by block_encode.h (PARZ_W = 32, 64).
 * Integers are unsigned two's complement patterns: overflow wraps, as in libzfp. */
#include "block_width.h"

/* Two's complement to negabinary. */
PARZ_HD PARZ_UINT PARZ_FN(parz_int2uint)(PARZ_UINT x) {
  return (PARZ_UINT)((x + PARZ_NBMASK) ^ PARZ_NBMASK);
}

/* zfp's non-orthogonal forward lifting step on p[0], p[s], p[2s], p[3s]. */
PARZ_HD void PARZ_FN(parz_fwd_lift)(PARZ_UINT* p, unsigned s) {
  PARZ_UINT x = p[0], y = p[s], z = p[2 * s], w = p[3 * s];
  x += w;
  x = PARZ_ASR1(x);
  w -= x;
  z += y;
  z = PARZ_ASR1(z);
  y -= z;
  x += z;
  x = PARZ_ASR1(x);
  z -= x;
  w += y;
  w = PARZ_ASR1(w);
  y -= w;
  w += PARZ_ASR1(y);
  y -= PARZ_ASR1(w);
  p[0] = x;
  p[s] = y;
  p[2 * s] = z;
  p[3 * s] = w;
}

/* Reversible (Lorenzo) forward lifting step. */
PARZ_HD void PARZ_FN(parz_rev_fwd_lift)(PARZ_UINT* p, unsigned s) {
  PARZ_UINT x = p[0], y = p[s], z = p[2 * s], w = p[3 * s];
  w -= z;
  z -= y;
  y -= x;
  w -= z;
  z -= y;
  w -= z;
  p[1 * s] = y;
  p[2 * s] = z;
  p[3 * s] = w;
}

/* Forward decorrelating transform along x, then y, z, w (see parz_inv_xform for the
 * offsets of the 4-vectors along each axis). */
PARZ_HD void PARZ_FN(parz_fwd_xform)(PARZ_UINT* p, unsigned dims) {
  unsigned a, size = 1u << (2 * dims), hi, lo;
  for (a = 0; a < dims; a++) {
    unsigned s = 1u << (2 * a);
    for (hi = 0; hi < size; hi += 4 * s)
      for (lo = 0; lo < s; lo++)
        PARZ_FN(parz_fwd_lift)(p + hi + lo, s);
  }
}

PARZ_HD void PARZ_FN(parz_rev_fwd_xform)(PARZ_UINT* p, unsigned dims) {
  unsigned a, size = 1u << (2 * dims), hi, lo;
  for (a = 0; a < dims; a++) {
    unsigned s = 1u << (2 * a);
    for (hi = 0; hi < size; hi += 4 * s)
      for (lo = 0; lo < s; lo++)
        PARZ_FN(parz_rev_fwd_lift)(p + hi + lo, s);
  }
}

/* Embedded bit-plane coder, the inverse of parz_decode_ints: at most maxbits bits and maxprec
 * bit planes of data[0..size); returns the bits written. On the CPU the bit planes come from
 * one tile transposition per group of up to 64 values (see parz_decode_ints). codec/FORMAT.md
 * lists every place that implements this grammar. */
PARZ_HD unsigned PARZ_FN(parz_encode_ints)(parz_writer* w, unsigned maxbits, unsigned maxprec,
                                           const PARZ_UINT* PARZ_RESTRICT data, unsigned size) {
  parz_writer s = *w;
  const unsigned intprec = PARZ_W;
  unsigned kmin = intprec > maxprec ? intprec - maxprec : 0;
  unsigned bits = maxbits;
  unsigned i, k = intprec, n = 0;
#if PARZ_PLANAR
  unsigned c;
  const unsigned gs = PARZ_MIN(size, 64u), ng = size / gs, t = PARZ_MIN(gs, intprec);
  const uint64_t gmask = gs == 64 ? ~UINT64_C(0) : (UINT64_C(1) << gs) - 1;
  uint64_t pl[4][64];
  for (c = 0; c < ng; c++) {
    if (t == gs) {
      for (i = 0; i < gs; i++)
        pl[c][i] = data[gs * c + i];
    } else {
      for (i = 0; i < t; i++)
        pl[c][i] = (uint64_t)data[64 * c + i] | (uint64_t)data[64 * c + 32 + i] << 32;
    }
    parz_transpose_tiles(pl[c], t);
  }
#endif
  while (bits && k > kmin) {
    uint64_t plane[4] = {0, 0, 0, 0};
    unsigned m;
    k--;
#if PARZ_PLANAR
    for (c = 0; c < ng; c++)
      plane[c] = (pl[c][k % t] >> (t * (k / t))) & gmask;
#else
    for (i = 0; i < size; i++)
      plane[i >> 6] |= (uint64_t)((data[i] >> k) & 1u) << (i & 63u);
#endif
    /* the first n values are known significant: one raw bit each */
    m = PARZ_MIN(n, bits);
    bits -= m;
    for (i = 0; i < m; i += 64) {
      unsigned cnt = PARZ_MIN(64u, m - i);
      uint64_t v = plane[i >> 6];
      if (cnt < 64)
        v &= (UINT64_C(1) << cnt) - 1;
      parz_write_bits(&s, v, cnt);
    }
    /* the rest: group tests, each followed by the unary-coded position of the next one bit */
    while (bits && n < size) {
      unsigned lim, j;
      bits--;
      if (!parz_plane_any(plane, n, size)) {
        parz_write_bit(&s, 0);
        break;
      }
      parz_write_bit(&s, 1);
      lim = PARZ_MIN(size - 1 - n, bits);
      j = parz_plane_next(plane, n, size);
      if (j - n < lim) {
        parz_writer_pad(&s, j - n);
        parz_write_bit(&s, 1);
        bits -= j - n + 1;
        n = j + 1;
      } else {
        parz_writer_pad(&s, lim);
        bits -= lim;
        n += lim + 1;
      }
    }
  }
  *w = s;
  return maxbits - bits;
}

/* Integer block: transform (block, in place), reorder to negabinary (into u), code, pad to
 * minbits. In reversible mode the precision is the one the block needs, written in PBITS bits
 * first. */
PARZ_HD unsigned PARZ_FN(parz_encode_iblock)(parz_writer* w, unsigned minbits, unsigned maxbits,
                                             unsigned maxprec, unsigned dims, int reversible,
                                             PARZ_UINT* block, PARZ_UINT* u) {
  const unsigned char* perm = parz_perm(dims);
  unsigned size = 1u << (2 * dims);
  unsigned bits = 0, i;
  if (reversible)
    PARZ_FN(parz_rev_fwd_xform)(block, dims);
  else
    PARZ_FN(parz_fwd_xform)(block, dims);
#if defined(__CUDA_ARCH__)
  if (dims == 2) {
    /* constant indices keep both arrays in registers (see parz_decode_finish) */
    const unsigned char p2[16] = {PARZ_PERM2_LIST};
#pragma unroll
    for (i = 0; i < 16; i++)
      u[i] = PARZ_FN(parz_int2uint)(block[p2[i]]);
  } else if (dims == 3) {
    const unsigned char p3[64] = {PARZ_PERM3_LIST};
#pragma unroll
    for (i = 0; i < 64; i++)
      u[i] = PARZ_FN(parz_int2uint)(block[p3[i]]);
  } else
#endif
      if (perm) {
    for (i = 0; i < size; i++)
      u[i] = PARZ_FN(parz_int2uint)(block[perm[i]]);
  } else {
    for (i = 0; i < size; i++)
      u[i] = PARZ_FN(parz_int2uint)(block[i]);
  }
  if (reversible) {
    /* planes needed down to the lowest one bit of any coefficient */
    PARZ_UINT all = 0;
    unsigned prec;
    for (i = 0; i < size; i++)
      all |= u[i];
    prec = all ? PARZ_W - parz_ctz64((uint64_t)all) : 0u;
    prec = PARZ_MAX(PARZ_MIN(prec, maxprec), 1u);
    parz_write_bits(w, prec - 1, PARZ_PBITS);
    bits = PARZ_PBITS;
    maxprec = prec;
  }
  bits += PARZ_FN(parz_encode_ints)(w, maxbits - bits, maxprec, u, size);
  if (bits < minbits) {
    parz_writer_pad(w, minbits - bits);
    bits = minbits;
  }
  return bits;
}

/* Integer arrays (int32, int64): block is transformed in place, u is scratch. */
PARZ_HD unsigned PARZ_FN(parz_encode_sblock)(parz_writer* w, const parz_params* p, unsigned dims,
                                             PARZ_UINT* block, PARZ_UINT* u) {
  return PARZ_FN(parz_encode_iblock)(w, p->minbits, p->maxbits, p->maxprec, dims,
                                     p->minexp < PARZ_MIN_EXP, block, u);
}

/* Largest exponent in the block as zfp computes it: frexp of the largest magnitude (NaN never
 * wins the comparison; glibc's frexp gives 0 for infinity), clamped to 1 - EBIAS for
 * subnormals; -EBIAS for an all-zero block. */
PARZ_HD int PARZ_FN(parz_emax)(const PARZ_UINT* in, unsigned n) {
  const PARZ_UINT inf = (PARZ_UINT)((((PARZ_UINT)1 << PARZ_EBITS) - 1) << PARZ_MANT);
  PARZ_UINT max = 0, biased;
  unsigned i;
  for (i = 0; i < n; i++) {
    PARZ_UINT a = in[i] & ~PARZ_SIGN;
    if (a <= inf && a > max)
      max = a;
  }
  if (!max)
    return -PARZ_EBIAS;
  biased = max >> PARZ_MANT;
  if (max == inf)
    return 0;
  if (!biased)
    return 1 - PARZ_EBIAS;
  return (int)biased - (PARZ_EBIAS - 1);
}

/* Float to integer the way x86 truncating conversions behave: NaN and out-of-range values give
 * the integer indefinite (sign bit only). Only blocks of subnormals or non-finite values get
 * there, where libzfp depends on it too. */
PARZ_HD PARZ_UINT PARZ_FN(parz_trunc)(PARZ_SCALAR v) {
  const PARZ_SCALAR lim = (PARZ_SCALAR)PARZ_SIGN; /* 2^(W-1) */
  if (v >= -lim && v < lim)
    return (PARZ_UINT)(PARZ_INT)v;
  return PARZ_SIGN;
}

/* Floating point to block-floating-point: integer = trunc(value * 2^((W - 2) - emax)). */
PARZ_HD void PARZ_FN(parz_fwd_cast)(const PARZ_UINT* in, PARZ_UINT* ib, unsigned n, int emax) {
  PARZ_SCALAR s = PARZ_POW2((PARZ_W - 2) - emax);
  unsigned i;
  for (i = 0; i < n; i++)
    ib[i] = PARZ_FN(parz_trunc)((PARZ_SCALAR)(s * PARZ_FROM_BITS(in[i])));
}

/* Floating-point arrays, lossy and reversible modes: block (raw values) becomes the
 * block-floating-point integers in place, u is scratch. */
PARZ_HD unsigned PARZ_FN(parz_encode_fblock)(parz_writer* w, const parz_params* p, unsigned dims,
                                             PARZ_UINT* block, PARZ_UINT* u) {
  unsigned n = 1u << (2 * dims);
  unsigned bits = 1, i;
  int emax = PARZ_FN(parz_emax)(block, n);
  if (p->minexp >= PARZ_MIN_EXP) {
    unsigned maxprec = parz_block_precision(emax, p->maxprec, p->minexp, dims);
    unsigned e = maxprec ? (unsigned)(emax + PARZ_EBIAS) : 0u;
    if (e) {
      parz_write_bits(w, 2u * e + 1u, 1 + PARZ_EBITS);
      bits += PARZ_EBITS;
      PARZ_FN(parz_fwd_cast)(block, block, n, emax);
      bits += PARZ_FN(parz_encode_iblock)(w, p->minbits > bits ? p->minbits - bits : 0,
                                          p->maxbits - bits, maxprec, dims, 0, block, u);
    } else {
      parz_write_bit(w, 0);
      if (p->minbits > bits) {
        parz_writer_pad(w, p->minbits - bits);
        bits = p->minbits;
      }
    }
    return bits;
  }
  /* reversible: use block-floating-point only if it reproduces every bit */
  {
    int exact = 1;
    if (emax != -PARZ_EBIAS) {
      PARZ_SCALAR s = PARZ_POW2(emax - (PARZ_W - 2));
      PARZ_FN(parz_fwd_cast)(block, u, n, emax);
      for (i = 0; i < n && exact; i++)
        exact = PARZ_TO_BITS((PARZ_SCALAR)(s * (PARZ_SCALAR)(PARZ_INT)u[i])) == block[i];
    } else {
      for (i = 0; i < n; i++)
        exact &= block[i] == 0;
    }
    if (exact && emax == -PARZ_EBIAS) {
      /* all +0: one zero bit, nothing else (not even minbits padding) */
      parz_write_bit(w, 0);
      return 1;
    }
    if (exact) {
      /* 1 = nonzero, 0 = block-floating-point, then the biased exponent */
      parz_write_bits(w, 1u, 2);
      parz_write_bits(w, (unsigned)(emax + PARZ_EBIAS), PARZ_EBITS);
      bits = 2 + PARZ_EBITS;
      for (i = 0; i < n; i++)
        block[i] = u[i];
    } else {
      /* 1 = nonzero, 1 = bit patterns */
      for (i = 0; i < n; i++)
        block[i] = (block[i] & PARZ_SIGN) ? block[i] ^ PARZ_TCMASK : block[i];
      parz_write_bits(w, 3u, 2);
      bits = 2;
    }
    bits += PARZ_FN(parz_encode_iblock)(w, p->minbits > bits ? p->minbits - bits : 0,
                                        p->maxbits - bits, p->maxprec, dims, 1, block, u);
  }
  return bits;
}

/* zfp's padding of a partial block q (4^dims values, the valid ones at coordinates below m[a]
 * along each axis a, x = axis 0, already in place): axis by axis, each row of the axis within
 * the valid range of the axes above it is extended by replication, a b c -> a b c a,
 * a b -> a b b a, a -> a a a a. The CPU's gather and the GPU encoder both pad with it. */
PARZ_HD void PARZ_FN(parz_pad_block)(PARZ_UINT* q, const unsigned* m, unsigned dims) {
  unsigned a, size = 1u << (2 * dims);
  for (a = 0; a < dims; a++) {
    unsigned idx, s = 1u << (2 * a);
    if (m[a] >= 4)
      continue;
    for (idx = 0; idx < size; idx++) {
      unsigned b, ok = ((idx >> (2 * a)) & 3u) == 0;
      PARZ_UINT* r = q + idx;
      for (b = a + 1; b < dims && ok; b++)
        ok = ((idx >> (2 * b)) & 3u) < m[b];
      if (!ok)
        continue;
      switch (m[a]) {
        case 1:
          r[1 * s] = r[0];
          r[2 * s] = r[0];
          r[3 * s] = r[0];
          break;
        case 2:
          r[2 * s] = r[1 * s];
          r[3 * s] = r[0];
          break;
        default: r[3 * s] = r[0]; break;
      }
    }
  }
}

#include "block_width_end.h"
