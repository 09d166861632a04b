/* The error-bounded codec's GPU encoder: the kernels of bounded_encode.cuh's steps and the driver
 * that runs them, chunk after chunk, and places the chunks (gpu_codecs.h, encode_chunks). Each
 * chunk is built in the context's scratch (its codes and the codebook's memory) and buffers of
 * its own from the context's pool (parz_gpu_enc_pool, whose pages stay mapped across waits and
 * calls). With the predictor given the host waits twice per chunk: once for the scan's
 * findings, the exceptions' count, the residuals' range and the symbol counts over a range of at
 * most PARZ_GPU_BND_HOST_BOOK symbols, packed into one read; then, once it has built the codebook,
 * settled the layout from the code's bits and queued the rest, for the chunk's end. The host
 * writes the head's fixed parts (header, directory, codec data) and sends them up; the device
 * writes its table, exception records and checksums and seals it (head_crc.h), so nothing of the
 * head waits for the host. A call's one chunk is placed as soon as its size is known: its payload
 * and head are written there (parz_gpu_whole_direct). A wider range's codebook is built on the
 * device (bounded_book.cuh), one more wait reading its lengths. Between the waits nothing waits:
 * the grid's step is computed on the device, the holes' kernels find their count there, the
 * segments' offsets are summed there. With the predictor chosen the host also waits
 * for the scan's words and the trials, read together (and for a wide trial's codebook). The
 * kernels that walk a segment's codes give it a warp, its lanes a share each
 * (bounded_encode.cuh). Once every chunk of a batch is encoded, `place` gives each its place and
 * its head and payload are copied there. */
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "bounded_encode.cuh"
#include "bounded_gpu.h"
#include "checksum.cuh"
#include "encode_whole.h"
#include "gpu_codecs.h"
#include "head_table.h"
#include "whole_memory.h"

#define THREADS 256u
/* Values per thread of the holes' compaction. */
#define HOLE_RANGE 1024u

static unsigned blocks_for(unsigned long long units, unsigned threads) {
  const unsigned long long b = (units + threads - 1) / threads;
  return b ? (unsigned)b : 1u;
}

/* ---------------- kernels ---------------- */

/* The values of a strided array (element strides, C order) into a contiguous copy. */
struct gather_args {
  const unsigned char* src;
  unsigned char* dst;
  unsigned long long n, shape[4];
  long long stride[4];
  unsigned dims, size;
};

__global__ void gather_kernel(gather_args g) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < g.n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    unsigned long long r = i;
    long long off = 0;
    for (int k = (int)g.dims - 1; k >= 0; k--) {
      off += (long long)(r % g.shape[k]) * g.stride[k];
      r /= g.shape[k];
    }
    memcpy(g.dst + i * g.size, g.src + off * (long long)g.size, g.size);
  }
}

/* A warp's findings summed into its lane 0's. */
__device__ void scan_warp_sum(parz_gpu_bnd_scan* s) {
  for (unsigned d = 16; d > 0; d >>= 1) {
    s->top = fmax(s->top, __shfl_down_sync(0xffffffffu, s->top, d));
    s->nonfinite += __shfl_down_sync(0xffffffffu, s->nonfinite, d);
    s->nan += __shfl_down_sync(0xffffffffu, s->nan, d);
    s->fill += __shfl_down_sync(0xffffffffu, s->fill, d);
  }
}

/* A CTA's (THREADS threads) findings s added to stats, the scan's words of PARZ_GPU_BND_STATS
 * (its first four), once: atomics of every warp on the same four words would wait for each
 * other. The whole CTA calls it, last. */
__device__ void scan_cta_add(parz_gpu_bnd_scan s, unsigned long long* stats) {
  __shared__ parz_gpu_bnd_scan warps[THREADS / 32];
  scan_warp_sum(&s);
  if ((threadIdx.x & 31u) == 0)
    warps[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x >= 32)
    return;
  const parz_gpu_bnd_scan none = {0, 0, 0, 0};
  s = threadIdx.x < THREADS / 32 ? warps[threadIdx.x] : none;
  scan_warp_sum(&s);
  if (threadIdx.x == 0) {
    atomicMax(stats, (unsigned long long)__double_as_longlong(s.top));
    if (s.nonfinite)
      atomicAdd(stats + 1, s.nonfinite);
    if (s.nan)
      atomicAdd(stats + 2, s.nan);
    if (s.fill)
      atomicAdd(stats + 3, s.fill);
  }
}

__global__ void scan_kernel(parz_gpu_bnd b, int fill, uint64_t fill_bits,
                            unsigned long long* stats) {
  parz_gpu_bnd_scan s = {0, 0, 0, 0};
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < b.n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    parz_gpu_bnd_scan_value(b, i, fill, fill_bits, &s);
  scan_cta_add(s, stats);
}

/* Predictor 0's sample box (parz_gpu_bnd_box) copied out of the chunk (g: the box's shape and
 * the chunk's strides along its axes; values of `type`) with its largest finite magnitude into
 * stats[PARZ_GPU_BND_TOP], for the trials' grid step: one pass over the box, its index arithmetic
 * in 32 bits (the box, an eighth of a chunk at most, holds fewer than 2^32 values). */
__global__ void box_kernel(gather_args g, int type, unsigned long long* stats) {
  parz_gpu_bnd_scan s = {0, 0, 0, 0};
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < g.n; i += gridDim.x * blockDim.x) {
    unsigned r = i;
    unsigned long long off = 0;
    for (int k = (int)g.dims - 1; k >= 0; k--) {
      const unsigned e = (unsigned)g.shape[k];
      off += (unsigned long long)(r % e) * (unsigned long long)g.stride[k];
      r /= e;
    }
    double x;
    if (type == PARZ_FLOAT) {
      const float f = ((const float*)g.src)[off];
      ((float*)g.dst)[i] = f;
      x = f;
    } else {
      const double d = ((const double*)g.src)[off];
      ((double*)g.dst)[i] = d;
      x = d;
    }
    if (isfinite(x) && fabs(x) > s.top)
      s.top = fabs(x);
  }
  scan_cta_add(s, stats);
}

/* The grid's constants from the scan's largest magnitude, into k (parz_gpu_bnd.kstep): one
 * thread, so that the forward kernels follow the scan without the host's wait. */
__global__ void step_kernel(parz_gpu_bnd b, double* k) {
  double top;
  memcpy(&top, b.stats + PARZ_GPU_BND_TOP, 8);
  parz_gpu_bnd_step_consts(b.type, top, b.eb, k);
}

__global__ void quantize_kernel(parz_gpu_bnd b) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < b.n)
    parz_gpu_bnd_quantize(b, i);
}

/* The holes' positions in order: a count per range of HOLE_RANGE values, their running sum,
 * then each range's positions from its first. A warp per range, 32 values at a time (a ballot of
 * their holes); nothing to do where the scan and the forward pass counted no hole (b.stats), the
 * counts left 0. */
__global__ void hole_count_kernel(parz_gpu_bnd b, unsigned long long ranges,
                                  unsigned long long* counts) {
  const unsigned long long r = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31u;
  if (r >= ranges || (b.stats && !parz_gpu_bnd_holes(b.stats))) /* the whole warp */
    return;
  const unsigned long long a = r * HOLE_RANGE, e = a + HOLE_RANGE < b.n ? a + HOLE_RANGE : b.n;
  unsigned long long c = 0;
  for (unsigned long long i0 = a; i0 < e; i0 += 32) {
    const unsigned long long i = i0 + lane;
    c += __popc(__ballot_sync(0xffffffffu, i < e && b.hole[i] != PARZ_BOUNDED_KNOWN));
  }
  if (lane == 0)
    counts[r] = c;
}

/* The positions into pos32 (32 bits each), or exception records into rec (codec/frame/
 * exceptions.h: the position, then the value's bits, a word each). */
__global__ void hole_write_kernel(parz_gpu_bnd b, unsigned long long ranges,
                                  const unsigned long long* first, uint32_t* pos32, uint64_t* rec) {
  const unsigned long long r = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31u;
  if (r >= ranges || (b.stats && !parz_gpu_bnd_holes(b.stats))) /* the whole warp */
    return;
  const unsigned long long a = r * HOLE_RANGE, e = a + HOLE_RANGE < b.n ? a + HOLE_RANGE : b.n;
  unsigned long long at = first[r];
  for (unsigned long long i0 = a; i0 < e; i0 += 32) {
    const unsigned long long i = i0 + lane;
    const bool h = i < e && b.hole[i] != PARZ_BOUNDED_KNOWN;
    const unsigned mask = __ballot_sync(0xffffffffu, h);
    if (h) {
      const unsigned long long k = at + __popc(mask & ((1u << lane) - 1u));
      if (pos32) {
        pos32[k] = (uint32_t)i;
      } else {
        rec[2 * k] = i;
        parz_gpu_bnd_value(b, i, &rec[2 * k + 1]);
      }
    }
    at += __popc(mask);
  }
}

/* Lorenzo's holes, one thread, in order: *count of them at pos. */
__global__ void lorenzo_holes_kernel(parz_gpu_bnd b, const uint32_t* pos,
                                     const unsigned long long* count) {
  const unsigned long long c = *count;
  for (unsigned long long k = 0; k < c; k++)
    parz_gpu_bnd_lorenzo_hole(b, pos[k]);
}

__global__ void lorenzo_code_kernel(parz_gpu_bnd b) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < b.n)
    parz_gpu_bnd_lorenzo_code(b, i);
}

__global__ void pass_kernel(parz_gpu_bnd b, parz_bounded_pass p, int cubic,
                            unsigned long long count) {
  const unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (t < count)
    parz_gpu_bnd_pass_value(b, p, cubic, t);
}

/* The first passes, a few values each (the decoder's rule, parz_gpu_bdec_coarse of
 * bounded_passes.cuh), in one CTA: a barrier between passes, which orders the CTA's global
 * stores too, in place of a launch each; with a grid, their q in the CTA's shared memory too
 * (parz_gpu_bnd_coarse_value), where a pass reads its neighbours. */
#define COARSE_THREADS 1024u
/* The most bytes of a coarse CTA's grid: the shared memory a CTA has without asking for more. */
#define COARSE_GRID_MAX (48u << 10)
struct coarse_passes {
  parz_bounded_pass p[PARZ_GPU_BDEC_COARSE_PASSES];
  unsigned np;
  int cubic;
  int grid; /* the passes' q also in shared memory, on g */
  parz_gpu_bdec_grid g;
};

/* The grid of coarse passes whose last (least) stride is S, of a chunk of extents n4, into *g;
 * its bytes, or 0 where it does not serve (S not a power of 2, or more than COARSE_GRID_MAX). */
static size_t coarse_grid(unsigned long long S, const size_t n4[4], parz_gpu_bdec_grid* g) {
  const size_t bytes = 4 * parz_gpu_bdec_grid_of(S, n4, g);
  return (1ull << g->shift) == S && bytes <= COARSE_GRID_MAX ? bytes : 0;
}

/* Coarse pass p's values, the CTA's threads taking them in turn, then a barrier. */
__device__ void coarse_pass(const parz_gpu_bnd& b, const parz_bounded_pass& p, int cubic, int grid,
                            const parz_gpu_bdec_grid& g, int32_t* gq) {
  const unsigned long long count = (unsigned long long)p.cnt[0] * p.cnt[1] * p.cnt[2] * p.cnt[3];
  for (unsigned long long t = threadIdx.x; t < count; t += blockDim.x)
    if (grid)
      parz_gpu_bnd_coarse_value(b, p, cubic, t, g, gq);
    else
      parz_gpu_bnd_pass_value(b, p, cubic, t);
  __syncthreads();
}

__global__ void __launch_bounds__(COARSE_THREADS)
    coarse_kernel(parz_gpu_bnd b, const coarse_passes c) {
  extern __shared__ int32_t gq[];
  for (unsigned k = 0; k < c.np; k++)
    coarse_pass(b, c.p[k], c.cubic, c.grid, c.g, gq);
}

/* The interpolation predictors' trials of predictor 0's choice (trials_queue), side by side: their
 * arguments and passes in one table in device memory, every trial's coarse passes in one launch
 * (a CTA per trial, as coarse_kernel), then a launch per step j of the later passes, each trial's
 * j-th in it (blockIdx.y the trial). A trial's passes stay in order; the trials, on disjoint
 * memory, share the launches. The table holds Lorenzo's trial too, for the five trials' counts
 * and holes, each one launch (trials_count_kernel, trials_hole_stats_kernel). */
#define TRIALS_MAX (PARZ_BOUNDED_PREDICTORS - 1u)
struct trial_table {
  parz_gpu_bnd b[PARZ_BOUNDED_PREDICTORS]; /* every trial's: Lorenzo's, then the interpolations' */
  int cubic[TRIALS_MAX];
  unsigned coarse[TRIALS_MAX]; /* its first passes, in the coarse CTA */
  unsigned np[TRIALS_MAX];     /* its passes */
  unsigned first[TRIALS_MAX];  /* its first pass's index in the passes */
  int grid[TRIALS_MAX];        /* its coarse passes' q also in shared memory, on g */
  parz_gpu_bdec_grid g[TRIALS_MAX];
};

__global__ void __launch_bounds__(COARSE_THREADS)
    trials_coarse_kernel(const trial_table* tab, const parz_bounded_pass* passes) {
  extern __shared__ int32_t gq[];
  const unsigned c = blockIdx.x;
  const parz_gpu_bnd& b = tab->b[c + 1];
  for (unsigned k = 0; k < tab->coarse[c]; k++)
    coarse_pass(b, passes[tab->first[c] + k], tab->cubic[c], tab->grid[c], tab->g[c], gq);
}

__global__ void trials_pass_kernel(const trial_table* tab, const parz_bounded_pass* passes,
                                   unsigned j) {
  const unsigned c = blockIdx.y, k = tab->coarse[c] + j;
  if (k >= tab->np[c])
    return;
  const parz_bounded_pass& p = passes[tab->first[c] + k];
  const unsigned long long count = (unsigned long long)p.cnt[0] * p.cnt[1] * p.cnt[2] * p.cnt[3];
  const unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (t < count)
    parz_gpu_bnd_pass_value(tab->b[c + 1], p, tab->cubic[c], t);
}

/* Each trial's (blockIdx.y) holes: stats + 2 * trial, [0] the exceptions among them, [1] the
 * masked values. HOLE_STATS_VALUES values a thread: a launch of a thread per value would be
 * thousands of CTAs for a few bytes each. */
#define HOLE_STATS_VALUES 16u
__global__ void trials_hole_stats_kernel(const trial_table* tab, unsigned long long* stats) {
  const parz_gpu_bnd& b = tab->b[blockIdx.y];
  unsigned long long exc = 0, masked = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < b.n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    exc += b.hole[i] == PARZ_BOUNDED_EXCEPTION;
    masked += b.hole[i] == PARZ_BOUNDED_MASKED;
  }
  for (unsigned d = 16; d > 0; d >>= 1) {
    exc += __shfl_down_sync(0xffffffffu, exc, d);
    masked += __shfl_down_sync(0xffffffffu, masked, d);
  }
  stats += 2 * blockIdx.y;
  if ((threadIdx.x & 31u) == 0 && exc)
    atomicAdd(stats, exc);
  if ((threadIdx.x & 31u) == 0 && masked)
    atomicAdd(stats + 1, masked);
}

/* This lane's part of segment s (PARZ_GPU_BND_LANES lanes, the warp's) of `codes`: its share,
 * and from the other lanes' shares where the codes not 0 lie before and after it (a scan each
 * way, of positions from the segment's first code in 32 bits). The whole warp calls it. */
template <typename Codes>
__device__ parz_gpu_bnd_lane warp_lane(const parz_gpu_bnd& b, const Codes& codes,
                                       unsigned long long s, unsigned lane) {
  size_t a, e, sa, se, first, last1;
  parz_gpu_bnd_segment(b, s, &a, &e);
  parz_gpu_bnd_share(a, e, PARZ_GPU_BND_LANES, lane, &sa, &se);
  parz_gpu_bnd_share_edges(codes, sa, se, e, &first, &last1);
  /* last1 0 (none) and a both give `before` a: 0 here */
  uint32_t up = last1 > a ? (uint32_t)(last1 - a) : 0u, down = (uint32_t)(first - a);
  for (unsigned d = 1; d < 32; d <<= 1) {
    const uint32_t u = __shfl_up_sync(0xffffffffu, up, d);
    const uint32_t v = __shfl_down_sync(0xffffffffu, down, d);
    if (lane >= d && u > up)
      up = u;
    if (lane + d < 32 && v < down)
      down = v;
  }
  const uint32_t before = __shfl_up_sync(0xffffffffu, up, 1);
  const uint32_t after = __shfl_down_sync(0xffffffffu, down, 1);
  return parz_gpu_bnd_lane_of(a, sa, se, first, lane ? a + before : 0,
                              lane < 31 ? a + after : e);
}

/* The segments (warps) per CTA of the kernels that walk segments. */
#define SEG_WARPS 4u
/* The most shared memory their staged segments take per CTA; larger segments are read where they
 * are. */
#define STAGE_BYTES_MAX (100u << 10)

/* The segment [a, e) of the chunk's codes staged by its warp into p (parz_gpu_bnd_stage's places),
 * the bitmap of its codes not 0 (parz_gpu_bnd_stage_nz's) into nz from the warp's ballots on the
 * same reads. The whole warp calls it. */
__device__ void stage_segment(const int32_t* codes, size_t a, size_t e, unsigned skew, int32_t* p,
                              uint32_t* nz, unsigned lane) {
  const uint32_t n = (uint32_t)(e - a);
#pragma unroll 4
  for (uint32_t r0 = 0; r0 < n; r0 += 32) {
    const uint32_t r = r0 + lane;
    const int32_t v = r < n ? codes[a + r] : 0;
    if (r < n)
      p[r + (r >> skew)] = v;
    const uint32_t m = __ballot_sync(0xffffffffu, v != 0);
    if (lane == 0)
      nz[r0 / 32] = m;
  }
}

/* A staged segment read without its bitmap: the lanes scan it a code at a time. The count
 * kernels take it: at small bounds most zeros stand alone, and there the bitmap's search costs the
 * count more than it saves (bench/results/h200/bounded_gpu_encode.md). */
struct staged_scan {
  parz_gpu_bnd_staged c;
  __device__ __forceinline__ int32_t operator[](size_t i) const { return c[i]; }
};

/* Segment s's codes for its warp: f(codes, lane, l) with this lane's part (warp_lane) and the
 * codes, staged in the warp's part of the CTA's shared memory first (coalesced reads of the
 * chunk's codes; the lanes then read their own shares there, not 32 lines of memory at once;
 * with Bitmap they search the bitmap of its codes not 0 for the next one) when words, the staged
 * words of a warp, is not 0; skew: parz_gpu_bnd_skew of the chunk's segments. The whole warp
 * calls it. */
template <bool Bitmap = true, typename F>
__device__ void with_segment(const parz_gpu_bnd& b, unsigned long long s, unsigned words,
                             unsigned skew, F f) {
  extern __shared__ int32_t stage[];
  const unsigned lane = threadIdx.x & 31u;
  if (!words) {
    const int32_t* codes = b.codes;
    f(codes, lane, warp_lane(b, codes, s, lane));
    return;
  }
  size_t a, e;
  parz_gpu_bnd_segment(b, s, &a, &e);
  int32_t* p = stage + (threadIdx.x / 32) * (size_t)words;
  if (Bitmap) {
    uint32_t* nz = (uint32_t*)p + (words - parz_gpu_bnd_nz_words((size_t)b.seg));
    stage_segment(b.codes, a, e, skew, p, nz, lane);
    __syncwarp();
    const parz_gpu_bnd_staged codes = {p, a, skew, nz};
    f(codes, lane, warp_lane(b, codes, s, lane));
  } else {
    parz_gpu_bnd_stage(b.codes, a, e, skew, p, lane, 32);
    __syncwarp();
    const staged_scan codes = {{p, a, skew, NULL}};
    f(codes, lane, warp_lane(b, codes, s, lane));
  }
}

/* The symbols of a CTA's segments counted in shared memory where most fall
 * (parz_gpu_bnd_shared_entry), then added to the chunk's counts: a global atomic per token on
 * the few symbols that most tokens are would make them wait for each other. The tokens with zero
 * runs are counted, the counts without them follow (parz_gpu_bnd_lane_count), the zeros of the
 * runs summed in registers. range: the least and greatest residual, kept from 0
 * (parz_bounded_code_range's), zero before. */
__device__ void count_segments(const parz_gpu_bnd& b, int* range, unsigned words, unsigned skew) {
  __shared__ unsigned sh[PARZ_GPU_BND_SHARED];
  __shared__ unsigned long long cta_zeros;
  for (unsigned e = threadIdx.x; e < PARZ_GPU_BND_SHARED; e += blockDim.x)
    sh[e] = 0;
  if (threadIdx.x == 0)
    cta_zeros = 0;
  __syncthreads();
  const unsigned long long s = blockIdx.x * (unsigned long long)SEG_WARPS + threadIdx.x / 32;
  int lo = 0, hi = 0;
  unsigned long long zeros = 0;
  if (s < b.nseg) /* the whole warp */
    with_segment<false>(b, s, words, skew,
                        [&](const auto& codes, unsigned, const parz_gpu_bnd_lane& l) {
                          zeros = parz_gpu_bnd_lane_count(codes, l, [&](uint32_t sym) {
                            const int e = parz_gpu_bnd_shared_entry(sym);
                            parz_gpu_bnd_widen(sym, &lo, &hi);
                            if (e >= 0) {
                              atomicAdd(&sh[(unsigned)e], 1u);
                            } else {
                              atomicAdd(b.runs + sym, 1ull);
                              if (parz_gpu_bnd_plain_too(sym))
                                atomicAdd(b.plain + sym, 1ull);
                            }
                          });
                        });
  for (unsigned d = 16; d > 0; d >>= 1) {
    lo = min(lo, __shfl_down_sync(0xffffffffu, lo, d));
    hi = max(hi, __shfl_down_sync(0xffffffffu, hi, d));
    zeros += __shfl_down_sync(0xffffffffu, zeros, d);
  }
  if ((threadIdx.x & 31u) == 0 && lo)
    atomicMin(range, lo);
  if ((threadIdx.x & 31u) == 0 && hi)
    atomicMax(range + 1, hi);
  if ((threadIdx.x & 31u) == 0 && zeros)
    atomicAdd(&cta_zeros, zeros);
  __syncthreads();
  for (unsigned e = threadIdx.x; e < PARZ_GPU_BND_SHARED; e += blockDim.x)
    if (sh[e]) {
      const uint32_t sym = parz_gpu_bnd_shared_symbol(e);
      atomicAdd(b.runs + sym, (unsigned long long)sh[e]);
      if (parz_gpu_bnd_plain_too(sym))
        atomicAdd(b.plain + sym, (unsigned long long)sh[e]);
    }
  if (threadIdx.x == 0 && cta_zeros)
    atomicAdd(b.plain + PARZ_BOUNDED_SYM_ZERO, cta_zeros);
}

__global__ void count_kernel(parz_gpu_bnd b, int* range, unsigned words, unsigned skew) {
  count_segments(b, range, words, skew);
}

/* Every trial's counts in one launch, a trial per blockIdx.y (the trials share their segments,
 * and one trial's few CTAs leave most of the GPU idle): into its counts and ranges + 2 * trial,
 * zero before. */
__global__ void trials_count_kernel(const trial_table* tab, int* ranges, unsigned words,
                                    unsigned skew) {
  count_segments(tab->b[blockIdx.y], ranges + 2 * blockIdx.y, words, skew);
}

/* Each lane's bits and the segment's. */
__global__ void bits_kernel(parz_gpu_bnd b, unsigned words, unsigned skew) {
  const unsigned long long s = blockIdx.x * (unsigned long long)SEG_WARPS + threadIdx.x / 32;
  if (s >= b.nseg) /* the whole warp */
    return;
  with_segment(b, s, words, skew,
               [&](const auto& codes, unsigned lane, const parz_gpu_bnd_lane& l) {
                 const uint32_t bits = parz_gpu_bnd_lane_bits(b, codes, l);
                 b.lane_bits[s * PARZ_GPU_BND_LANES + lane] = bits;
                 uint32_t sum = bits; /* a segment's codes take fewer than 2^32 bits */
                 for (unsigned d = 16; d > 0; d >>= 1)
                   sum += __shfl_down_sync(0xffffffffu, sum, d);
                 if (lane == 0)
                   b.seg_bits[s] = sum;
               });
}

/* Each lane's tokens from the segment's first bit and the bits of the lanes before it. */
__global__ void write_kernel(parz_gpu_bnd b, unsigned words, unsigned skew) {
  const unsigned long long s = blockIdx.x * (unsigned long long)SEG_WARPS + threadIdx.x / 32;
  if (s >= b.nseg) /* the whole warp */
    return;
  with_segment(b, s, words, skew,
               [&](const auto& codes, unsigned lane, const parz_gpu_bnd_lane& l) {
                 const uint32_t bits = b.lane_bits[s * PARZ_GPU_BND_LANES + lane];
                 uint32_t at = bits;
                 for (unsigned d = 1; d < 32; d <<= 1) {
                   const uint32_t u = __shfl_up_sync(0xffffffffu, at, d);
                   if (lane >= d)
                     at += u;
                 }
                 parz_gpu_bnd_lane_write(b, codes, l, b.seg_at[s] + at - bits);
               });
}

/* What the host reads once a chunk is written: the segments' bits (their running sum's last), and
 * one past the last segment whose bits its length field does not hold (0: none). */
#define VERDICT_BITS 0u
#define VERDICT_LONG 1u
#define VERDICT_WORDS 2u

/* Segment s's entries in the table t from the segments' offsets at (nseg + 1 of them); a length
 * over `most` (the width's) marked in verdict, whose bits the first thread copies. */
__global__ void table_kernel(const parz_gpu_table t, const unsigned long long* at,
                             unsigned long long nseg, unsigned long long most,
                             unsigned long long* verdict) {
  const unsigned long long s = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (s == 0)
    verdict[VERDICT_BITS] = at[nseg];
  if (s >= nseg)
    return;
  const unsigned long long len = at[s + 1] - at[s];
  if (t.width && len > most)
    atomicMax(verdict + VERDICT_LONG, s + 1);
  parz_gpu_table_entry(t, s, at[s], len);
}

/* ---------------- the codebook (bounded_book.cuh) ---------------- */

/* A CTA as bounded_book.cuh's team: every thread runs the steps, each followed by a barrier;
 * acc: a word of the CTA's shared memory for the sums. */
struct cta_team {
  unsigned long long* acc;
  template <typename F>
  __device__ void each(size_t n, F f) {
    for (size_t i = threadIdx.x; i < n; i += blockDim.x)
      f(i);
    __syncthreads();
  }
  template <typename F>
  __device__ unsigned long long sum(size_t n, F f) {
    unsigned long long v = 0;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x)
      v += f(i);
    for (unsigned d = 16; d > 0; d >>= 1)
      v += __shfl_down_sync(0xffffffffu, v, d);
    if (threadIdx.x == 0)
      *acc = 0;
    __syncthreads();
    if ((threadIdx.x & 31u) == 0 && v)
      atomicAdd(acc, v);
    __syncthreads();
    v = *acc;
    __syncthreads();
    return v;
  }
  template <typename F>
  __device__ void one(F f) {
    if (threadIdx.x == 0)
      f();
    __syncthreads();
  }
};

#define BOOK_THREADS 1024u
/* A book's keys: both codes', PARZ_BOUNDED_SYMBOLS each. */
#define BOOK_KEYS (2 * (size_t)PARZ_BOUNDED_SYMBOLS)
/* The shared memory a code's build takes its working memory from, when it fits. */
#define BOOK_SHARED (224u << 10)

/* Codebooks built side by side, book y of them (blockIdx.y; blockIdx.x in book_words_kernel)
 * from the counts at counts + 2 x PARZ_BOUNDED_SYMBOLS x set[y] (without runs, then with them)
 * over the range at ranges + 2 x set[y]: the chunk's (one, set {0}), or predictor 0's trials of a
 * wide range (set: those trials). Each book has its part of the memory (book_memory). */
struct book_set {
  const unsigned long long* counts;
  const int* ranges;
  unsigned set[PARZ_BOUNDED_PREDICTORS];
};

__device__ const unsigned long long* book_counts(const book_set& s, unsigned y, unsigned c) {
  return s.counts + (2 * (size_t)s.set[y] + c) * PARZ_BOUNDED_SYMBOLS;
}

__device__ parz_bounded_range book_range(const book_set& s, unsigned y) {
  const int* range = s.ranges + 2 * s.set[y];
  return parz_gpu_bnd_range(range[0], range[1]);
}

/* Each book's (blockIdx.y) leaves' keys of both codes over its range (parz_gpu_bnd_key),
 * PARZ_BOUNDED_SYMBOLS each, the book above PARZ_GPU_BND_KEY_BITS: one sort orders every book's
 * keys, book after book. */
__global__ void book_keys_kernel(const book_set s, uint64_t* keys) {
  const unsigned y = blockIdx.y;
  const parz_bounded_range r = book_range(s, y);
  keys += y * (size_t)BOOK_KEYS;
  for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < BOOK_KEYS;
       e += (size_t)gridDim.x * blockDim.x) {
    const unsigned c = e >= PARZ_BOUNDED_SYMBOLS;
    const size_t k = e - c * (size_t)PARZ_BOUNDED_SYMBOLS;
    keys[e] =
        (uint64_t)y << PARZ_GPU_BND_KEY_BITS |
        parz_gpu_bnd_key(c, k < r.m ? parz_gpu_bnd_ranged(book_counts(s, y, c), r.shift, k) : 0, k);
  }
}

/* Code blockIdx.x (0 without runs, 1 with them) of book blockIdx.y: its lengths over the range
 * into len (at PARZ_BOUNDED_SYMBOLS x (2 x the book + the code)), its payload's bits and used
 * symbols into out[4 x the book + 2 x the code] and the next word. The weights the build
 * searches are in shared memory where they fit, the rest in scratch:
 * parz_gpu_bnd_huff_bytes(PARZ_BOUNDED_SYMBOLS) per code. */
__global__ void __launch_bounds__(BOOK_THREADS)
    book_kernel(const uint64_t* sorted, const book_set s, uint8_t* len, unsigned char* scratch,
                unsigned long long* out) {
  extern __shared__ unsigned long long book_shared[];
  __shared__ unsigned long long acc;
  __shared__ parz_gpu_bnd_huff st;
  cta_team team = {&acc};
  const unsigned c = blockIdx.x, y = blockIdx.y, code = 2 * y + c;
  const parz_bounded_range r = book_range(s, y);
  uint8_t* l = len + code * (size_t)PARZ_BOUNDED_SYMBOLS;
  unsigned char* global = scratch + code * parz_gpu_bnd_huff_bytes(PARZ_BOUNDED_SYMBOLS);
  const size_t used = parz_gpu_bnd_lengths(team, st, sorted + code * (size_t)PARZ_BOUNDED_SYMBOLS,
                                           PARZ_BOUNDED_SYMBOLS, l, r.m,
                                           (unsigned char*)book_shared, BOOK_SHARED, global);
  const unsigned long long bits =
      parz_gpu_bnd_book_bits(team, book_counts(s, y, c), r.shift, l, r.m);
  if (threadIdx.x == 0) {
    out[2 * code] = bits;
    out[2 * code + 1] = used;
  }
}

/* What the host reads of a codebook the device built, in one piece: the kept code's payload bits,
 * whether it has zero runs, an error (1: no symbol, 2: lengths that make no prefix code), then
 * its lengths over the range, a byte each. */
#define BOOK_BITS 0u
#define BOOK_RUNS 1u
#define BOOK_ERR 2u
#define BOOK_HEAD 3u
#define BOOK_WORDS (BOOK_HEAD + (PARZ_BOUNDED_SYMBOLS + 7u) / 8u)

/* The parts book_words_kernel counts the lengths in. */
#define WORD_PARTS 256u

/* The code kept of book blockIdx.x (the one with runs where its bits are fewer,
 * parz_bounded_range_lengths' choice; with runs_only the one with runs, a trial's): its canonical
 * words over the range into code, and the host's read into pack, at PARZ_BOUNDED_SYMBOLS and
 * BOOK_WORDS words a book. The kept lengths are staged in shared memory first. */
__global__ void __launch_bounds__(BOOK_THREADS)
    book_words_kernel(const book_set s, const uint8_t* len, const unsigned long long* built,
                      int runs_only, uint32_t* code, unsigned long long* pack) {
  extern __shared__ unsigned long long book_shared[];
  __shared__ unsigned long long acc;
  __shared__ uint32_t cnt[(PARZ_BOUNDED_MAX_LEN + 1) * (WORD_PARTS + 1)];
  cta_team team = {&acc};
  const unsigned y = blockIdx.x;
  const parz_bounded_range r = book_range(s, y);
  len += 2 * y * (size_t)PARZ_BOUNDED_SYMBOLS;
  built += 4 * y;
  code += y * (size_t)PARZ_BOUNDED_SYMBOLS;
  pack += y * (size_t)BOOK_WORDS;
  const int runs = runs_only || built[2] < built[0];
  const uint8_t* kept = len + (runs ? PARZ_BOUNDED_SYMBOLS : 0);
  uint8_t* staged = (uint8_t*)book_shared;
  uint8_t* bytes = (uint8_t*)(pack + BOOK_HEAD);
  team.each(r.m, [&](size_t k) { bytes[k] = staged[k] = kept[k]; });
  const int bad = !built[1] || !built[3]                                         ? 1
                  : parz_gpu_bnd_words(team, staged, r.m, WORD_PARTS, code, cnt) ? 2
                                                                                 : 0;
  if (threadIdx.x == 0) {
    pack[BOOK_BITS] = built[2 * runs];
    pack[BOOK_RUNS] = (unsigned long long)runs;
    pack[BOOK_ERR] = (unsigned long long)bad;
  }
}

/* What the host reads once the symbols are counted, in one piece (PACK_HEAD words, then the
 * counts over the residuals' range when it is narrow enough for the host's codebook): the
 * scan's and the forward pass's words (b.stats), the least and greatest residual, then the
 * counts without zero runs and with them over the range (parz_gpu_bnd_range of the two), r.m
 * each, as parz_gpu_bnd_book_of takes them. */
#define PACK_LO PARZ_GPU_BND_STATS
#define PACK_HEAD (PARZ_GPU_BND_STATS + 2u)
__global__ void pack_kernel(parz_gpu_bnd b, const int* range, unsigned long long* out) {
  const parz_bounded_range r = parz_gpu_bnd_range(range[0], range[1]);
  const unsigned long long first = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (first < PARZ_GPU_BND_STATS)
    out[first] = b.stats[first];
  if (first < 2)
    out[PACK_LO + first] = (unsigned long long)(long long)range[first];
  if (r.m > PARZ_GPU_BND_HOST_BOOK)
    return;
  for (unsigned long long e = first; e < 2 * r.m; e += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned long long k = e % r.m;
    const unsigned long long sym = k < PARZ_BOUNDED_HEAD ? k : k + r.shift;
    out[PACK_HEAD + e] = (e < r.m ? b.plain : b.runs)[sym];
  }
}

/* The words of the packed read the host takes: the counts of a range the host builds the codebook
 * of. */
#define PACK_FIRST (PACK_HEAD + 2u * PARZ_GPU_BND_HOST_BOOK)

/* What the host reads of the predictors' trials (trials_queue), in one piece: per trial
 * (blockIdx.y) TRIAL_WORDS words, its least and greatest residual, its exceptions and masked
 * values (trials_hole_stats_kernel's), then its counts with runs over its range when the range is
 * narrow enough for the host's code (as parz_gpu_bnd_trial_bytes takes them); after the trials',
 * the chunk's scan words (scan, the first TRIAL_SCAN of PARZ_GPU_BND_STATS: what the host's step
 * and refusals take). counts: each trial's plain then runs counts (2 x PARZ_BOUNDED_SYMBOLS);
 * holes: 2 words a trial. */
#define TRIAL_LO 0u
#define TRIAL_HOLES 2u
#define TRIAL_RUNS 4u
#define TRIAL_WORDS (TRIAL_RUNS + PARZ_GPU_BND_HOST_BOOK)
#define TRIAL_SCAN PARZ_GPU_BND_MADE
__global__ void trial_pack_kernel(const unsigned long long* counts, const int* ranges,
                                  const unsigned long long* holes, const unsigned long long* scan,
                                  unsigned long long* out) {
  const unsigned c = blockIdx.y;
  const int* range = ranges + 2 * c;
  const parz_bounded_range r = parz_gpu_bnd_range(range[0], range[1]);
  const unsigned long long* runs = counts + (2 * c + 1) * (size_t)PARZ_BOUNDED_SYMBOLS;
  unsigned long long* o = out + c * (size_t)TRIAL_WORDS;
  const unsigned long long first = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (first < 2) {
    o[TRIAL_LO + first] = (unsigned long long)(long long)range[first];
    o[TRIAL_HOLES + first] = holes[2 * c + first];
  }
  if (c == 0 && first < TRIAL_SCAN)
    out[gridDim.y * (size_t)TRIAL_WORDS + first] = scan[first];
  if (r.m > PARZ_GPU_BND_HOST_BOOK)
    return;
  for (unsigned long long k = first; k < r.m; k += (unsigned long long)gridDim.x * blockDim.x)
    o[TRIAL_RUNS + k] = runs[k < PARZ_BOUNDED_HEAD ? k : k + r.shift];
}

/* How the kernels that walk segments run on b's: their CTAs, the staged words per warp (0: not
 * staged), the skew and the shared memory they take. */
struct seg_launch {
  unsigned blocks, words, skew;
  size_t shared;
};

template <typename K>
static seg_launch seg_launch_of(const parz_gpu_bnd& b, K kernel, cudaError_t* e) {
  seg_launch g;
  g.blocks = blocks_for(b.nseg, SEG_WARPS);
  g.skew = parz_gpu_bnd_skew((size_t)b.seg, PARZ_GPU_BND_LANES);
  const size_t words = parz_gpu_bnd_staged_words((size_t)b.seg, g.skew);
  g.words = words * 4 * SEG_WARPS <= STAGE_BYTES_MAX ? (unsigned)words : 0;
  g.shared = (size_t)g.words * 4 * SEG_WARPS;
  if (*e == cudaSuccess && g.shared > (48u << 10))
    *e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)g.shared);
  return g;
}

/* ---------------- the driver ---------------- */

namespace {

/* Device memory of one call (or chunk), the host's waits, a chunk waiting for its place: the
 * whole-chunk encoders' (whole_memory.h). */
using call_memory = parz_gpu_whole_memory;
using coded_chunk = parz_gpu_whole_chunk;

int down(call_memory& m, void* dst, const void* src, size_t bytes) {
  return parz_gpu_whole_down(m, dst, src, bytes);
}

}  // namespace

/* The holes in order: counts per range of HOLE_RANGE values and their running sum on the
 * device (first[ranges], the total), for write_holes to place them; nothing waited for. */
struct hole_scan {
  unsigned long long ranges;
  unsigned long long* first; /* ranges + 1: each range's first hole, then the total */
};

static void count_holes(call_memory& m, const parz_gpu_bnd& b, hole_scan* h) {
  h->ranges = (b.n + HOLE_RANGE - 1) / HOLE_RANGE;
  /* counts[ranges] stays 0, so that first[ranges] is the total */
  unsigned long long* counts = m.zeroed<unsigned long long>(h->ranges + 1);
  h->first = m.device<unsigned long long>(h->ranges + 1);
  size_t scan_bytes = 0;
  if (m.e == cudaSuccess)
    m.e = cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, counts, h->first, (int64_t)h->ranges + 1,
                                        m.st);
  void* scan = m.device<unsigned char>(scan_bytes);
  if (m.e == cudaSuccess)
    hole_count_kernel<<<blocks_for(32 * h->ranges, THREADS), THREADS, 0, m.st>>>(b, h->ranges,
                                                                                 counts);
  if (m.e == cudaSuccess)
    m.e = cub::DeviceScan::ExclusiveSum(scan, scan_bytes, counts, h->first, (int64_t)h->ranges + 1,
                                        m.st);
  m.release(scan);
  m.release(counts);
}

/* The holes' positions into pos32, or their exception records into rec, in order. */
static void write_holes(call_memory& m, const parz_gpu_bnd& b, const hole_scan& h, uint32_t* pos32,
                        uint64_t* rec) {
  if (m.e == cudaSuccess)
    hole_write_kernel<<<blocks_for(32 * h.ranges, THREADS), THREADS, 0, m.st>>>(
        b, h.ranges, h.first, pos32, rec);
}

static size_t round256(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

static unsigned grid_for(unsigned long long n) {
  return blocks_for(n, THREADS) < 4096 ? blocks_for(n, THREADS) : 4096;
}

/* coarse_kernel's launch for the passes cp of b, on its grid where it serves. */
static void launch_coarse(call_memory& m, const parz_gpu_bnd& b, coarse_passes& cp) {
  const size_t bytes = coarse_grid(cp.p[cp.np - 1].s, b.n4, &cp.g);
  cp.grid = bytes != 0;
  coarse_kernel<<<1, COARSE_THREADS, bytes, m.st>>>(b, cp);
}

/* The forward pass of `predictor` over b's values (of shape s) into b.codes from the holes the
 * scan left, queued without a wait: Lorenzo's quantization, holes and residuals (the holes'
 * positions kept in b.codes until the residuals overwrite them), or the interpolation's passes.
 * b.stats counts the exceptions they make. 0 on an error (m.e). */
static int forward(call_memory& m, const parz_gpu_bnd& b, const parz_bounded_shape& s,
                   int predictor) {
  const unsigned long long n = b.n;
  if (predictor == PARZ_BOUNDED_LORENZO) {
    hole_scan holes;
    quantize_kernel<<<blocks_for(n, THREADS), THREADS, 0, m.st>>>(b);
    count_holes(m, b, &holes);
    write_holes(m, b, holes, (uint32_t*)b.codes, NULL);
    if (m.e == cudaSuccess)
      lorenzo_holes_kernel<<<1, 1, 0, m.st>>>(b, (const uint32_t*)b.codes,
                                              holes.first + holes.ranges);
    m.release(holes.first);
    if (m.e == cudaSuccess)
      lorenzo_code_kernel<<<blocks_for(n, THREADS), THREADS, 0, m.st>>>(b);
  } else {
    size_t n4[4], st4[4];
    std::vector<parz_bounded_pass> passes(PARZ_BOUNDED_PASSES_MAX);
    parz_bounded_shape4(&s, n4, st4);
    const unsigned np = parz_bounded_interp_passes(n4, predictor, passes.data());
    const int cubic = predictor == PARZ_BOUNDED_CUBIC || predictor == PARZ_BOUNDED_CUBIC_FAST;
    coarse_passes cp;
    memset(&cp, 0, sizeof cp);
    cp.cubic = cubic;
    for (unsigned k = 0; k < np && m.e == cudaSuccess; k++) {
      const parz_bounded_pass& ps = passes[k];
      const unsigned long long count =
          (unsigned long long)ps.cnt[0] * ps.cnt[1] * ps.cnt[2] * ps.cnt[3];
      if (parz_gpu_bdec_coarse(k, count, cp.np)) {
        cp.p[cp.np++] = ps;
        continue;
      }
      if (cp.np && cp.np == k) /* the first pass past the coarse ones */
        launch_coarse(m, b, cp);
      if (count)
        pass_kernel<<<blocks_for(count, THREADS), THREADS, 0, m.st>>>(b, ps, cubic, count);
    }
    if (m.e == cudaSuccess && cp.np && cp.np == np)
      launch_coarse(m, b, cp);
  }
  if (m.e == cudaSuccess)
    m.e = cudaGetLastError();
  return m.e == cudaSuccess;
}

/* b's symbol counts both ways over the whole alphabet (into b.plain and b.runs) and its
 * residuals' range (into range), all zeroed here. */
static void count_symbols(call_memory& m, const parz_gpu_bnd& b, int* range) {
  if (m.e == cudaSuccess)
    m.e = cudaMemsetAsync(b.plain, 0, PARZ_BOUNDED_SYMBOLS * sizeof *b.plain, m.st);
  if (m.e == cudaSuccess)
    m.e = cudaMemsetAsync(b.runs, 0, PARZ_BOUNDED_SYMBOLS * sizeof *b.runs, m.st);
  if (m.e == cudaSuccess)
    m.e = cudaMemsetAsync(range, 0, 2 * sizeof *range, m.st);
  const seg_launch g = seg_launch_of(b, count_kernel, &m.e);
  if (m.e == cudaSuccess)
    count_kernel<<<g.blocks, SEG_WARPS * 32, g.shared, m.st>>>(b, range, g.words, g.skew);
}

/* The codebooks' device memory (the chunk's kept with the chunk's scratch: it does not depend on
 * the chunk), per book (book_set): both codes' keys (every book's, then every book's sorted), the
 * builds' working memory where it does not fit a CTA's shared memory, both codes' lengths, the
 * kept code's words, what the builds found (per code its bits and used symbols) and the host's
 * read. */
struct book_memory {
  uint64_t* keys;
  unsigned char* work;
  uint8_t* len;
  uint32_t* code;
  unsigned long long *built, *pack;
};

/* The bytes of book_memory of nbooks books, carved from base when it is not NULL. */
static size_t book_memory_of(unsigned char* base, book_memory* k, unsigned nbooks) {
  const size_t part[6] = {2 * BOOK_KEYS * 8,
                          2 * parz_gpu_bnd_huff_bytes(PARZ_BOUNDED_SYMBOLS),
                          2 * (size_t)PARZ_BOUNDED_SYMBOLS,
                          4 * (size_t)PARZ_BOUNDED_SYMBOLS,
                          4 * 8,
                          8 * (size_t)BOOK_WORDS};
  size_t at[6], total = 0;
  for (int i = 0; i < 6; i++) {
    at[i] = total;
    total += round256(nbooks * part[i]);
  }
  if (base) {
    k->keys = (uint64_t*)(base + at[0]);
    k->work = base + at[1];
    k->len = (uint8_t*)(base + at[2]);
    k->code = (uint32_t*)(base + at[3]);
    k->built = (unsigned long long*)(base + at[4]);
    k->pack = (unsigned long long*)(base + at[5]);
  }
  return total;
}

/* The codebooks of the nbooks books of s over their ranges on the device (bounded_book.cuh),
 * side by side, queued without a wait: each book's codes' lengths into k.len (PARZ_BOUNDED_SYMBOLS
 * each), its kept code's words into k.code, the host's read into k.pack (book_words_kernel;
 * runs_only: the code with runs kept). The sort's own memory is sized here, not with k: its size
 * query asks the runtime for the device's occupancy, which a call that builds no codebook on
 * the device should not pay. 0 on an error (m.e). */
static int build_book(call_memory& m, const book_set& s, unsigned nbooks, const book_memory& k,
                      int runs_only) {
  /* the books' keys sorted at once: the book's bits above the key's */
  unsigned book_bits = 0;
  while ((1u << book_bits) < nbooks)
    book_bits++;
  const size_t nkeys = nbooks * BOOK_KEYS;
  if (m.e == cudaSuccess)
    book_keys_kernel<<<dim3(blocks_for(BOOK_KEYS, THREADS), nbooks), THREADS, 0, m.st>>>(s, k.keys);
  size_t sort_bytes = 0;
  if (m.e == cudaSuccess)
    m.e = cub::DeviceRadixSort::SortKeys(NULL, sort_bytes, k.keys, k.keys + nkeys, (int)nkeys, 0,
                                         PARZ_GPU_BND_KEY_BITS + book_bits, m.st);
  void* sort = m.device<unsigned char>(sort_bytes);
  if (m.e == cudaSuccess)
    m.e = cub::DeviceRadixSort::SortKeys(sort, sort_bytes, k.keys, k.keys + nkeys, (int)nkeys, 0,
                                         PARZ_GPU_BND_KEY_BITS + book_bits, m.st);
  m.release(sort);
  if (m.e == cudaSuccess)
    m.e = cudaFuncSetAttribute(book_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               (int)BOOK_SHARED);
  if (m.e == cudaSuccess)
    book_kernel<<<dim3(2, nbooks), BOOK_THREADS, BOOK_SHARED, m.st>>>(k.keys + nkeys, s, k.len,
                                                                      k.work, k.built);
  if (m.e == cudaSuccess)
    m.e = cudaFuncSetAttribute(book_words_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               (int)PARZ_BOUNDED_SYMBOLS);
  if (m.e == cudaSuccess)
    book_words_kernel<<<nbooks, BOOK_THREADS, PARZ_BOUNDED_SYMBOLS, m.st>>>(
        s, k.len, k.built, runs_only, k.code, k.pack);
  if (m.e == cudaSuccess)
    m.e = cudaGetLastError();
  return m.e == cudaSuccess;
}

/* Predictor 0's trials between their queueing (trials_queue) and their pick (trials_pick): on,
 * whether there are any (parz_gpu_bnd_box_of); each trial's arguments; the device memory they
 * hold; the packed read's words (npred trials' TRIAL_WORDS, then the chunk's scan words). */
struct trials_run {
  int on;
  parz_gpu_bnd trials[PARZ_BOUNDED_PREDICTORS];
  unsigned long long* counts; /* each trial's without runs, then with them */
  int* ranges;
  unsigned long long* packed;
  size_t packed_words;
  void* mem[12];
  unsigned nmem;
};

/* Predictor 0's choice (parz_gpu_bnd_box), its GPU part queued without a wait: the box copied
 * out of the chunk with its largest magnitude (box_kernel), its grid step computed on the device
 * (step_kernel), Lorenzo's trial, then the four interpolations' (trial_table, side by side, each
 * trial on memory of its own), the five trials' counts and hole stats, and
 * their ranges, holes and narrow counts packed for one read with the chunk's scan words
 * (trial_pack_kernel), so that the host reads the chunk's scan and the trials at once. full: the
 * chunk's arguments (its contiguous values, its scan's words). h: pinned room for
 * PARZ_BOUNDED_PREDICTORS x PARZ_BOUNDED_SYMBOLS words (the table goes up from it). 0 on an error
 * (m.e). */
static int trials_queue(call_memory& m, const parz_gpu_bnd_plan& p, const parz_gpu_bnd& full,
                        unsigned long long* h, trials_run* tr) {
  parz_gpu_bnd_box x;
  parz_gpu_bnd t;
  tr->on = parz_gpu_bnd_box_of(&p, &x);
  tr->nmem = 0;
  if (!tr->on)
    return 1;
  parz_gpu_bnd_box_args(&p, &x, &t);
  const unsigned npred = PARZ_BOUNDED_PREDICTORS;
  const size_t w = parz_type_size(x.s.type), n = x.n;
  /* the interpolations' passes, after the table in h (uploaded before h is read into) */
  trial_table tab;
  memset(&tab, 0, sizeof tab);
  const size_t passes_at = round256(sizeof tab);
  parz_bounded_pass* passes = (parz_bounded_pass*)((unsigned char*)h + passes_at);
  size_t n4[4], st4[4], np = 0, grid_bytes = 0;
  unsigned steps = 0;
  parz_bounded_shape4(&x.s, n4, st4);
  for (unsigned c = 0; c < TRIALS_MAX; c++) {
    const int pred = (int)c + 2;
    tab.cubic[c] = pred == PARZ_BOUNDED_CUBIC || pred == PARZ_BOUNDED_CUBIC_FAST;
    tab.first[c] = (unsigned)np;
    tab.np[c] = parz_bounded_interp_passes(n4, pred, passes + np);
    while (tab.coarse[c] < tab.np[c]) {
      const parz_bounded_pass& ps = passes[np + tab.coarse[c]];
      if (!parz_gpu_bdec_coarse(tab.coarse[c],
                                (unsigned long long)ps.cnt[0] * ps.cnt[1] * ps.cnt[2] * ps.cnt[3],
                                tab.coarse[c]))
        break;
      tab.coarse[c]++;
    }
    if (tab.coarse[c]) {
      const size_t bytes = coarse_grid(passes[np + tab.coarse[c] - 1].s, n4, &tab.g[c]);
      tab.grid[c] = bytes != 0;
      grid_bytes = bytes > grid_bytes ? bytes : grid_bytes;
    }
    np += tab.np[c];
    if (tab.np[c] - tab.coarse[c] > steps)
      steps = tab.np[c] - tab.coarse[c];
  }
  unsigned char* box = m.device<unsigned char>(n * w);
  /* per trial its holes, quantized values and codes */
  uint8_t* hole = m.device<uint8_t>(npred * n);
  int32_t* q = m.device<int32_t>(npred * n);
  int32_t* codes = m.device<int32_t>(npred * n);
  unsigned long long* counts =
      m.zeroed<unsigned long long>(npred * 2 * (size_t)PARZ_BOUNDED_SYMBOLS);
  int* ranges = m.zeroed<int>(2 * npred);
  unsigned long long* stats = m.zeroed<unsigned long long>(4 + 2 * npred);
  unsigned long long* trial = m.zeroed<unsigned long long>(npred * (size_t)PARZ_GPU_BND_STATS);
  double* kstep = m.device<double>(4);
  unsigned char* d_tab = m.device<unsigned char>(passes_at + np * sizeof *passes);
  tr->packed_words = npred * (size_t)TRIAL_WORDS + TRIAL_SCAN;
  unsigned long long* packed = m.device<unsigned long long>(tr->packed_words);
  if (m.e != cudaSuccess)
    return 0;
  void* const mem[] = {box, hole, q, codes, counts, ranges, stats, trial, kstep, d_tab, packed};
  for (void* k : mem)
    tr->mem[tr->nmem++] = k;
  tr->counts = counts;
  tr->ranges = ranges;
  tr->packed = packed;
  gather_args g;
  memset(&g, 0, sizeof g);
  g.src = (const unsigned char*)full.src + x.corner * w;
  g.dst = box;
  g.n = n;
  g.dims = x.s.dims;
  g.size = (unsigned)w;
  for (unsigned d = 0; d < x.s.dims; d++) {
    g.shape[d] = x.s.shape[d];
    g.stride[d] = x.stride[d];
  }
  box_kernel<<<grid_for(n), THREADS, 0, m.st>>>(g, x.s.type, stats);
  t.src = box;
  if (m.e == cudaSuccess) /* every trial from holes all KNOWN */
    m.e = cudaMemsetAsync(hole, PARZ_BOUNDED_KNOWN, npred * n, m.st);
  t.stats = stats;
  step_kernel<<<1, 1, 0, m.st>>>(t, kstep);
  t.kstep = kstep;
  parz_gpu_bnd* trials = tr->trials;
  for (unsigned c = 0; c < npred; c++) {
    trials[c] = t;
    trials[c].hole = hole + c * n;
    trials[c].q = q + c * n;
    trials[c].codes = codes + c * n;
    trials[c].stats = trial + c * (size_t)PARZ_GPU_BND_STATS; /* the trial's own exceptions */
    trials[c].plain = counts + 2 * c * (size_t)PARZ_BOUNDED_SYMBOLS;
    trials[c].runs = trials[c].plain + PARZ_BOUNDED_SYMBOLS;
    tab.b[c] = trials[c];
  }
  memcpy(h, &tab, sizeof tab);
  if (m.e == cudaSuccess)
    m.e = cudaMemcpyAsync(d_tab, h, passes_at + np * sizeof *passes, cudaMemcpyHostToDevice, m.st);
  if (m.e != cudaSuccess || !forward(m, trials[0], x.s, PARZ_BOUNDED_LORENZO))
    return 0;
  const trial_table* d_table = (const trial_table*)d_tab;
  const parz_bounded_pass* d_passes = (const parz_bounded_pass*)(d_tab + passes_at);
  if (m.e == cudaSuccess)
    trials_coarse_kernel<<<TRIALS_MAX, COARSE_THREADS, grid_bytes, m.st>>>(d_table, d_passes);
  for (unsigned j = 0; j < steps && m.e == cudaSuccess; j++) {
    unsigned long long most = 0;
    for (unsigned c = 0; c < TRIALS_MAX; c++)
      if (tab.coarse[c] + j < tab.np[c]) {
        const parz_bounded_pass& ps = passes[tab.first[c] + tab.coarse[c] + j];
        const unsigned long long count =
            (unsigned long long)ps.cnt[0] * ps.cnt[1] * ps.cnt[2] * ps.cnt[3];
        most = count > most ? count : most;
      }
    if (most)
      trials_pass_kernel<<<dim3(blocks_for(most, THREADS), TRIALS_MAX), THREADS, 0, m.st>>>(
          d_table, d_passes, j);
  }
  const seg_launch gc = seg_launch_of(t, trials_count_kernel, &m.e);
  if (m.e == cudaSuccess)
    trials_count_kernel<<<dim3(gc.blocks, npred), SEG_WARPS * 32, gc.shared, m.st>>>(
        d_table, ranges, gc.words, gc.skew);
  if (m.e == cudaSuccess)
    trials_hole_stats_kernel<<<dim3(blocks_for(n, THREADS * HOLE_STATS_VALUES), npred), THREADS, 0,
                               m.st>>>(d_table, stats + 4);
  if (m.e == cudaSuccess)
    trial_pack_kernel<<<dim3(8, npred), THREADS, 0, m.st>>>(counts, ranges, stats + 4, full.stats,
                                                            packed);
  if (m.e == cudaSuccess)
    m.e = cudaGetLastError();
  return m.e == cudaSuccess;
}

/* The pick of the trials tr queued (read into h, tr->packed_words words): the codes with runs of
 * the trials of a wide range built on the device side by side (build_book), their lengths read
 * past the packed words in one piece; the host sizes the trials on the pool's threads (a code of
 * its own each) and picks. */
static int trials_pick(call_memory& m, parz_host_pool* pool, trials_run* tr, unsigned long long* h,
                       int* predictor, parz_error* err) {
  *predictor = PARZ_BOUNDED_LORENZO;
  if (!tr->on)
    return PARZ_OK;
  const unsigned npred = PARZ_BOUNDED_PREDICTORS;
  parz_bounded_range r[PARZ_BOUNDED_PREDICTORS];
  unsigned long long* built = h + tr->packed_words;
  book_set wide;
  unsigned nwide = 0, book_of[PARZ_BOUNDED_PREDICTORS] = {};
  size_t read = 0; /* the words of a book's read the widest range takes */
  memset(&wide, 0, sizeof wide);
  wide.counts = tr->counts;
  wide.ranges = tr->ranges;
  for (unsigned c = 0; c < npred; c++) {
    const unsigned long long* o = h + c * (size_t)TRIAL_WORDS;
    r[c] = parz_gpu_bnd_range((int)(long long)o[TRIAL_LO], (int)(long long)o[TRIAL_LO + 1]);
    if (r[c].m <= PARZ_GPU_BND_HOST_BOOK)
      continue;
    book_of[c] = nwide;
    wide.set[nwide++] = c;
    if (BOOK_HEAD + (r[c].m + 7) / 8 > read)
      read = BOOK_HEAD + (r[c].m + 7) / 8;
  }
  if (nwide) {
    book_memory k;
    unsigned char* base = m.device<unsigned char>(book_memory_of(NULL, &k, nwide));
    if (m.e == cudaSuccess) {
      book_memory_of(base, &k, nwide);
      build_book(m, wide, nwide, k, 1);
    }
    if (m.e == cudaSuccess)
      m.e = cudaMemcpy2DAsync(built, BOOK_WORDS * sizeof *h, k.pack, BOOK_WORDS * sizeof *h,
                              read * sizeof *h, nwide, cudaMemcpyDeviceToHost, m.st);
    if (!down(m, NULL, NULL, 0))
      return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the predictors' trials");
    m.release(base);
  }
  /* each trial's size (a length-limited code of its own), a part each on the calling thread and
   * the context's host threads still spinning after their last job: a sleeping one would wake
   * after the calling thread has sized them all */
  size_t bytes[PARZ_BOUNDED_PREDICTORS];
  parz_host_pool_each_part(pool, (int)npred, 0, [&](int part) {
    const unsigned c = (unsigned)part;
    const unsigned long long* o = h + c * (size_t)TRIAL_WORDS;
    const unsigned long long* from = built + book_of[c] * (size_t)BOOK_WORDS;
    bytes[c] = r[c].m <= PARZ_GPU_BND_HOST_BOOK
                   ? parz_gpu_bnd_trial_bytes((const uint64_t*)o + TRIAL_RUNS, r[c],
                                              o[TRIAL_HOLES], o[TRIAL_HOLES + 1])
                   : parz_gpu_bnd_trial_built(r[c], (const uint8_t*)(from + BOOK_HEAD),
                                              from[BOOK_BITS], from[BOOK_ERR] == 0, o[TRIAL_HOLES],
                                              o[TRIAL_HOLES + 1]);
  });
  *predictor = parz_bounded_pick(bytes);
  for (unsigned k = 0; k < tr->nmem; k++)
    m.release(tr->mem[k]);
  tr->nmem = 0;
  return PARZ_OK;
}

/* The pool's threads as jobs (parz_jobs, ctx the pool): a part each (parz_host_pool_parts), the
 * threads asleep woken for them (a wide range's codes, each far longer than a wake-up). */
static void pool_jobs_run(void* ctx, uint64_t n, void (*job)(void* arg, uint64_t i), void* arg) {
  parz_host_pool_each_part((parz_host_pool*)ctx, (int)n, 1,
                           [&](int i) { job(arg, (uint64_t)i); });
}

/* The context's pinned words for the host's reads and writes (the zfp encoder uses them only
 * within its own calls), at least `words` of them into *h: grown only while nothing is queued on
 * them. */
static int pinned(parz_gpu_context* ctx, size_t words, unsigned long long** h, parz_error* err) {
  const int rc = parz_gpu_reserve_slack(&ctx->h_enc_sizes, 8 * words, 1, err);
  *h = (unsigned long long*)ctx->h_enc_sizes.ptr;
  return rc;
}

/* Chunk a encoded into c (its head and payload in device memory from keep) and its size; or,
 * where direct is not NULL and the chunk is not stored, into its place
 * (parz_gpu_whole_direct_place). Its scratch is freed on return, in stream order. The host waits
 * twice with the predictor given: for the packed counts (and a wide range's rest), the kernels
 * before queued without a wait (the grid's step computed on the device), and for the chunk's
 * end, the verdict of its segments' bits. */
static int encode_one(parz_gpu_context* ctx, call_memory& keep, const parz_array* a,
                      const void* d_data, const parz_chunk_config* cfg, coded_chunk* c,
                      size_t* size, parz_gpu_whole_direct* direct, parz_error* err) {
  call_memory m(keep.st, keep.pool);
  parz_gpu_bnd_plan p;
  parz_gpu_bnd b;
  int rc = parz_gpu_bnd_plan_of(&p, a, cfg, err);
  if (rc != PARZ_OK)
    return rc;
  parz_gpu_bnd_args(&p, &b);
  const size_t n = (size_t)b.n, w = parz_type_size(a->type);
  bool contiguous = true;
  {
    long long run = 1;
    for (int k = (int)a->dims - 1; k >= 0; k--) {
      if (a->stride[k] && a->stride[k] != run)
        contiguous = false;
      run *= (long long)a->shape[k];
    }
  }
  /* the chunk's holes, quantized values and codes (and a strided array's contiguous copy) in the
   * context's scratch, which only grows */
  book_memory book_mem;
  const size_t book_at = round256(n) + 2 * round256(4 * n) + (contiguous ? 0 : round256(n * w));
  const size_t need = book_at + book_memory_of(NULL, &book_mem, 1);
  if ((rc = parz_gpu_reserve(&ctx->bnd_scratch, need, 0, err)) != PARZ_OK)
    return rc;
  /* the packed read, or the trials' small words and theirs */
  unsigned long long* h = NULL;
  if ((rc = pinned(ctx, 16 + PARZ_BOUNDED_PREDICTORS * (size_t)PARZ_BOUNDED_SYMBOLS, &h, err)) !=
      PARZ_OK)
    return rc;
  const int given = p.predictor != 0;
  unsigned char* scratch = (unsigned char*)ctx->bnd_scratch.ptr;
  book_memory_of(scratch + book_at, &book_mem, 1);
  b.hole = (uint8_t*)scratch;
  b.q = (int32_t*)(scratch + round256(n));
  b.codes = (int32_t*)(scratch + round256(n) + round256(4 * n));
  if (contiguous) {
    b.src = d_data;
  } else {
    gather_args g;
    long long run = 1;
    memset(&g, 0, sizeof g);
    g.src = (const unsigned char*)d_data;
    g.dst = scratch + round256(n) + 2 * round256(4 * n);
    g.n = n;
    g.dims = a->dims;
    g.size = (unsigned)w;
    for (int k = (int)a->dims - 1; k >= 0; k--) {
      g.shape[k] = a->shape[k];
      g.stride[k] = a->stride[k] ? (long long)a->stride[k] : run;
      run *= (long long)a->shape[k];
    }
    gather_kernel<<<blocks_for(n, THREADS), THREADS, 0, m.st>>>(g);
    b.src = g.dst;
  }
  b.stats = m.zeroed<unsigned long long>(PARZ_GPU_BND_STATS);
  double* kstep = m.device<double>(4);
  if (m.e != cudaSuccess)
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: scratch");
  scan_kernel<<<grid_for(n), THREADS, 0, m.st>>>(b, p.fill, p.fill_bits, b.stats);
  parz_gpu_bnd_scan found;
  if (!given) {
    /* the trials queued behind the scan (they take the box's own step, not the chunk's), and
     * read with the scan's words in one piece: the host's step and refusals wait for that read */
    trials_run tr;
    if (!trials_queue(m, p, b, h + 16, &tr))
      return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the predictors' trials");
    const unsigned long long* words = tr.on ? h + 16 + tr.packed_words - TRIAL_SCAN : h;
    if (!(tr.on ? down(m, h + 16, tr.packed, tr.packed_words * sizeof *h)
                : down(m, h, b.stats, TRIAL_SCAN * sizeof *h)))
      return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: scanning the values");
    memcpy(&found.top, &words[PARZ_GPU_BND_TOP], 8);
    found.nonfinite = words[PARZ_GPU_BND_NONFINITE];
    found.nan = words[PARZ_GPU_BND_NAN];
    found.fill = words[PARZ_GPU_BND_FILL];
    if ((rc = parz_gpu_bnd_after_scan(&p, &found, &b, err)) != PARZ_OK)
      return rc;
    if ((rc = trials_pick(m, ctx->host_pool, &tr, h + 16, &p.predictor, err)) != PARZ_OK)
      return rc;
  } else {
    step_kernel<<<1, 1, 0, m.st>>>(b, kstep);
    b.kstep = kstep;
  }
  if (!forward(m, b, p.s, p.predictor))
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the forward pass");

  /* the symbol counts and the residuals' range, read with the scan's words in one piece (and the
   * counts over a narrow range, whose codebook the host builds) */
  b.plain = m.device<unsigned long long>(2 * (size_t)PARZ_BOUNDED_SYMBOLS);
  b.runs = b.plain + PARZ_BOUNDED_SYMBOLS;
  int* d_range = m.device<int>(2);
  unsigned long long* packed = m.device<unsigned long long>(PACK_FIRST);
  count_symbols(m, b, d_range);
  if (m.e == cudaSuccess)
    pack_kernel<<<64, THREADS, 0, m.st>>>(b, d_range, packed);
  /* what the segments' bits take, which depends on the segments alone, taken while the device
   * counts: the host's steps between the counts and the bits leave the device idle */
  b.seg_bits = m.zeroed<unsigned long long>(b.nseg + 1); /* the last stays 0: at[nseg], the total */
  b.lane_bits = m.device<uint32_t>(b.nseg * PARZ_GPU_BND_LANES);
  unsigned long long* d_at = m.device<unsigned long long>(b.nseg + 1);
  size_t scan_bytes = 0;
  if (m.e == cudaSuccess)
    m.e = cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, b.seg_bits, d_at, (int64_t)b.nseg + 1,
                                        m.st);
  void* scan = m.device<unsigned char>(scan_bytes);
  const seg_launch g = seg_launch_of(b, bits_kernel, &m.e);
  const seg_launch gw = seg_launch_of(b, write_kernel, &m.e);
  if (!down(m, h, packed, PACK_FIRST * sizeof *h))
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: counting the symbols");
  const parz_bounded_range r =
      parz_gpu_bnd_range((int)(long long)h[PACK_LO], (int)(long long)h[PACK_LO + 1]);
  if (given) {
    memcpy(&found.top, &h[PARZ_GPU_BND_TOP], 8);
    found.nonfinite = h[PARZ_GPU_BND_NONFINITE];
    found.nan = h[PARZ_GPU_BND_NAN];
    found.fill = h[PARZ_GPU_BND_FILL];
    if ((rc = parz_gpu_bnd_after_scan(&p, &found, &b, err)) != PARZ_OK)
      return rc; /* the host's step: the one step_kernel gave the device */
  }
  const unsigned long long nexc = parz_gpu_bnd_holes(h);
  const int on_host = r.m <= PARZ_GPU_BND_HOST_BOOK;
  parz_gpu_bnd_book book;
  if (on_host) {
    /* its two codes side by side on the context's host threads, while the device waits */
    const parz_jobs jobs = {pool_jobs_run, ctx->host_pool,
                            (uint64_t)parz_host_pool_size(ctx->host_pool)};
    if ((rc = parz_gpu_bnd_book_of(r, (const uint64_t*)h + PACK_HEAD, b.step, p.predictor, &book,
                                   &jobs, err)) != PARZ_OK)
      return rc;
  } else { /* the device builds the codebook of a wide range; the host reads its lengths */
    book_set one;
    memset(&one, 0, sizeof one);
    one.counts = b.plain;
    one.ranges = d_range;
    if (!build_book(m, one, 1, book_mem, 0) ||
        !down(m, h, book_mem.pack, (BOOK_HEAD + (r.m + 7) / 8) * sizeof *h))
      return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the codebook");
    if (h[BOOK_ERR] == 1)
      return parz_fail(err, PARZ_ERR_STREAM, "bounded GPU encode: no symbol to code");
    if (h[BOOK_ERR])
      return parz_fail(err, PARZ_ERR_STREAM,
                       "bounded GPU encode: code lengths of %zu symbols are no prefix code", r.m);
    if ((rc = parz_gpu_bnd_book_built(r, (const uint8_t*)(h + BOOK_HEAD), h[BOOK_RUNS] != 0,
                                      h[BOOK_BITS], b.step, p.predictor, &book, err)) != PARZ_OK)
      return rc;
  }
  m.release(b.plain);
  m.release(d_range);
  m.release(packed);
  b.plain = b.runs = NULL;
  parz_chunk_view fin;
  size_t head = 0;
  rc = parz_gpu_bnd_settle(&p, cfg, book.bits, nexc, book.codec_data.size(), &fin, &head, size,
                           &c->stored, err);
  if (rc != PARZ_OK || c->stored)
    return rc;
  /* the call's one chunk placed here (direct): its payload and head written there; a batch's
   * chunk gets a head and a payload of its own */
  unsigned char* d_chunk = NULL;
  if ((rc = parz_gpu_whole_direct_place(direct, &fin, head, size, &d_chunk, err)) != PARZ_OK)
    return rc;
  parz_chunk_offsets o;
  parz_chunk_section_offsets(&fin, &o);

  /* the pinned words: a host codebook's tables and the head's fixed parts going up, the verdict
   * coming down */
  const size_t nseg = (size_t)b.nseg, table_words = on_host ? (r.m + 7) / 8 + (r.m + 1) / 2 : 0,
               head_words = (head + 7) / 8;
  if ((rc = pinned(ctx, table_words + head_words + VERDICT_WORDS, &h, err)) != PARZ_OK)
    return rc;
  unsigned char* h_head = (unsigned char*)(h + table_words);
  unsigned long long* h_verdict = h + table_words + head_words;
  b.len = book_mem.len + (book.runs ? PARZ_BOUNDED_SYMBOLS : 0);
  b.code = book_mem.code;
  if (on_host) { /* the host's tables, into the device's places */
    uint8_t* h_len = (uint8_t*)h;
    uint32_t* h_code = (uint32_t*)(h + (r.m + 7) / 8);
    memcpy(h_len, book.kept, r.m);
    memcpy(h_code, book.code.data(), r.m * sizeof *h_code);
    b.len = book_mem.len;
    if (m.e == cudaSuccess)
      m.e = cudaMemcpyAsync(book_mem.len, h_len, r.m, cudaMemcpyHostToDevice, m.st);
    if (m.e == cudaSuccess)
      m.e = cudaMemcpyAsync(book_mem.code, h_code, r.m * sizeof *h_code, cudaMemcpyHostToDevice,
                            m.st);
  }
  b.shift = r.shift;
  b.use_runs = book.runs;

  /* the segments' bits and their running sum */
  if (m.e == cudaSuccess)
    bits_kernel<<<g.blocks, SEG_WARPS * 32, g.shared, m.st>>>(b, g.words, g.skew);
  if (m.e == cudaSuccess)
    m.e =
        cub::DeviceScan::ExclusiveSum(scan, scan_bytes, b.seg_bits, d_at, (int64_t)nseg + 1, m.st);
  /* the head and the payload: the head's fixed parts go up while the device takes the bits, and
   * the device writes the rest of it after them */
  unsigned char* d_head =
      d_chunk ? d_chunk : (unsigned char*)keep.device<unsigned long long>(head_words);
  b.payload = d_chunk ? (unsigned long long*)(d_chunk + head)
                      : keep.zeroed<unsigned long long>(fin.payload_bytes / 8);
  if (keep.e != cudaSuccess)
    return parz_gpu_cuda_fail(err, keep.e, "bounded GPU encode: the payload");
  /* the verdict, then a word for the raw register of the GPU's part of the header's CRC-32C */
  unsigned long long* verdict = m.zeroed<unsigned long long>(VERDICT_WORDS + 1);
  parz_gpu_head_crc seal;
  parz_gpu_whole_fixed(&fin, book.codec_data.data(), h_head, head);
  if (m.e == cudaSuccess)
    m.e = parz_gpu_whole_head_up(h_head, head, o.table, o.mask, d_head,
                                 (uint32_t*)(verdict + VERDICT_WORDS), &seal, m.st);

  /* the exceptions: every hole, in order, with its value's bits, into their records */
  if (nexc) {
    hole_scan holes;
    count_holes(m, b, &holes);
    write_holes(m, b, holes, NULL, (uint64_t*)(d_head + o.exceptions));
    m.release(holes.first);
  }
  if (m.e == cudaSuccess)
    table_kernel<<<blocks_for(nseg, THREADS), THREADS, 0, m.st>>>(
        parz_gpu_table_of(&fin, d_head + o.table), d_at, nseg,
        fin.length_bytes == 2 ? 0xffffull : 0xffffffffull, verdict);

  /* the payload, its checksums into their field, the header's CRC-32C */
  c->payload_bytes = fin.payload_bytes;
  if (d_chunk && m.e == cudaSuccess)
    m.e = cudaMemsetAsync(b.payload, 0, fin.payload_bytes, m.st);
  b.seg_at = d_at;
  if (m.e == cudaSuccess)
    write_kernel<<<gw.blocks, SEG_WARPS * 32, gw.shared, m.st>>>(b, gw.words, gw.skew);
  parz_gpu_sums ps;
  memset(&ps, 0, sizeof ps);
  ps.offsets = d_at;
  ps.P = fin.checksum_segments;
  ps.count = fin.nchecksums;
  ps.payload_end = 8ull * fin.payload_bytes;
  if (m.e == cudaSuccess && fin.nchecksums &&
      (rc = parz_gpu_enqueue_sums(ctx, &ps, (const unsigned char*)b.payload, 0, fin.nchecksums,
                                  (unsigned long long*)(d_head + o.checksums), m.st, err)) !=
          PARZ_OK) {
    down(m, NULL, NULL, 0); /* nothing left going up from the pinned words */
    return rc;
  }
  if (m.e == cudaSuccess)
    m.e = parz_gpu_whole_head_seal(seal, m.st);
  if (!down(m, h_verdict, verdict, VERDICT_WORDS * sizeof *h_verdict))
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the payload");
  if (h_verdict[VERDICT_BITS] != book.bits)
    return parz_fail(err, PARZ_ERR_STREAM,
                     "bounded GPU encode: the segments hold %llu bits, the code's counts %llu",
                     h_verdict[VERDICT_BITS], book.bits);
  if (h_verdict[VERDICT_LONG])
    return parz_fail(err, PARZ_ERR_PARAM,
                     "bounded GPU encode: segment %llu has more bits than its %u-bit length field "
                     "holds",
                     h_verdict[VERDICT_LONG] - 1, 8u * fin.length_bytes);
  if (!d_chunk) {
    c->d_head = d_head;
    c->d_head_bytes = head;
    c->payload = (unsigned char*)b.payload;
  }
  return PARZ_OK;
}

int parz_gpu_bounded_encode_chunks(parz_gpu_context* ctx, size_t n, const parz_array* arrays,
                                   const void* const* d_data, const parz_chunk_config* cfg,
                                   parz_gpu_enc_place place, void* place_arg, size_t* written,
                                   cudaStream_t st, size_t* failed, parz_error* err) {
  cudaError_t e = cudaSetDevice(ctx->device);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");
  cudaMemPool_t pool = NULL;
  const int rc = parz_gpu_enc_pool(ctx, &pool, err);
  if (rc != PARZ_OK)
    return rc;
  call_memory m(st, pool);
  return parz_gpu_whole_encode(n, arrays, d_data, cfg, written, place, place_arg, st, failed, err,
                               [&](size_t i, coded_chunk* c, parz_gpu_whole_direct* direct) {
                                 return encode_one(ctx, m, &arrays[i], d_data[i], cfg, c,
                                                   &written[i], direct, err);
                               });
}
