/* The error-bounded codec's GPU encoder, its steps one thread's work each (PARZ_HD) and the host's
 * between them, so that tests/test_gpu_bounded_encode_host.cpp runs the same steps on the CPU and
 * checks the chunks against parz_chunk_encode where no GPU is. bounded_encode.cu launches them.
 *
 * A chunk is built as the CPU builds it (codec/frame/chunk_encode.c, code_scratch, and
 * codec/bounded/bounded_chunk.c, parz_bounded_code), with the CPU's own arithmetic per value
 * (codec/bounded/bounded_forward.h) and the CPU's own host functions where a step is the whole
 * chunk's:
 *   scan     a thread per value: the values not finite (the frame's exceptions, holes for the
 *            codec), NaN and the fill value where the configuration masks, the largest finite
 *            magnitude; one thread the grid step from it (parz_gpu_bnd_step_consts, the CPU's
 *            parz_bounded_step_of); for predictor 0, on the host, the CPU's choice
 *            (parz_bounded_choose) with its trials run by these steps on the CPU's sample box
 *            (parz_gpu_bnd_box below), the host only sizing them;
 *   forward  Lorenzo: a thread per value quantizes, one thread gives the holes their prediction
 *            in order (each reads the ones before it), a thread per value writes its residual;
 *            the interpolation: the first passes of a few values each in one CTA, a barrier
 *            between them, then a launch per pass, a thread per value of it (each pass reads
 *            only earlier passes' values); both count the exceptions they make;
 *   counts   a warp per segment, its lanes sharing the codes (the lane steps below) split them
 *            into tokens with zero runs and count them, the counts without runs following from
 *            those (parz_gpu_bnd_lane_count), and find the least and greatest residual;
 *   book     on the host from the counts over a range of at most PARZ_GPU_BND_HOST_BOOK
 *            symbols (parz_gpu_bnd_book_of, its two codes on two threads); over a wider one a
 *            CTA per code (without runs, with them) builds its lengths (bounded_book.cuh), then
 *            one CTA keeps the smaller and makes its canonical words, the host the codebook's
 *            bytes from the kept lengths (parz_gpu_bnd_book_built); then the layout
 *            (parz_chunk_settle) and the chunk's size;
 *   bits     a warp per segment: each lane's bits under the codebook and their sum, the
 *            segment's; the segments' running sum (their offsets, the last the code's bits);
 *   payload  a warp per segment: each lane writes its tokens at the segment's offset and the
 *            bits of the lanes before it into a zeroed payload (the words it shares with its
 *            neighbours ORed in);
 *   sums     a CTA per partition: its payload checksum (payload_checksum.h);
 *   head     on the host, with the frame's functions: header, directory, codec data, up into
 *            the chunk's place (a batch's chunk: a head of its own in device memory); on the
 *            device the exception records (the positions of every hole, in order, and their
 *            values' bits), the table from the segments' offsets (parz_gpu_table_entry), the
 *            checksums, then the header's CRC-32C, taken in two parts: the host's from its
 *            bytes and the GPU's from the rest (head_crc.h).
 * What this encoder does not do is refused with PARZ_ERR_UNSUPPORTED, naming it, before the
 * forward pass: values the configuration masks (NaN, the fill value), values not finite when
 * the predictor is chosen (the CPU chooses on the frame's cleaned copy), chunks of 2^32 values or
 * more. Its callers encode such a chunk on the CPU. Internal to gpu/. */
#ifndef PARZ_GPU_BOUNDED_ENCODE_CUH
#define PARZ_GPU_BOUNDED_ENCODE_CUH

#include <string.h>

#include <vector>

#include "bounded_book.cuh"
#include "bounded_chunk.h"
#include "bounded_codec.h"
#include "bounded_forward.h"
#include "bounded_lengths.h"
#include "bounded_passes.cuh"
#include "codecs.h"
#include "encode_whole.h"
#include "exceptions.h"
#include "huffman_build.h"
#include "payload_checksum.h"
#include "stored.h"
#include "table.h"

#if defined(__CUDA_ARCH__)
#define PARZ_GPU_BND_OR(p, v) atomicOr((unsigned long long*)(p), (unsigned long long)(v))
#define PARZ_GPU_BND_ADD(p, v) atomicAdd((unsigned long long*)(p), (unsigned long long)(v))
#else
#define PARZ_GPU_BND_OR(p, v) (*(p) |= (v))
#define PARZ_GPU_BND_ADD(p, v) (*(p) += (v))
#endif

/* The words the scan and the forward pass count on the device (parz_gpu_bnd.stats): the largest
 * finite magnitude's bits (a double >= 0 orders as its bits), the values not finite, NaN, the
 * fill values, then the exceptions the forward pass makes. */
enum {
  PARZ_GPU_BND_TOP,
  PARZ_GPU_BND_NONFINITE,
  PARZ_GPU_BND_NAN,
  PARZ_GPU_BND_FILL,
  PARZ_GPU_BND_MADE,
  PARZ_GPU_BND_STATS
};

/* One chunk's part in the kernels. */
struct parz_gpu_bnd {
  const void* src; /* the values, contiguous */
  int type;        /* parz_type */
  unsigned long long n;
  size_t n4[4], st4[4]; /* parz_bounded_shape4 */
  double eb, step, inv_step, unit, inv_unit;
  /* step, inv_step, unit, inv_unit where the device computed them (parz_gpu_bnd_const), or NULL:
   * the fields above */
  const double* kstep;
  unsigned long long* stats;    /* PARZ_GPU_BND_STATS words, or NULL: nothing counted */
  uint8_t* hole;                /* per value: PARZ_BOUNDED_KNOWN, _EXCEPTION or _MASKED */
  int32_t* q;                   /* quantized values */
  int32_t* codes;               /* in the predictor's order */
  unsigned long long seg, nseg; /* codes per segment, segments */
  unsigned long long* plain;    /* symbol counts without zero runs [PARZ_BOUNDED_SYMBOLS] */
  unsigned long long* runs;     /* and with them */
  const uint8_t* len;           /* the codebook's lengths and words over the residuals' range: */
  const uint32_t* code;         /* symbol s at s below PARZ_BOUNDED_HEAD, at s - shift past it */
  uint32_t shift;
  int use_runs;
  uint32_t* lane_bits;              /* per lane of each segment (PARZ_GPU_BND_LANES) */
  unsigned long long* seg_bits;     /* per segment */
  const unsigned long long* seg_at; /* each segment's first bit */
  unsigned long long* payload;      /* zero before the payload step */
};

/* What the scan finds in some values (a thread's, a warp's, the chunk's). */
struct parz_gpu_bnd_scan {
  double top;                              /* largest finite magnitude */
  unsigned long long nonfinite, nan, fill; /* values not finite, NaN, the fill value */
};

PARZ_HD double parz_gpu_bnd_value(const parz_gpu_bnd& b, unsigned long long i, uint64_t* bits) {
  if (b.type == PARZ_FLOAT) {
    const float f = ((const float*)b.src)[i];
    uint32_t u;
    memcpy(&u, &f, 4);
    *bits = u;
    return f;
  }
  const double d = ((const double*)b.src)[i];
  memcpy(bits, &d, 8);
  return d;
}

/* Value i: its hole (MASKED where not finite: the frame restores it from its exception record)
 * added to the scan's findings. fill_bits: the masked fill value's bits, when masked. */
PARZ_HD void parz_gpu_bnd_scan_value(const parz_gpu_bnd& b, unsigned long long i, int fill,
                                     uint64_t fill_bits, parz_gpu_bnd_scan* s) {
  uint64_t bits;
  const double x = parz_gpu_bnd_value(b, i, &bits);
  const int finite = isfinite(x);
  b.hole[i] = finite ? PARZ_BOUNDED_KNOWN : PARZ_BOUNDED_MASKED;
  s->nonfinite += !finite;
  s->nan += x != x;
  s->fill += fill && bits == fill_bits;
  if (finite && fabs(x) > s->top)
    s->top = fabs(x);
}

/* The grid's step for values whose largest finite magnitude is top (parz_bounded_step's) and the
 * constants that follow from it: k = step, 1 / step, the interpolation's unit, 1 / unit. */
PARZ_HD void parz_gpu_bnd_step_consts(int type, double top, double eb, double k[4]) {
  k[0] = parz_bounded_grid_step((parz_type)type, top, eb);
  k[1] = 1 / k[0];
  k[2] = k[0] / PARZ_BOUNDED_FINE; /* parz_bounded_unit of the interpolation */
  k[3] = 1 / k[2];
}

/* The grid's constant k (0 step, 1 1 / step, 2 the interpolation's unit, 3 1 / unit) for the
 * forward steps: where the scan left it on the device (kstep), not waited for by the host, or b's
 * field. Read apart, not by a copy of b: a thread's copy of the whole argument would go to local
 * memory (the extents are indexed by a pass's axis). */
PARZ_HD double parz_gpu_bnd_const(const parz_gpu_bnd& b, int k) {
  if (b.kstep)
    return b.kstep[k];
  return k == 0 ? b.step : k == 1 ? b.inv_step : k == 2 ? b.unit : b.inv_unit;
}

/* The holes the scan and the forward pass left (0: the hole kernels have nothing to do). */
PARZ_HD unsigned long long parz_gpu_bnd_holes(const unsigned long long* stats) {
  return stats[PARZ_GPU_BND_NONFINITE] + stats[PARZ_GPU_BND_MADE];
}

/* Lorenzo: value i quantized (parz_bounded_quantize), a hole's q 0 until its prediction. */
PARZ_HD void parz_gpu_bnd_quantize(const parz_gpu_bnd& b, unsigned long long i) {
  uint64_t bits;
  const double x = parz_gpu_bnd_value(b, i, &bits);
  int32_t v = 0;
  if (b.hole[i] == PARZ_BOUNDED_KNOWN &&
      !parz_bounded_quantize_one((parz_type)b.type, x, b.eb, parz_gpu_bnd_const(b, 0),
                                 parz_gpu_bnd_const(b, 1), &v)) {
    v = 0;
    b.hole[i] = PARZ_BOUNDED_EXCEPTION;
    if (b.stats)
      PARZ_GPU_BND_ADD(b.stats + PARZ_GPU_BND_MADE, 1u);
  }
  b.q[i] = v;
}

/* Lorenzo: the hole at i gets its prediction from the values before it, holes included (so the
 * holes go in order, one thread). */
PARZ_HD void parz_gpu_bnd_lorenzo_hole(const parz_gpu_bnd& b, unsigned long long i) {
  b.q[i] =
      parz_bounded_clamp(parz_bounded_lorenzo_pred(b.q, b.n4, b.st4, (size_t)i), PARZ_BOUNDED_QMAX);
}

/* Lorenzo: value i's residual, the n-D difference, in the wrapping arithmetic of the CPU's
 * differences along each axis (bounded_predict.c): the same integer modulo 2^32. */
PARZ_HD void parz_gpu_bnd_lorenzo_code(const parz_gpu_bnd& b, unsigned long long i) {
  const int64_t d = (int64_t)b.q[i] - parz_bounded_lorenzo_pred(b.q, b.n4, b.st4, (size_t)i);
  b.codes[i] = (int32_t)(uint32_t)(uint64_t)d;
}

/* The interpolation: the coordinates i of value t of pass p (in code order) and its index. By
 * 32-bit division (a chunk holds fewer than 2^32 values). */
PARZ_HD size_t parz_gpu_bnd_pass_place(const parz_gpu_bnd& b, const parz_bounded_pass& p,
                                       unsigned long long t, uint64_t i[4]) {
  const unsigned u = (unsigned)t, n3 = (unsigned)p.cnt[3], n2 = (unsigned)p.cnt[2],
                 n1 = (unsigned)p.cnt[1];
  const unsigned line = u / n3, l2 = line / n2, c0 = l2 / n1;
  i[0] = p.start[0] + (uint64_t)c0 * p.step[0];
  i[1] = p.start[1] + (uint64_t)(l2 - c0 * n1) * p.step[1];
  i[2] = p.start[2] + (uint64_t)(line - l2 * n2) * p.step[2];
  i[3] = p.start[3] + (uint64_t)(u - line * n3) * p.step[3];
  return i[0] * b.st4[0] + i[1] * b.st4[1] + i[2] * b.st4[2] + i[3];
}

/* The interpolation: the value at idx, code pos, from its prediction pr (bounded_predict.c's
 * step), its q, hole and code stored; returns its q. */
PARZ_HD int32_t parz_gpu_bnd_interp_at(const parz_gpu_bnd& b, size_t idx, size_t pos, int64_t pr) {
  uint64_t bits;
  const double x = parz_gpu_bnd_value(b, idx, &bits);
  uint8_t hole = b.hole[idx];
  const int known = hole == PARZ_BOUNDED_KNOWN;
  int32_t q, code;
  parz_bounded_interp_value((parz_type)b.type, x, pr, parz_gpu_bnd_const(b, 2),
                            parz_gpu_bnd_const(b, 3), b.eb, 0, 0, &q, &hole, &code);
  b.q[idx] = q;
  b.codes[pos] = code;
  if (known && hole != PARZ_BOUNDED_KNOWN) {
    b.hole[idx] = hole;
    if (b.stats)
      PARZ_GPU_BND_ADD(b.stats + PARZ_GPU_BND_MADE, 1u);
  }
  return q;
}

/* The interpolation: value t of pass p (in code order), as bounded_predict.c encodes it. Its
 * coordinates along the pass's axis selected rather than indexed (parz_gpu_bdec_along), so that
 * they stay in registers. */
PARZ_HD void parz_gpu_bnd_pass_value(const parz_gpu_bnd& b, const parz_bounded_pass& p, int cubic,
                                     unsigned long long t) {
  uint64_t i[4];
  const size_t idx = parz_gpu_bnd_pass_place(b, p, t, i);
  const int64_t pr =
      p.pos == 0 ? 0
                 : parz_bounded_interp_pred(b.q, idx, parz_gpu_bdec_along(i, p.k),
                                            parz_gpu_bdec_along(b.n4, p.k),
                                            p.s * parz_gpu_bdec_along(b.st4, p.k), p.s, cubic);
  parz_gpu_bnd_interp_at(b, idx, (size_t)(p.pos + t), pr);
}

/* The same for a coarse pass whose values, and the neighbours they read, lie on the grid g
 * (parz_gpu_bdec_grid_of of the coarse passes' least stride), its points' q in gq (a CTA's shared
 * memory on the GPU): the neighbours read there, the value stored there too, so that a pass
 * waits on gq rather than on the global stores of the pass before it. */
PARZ_HD void parz_gpu_bnd_coarse_value(const parz_gpu_bnd& b, const parz_bounded_pass& p, int cubic,
                                       unsigned long long t, const parz_gpu_bdec_grid& g,
                                       int32_t* gq) {
  uint64_t i[4];
  const size_t idx = parz_gpu_bnd_pass_place(b, p, t, i);
  const unsigned sh = g.shift;
  const uint64_t at =
      (i[0] >> sh) * g.gst[0] + (i[1] >> sh) * g.gst[1] + (i[2] >> sh) * g.gst[2] + (i[3] >> sh);
  const int64_t pr =
      p.pos == 0 ? 0
                 : parz_bounded_interp_pred(
                       gq, (size_t)at, parz_gpu_bdec_along(i, p.k), parz_gpu_bdec_along(b.n4, p.k),
                       (size_t)((p.s >> sh) * parz_gpu_bdec_along(g.gst, p.k)), p.s, cubic);
  gq[at] = parz_gpu_bnd_interp_at(b, idx, (size_t)(p.pos + t), pr);
}

/* Codes [*a, *e) of segment s. */
PARZ_HD void parz_gpu_bnd_segment(const parz_gpu_bnd& b, unsigned long long s, size_t* a,
                                  size_t* e) {
  *a = (size_t)(s * b.seg);
  *e = (size_t)(s * b.seg + b.seg < b.n ? s * b.seg + b.seg : b.n);
}

/* ---- A segment's tokens among lanes (a warp's on the GPU) ----
 * Lane l of L takes share l of the segment's codes, [sa, se), and owns the tokens that start in
 * it: so the lanes together have the serial walk's tokens (parz_bounded_next_token from the
 * segment's first code), each exactly once. Without runs every code is a token. With them, a
 * lane's first token is its first code, unless that code is a 0 inside a run of zeros that
 * started before the share: then the run's next piece (a run token holds at most
 * PARZ_BOUNDED_RUN_MAX codes, pieces counted from the run's start), or the run's end. A run that
 * starts in the share and passes its end is the lane's, its length known from where the next
 * code not 0 lies. So before the lanes walk, each finds where its share's first and last codes
 * not 0 lie (parz_gpu_bnd_share_edges) and learns from the others (a warp's scans: the greatest
 * end before its share, the least start after it); then each walks its own codes only, a run
 * that crosses shares included (parz_gpu_bnd_lane_walk). Nothing depends on the number of lanes:
 * tests/test_gpu_bounded_encode_host.cpp runs these steps for 1 to 64 lanes against the serial
 * walk. */

/* The lanes of a warp per segment. */
#define PARZ_GPU_BND_LANES 32u

/* Share l of `lanes` of the segment [a, e). */
PARZ_HD void parz_gpu_bnd_share(size_t a, size_t e, unsigned lanes, unsigned l, size_t* sa,
                                size_t* se) {
  *sa = a + (e - a) * l / lanes;
  *se = a + (e - a) * (l + 1) / lanes;
}

/* A segment's codes staged (in a CTA's shared memory on the GPU), read as the chunk's: code i of
 * the segment from `a` at p[r + (r >> skew)], r = i - a, so that the lanes reading the k-th
 * codes of their shares at once (shares of about 2^skew codes) meet different banks; beside them
 * the bitmap of the codes not 0 (bit r % 32 of nz[r / 32], the bits past the segment's end 0),
 * so that a lane finds the next code not 0 a word of 32 codes at a time, not a code at a time.
 * The lane steps take it, or the chunk's codes themselves (any Codes with codes[i], searched a
 * code at a time). */
#if defined(__CUDACC__)
#define PARZ_GPU_BND_MEMBER __host__ __device__ __forceinline__
#else
#define PARZ_GPU_BND_MEMBER inline
#endif
struct parz_gpu_bnd_staged {
  const int32_t* p;
  size_t a;
  unsigned skew;
  const uint32_t* nz;
  PARZ_GPU_BND_MEMBER int32_t operator[](size_t i) const {
    const uint32_t r = (uint32_t)(i - a);
    return p[r + (r >> skew)];
  }
};

/* The skew of a segment of n codes among `lanes`: log2 of its shares' length, rounded down. */
PARZ_HD unsigned parz_gpu_bnd_skew(size_t n, unsigned lanes) {
  unsigned k = 0;
  while (((size_t)2 << k) * lanes <= n)
    k++;
  return k;
}

/* The words a staged segment of n codes takes: its codes, then its bitmap's
 * parz_gpu_bnd_nz_words. */
PARZ_HD size_t parz_gpu_bnd_nz_words(size_t n) { return (n + 31) / 32; }
PARZ_HD size_t parz_gpu_bnd_staged_words(size_t n, unsigned skew) {
  return n + (n >> skew) + 1 + parz_gpu_bnd_nz_words(n);
}

/* Lane l of `lanes` stages its part of the segment [a, e) of codes into p (the codes l, l + lanes,
 * ...: a warp's reads of the chunk's codes coalesced). */
PARZ_HD void parz_gpu_bnd_stage(const int32_t* codes, size_t a, size_t e, unsigned skew, int32_t* p,
                                unsigned l, unsigned lanes) {
  for (size_t r = l; r < e - a; r += lanes)
    p[r + (r >> skew)] = codes[a + r];
}

/* The bitmap of the codes not 0 of the segment [a, e) into nz (its parz_gpu_bnd_nz_words): what
 * the kernels' ballots build while they stage it (bounded_encode.cu, stage_segment). */
PARZ_HD void parz_gpu_bnd_stage_nz(const int32_t* codes, size_t a, size_t e, uint32_t* nz) {
  for (size_t w = 0; w < parz_gpu_bnd_nz_words(e - a); w++)
    nz[w] = 0;
  for (size_t r = 0; r < e - a; r++)
    if (codes[a + r] != 0)
      nz[r / 32] |= (uint32_t)1 << (r % 32);
}

#if defined(__CUDA_ARCH__)
#define PARZ_GPU_BND_FFS(x) (__ffs((int)(x)) - 1)
#define PARZ_GPU_BND_CLZ(x) __clz((int)(x))
#else
#define PARZ_GPU_BND_FFS(x) __builtin_ctz(x)
#define PARZ_GPU_BND_CLZ(x) __builtin_clz(x)
#endif

/* The first code not 0 in [i, end) (end when none), a code at a time, or a word of the staged
 * bitmap at a time. */
template <typename Codes>
PARZ_HD size_t parz_gpu_bnd_next_nz(const Codes& codes, size_t i, size_t end) {
  while (i < end && codes[i] == 0)
    i++;
  return i;
}
PARZ_HD size_t parz_gpu_bnd_next_nz(const parz_gpu_bnd_staged& c, size_t i, size_t end) {
  if (i >= end || c[i] != 0) /* most runs of zeros are short: the code first */
    return i;
  const size_t r = i - c.a, last = (end - 1 - c.a) / 32;
  size_t w = r / 32;
  uint32_t m = c.nz[w] & (~0u << (r % 32));
  while (!m) {
    if (w == last)
      return end;
    m = c.nz[++w];
  }
  const size_t at = c.a + 32 * w + (size_t)PARZ_GPU_BND_FFS(m);
  return at < end ? at : end;
}

/* One past the last code not 0 in [i, j) (i when none), the same two ways. */
template <typename Codes>
PARZ_HD size_t parz_gpu_bnd_last_nz1(const Codes& codes, size_t i, size_t j) {
  while (j > i && codes[j - 1] == 0)
    j--;
  return j;
}
PARZ_HD size_t parz_gpu_bnd_last_nz1(const parz_gpu_bnd_staged& c, size_t i, size_t j) {
  if (j <= i)
    return i;
  if (c[j - 1] != 0)
    return j;
  const size_t r = j - 1 - c.a, first = (i - c.a) / 32;
  size_t w = r / 32;
  uint32_t m = c.nz[w] & (~0u >> (31 - r % 32));
  while (!m) {
    if (w == first)
      return i;
    m = c.nz[--w];
  }
  const size_t at = c.a + 32 * w + (size_t)(32 - PARZ_GPU_BND_CLZ(m));
  return at > i ? at : i;
}

/* The share [sa, se) of a segment ending at e: its first code not 0 (e when none) and one past its
 * last (0 when none). */
template <typename Codes>
PARZ_HD void parz_gpu_bnd_share_edges(const Codes& codes, size_t sa, size_t se, size_t e,
                                      size_t* first, size_t* last1) {
  const size_t i = parz_gpu_bnd_next_nz(codes, sa, se);
  *first = i < se ? i : e;
  *last1 = i < se ? parz_gpu_bnd_last_nz1(codes, i, se) : 0;
}

/* One lane's share and what it needs of the others'. */
struct parz_gpu_bnd_lane {
  size_t a;      /* the segment's first code */
  size_t sa, se; /* the share */
  size_t before; /* one past the last code not 0 before sa in the segment (a when none) */
  size_t next;   /* the first code not 0 from sa on (the segment's end when none) */
  size_t after;  /* the first code not 0 from se on (the segment's end when none) */
};

/* Lane of share [sa, se) of the segment from a, its share's first code not 0 `first`
 * (parz_gpu_bnd_share_edges), the greatest last1 of the shares before it (0: none) and the least
 * first of those after it (the segment's end: none). */
PARZ_HD parz_gpu_bnd_lane parz_gpu_bnd_lane_of(size_t a, size_t sa, size_t se, size_t first,
                                               size_t last1_before, size_t first_after) {
  parz_gpu_bnd_lane l;
  l.a = a;
  l.sa = sa;
  l.se = se;
  l.before = last1_before > a ? last1_before : a;
  l.after = first_after;
  l.next = first < first_after ? first : first_after;
  return l;
}

/* The lane's first token: its share's first code, or past the run of zeros that holds it. */
template <typename Codes>
PARZ_HD size_t parz_gpu_bnd_lane_start(const Codes& codes, const parz_gpu_bnd_lane& l, int runs) {
  if (!runs || l.sa == l.a || l.sa >= l.se || codes[l.sa] != 0 || codes[l.sa - 1] != 0)
    return l.sa;
  /* zeros from l.before to l.next: their tokens start every PARZ_BOUNDED_RUN_MAX codes */
  const size_t t = l.before + (l.sa - l.before + PARZ_BOUNDED_RUN_MAX - 1) / PARZ_BOUNDED_RUN_MAX *
                                  PARZ_BOUNDED_RUN_MAX;
  return t < l.next ? t : l.next;
}

/* The lane walk's steps in 32 bits, positions r relative to the segment's first code a (a
 * segment holds at most PARZ_MAX_SEGMENT_BLOCKS codes): code r, and the first code not 0 in
 * [r, end) (end when none), a code at a time or a word of the staged bitmap at a time. */
template <typename Codes>
PARZ_HD int32_t parz_gpu_bnd_code_at(const Codes& codes, size_t a, uint32_t r) {
  return codes[a + r];
}
PARZ_HD int32_t parz_gpu_bnd_code_at(const parz_gpu_bnd_staged& c, size_t, uint32_t r) {
  return c.p[r + (r >> c.skew)];
}
template <typename Codes>
PARZ_HD uint32_t parz_gpu_bnd_next_nz_at(const Codes& codes, size_t a, uint32_t r, uint32_t end) {
  while (r < end && parz_gpu_bnd_code_at(codes, a, r) == 0)
    r++;
  return r;
}
PARZ_HD uint32_t parz_gpu_bnd_next_nz_at(const parz_gpu_bnd_staged& c, size_t, uint32_t r,
                                         uint32_t end) {
  if (r >= end)
    return end;
  const uint32_t last = (end - 1) / 32;
  uint32_t w = r / 32, m = c.nz[w] & (~0u << (r % 32));
  while (!m && w < last)
    m = c.nz[++w];
  const uint32_t at = m ? 32 * w + (uint32_t)PARZ_GPU_BND_FFS(m) : end;
  return at < end ? at : end;
}

/* The token at code v, len the zeros from it to the run's end when v is 0 with runs (else 1):
 * parz_bounded_next_token's, a run's as parz_bounded_zero_token makes it, its symbol from the
 * length's highest bit rather than a loop over the bits. */
PARZ_HD parz_bounded_token parz_gpu_bnd_token(int32_t v, uint32_t len, int runs) {
  if (v != 0 || !runs || len < 2)
    return parz_bounded_next_token(&v, 0, 1, 0);
  const uint32_t k = 31u - (uint32_t)PARZ_GPU_BND_CLZ(len);
  parz_bounded_token t;
  t.sym = k < PARZ_BOUNDED_RUNS ? k : PARZ_BOUNDED_RUNS;
  if (len > PARZ_BOUNDED_RUN_MAX)
    len = (uint32_t)PARZ_BOUNDED_RUN_MAX;
  t.extra = len - ((uint32_t)1 << t.sym);
  t.extra_bits = t.sym;
  t.advance = len;
  return t;
}

/* The lane's tokens in order: emit(token) for each; a token at a time, a run of zeros one token
 * (its end searched once; a run longer than a token holds comes back as the next token). */
template <typename Codes, typename Emit>
PARZ_HD void parz_gpu_bnd_lane_walk(const Codes& codes, const parz_gpu_bnd_lane& l, int runs,
                                    Emit emit) {
  const size_t a = l.a;
  const uint32_t se = (uint32_t)(l.se - a), after = (uint32_t)(l.after - a);
  uint32_t i = (uint32_t)(parz_gpu_bnd_lane_start(codes, l, runs) - a);
  while (i < se) {
    const int32_t v = parz_gpu_bnd_code_at(codes, a, i);
    uint32_t len = 1;
    if (runs && v == 0) {
      const uint32_t j = parz_gpu_bnd_next_nz_at(codes, a, i + 1, se);
      len = (j == se ? after : j) - i;
    }
    const parz_bounded_token t = parz_gpu_bnd_token(v, len, runs);
    emit(t);
    i += (uint32_t)t.advance;
  }
}

/* The lane's symbols counted both ways (bounded_huff.c's count): add(symbol) for each of its tokens
 * with zero runs, and the zeros its run tokens stand for returned. The counts without runs follow
 * from those (parz_gpu_bnd_plain_too): a symbol but the run symbols is the same token both ways,
 * and the zero symbol counts every zero of the runs too (a zero alone is the zero symbol both
 * ways). So a count takes one add per token, and the most frequent symbol none. */
template <typename Codes, typename Add>
PARZ_HD unsigned long long parz_gpu_bnd_lane_count(const Codes& codes, const parz_gpu_bnd_lane& l,
                                                   Add add) {
  unsigned long long zeros = 0;
  parz_gpu_bnd_lane_walk(codes, l, 1, [&](const parz_bounded_token& t) {
    add(t.sym);
    if (t.sym >= 1 && t.sym <= PARZ_BOUNDED_RUNS)
      zeros += t.advance;
  });
  return zeros;
}

/* Whether the count with zero runs of symbol sym is its count without them too: all but the run
 * symbols (the zero symbol's then adds the runs' zeros, parz_gpu_bnd_lane_count). */
PARZ_HD int parz_gpu_bnd_plain_too(uint32_t sym) {
  return sym == PARZ_BOUNDED_SYM_ESCAPE || sym > PARZ_BOUNDED_RUNS;
}

/* The symbols the count kernel counts in shared memory, where most of them fall: the escape and
 * the run symbols (entries 0 to PARZ_BOUNDED_RUNS), then the residuals around 0 (a window of
 * PARZ_GPU_BND_WINDOW); the others go straight to the chunk's counts. Entry of symbol sym, or
 * -1. */
#define PARZ_GPU_BND_WINDOW 2048u
#define PARZ_GPU_BND_SHARED (1u + PARZ_BOUNDED_RUNS + PARZ_GPU_BND_WINDOW)
PARZ_HD int parz_gpu_bnd_shared_entry(uint32_t sym) {
  const uint32_t lo = PARZ_BOUNDED_SYM_ZERO - PARZ_GPU_BND_WINDOW / 2;
  if (sym <= PARZ_BOUNDED_RUNS)
    return (int)sym;
  return sym - lo < PARZ_GPU_BND_WINDOW ? (int)(1u + PARZ_BOUNDED_RUNS + (sym - lo)) : -1;
}
PARZ_HD uint32_t parz_gpu_bnd_shared_symbol(unsigned entry) {
  return entry <= PARZ_BOUNDED_RUNS
             ? entry
             : entry - (1u + PARZ_BOUNDED_RUNS) + PARZ_BOUNDED_SYM_ZERO - PARZ_GPU_BND_WINDOW / 2;
}

/* Widens [*lo, *hi] to the residual of symbol sym (of a token with zero runs) where it is a
 * residual's, the range the codebook is built over. */
PARZ_HD void parz_gpu_bnd_widen(uint32_t sym, int* lo, int* hi) {
  if (sym > PARZ_BOUNDED_RUNS) {
    const int r = (int)sym - (int)PARZ_BOUNDED_SYM_ZERO;
    *lo = r < *lo ? r : *lo;
    *hi = r > *hi ? r : *hi;
  }
}

/* Symbol sym's entry in the codebook's tables (every symbol a token makes lies in the range). */
PARZ_HD uint32_t parz_gpu_bnd_entry(const parz_gpu_bnd& b, uint32_t sym) {
  return sym < PARZ_BOUNDED_HEAD ? sym : sym - b.shift;
}

/* The lane's bits under the codebook. */
template <typename Codes>
PARZ_HD uint32_t parz_gpu_bnd_lane_bits(const parz_gpu_bnd& b, const Codes& codes,
                                                  const parz_gpu_bnd_lane& l) {
  uint32_t bits = 0; /* a segment's codes take fewer than 2^32 bits */
  parz_gpu_bnd_lane_walk(codes, l, b.use_runs, [&](const parz_bounded_token& t) {
    bits += b.len[parz_gpu_bnd_entry(b, t.sym)] + t.extra_bits;
  });
  return bits;
}

/* The lane's tokens written LSB first from bit `at` of the payload (parz_bitw's order), a word at
 * a time: the words it fills alone stored, its first and last, which it may share with its
 * neighbours, ORed in (so the payload is zero before). */
template <typename Codes>
PARZ_HD void parz_gpu_bnd_lane_write(const parz_gpu_bnd& b, const Codes& codes,
                                     const parz_gpu_bnd_lane& l, unsigned long long at) {
  unsigned long long w = at >> 6;
  unsigned fill = (unsigned)(at & 63u);
  int alone = fill == 0; /* the word at w holds no earlier lane's bits */
  uint64_t acc = 0;
  parz_gpu_bnd_lane_walk(codes, l, b.use_runs, [&](const parz_bounded_token& t) {
    /* the code word, then the raw bits: at most PARZ_BOUNDED_MAX_LEN + 32 bits, put at once */
    const uint32_t k = parz_gpu_bnd_entry(b, t.sym), nl = b.len[k];
    const unsigned nb = nl + t.extra_bits;
    const uint64_t v = (uint64_t)b.code[k] | (uint64_t)t.extra << nl;
    acc |= v << fill;
    fill += nb;
    if (fill >= 64) {
      if (alone)
        b.payload[w] = acc;
      else
        PARZ_GPU_BND_OR(b.payload + w, acc);
      alone = 1;
      w++;
      fill -= 64;
      acc = fill ? v >> (nb - fill) : 0;
    }
  });
  if (fill)
    PARZ_GPU_BND_OR(b.payload + w, acc);
}

/* ---- Host side ---- */

/* A chunk's plan: its layout and parameters, then what the host finds between the steps. */
struct parz_gpu_bnd_plan {
  parz_chunk_view v; /* parz_chunk_layout */
  parz_array a;      /* the array, contiguous */
  parz_bounded_shape s;
  double eb;
  int predictor; /* asked for (0: chosen), then the chunk's */
  int masks;     /* the configuration masks NaN (and the fill value, with fill) */
  int fill;
  uint64_t fill_bits;
};

/* The plan of chunk a under cfg, checked as parz_chunk_encoder_begin checks it; refuses what this
 * encoder does not take before any work (PARZ_ERR_UNSUPPORTED). */
static inline int parz_gpu_bnd_plan_of(parz_gpu_bnd_plan* p, const parz_array* a,
                                       const parz_chunk_config* cfg, parz_error* err) {
  memset(p, 0, sizeof *p);
  int rc = parz_gpu_whole_layout(&p->v, &p->a, a, cfg, PARZ_CODEC_BOUNDED, "bounded", err);
  if (rc != PARZ_OK)
    return rc;
  p->s.type = a->type;
  p->s.dims = a->dims;
  for (unsigned k = 0; k < a->dims; k++)
    p->s.shape[k] = a->shape[k];
  if (parz_bounded_count(&p->s) >> 32)
    return parz_fail(
        err, PARZ_ERR_UNSUPPORTED,
        "GPU encode: a bounded chunk of %zu values, 2^32 or more: encode it on the CPU",
        parz_bounded_count(&p->s));
  p->eb = parz_bounded_params_eb(p->v.codec_params);
  p->predictor = parz_bounded_params_predictor(p->v.codec_params);
  p->masks = parz_chunk_config_masks(cfg, a->type);
  p->fill = p->masks && cfg->fill;
  p->fill_bits = a->type == PARZ_FLOAT ? (cfg->fill_bits & 0xffffffffu) : cfg->fill_bits;
  return PARZ_OK;
}

/* The kernels' arguments of the plan, the device pointers the caller's. */
static inline void parz_gpu_bnd_args(const parz_gpu_bnd_plan* p, parz_gpu_bnd* b) {
  memset(b, 0, sizeof *b);
  b->type = (int)p->s.type;
  b->n = parz_bounded_count(&p->s);
  parz_bounded_shape4(&p->s, b->n4, b->st4);
  b->eb = p->eb;
  b->seg = p->v.segment_blocks;
  b->nseg = p->v.nsegments;
}

/* The grid step of values whose largest finite magnitude is top (parz_bounded_step's), and the
 * constants that follow from it. */
static inline void parz_gpu_bnd_set_step(parz_gpu_bnd* b, double top) {
  double k[4];
  parz_gpu_bnd_step_consts(b->type, top, b->eb, k);
  b->step = k[0];
  b->inv_step = k[1];
  b->unit = k[2];
  b->inv_unit = k[3];
}

/* After the scan (s: the chunk's findings): the refusals of what the scan found, the grid step
 * and the constants that follow from it. */
static inline int parz_gpu_bnd_after_scan(const parz_gpu_bnd_plan* p, const parz_gpu_bnd_scan* s,
                                          parz_gpu_bnd* b, parz_error* err) {
  if (p->masks && (s->nan || s->fill))
    return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                     "GPU encode: a bounded chunk holds %llu NaN and %llu fill values, which its "
                     "configuration masks; the GPU encoder writes no mask: encode it on the CPU",
                     s->nan, s->fill);
  if (!p->predictor && s->nonfinite)
    return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                     "GPU encode: a bounded chunk holds %llu values not finite and its predictor "
                     "is chosen (from the values as the CPU cleans them): encode it on the CPU",
                     s->nonfinite);
  parz_gpu_bnd_set_step(b, s->top);
  return PARZ_OK;
}

/* The range of symbols (parz_bounded_range) of residuals from lo to hi, lo <= 0 <= hi: the head,
 * then the residuals' symbols. */
PARZ_HD parz_bounded_range parz_gpu_bnd_range(int lo, int hi) {
  parz_bounded_range r;
  r.shift = (uint32_t)((int64_t)PARZ_BOUNDED_SYM_ZERO + lo) - PARZ_BOUNDED_HEAD;
  r.m = PARZ_BOUNDED_HEAD + (size_t)((int64_t)hi - lo) + 1;
  return r;
}

/* The ranges of at most this many symbols whose codebook the host builds (from the counts it
 * reads with the scan's words); the device builds a wider range's (bounded_book.cuh), where the
 * host's package-merge over tens of thousands of symbols would take milliseconds. */
#define PARZ_GPU_BND_HOST_BOOK (PARZ_BOUNDED_HEAD + PARZ_GPU_BND_WINDOW)

/* The chunk's codebook over the range r, the same as parz_bounded_coded_book's (the same lengths,
 * and the same words: the canonical order is the alphabet's, which r keeps): the kept code's
 * lengths over r (kept: the host's in len, or the device's) and words (the host's in code, or
 * the device's), whether it has zero runs, the payload's bits, the codebook's bytes in the codec
 * data (parz_bounded_codec_data, with the grid's step and the predictor). */
struct parz_gpu_bnd_book {
  std::vector<uint8_t> len; /* the host's: 2 r.m, the kept code's r.m lengths at kept */
  const uint8_t* kept;
  std::vector<uint32_t> code; /* the host's: r.m */
  int runs;
  unsigned long long bits;
  std::vector<unsigned char> codec_data;
};

/* The codec data of the kept lengths k->kept over r (k->runs set). */
static inline int parz_gpu_bnd_book_bytes(const parz_bounded_range& r, double step, int predictor,
                                          parz_gpu_bnd_book* k, parz_error* err) {
  /* every symbol of the grammar (bounded_huff.c) takes at most 32 bits, a run of unused ones
   * too; then the span's varint */
  std::vector<uint8_t> book(4 * r.m + 16);
  const size_t size = parz_bounded_book_write(k->kept, &r, book.data(), book.size());
  if (!size)
    return parz_fail(err, PARZ_ERR_BUFFER,
                     "bounded GPU encode: a codebook of %zu symbols takes more than %zu bytes", r.m,
                     book.size());
  k->codec_data.resize(parz_bounded_codec_data(step, predictor, k->runs, book.data(), size, NULL));
  parz_bounded_codec_data(step, predictor, k->runs, book.data(), size, k->codec_data.data());
  return PARZ_OK;
}

/* The host's codebook from the symbol counts over the range r (plain, then runs, r.m each): its
 * two codes' lengths and the choice between them parz_bounded_range_lengths' (runs_opt 2),
 * the two codes built on jobs (NULL: the calling thread). */
static inline int parz_gpu_bnd_book_of(const parz_bounded_range& r, const uint64_t* counts,
                                       double step, int predictor, parz_gpu_bnd_book* k,
                                       const parz_jobs* jobs, parz_error* err) {
  k->len.assign(2 * r.m, 0);
  k->code.assign(r.m, 0);
  const int rc = parz_bounded_range_lengths(&r, counts, counts + r.m, 2, k->len.data(), &k->kept,
                                            &k->runs, jobs, err);
  if (rc != PARZ_OK)
    return rc;
  if (parz_huff_canonical(k->kept, r.m, PARZ_BOUNDED_MAX_LEN, k->code.data()))
    return parz_fail(err, PARZ_ERR_STREAM,
                     "bounded GPU encode: code lengths of %zu symbols are no prefix code", r.m);
  k->bits = parz_bounded_coded_bits(k->runs ? counts + r.m : counts, k->kept, r.m);
  return parz_gpu_bnd_book_bytes(r, step, predictor, k, err);
}

/* The device's codebook: its kept lengths over r (a byte each), whether they have zero runs, the
 * payload's bits. */
static inline int parz_gpu_bnd_book_built(const parz_bounded_range& r, const uint8_t* kept,
                                          int runs, unsigned long long bits, double step,
                                          int predictor, parz_gpu_bnd_book* k, parz_error* err) {
  k->len.clear();
  k->code.clear();
  k->kept = kept;
  k->runs = runs;
  k->bits = bits;
  return parz_gpu_bnd_book_bytes(r, step, predictor, k, err);
}

/* The predictor's choice (predictor 0) as parz_bounded_choose makes it, its trials run by the
 * GPU's steps: the CPU's sample box (parz_bounded_sample_box) copied out of the chunk, its own
 * grid step (the scan's on the box), then per predictor the forward pass on the box from holes
 * all KNOWN (the values are finite: the encoder refuses others when it chooses, and masks
 * nothing, so the frame has no holes to give the CPU's trials either), the symbol counts with
 * runs over segments of the chunk's size and the residuals' range, the exceptions and masked
 * values; each trial's code with runs built as the chunk's is (on the host for a narrow range,
 * on the device for a wide one), its size (parz_bounded_estimate_counted's,
 * parz_bounded_trial_bytes) and the pick (parz_bounded_pick) on the host. */
struct parz_gpu_bnd_box {
  parz_bounded_shape s; /* the box */
  size_t n;             /* its values */
  size_t corner;        /* its first value's index in the chunk */
  long long stride[4];  /* the chunk's strides (values) along the box's axes */
};

/* The sample box of chunk p; 0 when parz_bounded_choose would take Lorenzo without trials (the
 * box's check fails). */
static inline int parz_gpu_bnd_box_of(const parz_gpu_bnd_plan* p, parz_gpu_bnd_box* x) {
  size_t lo[4];
  x->n = parz_bounded_sample_box(&p->s, &x->s, lo);
  x->corner = 0;
  long long run = 1;
  for (int k = (int)p->s.dims - 1; k >= 0; k--) {
    x->corner += lo[k] * (size_t)run;
    x->stride[k] = run;
    run *= (long long)p->s.shape[k];
  }
  return parz_bounded_check(&x->s, p->eb, NULL) == PARZ_OK;
}

/* The kernels' arguments of a trial on box x (its values, holes, codes the caller's). */
static inline void parz_gpu_bnd_box_args(const parz_gpu_bnd_plan* p, const parz_gpu_bnd_box* x,
                                         parz_gpu_bnd* b) {
  memset(b, 0, sizeof *b);
  b->type = (int)x->s.type;
  b->n = x->n;
  parz_bounded_shape4(&x->s, b->n4, b->st4);
  b->eb = p->eb;
  b->seg = p->v.segment_blocks;
  b->nseg = (b->n + b->seg - 1) / b->seg;
}

/* A trial's size from its counts with runs over its range r (PARZ_BOUNDED_HEAD entries, then the
 * residuals'), its exceptions and masked values: the host's code (parz_bounded_estimate_counted)
 * for a range of at most PARZ_GPU_BND_HOST_BOOK symbols. */
static inline size_t parz_gpu_bnd_trial_bytes(const uint64_t* runs, const parz_bounded_range& r,
                                              unsigned long long nexc, unsigned long long nmask) {
  return parz_bounded_trial_bytes(parz_bounded_estimate_counted(runs, &r), (size_t)nexc,
                                  (size_t)nmask);
}

/* The same from the device's code with runs for a wider range (its lengths len over r and its
 * payload's bits; built 0 where the device built none), sized as parz_bounded_estimate_counted
 * sizes it (the codebook's bytes and the payload's). */
static inline size_t parz_gpu_bnd_trial_built(const parz_bounded_range& r, const uint8_t* len,
                                              unsigned long long bits, int built,
                                              unsigned long long nexc, unsigned long long nmask) {
  size_t estimate = SIZE_MAX;
  if (built) {
    std::vector<uint8_t> out(PARZ_BOUNDED_BOOK_BYTES_MAX);
    const size_t book = parz_bounded_book_write(len, &r, out.data(), out.size());
    if (book)
      estimate = book + (size_t)((bits + 7) / 8);
  }
  return parz_bounded_trial_bytes(estimate, (size_t)nexc, (size_t)nmask);
}

/* The chunk once its payload's size and exceptions are known: its layout as the serial encoder
 * settles it (chunk_encode.c, settle) into *fin, its size into *size and head bytes into *head;
 * *stored set when the configuration stores a chunk that would be larger than its values. */
static inline int parz_gpu_bnd_settle(const parz_gpu_bnd_plan* p, const parz_chunk_config* cfg,
                                      unsigned long long bits, unsigned long long nexc,
                                      size_t codec_data_bytes, parz_chunk_view* fin, size_t* head,
                                      size_t* size, int* stored, parz_error* err) {
  return parz_gpu_whole_settle(&p->a, &p->v, cfg, bits, nexc, codec_data_bytes, 2, fin, head, size,
                               stored, err);
}

/* The bit range [*begin, *end) of checksummed partition k of nsums, per segments each, of a
 * payload of payload_bytes (chunk_encode.c, parz_chunk_encoder_checksum); seg_at: each segment's
 * first bit. */
PARZ_HD void parz_gpu_bnd_partition(unsigned long long k, unsigned long long nsums,
                                    unsigned long long per, unsigned long long payload_bytes,
                                    const unsigned long long* seg_at, unsigned long long* begin,
                                    unsigned long long* end) {
  *begin = seg_at[k * per];
  *end = k + 1 == nsums ? 8ull * payload_bytes : seg_at[(k + 1) * per];
}

#endif
