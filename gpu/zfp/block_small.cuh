/* Window decoder for one block of at most 16 values (1D, 2D) in the modes whose bit budget cannot
 * run out inside a block (parz_skip_small_ok: fixed accuracy, fixed precision, reversible).
 *
 * The general decoder (parz_decode_ints in codec/zfp/block_decode_w.h) serves every mode, so it keeps
 * libzfp's budget arithmetic, reads through a 64-bit bounded reader and adds each bit at its
 * plane (bit << k). Here no budget can end a block, so a plane is its raw bits and group tests
 * read from a 64-bit window that always holds 32 unread bits (parz_window, block_skip.cuh), and
 * the planes shift into the values from the top one down, eight planes at a time, one shift
 * by the lowest plane at the end. The reorder, inverse transform and cast are the shared ones,
 * so the values are those of parz_decode_fblock / parz_decode_sblock bit for bit; the GPU tests
 * compare every type, rank and these modes with the CPU. codec/FORMAT.md lists every place that
 * implements the bit grammar. */
#ifndef PARZ_GPU_BLOCK_SMALL_CUH
#define PARZ_GPU_BLOCK_SMALL_CUH

#include "block_skip.cuh"

/* Decodes the block at bit `start` into out (U = uint32_t for float and int32, uint64_t for
 * double and int64; 4^DIMS raw values) and returns the bit after it. */
template <parz_type TYPE, unsigned DIMS, bool REV, typename U>
__device__ __forceinline__ unsigned long long parz_decode_block_small(const unsigned char* data,
                                                                      unsigned long long nbytes,
                                                                      unsigned long long start,
                                                                      const parz_params* p,
                                                                      U* out) {
  static_assert(DIMS <= 2, "blocks of at most 16 values");
  const bool wide = sizeof(U) == 8;
  const bool header = TYPE == PARZ_FLOAT || TYPE == PARZ_DOUBLE;
  const unsigned intprec = wide ? 64u : 32u;
  const unsigned size = 1u << (2 * DIMS);
  parz_window b = parz_window_open(data, nbytes, start);
  const parz_head h = parz_window_header<TYPE, DIMS, REV>((uint32_t)b.w, p->maxprec, p->minexp);
  if (!h.nz) {
#pragma unroll
    for (unsigned i = 0; i < size; i++)
      out[i] = 0;
    /* lossy blocks pad to minbits; reversible ones never do (parz_skip_small_ok: minbits <= 1) */
    return start + (REV ? 1u : PARZ_MAX(1u, p->minbits));
  }
  const unsigned planes = h.planes;
  parz_window_step(&b, h.adv);
  /* The top planes before the first significant coefficient are one 0 group test each: their
   * bits are zero in every value, so they are skipped at once (at most 31: the window's valid
   * bits) and only the live planes below them go round the loop. */
  const unsigned lead = PARZ_MIN(parz_window_run((uint32_t)b.w, 0, 31), planes);
  const unsigned live = planes - lead;
  parz_window_step(&b, lead);
  /* Planes go into the values most significant first, eight at a time: acc[g] holds the
   * last planes of values 4g..4g+3, one byte each (a plane's four bits spread to the bytes'
   * low bits by one multiply), and every eighth plane the bytes shift into the values. That
   * is five operations per four values and plane, against three per value. While at most
   * four coefficients are significant (n <= 4, most planes of smooth data) only acc[0] and
   * u[0..3] can hold a one: the other groups are left alone, a branch the whole warp skips
   * when none of its blocks has more. The batches count from the first live plane, so the
   * lanes of a warp merge at the same steps. */
  const unsigned groups = size / 4;
  U u[size];
  uint32_t acc[groups];
#pragma unroll
  for (unsigned i = 0; i < size; i++)
    u[i] = 0;
#pragma unroll
  for (unsigned g = 0; g < groups; g++)
    acc[g] = 0;
  unsigned n = 0;
  for (unsigned j = 0; j < live; j++) {
    uint32_t lo = (uint32_t)b.w;
    uint32_t x = lo & ((1u << n) - 1u); /* the raw bits; n <= 16 */
    unsigned adv = n;
    if (n < size) {
      /* group tests: a 0 ends the plane; a 1 is followed by zeros up to the next significant
       * coefficient, at most lim of them (the last coefficient needs no terminating one): a
       * stop bit at lim makes z = min(run, lim) */
      unsigned off = n;
      for (;;) {
        const unsigned lim = size - 1 - n;
        const unsigned g = (lo >> off) & 1u;
        const unsigned z = parz_window_run(lo, off + 1, lim);
        if (!g) {
          adv = off + 1;
          break;
        }
        n += z;
        x |= 1u << n;
        n++;
        if (z == lim) {
          adv = off + 1 + lim; /* n == size */
          break;
        }
        /* the next test follows this event, still inside lo: a whole plane of at most 16
         * values fits in 32 bits. With n significant coefficients after it and k 1 tests in
         * it, it is n + k + 1 bits, or n + k - 1 when its last event reaches the last
         * coefficient, and k <= n; so at most 31. The furthest bit read, a run's stop bit at
         * off + 1 + lim, is 16 plus the events so far, at most 31 too. */
        off += 2 + z;
      }
    }
    parz_window_step(&b, adv);
    acc[0] = 2 * acc[0] + (((x & 15u) * 0x00204081u) & 0x01010101u);
    if (groups > 1 && n > 4) {
#pragma unroll
      for (unsigned g = 1; g < groups; g++)
        acc[g] = 2 * acc[g] + ((((x >> (4 * g)) & 15u) * 0x00204081u) & 0x01010101u);
    }
    if ((j & 7u) == 7u) {
#pragma unroll
      for (unsigned i = 0; i < 4; i++)
        u[i] = (U)(u[i] << 8) | ((acc[0] >> (8 * i)) & 0xffu);
      acc[0] = 0;
      if (groups > 1 && n > 4) {
#pragma unroll
        for (unsigned i = 4; i < size; i++)
          u[i] = (U)(u[i] << 8) | ((acc[i / 4] >> (8 * (i % 4))) & 0xffu);
#pragma unroll
        for (unsigned g = 1; g < groups; g++)
          acc[g] = 0;
      }
    }
  }
  /* the last live % 8 planes, then the lowest plane's weight (planes <= intprec; no shift
   * when no plane is coded, whose values are zero) */
  const unsigned rest = live & 7u;
  const unsigned kmin = planes > 0 ? intprec - planes : 0u;
#pragma unroll
  for (unsigned i = 0; i < size; i++)
    u[i] = (U)((U)(u[i] << rest) | ((acc[i / 4] >> (8 * (i % 4))) & 0xffu)) << kmin;
  const uint32_t at = PARZ_MAX(b.at, p->minbits);
  if constexpr (wide) {
    parz_decode_finish64(u, DIMS, REV, out);
    if (header && h.patterns)
      parz_rev_patterns64(out, size);
    else if (header)
      parz_inv_cast64(out, out, size, h.emax);
  } else {
    parz_decode_finish32(u, DIMS, REV, out);
    if (header && h.patterns)
      parz_rev_patterns32(out, size);
    else if (header)
      parz_inv_cast32(out, out, size, h.emax);
  }
  return start + at;
}

#endif
