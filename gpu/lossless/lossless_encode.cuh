/* The lossless codec's GPU encoder, its steps one thread's or one lane's work each (PARZ_HD) and
 * the host's between them, so that tests/test_gpu_lossless_encode_host.cpp runs the same steps
 * on the CPU and checks the chunks against parz_chunk_encode where no GPU is.
 * lossless_encode.cu launches them.
 *
 * A chunk is built as the CPU builds it (codec/lossless/lossless_codec.c, prepare and
 * encode_segments; codec/lossless/residual_coder.c, parz_ll_code_residuals), with the CPU's own
 * arithmetic (codec/lossless/lossless_forward.h, residual_encode.h, codec/entropy/
 * huffman_build.h) and the frame's own host functions where a step is the whole chunk's:
 *   transform  the scales whose check the first 256 values pass (the CPU's parz_ll_scale_fits:
 *              a CTA per scale, a thread per value), a bit each; the first of them valid for the
 *              type is taken by the steps below from those bits (parz_gpu_ll.passed) before it
 *              is checked on every value, the residual step checking it as it reads each value,
 *              so that the host waits once for the probe, the check, the measure and the
 *              segments' sizes; where a value misses it, the second
 *              is taken the same way; where a value misses that too, the others are checked at
 *              once (a thread per value), the first that fits every value taken
 *              (parz_ll_choose_transform's choice), and the steps below run again;
 *   predictor  for an array of two dimensions of extent above 1 or more asked for predictor 0,
 *              a thread per value of the sampled blocks (and no other) finds the bit lengths of
 *              its residuals under predictors 0 and 3, summed over its CTA and added once
 *              (parz_ll_rows_measure's sums); where predictor 3's sum
 *              is the smaller, the residuals and segments below are made under both and the
 *              smaller chunk kept (parz_ll_rows_smaller: parz_ll_choose_predictor's choice);
 *   residuals  a CTA per block: a thread per value reads it (through the array's strides, in
 *              one load where the array is aligned to its values' size) and
 *              keeps its transformed integer in shared memory; then a thread per value takes
 *              its Lorenzo prediction inside the block from there, zigzagged, to its place in
 *              block order (its first residual from the block's place in the grid, into
 *              block_at for the segments);
 *   segments   a CTA per segment: its threads count the residuals' bit lengths per context into
 *              copies of its counts in shared memory, a warp's own where they fit, then added
 *              (parz_gpu_ll_parts), a thread a few neighbouring residuals at a time, each of
 *              their keys added once (parz_gpu_ll_counter_of); a warp per code (coder 2's contexts, coder 1's single code)
 *              builds it (the CPU's builder's steps, parz_huff_small_lengths, spread over its
 *              lanes) and sums its bits; every thread takes the CPU's choice;
 *              raw segments are written a residual per thread; otherwise the segment is cut
 *              into pieces of 64 residuals, a warp taking a group of four, eight neighbouring
 *              residuals a lane in its registers: each piece's bits added from its lanes', then
 *              per run (coder 3; a run of zero residuals takes none and makes the segment coder
 *              4's) or for the segment of one run their offsets, the runs' places by thread 0
 *              with the head's first bytes, coder 3's code lengths a byte per thread, and each
 *              lane, its first bit from its group's offset and the warp's prefix sum, ORs its
 *              residuals' bits into zeroed words at their place; all into the segment's slot of
 *              its raw size;
 *   payload    a CTA scans the segments' bytes into their places (while the host reads them);
 *              on the host their sum, the layout (parz_chunk_settle) and the chunk's size; a CTA
 *              per segment copies its slot to its place (a call's one chunk: in the chunk's own
 *              place), each payload word written once;
 *   sums       the frame's payload sums (gpu/checksum.cu, parz_gpu_enqueue_sums);
 *   head       on the host, with the frame's functions (gpu/encode_whole.h); for a call's one
 *              chunk, up into its place before the sums are added into it there, and its
 *              header's CRC-32C taken in two parts, the host's from the other bytes and the
 *              GPU's from the sums (head_crc.h, whole_memory.h).
 * What this encoder does not do is refused with PARZ_ERR_UNSUPPORTED, naming it, before any
 * work: a series (one dimension of extent above 1) whose predictor is the encoder's choice (the
 * CPU tries Holt's predictor and the dictionary there), segments of more than 32 blocks, chunks
 * of 2^32 values or more, runs other than the writers' (parz_codec_settings.run_q). Its callers encode such a chunk on the CPU. Internal to gpu/. */
#ifndef PARZ_GPU_LOSSLESS_ENCODE_CUH
#define PARZ_GPU_LOSSLESS_ENCODE_CUH

#include <string.h>

#include <vector>

#include "checksum.h"
#include "codecs.h"
#include "encode_whole.h"
#include "lorenzo.h"
#include "lossless.h"
#include "lossless_codec.h"
#include "lossless_forward.h"
#include "residual_encode.h"
#include "table.h"
#include "transform.h"

#if defined(__CUDA_ARCH__)
#define PARZ_GPU_LL_ADD(p, v) atomicAdd((p), (v))
#define PARZ_GPU_LL_OR(p, v) atomicOr((p), (v))
#else
#define PARZ_GPU_LL_ADD(p, v) (*(p) += (v))
#define PARZ_GPU_LL_OR(p, v) (*(p) |= (v))
#endif

/* Threads of a segment's CTA. */
#define PARZ_GPU_LL_THREADS 256u
/* Neighbouring residuals a thread of a segment's CTA counts a round, read before it counts any. */
#define PARZ_GPU_LL_KEYS 4u
/* Residuals per piece, whose offset in its run the sizes give: coder 3's runs are whole pieces. */
#define PARZ_GPU_LL_PIECE 64u
/* Neighbouring residuals a lane of segment_kernel sizes and writes, read at once; the pieces a
 * warp takes at once (half a run, so that a run holds whole groups). */
#define PARZ_GPU_LL_LANE 8u
#define PARZ_GPU_LL_GROUP (32u * PARZ_GPU_LL_LANE / PARZ_GPU_LL_PIECE)
/* Coder 3's runs a segment may have (segments of up to 32 blocks), and its pieces. */
#define PARZ_GPU_LL_RUNS_MAX 256u
#define PARZ_GPU_LL_PIECES_MAX (PARZ_GPU_LL_RUNS_MAX * (PARZ_LL_RUN / PARZ_GPU_LL_PIECE))
/* Values of the transform's probe (parz_ll_choose_transform's), a thread each of a CTA per
 * scale. */
#define PARZ_GPU_LL_PROBE 256u

/* One chunk's part in the kernels. */
struct parz_gpu_ll {
  parz_ll_geometry g;
  const void* src; /* the values */
  ptrdiff_t st[4]; /* their elements apart along g's dimensions */
  unsigned transform;
  double scale;
  unsigned long long n;               /* values */
  unsigned long long C, nseg;         /* blocks per segment, segments */
  unsigned long long* block_at;       /* blocks + 1: each block's first residual (the residual
                                       * step's), then the count of all */
  uint64_t* z;                        /* the residuals, in block order */
  uint8_t* slots;                     /* a slot of `slot` bytes per segment */
  unsigned long long slot;            /* a segment's raw bytes at most */
  unsigned long long* seg_bytes;      /* per segment */
  const unsigned long long* seg_at;   /* each segment's first byte, then the payload's end */
  unsigned char* payload;             /* the payload's memory, whatever it holds before */
  unsigned long long payload_words;   /* its 4-byte words */
  /* where set, 1 ORed into it by the residual step for a value the scale misses (the segments
   * and the measure then left undone) */
  unsigned* misfit;
  /* where set, the transform is the first of the probe's scales (*passed: bit k - 1 for transform
   * k) that is valid for the type (`valid`, the same bits), 0 where none is, in place of
   * transform and scale: the kernels take it behind the probe, the host not waiting for it */
  const unsigned long long* passed;
  unsigned long long valid;
  /* src is aligned to its elements' size: the residual step reads each value in one load */
  int aligned;
};

/* Codes built at once in a segment's CTA, a warp each: coder 2's 9 contexts and coder 1's code
 * of 32-bit values in two rounds, their 17 and 1 of 64-bit values in three. */
#define PARZ_GPU_LL_BUILDS 6u
/* Lanes of a warp that builds a code. */
#define PARZ_GPU_LL_LANES 32u
/* Items of a level of package-merge: 2m - 2 for m used symbols. */
#define PARZ_GPU_LL_ITEMS (2u * PARZ_HUFF_SMALL - 2u)

/* One warp's code while it is built (parz_huff_small_lengths's steps, spread over its lanes):
 * the counts per symbol; the used symbols as leaves in parz_huff_leaf_before's order (weights,
 * symbols) and their depths; Huffman's merged nodes (node m + k's weight at nw[k], where
 * package-merge keeps its packages) and each leaf's and node's parent; package-merge's items of
 * the level below and a bit per item of each level that is a package; the symbols per length. */
struct parz_gpu_ll_build {
  uint64_t lw[PARZ_HUFF_SMALL];
  uint64_t nw[PARZ_HUFF_SMALL - 1];
  uint64_t item[PARZ_GPU_LL_ITEMS];
  uint32_t f[PARZ_HUFF_SMALL];
  uint32_t pkg[PARZ_LL_CODE_MAX][(PARZ_GPU_LL_ITEMS + 31) / 32];
  uint32_t per_len[PARZ_LL_CODE_MAX + 1];
  uint8_t sym[PARZ_HUFF_SMALL], depth[PARZ_HUFF_SMALL];
  uint8_t parent[2 * PARZ_HUFF_SMALL];
};

/* A segment's pieces: their bits (then offsets) and whether each holds a residual other than 0. */
struct parz_gpu_ll_pieces_of {
  uint32_t piece[PARZ_GPU_LL_PIECES_MAX];
  uint8_t nonzero[PARZ_GPU_LL_PIECES_MAX];
};

/* A segment's CTA's shared state: its counts per context, both coders' codes, each code's bits,
 * the counts' copies (parz_gpu_ll_parts), then in the same bytes the codes' builds and then its
 * pieces; its runs' places (bytes). */
struct parz_gpu_ll_seg {
  uint32_t freq[PARZ_LL_CONTEXTS][65];
  uint8_t len[2][PARZ_LL_CONTEXTS][65];
  uint32_t code[2][PARZ_LL_CONTEXTS][65];
  uint64_t bits[PARZ_LL_CONTEXTS + 1]; /* coder 2's contexts, then coder 1's code */
  union {
    uint32_t part[sizeof(parz_gpu_ll_build) * PARZ_GPU_LL_BUILDS / 4];
    parz_gpu_ll_build build[PARZ_GPU_LL_BUILDS];
    parz_gpu_ll_pieces_of pc;
  };
  uint32_t run_at[PARZ_GPU_LL_RUNS_MAX + 1];
};

/* ---------------- per thread: the transform's check, the residuals ---------------- */

/* The first scale of `passed` that is valid (bit k - 1 for transform k), 0 where none is: the first
 * of parz_gpu_ll_scales'. */
PARZ_HD unsigned parz_gpu_ll_first_scale(uint64_t passed, uint64_t valid) {
  const uint64_t x = passed & valid;
#if defined(__CUDA_ARCH__)
  return x ? (unsigned)__ffsll((long long)x) : 0u;
#else
  return x ? (unsigned)__builtin_ctzll(x) + 1 : 0u;
#endif
}

/* The transform the kernels of L take and its scale (parz_gpu_ll.passed). */
struct parz_gpu_ll_xf {
  unsigned k;
  double scale;
};
PARZ_HD parz_gpu_ll_xf parz_gpu_ll_xf_of(const parz_gpu_ll& L) {
  parz_gpu_ll_xf x;
  x.k = L.passed ? parz_gpu_ll_first_scale(*L.passed, L.valid) : L.transform;
  x.scale = L.passed ? parz_ll_scale_of(x.k) : L.scale;
  return x;
}

/* Value i's coordinates (C order) in g's dimensions into x; its elements from L.src. A chunk
 * holds fewer than 2^32 values (parz_gpu_ll_plan_of), so that 32-bit divisions do. */
PARZ_HD ptrdiff_t parz_gpu_ll_place(const parz_gpu_ll& L, unsigned long long i, size_t x[4]) {
  ptrdiff_t at = 0;
  uint32_t r = (uint32_t)i;
  for (int k = 3; k >= 0; k--) {
    const uint32_t e = (uint32_t)L.g.n[k];
    x[k] = r % e;
    r /= e;
    at += (ptrdiff_t)x[k] * L.st[k];
  }
  return at;
}

/* Whether the value `at` elements from L.src fits the scale s (transform.h's scaled integers):
 * float types only. */
PARZ_HD int parz_gpu_ll_fits_at(const parz_gpu_ll& L, ptrdiff_t at, double s) {
  if (L.g.type == PARZ_DOUBLE) {
    double v;
    uint64_t b;
    memcpy(&b, (const unsigned char*)L.src + 8 * at, 8);
    memcpy(&v, &b, 8);
    return parz_ll_fits64(v, b, s);
  }
  float v;
  uint32_t b;
  memcpy(&b, (const unsigned char*)L.src + 4 * at, 4);
  memcpy(&v, &b, 4);
  return parz_ll_fits32(v, b, s);
}

/* Whether value i (C order) fits the scale s: float types only. */
PARZ_HD int parz_gpu_ll_fits(const parz_gpu_ll& L, unsigned long long i, double s) {
  size_t x[4];
  return parz_gpu_ll_fits_at(L, parz_gpu_ll_place(L, i, x), s);
}

/* The scales of `want` (bit k - 1 for transform k) that value i (C order) misses: float types
 * only. */
PARZ_HD uint64_t parz_gpu_ll_misses(const parz_gpu_ll& L, unsigned long long i, uint64_t want) {
  size_t x[4];
  const ptrdiff_t at = parz_gpu_ll_place(L, i, x);
  uint64_t missed = 0;
  for (; want; want &= want - 1) {
#if defined(__CUDA_ARCH__)
    const unsigned k = (unsigned)__ffsll((long long)want);
#else
    const unsigned k = (unsigned)__builtin_ctzll(want) + 1;
#endif
    if (!parz_gpu_ll_fits_at(L, at, parz_ll_scale_of(k)))
      missed |= (uint64_t)1 << (k - 1);
  }
  return missed;
}

/* A block of L's geometry in the residual step: its first value o and extents e along g's four
 * dimensions, its value count, and the terms of its Lorenzo predictor (lorenzo.h): for each set
 * of its predicted dimensions (extent and side above 1; bit d for dimension d), the neighbour
 * back along each (off values back in C order inside the block) and whether it is added (an
 * odd set) or taken away. */
struct parz_gpu_ll_box {
  ptrdiff_t base;  /* its first value's elements from L.src */
  uint32_t first;  /* its first residual (parz_ll_block_first's) */
  uint32_t e[4];
  uint8_t shift[4]; /* log2 e[d] where e[d] is a power of 2, else 32 */
  uint32_t count;
  unsigned terms;
  uint32_t off[15];
  uint8_t set[15], add[15];
};

/* Block b of L's geometry's box: parz_ll_block_box's and parz_ll_block_first's in 32-bit
 * arithmetic (a chunk holds fewer than 2^32 values), since one thread finds it while its CTA
 * waits. */
PARZ_HD void parz_gpu_ll_box_of(const parz_gpu_ll& L, unsigned long long b, parz_gpu_ll_box* B) {
  const parz_ll_geometry& g = L.g;
  uint32_t q[4], step = 1, r = (uint32_t)b, inner = 1;
  B->base = 0;
  B->first = 0;
  for (int d = 3; d >= 0; d--) {
    const uint32_t grid = (uint32_t)g.grid[d], side = (uint32_t)g.side[d], n = (uint32_t)g.n[d];
    const uint32_t o = r % grid * side, e = n - o < side ? n - o : side;
    r /= grid;
    B->first = o * inner + e * B->first;
    inner *= n;
    B->base += (ptrdiff_t)o * L.st[d];
    B->e[d] = e;
#if defined(__CUDA_ARCH__)
    B->shift[d] = (uint8_t)(e & (e - 1) ? 32 : __ffs((int)e) - 1);
#else
    B->shift[d] = (uint8_t)(e & (e - 1) ? 32 : __builtin_ctz(e));
#endif
    q[d] = step;
    step *= e;
  }
  B->count = step;
  B->terms = 0;
  for (unsigned set = 1; set < 16; set++) {
    uint32_t off = 0;
    unsigned bits = 0, ok = 1;
    for (int d = 0; d < 4; d++)
      if (set >> d & 1) {
        ok &= g.n[d] > 1 && g.side[d] > 1;
        off += q[d];
        bits++;
      }
    if (!ok)
      continue;
    B->off[B->terms] = off;
    B->set[B->terms] = (uint8_t)set;
    B->add[B->terms++] = (uint8_t)(bits & 1);
  }
}

/* The residual step's value type and source alignment, as template arguments: TYPE a parz_type
 * or 0 for L's own (L.g.type), ALIGNED 0 or 1 or -1 for L's own (L.aligned). Its loop is
 * compiled for each pair (parz_gpu_ll_forward_block), so that it tests neither per value, and
 * the unaligned path's byte loads are not issued beside the aligned one's load. */
template <int TYPE>
PARZ_HD int parz_gpu_ll_type_of(const parz_gpu_ll& L) {
  return TYPE ? TYPE : (int)L.g.type;
}

/* The bits of the value `at` elements from L.src (the low 32 for 4-byte types): one load where
 * L.aligned, else a copy of its bytes. */
template <int TYPE = 0, int ALIGNED = -1>
PARZ_HD uint64_t parz_gpu_ll_bits_at(const parz_gpu_ll& L, ptrdiff_t at) {
  const int type = parz_gpu_ll_type_of<TYPE>(L);
  const int aligned = ALIGNED >= 0 ? ALIGNED : L.aligned;
  if (type == PARZ_DOUBLE || type == PARZ_INT64) {
    if (aligned)
      return ((const uint64_t*)L.src)[at];
    uint64_t b;
    memcpy(&b, (const unsigned char*)L.src + 8 * at, 8);
    return b;
  }
  if (aligned)
    return ((const uint32_t*)L.src)[at];
  uint32_t b;
  memcpy(&b, (const unsigned char*)L.src + 4 * at, 4);
  return b;
}

/* A value of L's type (its bits b, parz_gpu_ll_bits_at's) as its transformed integer under X,
 * parz_ll_forward_at's; where L.misfit is set and X is a scale (float types only), *misfit set
 * where it does not fit X's scale (parz_gpu_ll_fits_at's check, the product taken once with the
 * transform's: parz_ll_forward_fits32). */
template <int TYPE = 0>
PARZ_HD uint64_t parz_gpu_ll_forward_bits(const parz_gpu_ll& L, parz_gpu_ll_xf X, uint64_t b,
                                          int* misfit) {
  const int type = parz_gpu_ll_type_of<TYPE>(L);
  int fit = 1;
  if (type == PARZ_DOUBLE) {
    double v;
    memcpy(&v, &b, 8);
    if (!X.k)
      return parz_ll_forward64(v, b, 0, X.scale);
    const uint64_t u = parz_ll_forward_fits64(v, b, X.k, X.scale, &fit);
    if (L.misfit && !fit)
      *misfit = 1;
    return u;
  }
  if (type == PARZ_FLOAT) {
    const uint32_t b32 = (uint32_t)b;
    float v;
    memcpy(&v, &b32, 4);
    if (!X.k)
      return parz_ll_forward32(v, b32, 0, X.scale);
    const uint64_t u = parz_ll_forward_fits32(v, b32, X.k, X.scale, &fit);
    if (L.misfit && !fit)
      *misfit = 1;
    return u;
  }
  /* integer types: their bits (no scale is ever taken for them, so L.misfit is not set) */
  return type == PARZ_INT64 ? b : (uint64_t)(uint32_t)b;
}

/* Value j (C order inside block B) as its transformed integer under X, read through the array's
 * strides; *back: bit d set where its neighbour back along dimension d lies inside the block;
 * where L.misfit is set, *misfit set where the value does not fit X's scale. Each value of a
 * block is read and transformed once; parz_gpu_ll_residual_in takes its neighbours' terms from
 * the block's integers. */
template <int TYPE = 0, int ALIGNED = -1>
PARZ_HD uint64_t parz_gpu_ll_forward_in(const parz_gpu_ll& L, parz_gpu_ll_xf X,
                                        const parz_gpu_ll_box& B, uint32_t j, uint8_t* back,
                                        int* misfit) {
  ptrdiff_t at = B.base;
  unsigned bk = 0;
  for (int d = 3; d >= 0; d--)
    if (B.e[d] > 1) {
      uint32_t x;
      if (B.shift[d] < 32) { /* most blocks' extents: no division */
        x = j & (B.e[d] - 1);
        j >>= B.shift[d];
      } else {
        x = j % B.e[d];
        j /= B.e[d];
      }
      bk |= (x > 0) << d;
      at += (ptrdiff_t)x * L.st[d];
    }
  *back = (uint8_t)bk;
  return parz_gpu_ll_forward_bits<TYPE>(L, X, parz_gpu_ll_bits_at<TYPE, ALIGNED>(L, at), misfit);
}

/* Thread t of T's values of block B as their transformed integers into u and their backs into
 * back (parz_gpu_ll_forward_in's), the loop compiled for TYPE and ALIGNED, with the box copied
 * out of B (parz_gpu_ll_residuals' reason); whether a value misses X's scale (where L.misfit is
 * set). */
template <int TYPE, int ALIGNED>
PARZ_HD int parz_gpu_ll_forward_values(const parz_gpu_ll& L, parz_gpu_ll_xf X,
                                       const parz_gpu_ll_box& B, uint64_t* u, uint8_t* back,
                                       unsigned t, unsigned T) {
  const parz_gpu_ll_box R = B;
  int misfit = 0;
  for (uint32_t j = t; j < R.count; j += T)
    u[j] = parz_gpu_ll_forward_in<TYPE, ALIGNED>(L, X, R, j, &back[j], &misfit);
  return misfit;
}

/* parz_gpu_ll_forward_values for L's type and alignment. */
PARZ_HD int parz_gpu_ll_forward_block(const parz_gpu_ll& L, parz_gpu_ll_xf X,
                                      const parz_gpu_ll_box& B, uint64_t* u, uint8_t* back,
                                      unsigned t, unsigned T) {
  switch (L.g.type) {
  case PARZ_FLOAT:
    return L.aligned ? parz_gpu_ll_forward_values<PARZ_FLOAT, 1>(L, X, B, u, back, t, T)
                     : parz_gpu_ll_forward_values<PARZ_FLOAT, 0>(L, X, B, u, back, t, T);
  case PARZ_DOUBLE:
    return L.aligned ? parz_gpu_ll_forward_values<PARZ_DOUBLE, 1>(L, X, B, u, back, t, T)
                     : parz_gpu_ll_forward_values<PARZ_DOUBLE, 0>(L, X, B, u, back, t, T);
  case PARZ_INT32:
    return L.aligned ? parz_gpu_ll_forward_values<PARZ_INT32, 1>(L, X, B, u, back, t, T)
                     : parz_gpu_ll_forward_values<PARZ_INT32, 0>(L, X, B, u, back, t, T);
  default:
    return L.aligned ? parz_gpu_ll_forward_values<PARZ_INT64, 1>(L, X, B, u, back, t, T)
                     : parz_gpu_ll_forward_values<PARZ_INT64, 0>(L, X, B, u, back, t, T);
  }
}

/* Value j's zigzagged Lorenzo residual from u, its block's transformed integers in C order (back:
 * parz_gpu_ll_forward_in's): parz_ll_residual_at's sum of the terms whose neighbours lie inside
 * the block, in wrap-around arithmetic of g.w bits. NT: B.terms where the caller knows it (the
 * loop then unrolled), 0 for any. */
template <unsigned NT>
PARZ_HD uint64_t parz_gpu_ll_residual_in(const parz_ll_geometry& g, const parz_gpu_ll_box& B,
                                         const uint64_t* u, unsigned back, uint32_t j) {
  const uint64_t mask = g.w == 64 ? ~(uint64_t)0 : 0xffffffffu, top = (uint64_t)1 << (g.w - 1);
  const unsigned terms = NT ? NT : B.terms;
  uint64_t plus = 0, minus = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (unsigned t = 0; t < terms; t++)
    if ((B.set[t] & back) == B.set[t]) {
      if (B.add[t])
        plus += u[j - B.off[t]];
      else
        minus += u[j - B.off[t]];
    }
  return parz_ll_zigzag((u[j] - plus + minus) & mask, mask, top);
}

/* Thread t of T's residuals of block B (u, back: its values' parz_gpu_ll_forward_in) into z, the
 * block's place: the blocks of one, two or three predicted dimensions (1, 3 or 7 terms) with the
 * terms' loop unrolled and the box copied out of B, so that its terms stay in registers (B may
 * lie in shared memory, and the compiler cannot tell the stores to z from it: it would read each
 * term's fields again for every value). */
PARZ_HD void parz_gpu_ll_residuals(const parz_ll_geometry& g, const parz_gpu_ll_box& B,
                                   const uint64_t* u, const uint8_t* back, uint64_t* z, unsigned t,
                                   unsigned T) {
  switch (B.terms) {
  case 3: {
    const parz_gpu_ll_box R = B;
    for (uint32_t j = t; j < R.count; j += T)
      z[j] = parz_gpu_ll_residual_in<3>(g, R, u, back[j], j);
    break;
  }
  case 1: {
    const parz_gpu_ll_box R = B;
    for (uint32_t j = t; j < R.count; j += T)
      z[j] = parz_gpu_ll_residual_in<1>(g, R, u, back[j], j);
    break;
  }
  case 7: {
    const parz_gpu_ll_box R = B;
    for (uint32_t j = t; j < R.count; j += T)
      z[j] = parz_gpu_ll_residual_in<7>(g, R, u, back[j], j);
    break;
  }
  default:
    for (uint32_t j = t; j < B.count; j += T)
      z[j] = parz_gpu_ll_residual_in<0>(g, B, u, back[j], j);
  }
}

/* The blocks of L's geometry (predictor 0's) whose values the measure of the row predictor reads
 * (PARZ_LL_ROWS_SAMPLED): how many there are, and the number of the k-th. */
PARZ_HD unsigned long long parz_gpu_ll_sampled(const parz_ll_geometry& g) {
  return g.blocks < PARZ_LL_ROWS_ALL_BELOW
             ? g.blocks
             : (g.blocks + PARZ_LL_ROWS_SAMPLE / 2 - 1) / PARZ_LL_ROWS_SAMPLE;
}
PARZ_HD unsigned long long parz_gpu_ll_sampled_block(const parz_ll_geometry& g,
                                                     unsigned long long k) {
  return g.blocks < PARZ_LL_ROWS_ALL_BELOW ? k
                                           : k * PARZ_LL_ROWS_SAMPLE + PARZ_LL_ROWS_SAMPLE / 2;
}

/* Value j (C order inside its block, j < PARZ_LL_BLOCK_VALUES) of the k-th sampled block's part
 * in the measure of the row predictor (parz_ll_rows_measure): the bit lengths of its residuals
 * under L's geometry (predictor 0's) into bits[0] and under rows (predictor 3's) into bits[1];
 * 0 and 0 past the block's values. A chunk holds fewer than 2^32 values, so 32-bit divisions. */
PARZ_HD void parz_gpu_ll_measure(const parz_gpu_ll& L, const parz_ll_geometry& rows,
                                 unsigned long long k, unsigned j, unsigned bits[2]) {
  const parz_ll_geometry& g = L.g;
  size_t x[4], o[4], o_rows[4];
  uint32_t b = (uint32_t)parz_gpu_ll_sampled_block(g, k), e[4];
  for (int d = 3; d >= 0; d--) {
    const uint32_t grid = (uint32_t)g.grid[d], c = b % grid;
    b /= grid;
    o[d] = (size_t)c * g.side[d];
    e[d] = (uint32_t)(g.n[d] - o[d] < g.side[d] ? g.n[d] - o[d] : g.side[d]);
  }
  bits[0] = bits[1] = 0;
  for (int d = 3; d >= 0; d--) {
    x[d] = o[d] + j % e[d];
    j /= e[d];
    o_rows[d] = (size_t)((uint32_t)x[d] / (uint32_t)rows.side[d]) * rows.side[d];
  }
  if (j) /* past the block's values */
    return;
  const parz_gpu_ll_xf X = parz_gpu_ll_xf_of(L);
  bits[0] = parz_bitlen64(parz_ll_residual_at(&g, L.src, L.st, X.k, X.scale, o, x));
  bits[1] = parz_bitlen64(parz_ll_residual_at(&rows, L.src, L.st, X.k, X.scale, o_rows, x));
}

/* ---------------- per segment: a CTA's threads ---------------- */

/* Segment s's residuals: the first one's place and their count. */
PARZ_HD void parz_gpu_ll_segment(const parz_gpu_ll& L, unsigned long long s, unsigned long long* at,
                                 size_t* n) {
  const unsigned long long b0 = s * L.C, b1 = b0 + L.C < L.g.blocks ? b0 + L.C : L.g.blocks;
  *at = L.block_at[b0];
  *n = (size_t)(L.block_at[b1] - L.block_at[b0]);
}

/* The counts of a segment's CTA are kept in copies (W->part) while its warps count, so that warps
 * do not add into the same words: keys (a context's symbols, then the next context's) of w-bit
 * residuals, and copies of them that W->part holds, a warp's own where there are enough (32-bit
 * residuals), else warp v the copy v % parts. */
PARZ_HD unsigned parz_gpu_ll_part_keys(unsigned w) {
  return parz_ll_contexts(w, PARZ_LL_CODER_CONTEXT) * (w + 1);
}
PARZ_HD unsigned parz_gpu_ll_parts(unsigned w, unsigned warps) {
  const unsigned fit = (unsigned)(sizeof(((parz_gpu_ll_seg*)0)->part) / 4) / parz_gpu_ll_part_keys(w);
  return fit < warps ? fit : warps;
}

/* The copy of the counts (of `parts`, parz_gpu_ll_parts') that thread t of a segment's CTA adds
 * into: its warp's. */
PARZ_HD unsigned parz_gpu_ll_copy_of(unsigned t, unsigned parts) { return t / 32 % parts; }

/* The thread of a segment's CTA that counts residual i: PARZ_GPU_LL_KEYS neighbours a thread. */
PARZ_HD unsigned parz_gpu_ll_counter_of(size_t i) {
  return (unsigned)(i % (PARZ_GPU_LL_KEYS * PARZ_GPU_LL_THREADS) / PARZ_GPU_LL_KEYS);
}

/* Thread t of T's share of the counts from the copies (parts of them, parz_gpu_ll_parts'). */
PARZ_HD void parz_gpu_ll_parts_add(parz_gpu_ll_seg* W, unsigned w, unsigned parts, unsigned t,
                                   unsigned T) {
  const unsigned ns = w + 1, nk = parz_gpu_ll_part_keys(w);
  for (unsigned e = t; e < nk; e += T) {
    uint32_t sum = 0;
    for (unsigned c = 0; c < parts; c++)
      sum += W->part[c * nk + e];
    W->freq[e / ns][e % ns] = sum;
  }
}

/* Thread t of T clears its share of the counts and of their copies (parts of them). */
PARZ_HD void parz_gpu_ll_clear(parz_gpu_ll_seg* W, unsigned w, unsigned parts, unsigned t,
                               unsigned T) {
  for (unsigned e = t; e < PARZ_LL_CONTEXTS * 65u; e += T)
    W->freq[e / 65][e % 65] = 0;
  for (unsigned e = t; e < parts * parz_gpu_ll_part_keys(w); e += T)
    W->part[e] = 0;
}

/* Residual i's key in a copy of the counts of w-bit residuals (parz_gpu_ll_part_keys'): its
 * context (parz_ll_context_at) times w + 1 plus its bit length. */
PARZ_HD unsigned parz_gpu_ll_key(const uint64_t* z, size_t i, int runs, unsigned w) {
  return parz_ll_context_at(z, i, runs) * (w + 1) + parz_bitlen64(z[i]);
}

/* ---------------- per lane: a code built by a warp ---------------- */

/* Code q of a segment (coder 2's context q for q below its contexts, coder 1's single code for q =
 * its contexts) is parz_ll_plan_context's for its counts: the same lengths, words and bits. Its
 * warp's lanes take the steps below in turn (a barrier of the warp between two), lane `lane`
 * the symbols lane + PARZ_GPU_LL_LANES * r (or leaves, or items); Huffman's merge, whose picks
 * depend each on the one before, is one lane's. A segment holds fewer than 2^32 residuals, so
 * that its counts are 32-bit. */

/* Code q's lengths and words in W. */
PARZ_HD uint8_t* parz_gpu_ll_code_len(parz_gpu_ll_seg* W, unsigned w, unsigned q) {
  return q < parz_ll_contexts(w, PARZ_LL_CODER_CONTEXT) ? W->len[1][q] : W->len[0][0];
}
PARZ_HD uint32_t* parz_gpu_ll_code_words(parz_gpu_ll_seg* W, unsigned w, unsigned q) {
  return q < parz_ll_contexts(w, PARZ_LL_CODER_CONTEXT) ? W->code[1][q] : W->code[0][0];
}

/* Step 1: the lane's symbols' counts into B->f (for coder 1's code the contexts' counts summed),
 * its share of the package bits and of the lengths' counts zeroed; returns how many of its
 * symbols are used (the warp's sum is m, the leaves). */
PARZ_HD unsigned parz_gpu_ll_build_counts(const parz_gpu_ll_seg* W, parz_gpu_ll_build* B,
                                          unsigned w, unsigned q, unsigned lane) {
  const unsigned nc = parz_ll_contexts(w, PARZ_LL_CODER_CONTEXT);
  unsigned used = 0;
  for (unsigned k = lane; k <= w; k += PARZ_GPU_LL_LANES) {
    uint32_t c = 0;
    if (q < nc)
      c = W->freq[q][k];
    else
      for (unsigned x = 0; x < nc; x++)
        c += W->freq[x][k];
    B->f[k] = c;
    used += c != 0;
  }
  for (unsigned e = lane; e < sizeof B->pkg / sizeof B->pkg[0][0]; e += PARZ_GPU_LL_LANES)
    (&B->pkg[0][0])[e] = 0;
  for (unsigned l = lane; l <= PARZ_LL_CODE_MAX; l += PARZ_GPU_LL_LANES)
    B->per_len[l] = 0;
  return used;
}

/* Step 2: each used symbol of the lane to its leaf, its place the number of leaves before it. */
PARZ_HD void parz_gpu_ll_build_sort(parz_gpu_ll_build* B, unsigned w, unsigned lane) {
  for (unsigned k = lane; k <= w; k += PARZ_GPU_LL_LANES) {
    const uint32_t c = B->f[k];
    unsigned r = 0;
    for (unsigned x = 0; x <= w; x++) {
      const uint32_t d = B->f[x];
      r += d != 0 && (d < c || (d == c && x < k));
    }
    if (c) {
      B->lw[r] = c;
      B->sym[r] = (uint8_t)k;
    }
  }
}

/* Step 3, one lane's, for m >= 2 leaves: Huffman's two queues (parz_huff_merge's picks, a leaf
 * first on a tie), each pick's parent. */
PARZ_HD void parz_gpu_ll_build_merge(parz_gpu_ll_build* B, unsigned m) {
  unsigned li = 0, ni = 0, nn = 0;
  for (unsigned k = 0; k + 1 < m; k++) {
    uint64_t sum = 0;
    for (int j = 0; j < 2; j++) {
      if (li < m && (ni >= nn || B->lw[li] <= B->nw[ni])) {
        sum += B->lw[li];
        B->parent[li++] = (uint8_t)(m + nn);
      } else {
        sum += B->nw[ni];
        B->parent[m + ni++] = (uint8_t)(m + nn);
      }
    }
    B->nw[nn++] = sum;
  }
}

/* Step 4: the lane's leaves' depths (the root is node 2m - 2; one leaf alone takes 1); returns
 * the deepest. */
PARZ_HD unsigned parz_gpu_ll_build_depth(parz_gpu_ll_build* B, unsigned m, unsigned lane) {
  unsigned longest = 0;
  for (unsigned i = lane; i < m; i += PARZ_GPU_LL_LANES) {
    unsigned d = m == 1;
    for (unsigned v = i; m > 1 && v != 2 * m - 2; v = B->parent[v])
      d++;
    B->depth[i] = (uint8_t)d;
    longest = d > longest ? d : longest;
  }
  return longest;
}

/* Package-merge (parz_huff_package_merge) where a leaf lies deeper than PARZ_LL_CODE_MAX, level
 * j from PARZ_LL_CODE_MAX - 1 down to 1, of n_prev items below it (the leaves for the first). Step 5a: the lane's packages, pairs of the items below, into B->nw. */
PARZ_HD void parz_gpu_ll_pm_packages(parz_gpu_ll_build* B, unsigned n_prev, int first,
                                     unsigned lane) {
  const uint64_t* prev = first ? B->lw : B->item;
  for (unsigned p = lane; p < n_prev / 2; p += PARZ_GPU_LL_LANES)
    B->nw[p] = prev[2 * p] + prev[2 * p + 1];
}

/* How many of the sorted v[0..n) are below x, or (or_equal) at most x. */
PARZ_HD unsigned parz_gpu_ll_rank(const uint64_t* v, unsigned n, uint64_t x, int or_equal) {
  unsigned lo = 0, hi = n;
  while (lo < hi) {
    const unsigned mid = (lo + hi) / 2;
    if (v[mid] < x || (or_equal && v[mid] == x))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Step 5b: level j, the m leaves and npk packages merged (a leaf first on a tie: each item's
 * place is its rank in its list plus the other list's items before it), its first 2m - 2 kept
 * in B->item and the packages among them marked; returns the level's items. */
PARZ_HD unsigned parz_gpu_ll_pm_level(parz_gpu_ll_build* B, unsigned m, unsigned npk, unsigned j,
                                      unsigned lane) {
  const unsigned cap = 2 * m - 2;
  for (unsigned i = lane; i < m; i += PARZ_GPU_LL_LANES) {
    const unsigned at = i + parz_gpu_ll_rank(B->nw, npk, B->lw[i], 0);
    if (at < cap)
      B->item[at] = B->lw[i];
  }
  for (unsigned p = lane; p < npk; p += PARZ_GPU_LL_LANES) {
    const unsigned at = p + parz_gpu_ll_rank(B->lw, m, B->nw[p], 1);
    if (at < cap) {
      B->item[at] = B->nw[p];
      PARZ_GPU_LL_OR(&B->pkg[j][at / 32], 1u << (at % 32));
    }
  }
  return m + npk < cap ? m + npk : cap;
}

/* The set bits of x. */
PARZ_HD unsigned parz_gpu_ll_popc(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return (unsigned)__popc(x);
#else
  return (unsigned)__builtin_popcount(x);
#endif
}

/* Step 5c: the lane's leaves' lengths, the levels where each is taken: at level j the first
 * `need` items (2m - 2 at level 1, twice the packages among the level above's at the others),
 * whose leaves are the lightest ones; at the last level the leaves alone. */
PARZ_HD void parz_gpu_ll_pm_lengths(parz_gpu_ll_build* B, unsigned m, unsigned lane) {
  for (unsigned i = lane; i < m; i += PARZ_GPU_LL_LANES) {
    unsigned need = 2 * m - 2, d = 0;
    for (unsigned j = 1; j < PARZ_LL_CODE_MAX; j++) {
      unsigned packages = 0;
      for (unsigned k = 0; k < need; k += 32)
        packages +=
            parz_gpu_ll_popc(B->pkg[j][k / 32] & (need - k < 32 ? (1u << (need - k)) - 1 : ~0u));
      d += i < need - packages;
      need = 2 * packages;
    }
    B->depth[i] = (uint8_t)(d + (i < need));
  }
}

/* Step 6: the lengths of the lane's unused symbols (0) and of its leaves' symbols into len. */
PARZ_HD void parz_gpu_ll_build_lengths(const parz_gpu_ll_build* B, uint8_t* len, unsigned w,
                                       unsigned m, unsigned lane) {
  for (unsigned k = lane; k <= w; k += PARZ_GPU_LL_LANES)
    if (!B->f[k])
      len[k] = 0;
  for (unsigned i = lane; i < m; i += PARZ_GPU_LL_LANES)
    len[B->sym[i]] = B->depth[i];
}

/* Step 7: the lane's symbols counted per length. */
PARZ_HD void parz_gpu_ll_build_per_len(parz_gpu_ll_build* B, const uint8_t* len, unsigned w,
                                       unsigned lane) {
  for (unsigned k = lane; k <= w; k += PARZ_GPU_LL_LANES)
    if (len[k])
      PARZ_GPU_LL_ADD(&B->per_len[len[k]], 1u);
}

/* Step 8: the lane's symbols' canonical words into code (parz_huff_canonical's: a length's first
 * word, parz_huff_limits', plus the symbols of that length before it; bit-reversed, 0 where
 * unused); returns the bits its symbols' residuals take (parz_ll_plan_context's). */
PARZ_HD uint64_t parz_gpu_ll_build_words(const parz_gpu_ll_build* B, const uint8_t* len,
                                         uint32_t* code, unsigned w, unsigned lane) {
  uint64_t bits = 0;
  for (unsigned k = lane; k <= w; k += PARZ_GPU_LL_LANES) {
    const unsigned l = len[k];
    uint32_t word = 0;
    if (l) {
      for (unsigned x = 2; x <= l; x++)
        word = (word + B->per_len[x - 1]) << 1;
      for (unsigned x = 0; x < k; x++)
        word += len[x] == l;
      word = parz_huff_reverse(word, l);
    }
    code[k] = word;
    bits += (uint64_t)B->f[k] * (l + (k >= 2 ? k - 1 : 0));
  }
  return bits;
}

/* The segment's coder from the codes' bits (parz_ll_code_residuals's choice). */
PARZ_HD unsigned parz_gpu_ll_coder(const parz_gpu_ll_seg* W, unsigned w, size_t n) {
  const unsigned nc = parz_ll_contexts(w, PARZ_LL_CODER_CONTEXT);
  uint64_t two = parz_ll_lengths_bits(w, PARZ_LL_CODER_CONTEXT);
  for (unsigned c = 0; c < nc; c++)
    two += W->bits[c];
  return parz_ll_pick(parz_ll_lengths_bits(w, PARZ_LL_CODER_LENGTHS) + W->bits[nc], two,
                      parz_ll_raw_bytes(n, w));
}

/* Thread t of T's residuals of a raw segment (and, thread 0, its coder byte) into dst. */
PARZ_HD void parz_gpu_ll_raw(uint8_t* dst, const uint64_t* z, size_t n, unsigned w, unsigned t,
                             unsigned T) {
  if (t == 0)
    dst[0] = PARZ_LL_CODER_RAW;
  for (size_t i = t; i < n; i += T)
    parz_ll_raw_put(dst + 1, i, z[i], w);
}

/* Pieces of a segment of n residuals: PARZ_GPU_LL_PIECE residuals each (coder 3's runs are
 * whole pieces). */
PARZ_HD size_t parz_gpu_ll_pieces(size_t n) {
  return (n + PARZ_GPU_LL_PIECE - 1) / PARZ_GPU_LL_PIECE;
}

/* A residual's bit length, X its width (w / 8 bytes). */
PARZ_HD unsigned parz_gpu_ll_bitlen(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return (unsigned)(32 - __clz((int)x));
#else
  return x ? (unsigned)(32 - __builtin_clz(x)) : 0u;
#endif
}
PARZ_HD unsigned parz_gpu_ll_bitlen(uint64_t x) { return parz_bitlen64(x); }

/* The residual before residual i0 of a segment's z (runs: coder 3's), 0 where i0 starts the
 * segment or a run: the context of residual i0 is parz_ll_context_of of its bit length
 * (parz_ll_context_at's). */
PARZ_HD uint64_t parz_gpu_ll_before(const uint64_t* z, size_t i0, int runs) {
  return i0 && !parz_ll_run_starts(i0, (unsigned)runs) ? z[i0 - 1] : 0u;
}

/* A lane's loops over its residuals, unrolled on the GPU so that they stay in registers. */
#if defined(__CUDA_ARCH__)
#define PARZ_GPU_LL_UNROLL _Pragma("unroll")
#else
#define PARZ_GPU_LL_UNROLL
#endif

/* A lane's PARZ_GPU_LL_LANE residuals from residual i of a segment of n (z) into x, those past n
 * zero; returns how many are not. */
template <typename X>
PARZ_HD unsigned parz_gpu_ll_lane_load(const uint64_t* z, size_t n, size_t i, X* x) {
  PARZ_GPU_LL_UNROLL
  for (unsigned u = 0; u < PARZ_GPU_LL_LANE; u++)
    x[u] = i + u < n ? (X)z[i + u] : (X)0;
  return i >= n ? 0u : n - i < PARZ_GPU_LL_LANE ? (unsigned)(n - i) : PARZ_GPU_LL_LANE;
}

/* The bits of a lane's m residuals x[0..m) under the code (contexts: coder 2's, each residual's
 * context from the bit length of the one before it, kp for the first), code words and the bits
 * below each leading one, as parz_ll_code_run writes them. */
template <typename X>
PARZ_HD unsigned parz_gpu_ll_lane_bits(const X* x, unsigned m, unsigned kp, int contexts,
                                       uint8_t len[][65]) {
  unsigned bits = 0;
  PARZ_GPU_LL_UNROLL
  for (unsigned u = 0; u < PARZ_GPU_LL_LANE; u++) {
    if (u >= m)
      break;
    const unsigned k = parz_gpu_ll_bitlen(x[u]);
    bits += len[contexts ? parz_ll_context_of(kp) : 0u][k] + (k >= 2 ? k - 1 : 0u);
    kp = k;
  }
  return bits;
}

/* Run r (or, for a segment of one run, the segment) of pieces [p0, p1): the pieces' bits
 * (W->pc.piece) become their offsets from the run's first bit; returns the run's bits, *zero set
 * where its residuals are all 0 (coder 3's run then takes no bytes, and the segment is coder
 * 4's). */
PARZ_HD uint64_t parz_gpu_ll_run_offsets(parz_gpu_ll_seg* W, size_t p0, size_t p1, int* zero) {
  uint64_t at = 0;
  uint8_t any = 0;
  for (size_t p = p0; p < p1; p++) {
    const uint32_t b = W->pc.piece[p];
    W->pc.piece[p] = (uint32_t)at;
    at += b;
    any |= W->pc.nonzero[p];
  }
  *zero = !any;
  return at;
}

/* A stream of bits ORed into words of zeros from bit `bit` of dst on: the lanes' residuals of a
 * segment written side by side, each ORing the words it shares with its neighbours. */
typedef struct {
  uint8_t* dst;
  size_t word;
  uint64_t acc;
  unsigned fill;
} parz_gpu_ll_orw;

PARZ_HD void parz_gpu_ll_or_word(uint8_t* dst, size_t word, uint32_t v) {
#if defined(__CUDA_ARCH__)
  atomicOr((unsigned*)(dst + 4 * word), v);
#else
  uint32_t x;
  memcpy(&x, dst + 4 * word, 4);
  x |= v;
  memcpy(dst + 4 * word, &x, 4);
#endif
}

PARZ_HD void parz_gpu_ll_orw_put(parz_gpu_ll_orw* o, uint64_t v, unsigned n) {
  o->acc |= v << o->fill;
  o->fill += n;
  if (o->fill >= 32) {
    parz_gpu_ll_or_word(o->dst, o->word++, (uint32_t)o->acc);
    o->acc >>= 32;
    o->fill -= 32;
  }
}

/* A lane's m residuals x[0..m) ORed into dst (zeros where the lanes before and after it share
 * its words, 4-byte aligned) from bit `bit` on, as parz_ll_code_run writes them (contexts and kp
 * as parz_gpu_ll_lane_bits takes them). */
template <typename X>
PARZ_HD void parz_gpu_ll_lane_write(uint8_t* dst, uint64_t bit, const X* x, unsigned m, unsigned kp,
                                    int contexts, uint8_t len[][65], uint32_t code[][65]) {
  parz_gpu_ll_orw o;
  o.dst = dst;
  o.word = (size_t)(bit / 32);
  o.acc = 0;
  o.fill = (unsigned)(bit % 32);
  PARZ_GPU_LL_UNROLL
  for (unsigned u = 0; u < PARZ_GPU_LL_LANE; u++) {
    if (u >= m)
      break;
    const unsigned c = contexts ? parz_ll_context_of(kp) : 0u, k = parz_gpu_ll_bitlen(x[u]);
    const unsigned l = len[c][k], below = k >= 2 ? k - 1 : 0u;
    const X low = below ? x[u] & (X)(~(X)0 >> (8 * sizeof(X) - below)) : (X)0;
    if (l + below <= 32) {
      parz_gpu_ll_orw_put(&o, code[c][k] | (uint64_t)low << l, l + below);
    } else {
      parz_gpu_ll_orw_put(&o, code[c][k], l);
      if (below > 32) {
        parz_gpu_ll_orw_put(&o, (uint64_t)low & 0xffffffffu, 32);
        parz_gpu_ll_orw_put(&o, (uint64_t)low >> 32, below - 32);
      } else {
        parz_gpu_ll_orw_put(&o, low, below);
      }
    }
    kp = k;
  }
  if (o.fill)
    parz_gpu_ll_or_word(dst, o.word, (uint32_t)o.acc);
}

/* The payload words [*w0, *w1) that segment s of L writes: those whose first byte is one of its
 * bytes (at L.seg_at[s]), and for the last segment those past the payload's last byte too (up to
 * L.payload_words), so that every word is written once, by one thread. */
PARZ_HD void parz_gpu_ll_copy_words(const parz_gpu_ll& L, unsigned long long s,
                                    unsigned long long* w0, unsigned long long* w1) {
  *w0 = (L.seg_at[s] + 3) / 4;
  *w1 = s + 1 == L.nseg ? L.payload_words : (L.seg_at[s + 1] + 3) / 4;
}

/* Payload word w (4 bytes from the payload's start, 8-byte aligned; one of segment s's,
 * parz_gpu_ll_copy_words) of L, stored over whatever the payload's memory holds: made from two of
 * the slot's aligned words where the segment holds all four bytes; otherwise byte by byte from
 * the slots of the segments after it that the word reaches, zeros past the payload's last byte. */
PARZ_HD void parz_gpu_ll_copy_word(const parz_gpu_ll& L, unsigned long long s,
                                   unsigned long long w) {
  const unsigned long long at = L.seg_at[s], end = L.seg_at[s + 1];
  uint32_t x = 0;
  if (4 * w + 4 <= end) {
    const unsigned long long k = w - at / 4;
    const unsigned sh = (unsigned)(at % 4); /* k >= 1 where sh > 0: word w starts past `at` */
    const uint8_t* src = L.slots + s * L.slot;
    uint32_t lo = 0, hi = 0; /* the slot's words k - 1 and k: word w starts at its byte 4k - sh */
#if defined(__CUDA_ARCH__)
    if (k >= 1)
      lo = ((const uint32_t*)src)[k - 1];
    if (4 * k + 4 <= L.slot)
      hi = ((const uint32_t*)src)[k];
#else
    if (k >= 1)
      memcpy(&lo, src + 4 * (k - 1), 4);
    if (4 * k + 4 <= L.slot)
      memcpy(&hi, src + 4 * k, 4);
#endif
    x = sh ? (uint32_t)(((uint64_t)hi << 32 | lo) >> (8 * (4 - sh))) : hi;
  } else {
    unsigned long long t = s;
    for (unsigned i = 0; i < 4; i++) {
      const unsigned long long b = 4 * w + i;
      while (t < L.nseg && b >= L.seg_at[t + 1])
        t++;
      if (t < L.nseg)
        x |= (uint32_t)L.slots[t * L.slot + (b - L.seg_at[t])] << (8 * i);
    }
  }
#if defined(__CUDA_ARCH__)
  ((uint32_t*)L.payload)[w] = x;
#else
  memcpy(L.payload + 4 * w, &x, 4);
#endif
}

/* A segment of one run under coder 1 or 2: its coder byte and code lengths into dst (cap
 * bytes), the last byte padded; returns the bit where its residuals start (parz_ll_code_single
 * writes them right after the lengths). */
PARZ_HD uint64_t parz_gpu_ll_single_head(uint8_t* dst, size_t cap, unsigned w, unsigned coder,
                                         uint8_t len[][65]) {
  parz_bitw wr;
  parz_ll_single_lengths(&wr, dst, cap, w, coder, len);
  parz_bitw_finish(&wr);
  return 8 + parz_ll_lengths_bits(w, coder);
}

/* Thread 0's step once each run's bytes (or, for a segment of one run, its bits) are in
 * W->run_at[1..]: a segment of n residuals under coder (not raw) gets its runs' places, a running
 * sum after the head (for a segment of one run, W->run_at[0] = the bit where its residuals start)
 * and, where coder 3's runs take fewer bytes than the raw segment, the head's first bytes into
 * dst: coder byte (4 where a run is all zero), the code's coder and q (parz_ll_runs_head's; the
 * code lengths are parz_gpu_ll_runs_lengths', the run lengths written last). Returns the
 * segment's coded bytes; *as_raw set where it is written raw instead. */
PARZ_HD uint64_t parz_gpu_ll_runs_head(parz_gpu_ll_seg* W, uint8_t* dst, unsigned w, unsigned coder,
                                       size_t n, int* as_raw) {
  if (!parz_ll_runs_of(n)) {
    /* the residuals right after the lengths, in the same stream */
    const uint64_t at = 8 + parz_ll_lengths_bits(w, coder);
    W->run_at[0] = (uint32_t)at;
    *as_raw = 0;
    return (at + W->run_at[1] + 7) / 8;
  }
  const size_t m = parz_ll_run_count(n);
  int zero = 0;
  W->run_at[0] = (uint32_t)parz_ll_runs_start(parz_ll_runs_lengths_end(w, coder), n);
  for (size_t r = 0; r < m; r++) {
    zero |= W->run_at[r + 1] == 0;
    W->run_at[r + 1] += W->run_at[r];
  }
  const uint64_t total = W->run_at[m];
  *as_raw = total >= parz_ll_raw_bytes(n, w);
  if (!*as_raw) {
    dst[0] = (uint8_t)(zero ? PARZ_LL_CODER_ZERO_RUNS : PARZ_LL_CODER_RUNS);
    dst[1] = (uint8_t)coder;
    dst[2] = (uint8_t)PARZ_LL_RUN_Q;
  }
  return total;
}

/* Thread t of T's share of coder 3's code lengths (parz_ll_runs_head's: 4 bits each, the codes'
 * one after the other from byte PARZ_LL_RUN_HEAD on, the low half of a byte first, the last byte
 * padded with zeros) for coder's codes len, a byte each. */
PARZ_HD void parz_gpu_ll_runs_lengths(uint8_t* dst, unsigned w, unsigned coder, uint8_t len[][65],
                                      unsigned t, unsigned T) {
  const unsigned ns = w + 1, count = parz_ll_contexts(w, coder) * ns;
  for (unsigned i = t; 2 * i < count; i += T) {
    const unsigned k = 2 * i;
    unsigned b = len[k / ns][k % ns];
    if (k + 1 < count)
      b |= (unsigned)len[(k + 1) / ns][(k + 1) % ns] << 4;
    dst[PARZ_LL_RUN_HEAD + i] = (uint8_t)b;
  }
}

/* ---------------- the host's steps ---------------- */

/* A chunk's plan: its layout and geometry, the residuals' places. */
struct parz_gpu_ll_plan {
  parz_chunk_view v; /* parz_chunk_layout; its codec parameters once chosen */
  parz_array a;      /* the array, contiguous */
  parz_ll_geometry g;
  ptrdiff_t st[4];    /* the values' elements apart along g's dimensions (the caller's strides) */
  unsigned predictor; /* asked for, then chosen */
};

/* The plan's blocks under the predictor: its layout cut again (parz_chunk_recut) and its
 * geometry. */
static inline int parz_gpu_ll_cut(parz_gpu_ll_plan* p, unsigned predictor, parz_error* err) {
  p->predictor = predictor;
  p->v.codec_params[PARZ_LL_PARAM_PREDICTOR] = (unsigned char)predictor;
  int rc = parz_chunk_recut(&p->v, err);
  if (rc == PARZ_OK)
    rc = parz_ll_geometry_init(&p->g, &p->a, predictor, err);
  if (rc != PARZ_OK)
    return rc;
  if (p->g.blocks != p->v.nblocks)
    return parz_fail(err, PARZ_ERR_ARG, "GPU lossless encode: %zu blocks where the layout has %llu",
                     p->g.blocks, (unsigned long long)p->v.nblocks);
  return PARZ_OK;
}

/* Whether the plan's predictor is the encoder's choice between predictors 0 and 3: predictor 0
 * asked for (a series is refused then). */
static inline int parz_gpu_ll_rows_chosen(const parz_gpu_ll_plan* p) {
  return p->predictor == PARZ_LL_PREDICT_ALL;
}

/* Whether a is a series: at most one dimension of extent above 1 (lossless_codec.c's). */
static inline int parz_gpu_ll_series(const parz_array* a) {
  unsigned used = 0;
  for (unsigned k = 0; k < a->dims; k++)
    used += a->shape[k] > 1;
  return used <= 1;
}

/* The plan of chunk a under cfg, checked as parz_chunk_encoder_begin checks it; refuses what this
 * encoder does not take before any work (PARZ_ERR_UNSUPPORTED). */
static inline int parz_gpu_ll_plan_of(parz_gpu_ll_plan* p, const parz_array* a,
                                      const parz_chunk_config* cfg, parz_error* err) {
  int rc = parz_gpu_whole_layout(&p->v, &p->a, a, cfg, PARZ_CODEC_LOSSLESS, "lossless", err);
  if (rc != PARZ_OK)
    return rc;
  p->predictor = p->v.codec_params[PARZ_LL_PARAM_PREDICTOR];
  if (p->predictor == PARZ_LL_PREDICT_ALL && parz_gpu_ll_series(a))
    return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                     "GPU encode: a lossless series whose predictor is chosen (Holt's predictor "
                     "and the value dictionary are the CPU's choices): encode it on the CPU");
  if (p->v.settings.run_q && p->v.settings.run_q != PARZ_LL_RUN_Q)
    return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                     "GPU encode: lossless runs of 2^%u residuals; this encoder writes the "
                     "writers' 2^%u: encode it on the CPU",
                     p->v.settings.run_q, PARZ_LL_RUN_Q);
  if (parz_array_count(&p->a) >> 32)
    return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                     "GPU encode: a lossless chunk of %zu values, 2^32 or more: encode it on the "
                     "CPU",
                     parz_array_count(&p->a));
  if ((unsigned long long)p->v.segment_blocks * PARZ_LL_BLOCK_VALUES / PARZ_LL_RUN >
      PARZ_GPU_LL_RUNS_MAX)
    return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                     "GPU encode: lossless segments of %llu blocks, more than %u: encode them on "
                     "the CPU",
                     (unsigned long long)p->v.segment_blocks,
                     (unsigned)(PARZ_GPU_LL_RUNS_MAX * PARZ_LL_RUN / PARZ_LL_BLOCK_VALUES));
  /* the geometry drops the dimensions of extent 1: the others' strides, slowest first, end its
   * four */
  ptrdiff_t run = 1, st[4] = {0, 0, 0, 0};
  unsigned used = 0;
  for (int k = (int)a->dims - 1; k >= 0; k--) {
    const ptrdiff_t stride = a->stride[k] ? a->stride[k] : run;
    run *= (ptrdiff_t)a->shape[k];
    if (a->shape[k] > 1)
      st[3 - used++] = stride;
  }
  memcpy(p->st, st, sizeof st);
  return parz_gpu_ll_cut(p, p->predictor, err);
}

/* The scales valid for the plan's type (bit k - 1 for transform k). */
static inline uint64_t parz_gpu_ll_valid(const parz_gpu_ll_plan* p) {
  uint64_t valid = 0;
  for (unsigned s = 1; s <= PARZ_LL_SCALES; s++)
    if (parz_ll_transform_valid(s, p->a.type))
      valid |= (uint64_t)1 << (s - 1);
  return valid;
}

/* The scales, in the CPU's order, whose check the first values of the array (the first
 * PARZ_GPU_LL_PROBE of them or all) pass (passed: bit k - 1 for transform k) and that are valid
 * for its type: the only ones parz_ll_choose_transform may choose. */
static inline std::vector<unsigned> parz_gpu_ll_scales(const parz_gpu_ll_plan* p, uint64_t passed) {
  std::vector<unsigned> k;
  const uint64_t x = passed & parz_gpu_ll_valid(p);
  for (unsigned s = 1; s <= PARZ_LL_SCALES; s++)
    if (x >> (s - 1) & 1)
      k.push_back(s);
  return k;
}

/* Scales the probe passes that are taken before they are checked on every value, one after the
 * other (the residual step checks each): the second where a value misses the first (vasp's 32
 * and 33). */
#define PARZ_GPU_LL_SPECULATE 2u

/* scales[from..] as bits (bit k - 1 for transform k). */
static inline uint64_t parz_gpu_ll_want(const std::vector<unsigned>& scales, size_t from) {
  uint64_t want = 0;
  for (size_t i = from; i < scales.size(); i++)
    want |= (uint64_t)1 << (scales[i] - 1);
  return want;
}

/* The first of scales[from..] that no value misses (missed: the values' misses of them ORed), 0
 * where every one is missed. */
static inline unsigned parz_gpu_ll_first_fitting(const std::vector<unsigned>& scales, size_t from,
                                                 uint64_t missed) {
  for (size_t i = from; i < scales.size(); i++)
    if (!(missed >> (scales[i] - 1) & 1))
      return scales[i];
  return 0;
}

/* The codec's choices into the layout's parameters (lossless_codec.c, set_choice): the transform
 * and the plan's predictor. */
static inline void parz_gpu_ll_choose(parz_gpu_ll_plan* p, unsigned transform) {
  p->v.codec_params[PARZ_LL_PARAM_TRANSFORM] = (unsigned char)transform;
  p->v.codec_params[PARZ_LL_PARAM_PREDICTOR] = (unsigned char)p->predictor;
  p->v.codec_params[PARZ_LL_PARAM_ALPHA] = 0;
  p->v.codec_params[PARZ_LL_PARAM_BETA] = 0;
}

/* The kernels' arguments of the plan under transform k, the device pointers the caller's. */
static inline void parz_gpu_ll_args(const parz_gpu_ll_plan* p, unsigned k, parz_gpu_ll* L) {
  memset(L, 0, sizeof *L);
  L->g = p->g;
  memcpy(L->st, p->st, sizeof L->st);
  L->transform = k;
  L->scale = parz_ll_scale_of(k);
  L->n = parz_array_count(&p->a);
  L->C = p->v.segment_blocks;
  L->nseg = p->v.nsegments;
  L->slot = (parz_ll_raw_bytes((size_t)L->C * PARZ_LL_BLOCK_VALUES, p->g.w) + 7) / 8 * 8;
}

/* The kernels' values at src, and whether src is aligned to their size (parz_gpu_ll_bits_at). */
static inline void parz_gpu_ll_source(parz_gpu_ll* L, const void* src) {
  L->src = src;
  L->aligned = (uintptr_t)src % (L->g.w / 8) == 0;
}

#endif
