/* Pieces shared by the block encoder and the block decoder (internal, header-only).
 *
 * Contract: everything here compiles as C99 and as CUDA C++ (nvcc), so that the GPU decoder can
 * #include block_decode.h and run literally the same code as the CPU. Hence: functions are
 * PARZ_HD (static inline, plus __host__ __device__ under nvcc), no VLAs, no libc calls, no C-only
 * syntax, fixed-size local arrays only, explicit casts everywhere. Lookup tables exist twice
 * under nvcc (host copy and __constant__ copy) and PARZ_TABLE() picks the right one in each
 * compilation pass.
 */
#ifndef PARZ_BLOCK_COMMON_H
#define PARZ_BLOCK_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "parz.h"

#if defined(__CUDACC__)
#define PARZ_HD static __host__ __device__ __forceinline__
#define PARZ_RESTRICT __restrict__
#elif defined(__cplusplus)
#define PARZ_HD static inline
#define PARZ_RESTRICT __restrict
#elif defined(__GNUC__)
/* forced inlining lets the rank and type become constants inside each block function */
#define PARZ_HD static inline __attribute__((always_inline))
#define PARZ_RESTRICT restrict
#else
#define PARZ_HD static inline
#define PARZ_RESTRICT restrict
#endif

/* A host function kept out of its callers: a rare path that would crowd a hot loop's registers. */
#if defined(__GNUC__) || defined(__clang__)
#define PARZ_NOINLINE __attribute__((noinline))
#else
#define PARZ_NOINLINE
#endif

/* Table access: device code reads the __constant__ copy, host code the ordinary one. */
#if defined(__CUDA_ARCH__)
#define PARZ_TABLE(name) name##_dev
#else
#define PARZ_TABLE(name) name
#endif

#if defined(__CUDACC__)
#define PARZ_DEFINE_TABLE(type, name, n, list) \
  static const type name[n] = {list};          \
  static __constant__ type name##_dev[n] = {list};
#else
#define PARZ_DEFINE_TABLE(type, name, n, list) static const type name[n] = {list};
#endif

#define PARZ_MIN(a, b) ((a) < (b) ? (a) : (b))
#define PARZ_MAX(a, b) ((a) > (b) ? (a) : (b))

/* a * b rounded once and never fused with an addition that follows it: nvcc contracts a product
 * and a sum into one FMA, which rounds once where the CPU rounds twice, and a value guessed or
 * checked from the other result may differ. The encoders' arithmetic that the CPU and the GPU
 * must agree on multiplies through it. */
PARZ_HD double parz_mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

/* Number of trailing zero bits of a nonzero word. */
PARZ_HD unsigned parz_ctz64(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return (unsigned)(__ffsll((long long)x) - 1);
#elif defined(__GNUC__) || defined(__clang__)
  return (unsigned)__builtin_ctzll(x);
#else
  unsigned n = 0;
  while (!(x & 1u)) {
    x >>= 1;
    n++;
  }
  return n;
#endif
}

/* Number of significant bits (0 for 0). */
PARZ_HD unsigned parz_bitlen64(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return (unsigned)(64 - __clzll((long long)x));
#elif defined(__GNUC__) || defined(__clang__)
  return x ? (unsigned)(64 - __builtin_clzll(x)) : 0u;
#else
  unsigned n = 0;
  while (x) {
    x >>= 1;
    n++;
  }
  return n;
#endif
}

/* On the CPU the bit-plane coders move whole bit planes and transpose them (see
 * parz_transpose_tiles), which is cheaper than touching every value once per bit plane. On the
 * GPU the 2 KiB of planes per thread would spill, so device code deposits bit by bit instead;
 * both produce the same values. */
#if !defined(PARZ_PLANAR)
#if defined(__CUDA_ARCH__)
#define PARZ_PLANAR 0
#else
#define PARZ_PLANAR 1
#endif
#endif

/* Host C code built by gcc or clang runs the inverse transform on vectors of four values (GNU
 * vector extensions, which the compiler maps onto whatever vector unit the target has, SSE2 at
 * least on x86-64); device code, C++ and other compilers run the scalar lifts. Both compute the
 * same integers: the lanes are independent lifts, in the same order of operations. */
#if !defined(PARZ_VECTOR)
#if !defined(__CUDACC__) && !defined(__cplusplus) && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define PARZ_VECTOR 1
#endif
#endif
#endif
#if !defined(PARZ_VECTOR)
#define PARZ_VECTOR 0
#endif

/* One round of parz_transpose_tiles: swaps the off-diagonal j x j sub-tiles (mask m selects
 * the low j bits of every 2j) of the rows hi + lo and hi + lo + j. */
PARZ_HD void parz_transpose_round(uint64_t* a, unsigned n, unsigned j, uint64_t m) {
  unsigned hi, lo;
  /* rows hi + lo and hi + lo + j; consecutive lo are independent (vector code) */
  for (hi = 0; hi < n; hi += 2 * j)
    for (lo = hi; lo < hi + j; lo++) {
      uint64_t t = ((a[lo] >> j) ^ a[lo + j]) & m;
      a[lo] ^= t << j;
      a[lo + j] ^= t;
    }
}

/* Transposes the n x n bit tiles of rows a[0..n) in place (n = 4, 16, 32 or 64): row r holds
 * 64/n tiles side by side, and afterwards bit t*n + i of a[k] is what bit t*n + k of a[i] was.
 * With n = 64 this turns 64 values into their 64 bit planes and back; smaller tiles do the
 * same for blocks of 4 or 16 values (several planes per row) and for 32-bit values (two
 * groups of 32 values per row) without wasting work on zero bits. log2(n) rounds of masked
 * swaps, each swapping the off-diagonal sub-tiles of half the size of the previous round; one
 * call per round with a literal sub-tile side and mask, so that with a constant n every loop
 * has constant bounds and unrolls. */
/* The rounds of a transposition of n x n tiles, each a call of round(a, n, side, mask) (one
 * per round, shared by the word and the pair versions). */
#define PARZ_TRANSPOSE_ROUNDS(round, a, n)           \
  do {                                               \
    if ((n) > 32)                                    \
      round(a, n, 32, UINT64_C(0x00000000ffffffff)); \
    if ((n) > 16)                                    \
      round(a, n, 16, UINT64_C(0x0000ffff0000ffff)); \
    if ((n) > 8)                                     \
      round(a, n, 8, UINT64_C(0x00ff00ff00ff00ff));  \
    if ((n) > 4)                                     \
      round(a, n, 4, UINT64_C(0x0f0f0f0f0f0f0f0f));  \
    round(a, n, 2, UINT64_C(0x3333333333333333));    \
    round(a, n, 1, UINT64_C(0x5555555555555555));    \
  } while (0)

PARZ_HD void parz_transpose_tiles(uint64_t* a, unsigned n) {
  PARZ_TRANSPOSE_ROUNDS(parz_transpose_round, a, n);
}

#if PARZ_VECTOR
/* Two 64-bit rows side by side (SSE2 on x86-64): parz_transpose_tiles on pairs of rows. */
typedef uint64_t parz_pair __attribute__((vector_size(16)));

PARZ_HD parz_pair parz_pair_of(uint64_t x) {
  parz_pair v = {x, x};
  return v;
}

/* Rows a[0], a[1], numbered row and row + 1, with the rows below k read as zero (planes that
 * were not decoded, whose rows hold garbage). */
PARZ_HD parz_pair parz_pair_load(const uint64_t* a, unsigned row, unsigned k) {
  parz_pair v = {row < k ? 0 : a[0], row + 1 < k ? 0 : a[1]};
  return v;
}

/* One round of parz_transpose_pairs: parz_transpose_round on pairs. For j >= 2 rows lo and
 * lo + j sit in the same lane of pairs lo / 2 and (lo + j) / 2; for j == 1 they share a pair,
 * and the lanes of two pairs are interleaved before and after. */
PARZ_HD void parz_transpose_pairs_round(parz_pair* v, unsigned n, unsigned j, uint64_t mask) {
  const parz_pair m = parz_pair_of(mask);
  unsigned hi, q;
  for (hi = 0; hi < n / 2; hi += j == 1 ? 2 : j)
    for (q = hi; q < hi + (j == 1 ? 1 : j / 2); q++) {
      parz_pair x = j == 1 ? __builtin_shufflevector(v[q], v[q + 1], 0, 2) : v[q];
      parz_pair y = j == 1 ? __builtin_shufflevector(v[q], v[q + 1], 1, 3) : v[q + j / 2];
      parz_pair t = ((x >> j) ^ y) & m;
      x ^= t << j;
      y ^= t;
      if (j == 1) {
        v[q] = __builtin_shufflevector(x, y, 0, 2);
        v[q + 1] = __builtin_shufflevector(x, y, 1, 3);
      } else {
        v[q] = x;
        v[q + j / 2] = y;
      }
    }
}

/* parz_transpose_tiles of the n rows in pairs v[0 .. n / 2) (n = 16, 32 or 64). */
PARZ_HD void parz_transpose_pairs(parz_pair* v, unsigned n) {
  PARZ_TRANSPOSE_ROUNDS(parz_transpose_pairs_round, v, n);
}
#endif

/* Below this many stream bits per group of gs values, a decoder that collected bit planes for
 * tiles of side t sets the (at most as many) one bits individually instead of transposing.
 * The transposition costs about t log2(t) / 2 word swaps plus one copy per value; on the real
 * arrays (bench_codec) the two break even near t * t / 8 bits for t = 16 and 32 and near
 * t * t / 16 for t = 64 (64 double values, whose one bits come in long runs of planes per
 * value), and near 64 bits for 64 values in 16 x 16 tiles (at most 16 planes, 3D and 4D). */
#ifndef PARZ_SPARSE_BITS
#define PARZ_SPARSE_BITS(t, gs) \
  ((t) == 64u ? (t) * (t) / 16u : (t) == 16u && (gs) == 64u ? 64u : (t) * (t) / 8u)
#endif

/* Little-endian 64-bit word loads and stores, byte by byte: correct on any host and alignment,
 * and compiled to a single move on little-endian machines. */
PARZ_HD uint64_t parz_word_load(const unsigned char* p) {
#if defined(__CUDA_ARCH__)
  /* Device code reads little-endian words from an 8-byte aligned payload (the GPU entry points
   * require an aligned chunk and every chunk section is 8-byte aligned): one load through the
   * read-only cache instead of eight byte loads. */
  if (((uintptr_t)p & 7u) == 0)
    return (uint64_t)__ldg((const unsigned long long*)p);
#endif
  return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) | ((uint64_t)p[3] << 24) |
         ((uint64_t)p[4] << 32) | ((uint64_t)p[5] << 40) | ((uint64_t)p[6] << 48) |
         ((uint64_t)p[7] << 56);
}

PARZ_HD void parz_word_store(unsigned char* p, uint64_t v) {
#if defined(__CUDA_ARCH__)
  /* the GPU encoder's streams are 8-byte aligned: one store instead of eight */
  if (((uintptr_t)p & 7u) == 0) {
    *(unsigned long long*)p = (unsigned long long)v;
    return;
  }
#endif
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
  p[2] = (unsigned char)(v >> 16);
  p[3] = (unsigned char)(v >> 24);
  p[4] = (unsigned char)(v >> 32);
  p[5] = (unsigned char)(v >> 40);
  p[6] = (unsigned char)(v >> 48);
  p[7] = (unsigned char)(v >> 56);
}

/* n (0..64) bits of the word stream s from bit pos, in the low bits; the caller guarantees that
 * the stream holds pos + n bits, so no word past them is read. */
PARZ_HD uint64_t parz_bits_get(const unsigned char* s, uint64_t pos, unsigned n) {
  uint64_t q = pos >> 6, w;
  unsigned r = (unsigned)(pos & 63u);
  if (n == 0)
    return 0;
  w = parz_word_load(s + 8 * q) >> r;
  if (r && r + n > 64)
    w |= parz_word_load(s + 8 * (q + 1)) << (64 - r);
  return n < 64 ? w & ((UINT64_C(1) << n) - 1) : w;
}

/* Float <-> bit pattern without type punning through pointers. */
PARZ_HD uint32_t parz_f32_bits(float f) {
  union {
    float f;
    uint32_t u;
  } v;
  v.f = f;
  return v.u;
}
PARZ_HD float parz_f32_from(uint32_t u) {
  union {
    float f;
    uint32_t u;
  } v;
  v.u = u;
  return v.f;
}
PARZ_HD uint64_t parz_f64_bits(double f) {
  union {
    double f;
    uint64_t u;
  } v;
  v.f = f;
  return v.u;
}
PARZ_HD double parz_f64_from(uint64_t u) {
  union {
    double f;
    uint64_t u;
  } v;
  v.u = u;
  return v.f;
}

/* 2^e exactly as ldexp(1, e) rounds it: subnormal or zero below the normal range, +inf above. */
PARZ_HD float parz_pow2f(int e) {
  if (e > 127)
    return parz_f32_from(0x7f800000u);
  if (e >= -126)
    return parz_f32_from((uint32_t)(e + 127) << 23);
  if (e >= -149)
    return parz_f32_from((uint32_t)1 << (e + 149));
  return 0.0f;
}
PARZ_HD double parz_pow2(int e) {
  if (e > 1023)
    return parz_f64_from(UINT64_C(0x7ff0000000000000));
  if (e >= -1022)
    return parz_f64_from((uint64_t)(e + 1023) << 52);
  if (e >= -1074)
    return parz_f64_from((uint64_t)1 << (e + 1074));
  return 0.0;
}

/* zfp's block precision: how many bit planes a block with largest exponent emax gets. The sum is
 * done with 32-bit wraparound, as libzfp's int arithmetic behaves for absurd minexp values. */
PARZ_HD unsigned parz_block_precision(int emax, unsigned maxprec, int minexp, unsigned dims) {
  int32_t p = (int32_t)((uint32_t)emax - (uint32_t)minexp + 2u * dims + 2u);
  unsigned q = p > 0 ? (unsigned)p : 0u;
  return PARZ_MIN(maxprec, q);
}

/* Array loops specialize on the scalar type and the rank: `switch (PARZ_KIND(type, dims))`
 * over PARZ_EACH_KIND(X), where X(type, dims) expands to one case. */
#define PARZ_KIND(type, dims) (4u * (unsigned)(type) + (unsigned)(dims)-1u)
/* clang-format off */
#define PARZ_EACH_KIND(X)                                                                      \
  X(PARZ_FLOAT, 1) X(PARZ_FLOAT, 2) X(PARZ_FLOAT, 3) X(PARZ_FLOAT, 4)                          \
  X(PARZ_DOUBLE, 1) X(PARZ_DOUBLE, 2) X(PARZ_DOUBLE, 3) X(PARZ_DOUBLE, 4)                      \
  X(PARZ_INT32, 1) X(PARZ_INT32, 2) X(PARZ_INT32, 3) X(PARZ_INT32, 4)                          \
  X(PARZ_INT64, 1) X(PARZ_INT64, 2) X(PARZ_INT64, 3) X(PARZ_INT64, 4)
/* clang-format on */

/* Order in which the coefficients of a transformed block are coded (see block_perm.h); 1D
 * blocks are coded in place. */
#include "block_perm.h"
PARZ_DEFINE_TABLE(unsigned char, parz_perm2, 16, PARZ_PERM2_LIST)
PARZ_DEFINE_TABLE(unsigned char, parz_perm3, 64, PARZ_PERM3_LIST)
PARZ_DEFINE_TABLE(unsigned char, parz_perm4, 256, PARZ_PERM4_LIST)

/* The coding order for a rank: NULL means identity (1D). */
PARZ_HD const unsigned char* parz_perm(unsigned dims) {
  switch (dims) {
    case 2: return PARZ_TABLE(parz_perm2);
    case 3: return PARZ_TABLE(parz_perm3);
    case 4: return PARZ_TABLE(parz_perm4);
    default: return (const unsigned char*)0;
  }
}

#endif
