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

/* The bits of v in reverse order, and the count of leading zeros of v != 0: the device's
 * instructions, and their portable forms where the window decoder runs on the host (tests). */
__device__ __forceinline__ uint32_t parz_brev(uint32_t v) {
#ifdef __CUDA_ARCH__
  return __brev(v);
#else
  v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
  v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
  v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
  v = ((v >> 8) & 0x00ff00ffu) | ((v & 0x00ff00ffu) << 8);
  return (v >> 16) | (v << 16);
#endif
}

__device__ __forceinline__ unsigned parz_clz(uint32_t v) {
#ifdef __CUDA_ARCH__
  return (unsigned)__clz((int)v);
#else
  return (unsigned)__builtin_clz(v);
#endif
}

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
  /* The top planes before the first significant coefficient are one 0 group test each: their
   * bits are zero in every value, so they are skipped with the header, in one step (as many
   * as the window's valid bits after the header show, 32 - h.adv), and only the live planes
   * below them go round the loop. */
  const unsigned lead =
      PARZ_MIN(parz_window_run((uint32_t)(b.w >> h.adv), 0, 31 - h.adv), planes);
  const unsigned live = planes - lead;
  parz_window_step(&b, h.adv + lead);
  /* Planes go into the values most significant first, eight at a time: acc[g] holds the
   * last planes of values 4g..4g+3, one byte each (a plane's four bits spread to the bytes'
   * low bits by one multiply), and every eighth plane the bytes shift into the values. That
   * is five operations per four values and plane, against three per value. While at most
   * four coefficients are significant (n <= 4, most planes of smooth data) only acc[0] and
   * u[0..3] can hold a one: in the lossy modes the other groups are left alone then, a
   * branch the whole warp skips when none of its blocks has more (reversible blocks, nearly
   * incompressible, reach n > 4 within a few planes: no branch there). The batches count
   * from the first live plane, so the lanes of a warp merge at the same steps. A batch is a
   * loop of its own, whose test is then the only one a plane pays; the last batch, full or
   * not, is merged after the loop. */
  const unsigned groups = size / 4;
  U u[size];
  uint32_t acc[groups];
#pragma unroll
  for (unsigned i = 0; i < size; i++)
    u[i] = 0;
#pragma unroll
  for (unsigned g = 0; g < groups; g++)
    acc[g] = 0;
  unsigned n = 0, left = live, batch;
  for (;;) {
    batch = PARZ_MIN(left, 8u);
#pragma unroll 1
    for (unsigned j = 0; j < batch; j++) {
      const uint32_t lo = (uint32_t)b.w;
      /* the raw bits (n <= 16), then the group tests: a 0 ends the plane; a 1 is followed by
     * zeros up to the next significant coefficient, at most lim = size - 1 - n of them (the
     * last coefficient needs no terminating one). The tests run on the plane's bits reversed
     * (rb), so that a test is the sign of t and its run a count of leading zeros: t holds the
     * bits from the next test on, q is that test's place in the plane. stop, the bit below
     * which the run must end (30 - lim in t), is 1 << (31 - size + n): an event of c = z + 1
     * bits moves it up by c, and its top place is n == size, which ends the plane with no
     * terminating one. The bit of the coefficient an event adds, 1 << (n - 1), is
     * stop >> (32 - size). A plane is at most 31 bits: with n significant coefficients after
     * it and k 1 tests in it, n + k + 1, or n + k - 1 when its last event reaches the last
     * coefficient, and k <= n; so every test and every run's end lies inside lo. */
      uint32_t x = lo & ((1u << n) - 1u);
      unsigned adv = n;
      if (n < size) { /* else a raw plane (reversible blocks end in many) */
        const uint32_t rb = parz_brev(lo);
        uint32_t t = rb << n;
        uint32_t stop = (1u << (31 - size)) << n;
        uint32_t news = 0;
        unsigned q = n;
        while (t & ~stop & 0x80000000u) { /* a 1 test, and a coefficient left */
          const unsigned c = parz_clz((t & 0x7fffffffu) | stop);
          stop <<= c;
          news |= stop;
          q += c + 1;
          t = (t << c) << 1;
        }
        n = size - parz_clz(stop);
        x |= news >> (32 - size);
        adv = n == size ? q - 1 : q + 1;
      }
      parz_window_step(&b, adv);
      acc[0] = 2 * acc[0] + (((x & 15u) * 0x00204081u) & 0x01010101u);
      if (groups > 1 && (REV || n > 4)) {
#pragma unroll
        for (unsigned g = 1; g < groups; g++)
          acc[g] = 2 * acc[g] + ((((x >> (4 * g)) & 15u) * 0x00204081u) & 0x01010101u);
      }
    }
    left -= batch;
    if (left == 0)
      break;
#pragma unroll
    for (unsigned i = 0; i < 4; i++)
      u[i] = (U)(u[i] << 8) | ((acc[0] >> (8 * i)) & 0xffu);
    acc[0] = 0;
    if (groups > 1 && (REV || n > 4)) {
#pragma unroll
      for (unsigned i = 4; i < size; i++)
        u[i] = (U)(u[i] << 8) | ((acc[i / 4] >> (8 * (i % 4))) & 0xffu);
#pragma unroll
      for (unsigned g = 1; g < groups; g++)
        acc[g] = 0;
    }
  }
  /* the last batch's planes (none where no plane is live), then the lowest plane's weight
   * (planes <= intprec; no shift when no plane is coded, whose values are zero) */
  const unsigned rest = batch;
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
