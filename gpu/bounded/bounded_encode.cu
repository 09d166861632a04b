/* The error-bounded codec's GPU encoder: the kernels of bounded_encode.cuh's steps and the driver
 * that runs them, chunk after chunk, and places the chunks (gpu_codecs.h, encode_chunks). Each
 * chunk is built in buffers of its own from the stream's allocator; the host waits for the
 * scan's findings, Lorenzo's holes, the residuals' range and then the symbol counts over it, the
 * segments' bits and the checksums, each a few bytes or a codebook's counts (and, with the
 * predictor chosen, the trials' box step, holes, ranges and counts). The kernels that walk a
 * segment's codes give it a warp, its lanes a share each (bounded_encode.cuh). Once every
 * chunk's size is known, `place` gives each its place and its head and payload are copied
 * there. */
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <cub/device/device_scan.cuh>

#include "bounded_encode.cuh"
#include "bounded_gpu.h"
#include "checksum.cuh"
#include "encode_whole.h"
#include "gpu_codecs.h"
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

/* stats: [0] the largest finite magnitude's bits (a double >= 0 orders as its bits), [1] values
 * not finite, [2] NaN, [3] fill values. */
__global__ void scan_kernel(parz_gpu_bnd b, int fill, uint64_t fill_bits,
                            unsigned long long* stats) {
  parz_gpu_bnd_scan s = {0, 0, 0, 0};
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < b.n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    parz_gpu_bnd_scan_value(b, i, fill, fill_bits, &s);
  for (unsigned d = 16; d > 0; d >>= 1) {
    s.top = fmax(s.top, __shfl_down_sync(0xffffffffu, s.top, d));
    s.nonfinite += __shfl_down_sync(0xffffffffu, s.nonfinite, d);
    s.nan += __shfl_down_sync(0xffffffffu, s.nan, d);
    s.fill += __shfl_down_sync(0xffffffffu, s.fill, d);
  }
  if ((threadIdx.x & 31u) == 0) {
    atomicMax(stats, (unsigned long long)__double_as_longlong(s.top));
    if (s.nonfinite)
      atomicAdd(stats + 1, s.nonfinite);
    if (s.nan)
      atomicAdd(stats + 2, s.nan);
    if (s.fill)
      atomicAdd(stats + 3, s.fill);
  }
}

__global__ void quantize_kernel(parz_gpu_bnd b) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < b.n)
    parz_gpu_bnd_quantize(b, i);
}

/* The holes' positions in order: a count per range of HOLE_RANGE values, their running sum,
 * then each range's positions from its first. A warp per range, 32 values at a time (a ballot of
 * their holes). */
__global__ void hole_count_kernel(parz_gpu_bnd b, unsigned long long ranges,
                                  unsigned long long* counts) {
  const unsigned long long r = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31u;
  if (r >= ranges) /* the whole warp */
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

__global__ void hole_write_kernel(parz_gpu_bnd b, unsigned long long ranges,
                                  const unsigned long long* first, unsigned long long* pos,
                                  uint64_t* bits) {
  const unsigned long long r = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31u;
  if (r >= ranges) /* the whole warp */
    return;
  const unsigned long long a = r * HOLE_RANGE, e = a + HOLE_RANGE < b.n ? a + HOLE_RANGE : b.n;
  unsigned long long at = first[r];
  for (unsigned long long i0 = a; i0 < e; i0 += 32) {
    const unsigned long long i = i0 + lane;
    const bool h = i < e && b.hole[i] != PARZ_BOUNDED_KNOWN;
    const unsigned mask = __ballot_sync(0xffffffffu, h);
    if (h) {
      const unsigned long long k = at + __popc(mask & ((1u << lane) - 1u));
      pos[k] = i;
      if (bits)
        parz_gpu_bnd_value(b, i, &bits[k]);
    }
    at += __popc(mask);
  }
}

/* Lorenzo's holes, one thread, in order. */
__global__ void lorenzo_holes_kernel(parz_gpu_bnd b, const unsigned long long* pos,
                                     unsigned long long count) {
  for (unsigned long long k = 0; k < count; k++)
    parz_gpu_bnd_lorenzo_hole(b, pos[k]);
}

__global__ void lorenzo_code_kernel(parz_gpu_bnd b) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < b.n)
    parz_gpu_bnd_lorenzo_code(b, i);
}

/* stats: [0] the exceptions among the holes, [1] the masked values. */
__global__ void hole_stats_kernel(parz_gpu_bnd b, unsigned long long* stats) {
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
  if ((threadIdx.x & 31u) == 0 && exc)
    atomicAdd(stats, exc);
  if ((threadIdx.x & 31u) == 0 && masked)
    atomicAdd(stats + 1, masked);
}

__global__ void pass_kernel(parz_gpu_bnd b, parz_bounded_pass p, int cubic,
                            unsigned long long count) {
  const unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (t < count)
    parz_gpu_bnd_pass_value(b, p, cubic, t);
}

/* This lane's part of segment s (PARZ_GPU_BND_LANES lanes, the warp's) of `codes`: its share,
 * and from the other lanes' shares where the codes not 0 lie before and after it (a scan each
 * way). The whole warp calls it. */
template <typename Codes>
__device__ parz_gpu_bnd_lane warp_lane(const parz_gpu_bnd& b, const Codes& codes,
                                       unsigned long long s, unsigned lane) {
  size_t a, e, sa, se, first, last1;
  parz_gpu_bnd_segment(b, s, &a, &e);
  parz_gpu_bnd_share(a, e, PARZ_GPU_BND_LANES, lane, &sa, &se);
  parz_gpu_bnd_share_edges(codes, sa, se, e, &first, &last1);
  unsigned long long up = last1, down = first;
  for (unsigned d = 1; d < 32; d <<= 1) {
    const unsigned long long u = __shfl_up_sync(0xffffffffu, up, d);
    const unsigned long long v = __shfl_down_sync(0xffffffffu, down, d);
    if (lane >= d && u > up)
      up = u;
    if (lane + d < 32 && v < down)
      down = v;
  }
  const unsigned long long before = __shfl_up_sync(0xffffffffu, up, 1);
  const unsigned long long after = __shfl_down_sync(0xffffffffu, down, 1);
  return parz_gpu_bnd_lane_of(a, sa, se, first, lane ? (size_t)before : 0,
                              lane < 31 ? (size_t)after : e);
}

/* The segments (warps) per CTA of the kernels that walk segments. */
#define SEG_WARPS 4u
/* The most shared memory their staged segments take per CTA; larger segments are read where they
 * are. */
#define STAGE_BYTES_MAX (100u << 10)

/* Segment s's codes for its warp: f(codes, lane, l) with this lane's part (warp_lane) and the
 * codes, staged in the warp's part of the CTA's shared memory first (coalesced reads of the
 * chunk's codes; the lanes then read their own shares there, not 32 lines of memory at once)
 * when words, the staged words of a warp, is not 0; skew: parz_gpu_bnd_skew of the chunk's
 * segments. The whole warp calls it. */
template <typename F>
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
  parz_gpu_bnd_stage(b.codes, a, e, skew, p, lane, 32);
  __syncwarp();
  const parz_gpu_bnd_staged codes = {p, a, skew};
  f(codes, lane, warp_lane(b, codes, s, lane));
}

/* The symbols of a CTA's segments counted in shared memory where most fall
 * (parz_gpu_bnd_shared_entry), then added to the chunk's counts: a global atomic per token on
 * the few symbols that most tokens are would make them wait for each other. range: the least
 * and greatest residual, kept from 0 (parz_bounded_code_range's), zero before. */
__global__ void count_kernel(parz_gpu_bnd b, int* range, unsigned words, unsigned skew) {
  __shared__ unsigned sh[2 * PARZ_GPU_BND_SHARED];
  for (unsigned e = threadIdx.x; e < 2 * PARZ_GPU_BND_SHARED; e += blockDim.x)
    sh[e] = 0;
  __syncthreads();
  const unsigned long long s = blockIdx.x * (unsigned long long)SEG_WARPS + threadIdx.x / 32;
  unsigned long long* counts[2] = {b.plain, b.runs};
  int lo = 0, hi = 0;
  if (s < b.nseg) /* the whole warp */
    with_segment(b, s, words, skew, [&](const auto& codes, unsigned, const parz_gpu_bnd_lane& l) {
      parz_gpu_bnd_lane_count(codes, l, [&](int c, uint32_t sym, unsigned long long v) {
        const int e = parz_gpu_bnd_shared_entry(sym);
        if (c && sym > PARZ_BOUNDED_RUNS) {
          const int r = (int)sym - (int)PARZ_BOUNDED_SYM_ZERO;
          lo = r < lo ? r : lo;
          hi = r > hi ? r : hi;
        }
        if (e >= 0)
          atomicAdd(&sh[c * PARZ_GPU_BND_SHARED + (unsigned)e], (unsigned)v);
        else
          atomicAdd(counts[c] + sym, v);
      });
    });
  for (unsigned d = 16; d > 0; d >>= 1) {
    lo = min(lo, __shfl_down_sync(0xffffffffu, lo, d));
    hi = max(hi, __shfl_down_sync(0xffffffffu, hi, d));
  }
  if ((threadIdx.x & 31u) == 0 && lo)
    atomicMin(range, lo);
  if ((threadIdx.x & 31u) == 0 && hi)
    atomicMax(range + 1, hi);
  __syncthreads();
  for (unsigned e = threadIdx.x; e < 2 * PARZ_GPU_BND_SHARED; e += blockDim.x)
    if (sh[e])
      atomicAdd(
          counts[e / PARZ_GPU_BND_SHARED] + parz_gpu_bnd_shared_symbol(e % PARZ_GPU_BND_SHARED),
          (unsigned long long)sh[e]);
}

/* Each lane's bits and the segment's. */
__global__ void bits_kernel(parz_gpu_bnd b, unsigned words, unsigned skew) {
  const unsigned long long s = blockIdx.x * (unsigned long long)SEG_WARPS + threadIdx.x / 32;
  if (s >= b.nseg) /* the whole warp */
    return;
  with_segment(b, s, words, skew,
               [&](const auto& codes, unsigned lane, const parz_gpu_bnd_lane& l) {
                 const unsigned long long bits = parz_gpu_bnd_lane_bits(b, codes, l);
                 b.lane_bits[s * PARZ_GPU_BND_LANES + lane] = bits;
                 unsigned long long sum = bits;
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
                 const unsigned long long bits = b.lane_bits[s * PARZ_GPU_BND_LANES + lane];
                 unsigned long long at = bits;
                 for (unsigned d = 1; d < 32; d <<= 1) {
                   const unsigned long long u = __shfl_up_sync(0xffffffffu, at, d);
                   if (lane >= d)
                     at += u;
                 }
                 parz_gpu_bnd_lane_write(b, codes, l, b.seg_at[s] + at - bits);
               });
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

/* The holes in order: their number (counts per range of HOLE_RANGE values and their running
 * sum, the total downloaded into *total), then their positions into pos (with bits, their
 * values' bits). */
struct hole_scan {
  unsigned long long ranges;
  unsigned long long* first; /* ranges + 1: each range's first hole, then the total */
};

static int count_holes(call_memory& m, const parz_gpu_bnd& b, hole_scan* h,
                       unsigned long long* small, unsigned long long* total) {
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
  if (!down(m, small, h->first + h->ranges, sizeof *small))
    return 0;
  *total = small[0];
  return 1;
}

static void write_holes(call_memory& m, const parz_gpu_bnd& b, const hole_scan& h,
                        unsigned long long total, unsigned long long* pos, uint64_t* bits) {
  if (m.e == cudaSuccess && total)
    hole_write_kernel<<<blocks_for(32 * h.ranges, THREADS), THREADS, 0, m.st>>>(b, h.ranges,
                                                                                h.first, pos, bits);
  m.release(h.first);
}

static size_t round256(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

static unsigned grid_for(unsigned long long n) {
  return blocks_for(n, THREADS) < 4096 ? blocks_for(n, THREADS) : 4096;
}

/* The forward pass of `predictor` over b's values (of shape s) into b.codes from the holes the
 * scan left: Lorenzo's quantization, holes (their count read back: a wait) and residuals, or the
 * interpolation's passes. 0 on an error (m.e). */
static int forward(call_memory& m, const parz_gpu_bnd& b, const parz_bounded_shape& s,
                   int predictor, unsigned long long* small) {
  const unsigned long long n = b.n;
  if (predictor == PARZ_BOUNDED_LORENZO) {
    hole_scan holes;
    unsigned long long nholes = 0;
    quantize_kernel<<<blocks_for(n, THREADS), THREADS, 0, m.st>>>(b);
    if (!count_holes(m, b, &holes, small, &nholes))
      return 0;
    unsigned long long* pos = m.device<unsigned long long>(nholes);
    write_holes(m, b, holes, nholes, pos, NULL);
    if (m.e == cudaSuccess && nholes)
      lorenzo_holes_kernel<<<1, 1, 0, m.st>>>(b, pos, nholes);
    m.release(pos);
    if (m.e == cudaSuccess)
      lorenzo_code_kernel<<<blocks_for(n, THREADS), THREADS, 0, m.st>>>(b);
  } else {
    size_t n4[4], st4[4];
    std::vector<parz_bounded_pass> passes(PARZ_BOUNDED_PASSES_MAX);
    parz_bounded_shape4(&s, n4, st4);
    const unsigned np = parz_bounded_interp_passes(n4, predictor, passes.data());
    const int cubic = predictor == PARZ_BOUNDED_CUBIC || predictor == PARZ_BOUNDED_CUBIC_FAST;
    for (unsigned k = 0; k < np && m.e == cudaSuccess; k++) {
      const parz_bounded_pass& ps = passes[k];
      const unsigned long long count =
          (unsigned long long)ps.cnt[0] * ps.cnt[1] * ps.cnt[2] * ps.cnt[3];
      if (count)
        pass_kernel<<<blocks_for(count, THREADS), THREADS, 0, m.st>>>(b, ps, cubic, count);
    }
  }
  if (m.e == cudaSuccess)
    m.e = cudaGetLastError();
  return m.e == cudaSuccess;
}

/* b's symbol counts both ways over the whole alphabet (into b.plain and b.runs, zeroed here) and
 * its residuals' range (into range, zeroed here). */
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

/* Queues the download of counts over the whole alphabet (from) as counts over r (to): the head's,
 * then the residuals'. */
static void download_range(call_memory& m, const parz_bounded_range& r,
                           const unsigned long long* from, uint64_t* to) {
  if (m.e == cudaSuccess)
    m.e = cudaMemcpyAsync(to, from, PARZ_BOUNDED_HEAD * sizeof *to, cudaMemcpyDeviceToHost, m.st);
  if (m.e == cudaSuccess)
    m.e = cudaMemcpyAsync(to + PARZ_BOUNDED_HEAD, from + PARZ_BOUNDED_HEAD + r.shift,
                          (r.m - PARZ_BOUNDED_HEAD) * sizeof *to, cudaMemcpyDeviceToHost, m.st);
}

/* Predictor 0's choice (parz_gpu_bnd_box): the trials on the GPU, their sizes and the pick on the
 * host. full: the chunk's arguments (its contiguous values). h: pinned room for
 * PARZ_BOUNDED_PREDICTORS x PARZ_BOUNDED_SYMBOLS words. */
static int choose(call_memory& m, const parz_gpu_bnd_plan& p, const parz_gpu_bnd& full,
                  unsigned long long* small, unsigned long long* h, int* predictor,
                  parz_error* err) {
  parz_gpu_bnd_box x;
  parz_gpu_bnd t;
  *predictor = PARZ_BOUNDED_LORENZO;
  if (!parz_gpu_bnd_box_of(&p, &x))
    return PARZ_OK;
  parz_gpu_bnd_box_args(&p, &x, &t);
  const unsigned npred = PARZ_BOUNDED_PREDICTORS;
  const size_t w = parz_type_size(x.s.type), n = x.n;
  unsigned char* box = m.device<unsigned char>(n * w);
  t.hole = m.device<uint8_t>(n);
  t.q = m.device<int32_t>(n);
  t.codes = m.device<int32_t>(n);
  unsigned long long* counts =
      m.device<unsigned long long>(npred * 2 * (size_t)PARZ_BOUNDED_SYMBOLS);
  int* ranges = m.device<int>(2 * npred);
  unsigned long long* stats = m.zeroed<unsigned long long>(4 + 2 * npred);
  if (m.e != cudaSuccess)
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the predictors' trials");
  gather_args g;
  memset(&g, 0, sizeof g);
  g.src = (const unsigned char*)full.src + x.corner * w;
  g.dst = box;
  g.n = n;
  g.dims = x.s.dims;
  g.size = (unsigned)w;
  for (unsigned k = 0; k < x.s.dims; k++) {
    g.shape[k] = x.s.shape[k];
    g.stride[k] = x.stride[k];
  }
  gather_kernel<<<grid_for(n), THREADS, 0, m.st>>>(g);
  t.src = box;
  scan_kernel<<<grid_for(n), THREADS, 0, m.st>>>(t, 0, 0, stats);
  if (!down(m, small, stats, 8))
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the predictors' trials");
  double top;
  memcpy(&top, small, 8);
  parz_gpu_bnd_set_step(&t, top);
  for (unsigned k = 0; k < npred; k++) {
    if (m.e == cudaSuccess)
      m.e = cudaMemsetAsync(t.hole, PARZ_BOUNDED_KNOWN, n, m.st);
    if (m.e != cudaSuccess || !forward(m, t, x.s, (int)k + 1, small))
      return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the predictors' trials");
    t.plain = counts + 2 * k * (size_t)PARZ_BOUNDED_SYMBOLS;
    t.runs = t.plain + PARZ_BOUNDED_SYMBOLS;
    count_symbols(m, t, ranges + 2 * k);
    if (m.e == cudaSuccess)
      hole_stats_kernel<<<grid_for(n), THREADS, 0, m.st>>>(t, stats + 4 + 2 * k);
  }
  int lohi[2 * PARZ_BOUNDED_PREDICTORS];
  unsigned long long holes[2 * PARZ_BOUNDED_PREDICTORS];
  if (m.e == cudaSuccess)
    m.e = cudaMemcpyAsync(h, ranges, sizeof lohi, cudaMemcpyDeviceToHost, m.st);
  if (!down(m, h + PARZ_BOUNDED_PREDICTORS, stats + 4, sizeof holes))
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the predictors' trials");
  memcpy(lohi, h, sizeof lohi);
  memcpy(holes, h + PARZ_BOUNDED_PREDICTORS, sizeof holes);
  parz_bounded_range r[PARZ_BOUNDED_PREDICTORS];
  for (unsigned k = 0; k < npred; k++) {
    r[k] = parz_gpu_bnd_range(lohi[2 * k], lohi[2 * k + 1]);
    download_range(m, r[k], counts + (2 * k + 1) * (size_t)PARZ_BOUNDED_SYMBOLS,
                   (uint64_t*)h + k * (size_t)PARZ_BOUNDED_SYMBOLS);
  }
  if (!down(m, NULL, NULL, 0))
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the predictors' trials");
  size_t bytes[PARZ_BOUNDED_PREDICTORS];
  for (unsigned k = 0; k < npred; k++)
    bytes[k] = parz_gpu_bnd_trial_bytes((const uint64_t*)h + k * (size_t)PARZ_BOUNDED_SYMBOLS, r[k],
                                        holes[2 * k], holes[2 * k + 1]);
  *predictor = parz_bounded_pick(bytes);
  m.release(box);
  m.release(t.hole);
  m.release(t.q);
  m.release(t.codes);
  m.release(counts);
  m.release(ranges);
  m.release(stats);
  return PARZ_OK;
}

/* Chunk a encoded into c (its head on the host, its payload in device memory from keep) and its
 * size; its scratch is freed on return, in stream order. small: pinned words for the host's
 * reads, counts: pinned room for the symbol counts. */
static int encode_one(parz_gpu_context* ctx, call_memory& keep, const parz_array* a,
                      const void* d_data, const parz_chunk_config* cfg, coded_chunk* c,
                      size_t* size, unsigned long long* small, unsigned long long* h_counts,
                      parz_error* err) {
  call_memory m(keep.st);
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
  const size_t need = round256(n) + 2 * round256(4 * n) + (contiguous ? 0 : round256(n * w));
  if ((rc = parz_gpu_reserve(&ctx->bnd_scratch, need, 0, err)) != PARZ_OK)
    return rc;
  unsigned char* scratch = (unsigned char*)ctx->bnd_scratch.ptr;
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
  unsigned long long* stats = m.zeroed<unsigned long long>(4);
  if (m.e != cudaSuccess)
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: scratch");
  scan_kernel<<<grid_for(n), THREADS, 0, m.st>>>(b, p.fill, p.fill_bits, stats);
  if (!down(m, small, stats, 4 * sizeof *small))
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: scanning the values");
  parz_gpu_bnd_scan found;
  memcpy(&found.top, &small[0], 8);
  found.nonfinite = small[1];
  found.nan = small[2];
  found.fill = small[3];
  if ((rc = parz_gpu_bnd_after_scan(&p, &found, &b, err)) != PARZ_OK)
    return rc;
  if (!p.predictor && (rc = choose(m, p, b, small, h_counts, &p.predictor, err)) != PARZ_OK)
    return rc;
  if (!forward(m, b, p.s, p.predictor, small))
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the forward pass");

  /* the exceptions: every hole, in order, with its value's bits */
  hole_scan holes;
  unsigned long long nexc = 0;
  if (!count_holes(m, b, &holes, small, &nexc))
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the exceptions");
  unsigned long long* pos = m.device<unsigned long long>(nexc);
  uint64_t* bits = m.device<uint64_t>(nexc);
  write_holes(m, b, holes, nexc, pos, bits);

  /* the symbol counts and the residuals' range, the codebook over that range */
  b.plain = m.device<unsigned long long>(2 * (size_t)PARZ_BOUNDED_SYMBOLS);
  b.runs = b.plain + PARZ_BOUNDED_SYMBOLS;
  int* d_range = m.device<int>(2);
  count_symbols(m, b, d_range);
  if (!down(m, small, d_range, 2 * sizeof(int)))
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: counting the symbols");
  int lohi[2];
  memcpy(lohi, small, sizeof lohi);
  const parz_bounded_range r = parz_gpu_bnd_range(lohi[0], lohi[1]);
  download_range(m, r, b.plain, (uint64_t*)h_counts);
  download_range(m, r, b.runs, (uint64_t*)h_counts + r.m);
  if (!down(m, NULL, NULL, 0))
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: counting the symbols");
  m.release(b.plain);
  m.release(d_range);
  b.plain = b.runs = NULL;
  parz_bounded_coded coded;
  memset(&coded, 0, sizeof coded);
  rc = parz_bounded_coded_book(&r, (const uint64_t*)h_counts, (const uint64_t*)h_counts + r.m, 2,
                               &coded, err);
  std::vector<unsigned char> codec_data;
  if (rc == PARZ_OK) {
    codec_data.resize(parz_bounded_codec_data(b.step, p.predictor, coded.runs, coded.book_bytes,
                                              coded.book_size, NULL));
    parz_bounded_codec_data(b.step, p.predictor, coded.runs, coded.book_bytes, coded.book_size,
                            codec_data.data());
    uint8_t* len = m.device<uint8_t>(PARZ_BOUNDED_SYMBOLS);
    uint32_t* code = m.device<uint32_t>(PARZ_BOUNDED_SYMBOLS);
    if (m.e == cudaSuccess)
      m.e =
          cudaMemcpyAsync(len, coded.book.len, PARZ_BOUNDED_SYMBOLS, cudaMemcpyHostToDevice, m.st);
    if (m.e == cudaSuccess)
      m.e = cudaMemcpyAsync(code, coded.book.code, PARZ_BOUNDED_SYMBOLS * sizeof(uint32_t),
                            cudaMemcpyHostToDevice, m.st);
    b.len = len;
    b.code = code;
    b.use_runs = coded.runs;
  }

  /* the segments' bits, their offsets, the layout */
  std::vector<unsigned long long> seg_bits((size_t)b.nseg), seg_at((size_t)b.nseg + 1);
  std::vector<unsigned long long> h_pos((size_t)nexc);
  std::vector<uint64_t> h_bits((size_t)nexc);
  b.seg_bits = m.device<unsigned long long>((size_t)b.nseg);
  b.lane_bits = m.device<unsigned long long>((size_t)b.nseg * PARZ_GPU_BND_LANES);
  const seg_launch g = seg_launch_of(b, bits_kernel, &m.e);
  if (rc == PARZ_OK && m.e == cudaSuccess)
    bits_kernel<<<g.blocks, SEG_WARPS * 32, g.shared, m.st>>>(b, g.words, g.skew);
  if (rc == PARZ_OK && m.e == cudaSuccess && nexc)
    m.e = cudaMemcpyAsync(h_pos.data(), pos, nexc * sizeof(unsigned long long),
                          cudaMemcpyDeviceToHost, m.st);
  if (rc == PARZ_OK && m.e == cudaSuccess && nexc)
    m.e =
        cudaMemcpyAsync(h_bits.data(), bits, nexc * sizeof(uint64_t), cudaMemcpyDeviceToHost, m.st);
  /* the wait also ends the codebook's uploads from its host arrays, freed next */
  if (rc == PARZ_OK &&
      !down(m, seg_bits.data(), b.seg_bits, seg_bits.size() * sizeof(unsigned long long)))
    rc = parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the segments' bits");
  if (rc != PARZ_OK)
    cudaStreamSynchronize(m.st); /* the uploads from coded's arrays, if any were queued */
  parz_bounded_coded_free(&coded);
  if (rc != PARZ_OK)
    return rc;
  m.release(pos);
  m.release(bits);
  seg_at[0] = 0;
  for (size_t k = 0; k < seg_bits.size(); k++)
    seg_at[k + 1] = seg_at[k] + seg_bits[k];
  parz_chunk_view fin;
  size_t head = 0;
  rc = parz_gpu_bnd_settle(&p, cfg, seg_at.back(), nexc, codec_data.size(), &fin, &head, size,
                           &c->stored, err);
  if (rc != PARZ_OK || c->stored)
    return rc;

  /* the payload, its checksums, the head */
  unsigned long long* d_at = m.device<unsigned long long>(seg_at.size());
  unsigned long long* d_sums = m.device<unsigned long long>((size_t)fin.nchecksums);
  c->payload_bytes = fin.payload_bytes;
  b.payload = keep.zeroed<unsigned long long>(fin.payload_bytes / 8);
  if (keep.e != cudaSuccess)
    return parz_gpu_cuda_fail(err, keep.e, "bounded GPU encode: the payload");
  b.seg_at = d_at;
  if (m.e == cudaSuccess)
    m.e = cudaMemcpyAsync(d_at, seg_at.data(), seg_at.size() * sizeof(unsigned long long),
                          cudaMemcpyHostToDevice, m.st);
  const seg_launch gw = seg_launch_of(b, write_kernel, &m.e);
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
                                  d_sums, m.st, err)) != PARZ_OK)
    return rc;
  std::vector<uint64_t> sums((size_t)fin.nchecksums);
  if (!down(m, sums.data(), d_sums, sums.size() * sizeof(uint64_t)))
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the payload");
  c->payload = (unsigned char*)b.payload;
  c->head.resize(head);
  return parz_gpu_whole_head(&fin, seg_bits.data(), h_pos.data(), h_bits.data(), codec_data.data(),
                             sums.data(), c->head.data(), head, err);
}

int parz_gpu_bounded_encode_chunks(parz_gpu_context* ctx, size_t n, const parz_array* arrays,
                                   const void* const* d_data, const parz_chunk_config* cfg,
                                   parz_gpu_enc_place place, void* place_arg, size_t* written,
                                   cudaStream_t st, size_t* failed, parz_error* err) {
  cudaError_t e = cudaSetDevice(ctx->device);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");
  /* the host's reads: a few words, then the symbol counts (the context's pinned sizes buffer,
   * which the zfp encoder uses only within its own calls) */
  const size_t small_words = 8,
               counts_words = PARZ_BOUNDED_PREDICTORS * (size_t)PARZ_BOUNDED_SYMBOLS;
  int rc = parz_gpu_reserve(&ctx->h_enc_sizes, 8 * (small_words + counts_words), 1, err);
  if (rc != PARZ_OK)
    return rc;
  unsigned long long* small = (unsigned long long*)ctx->h_enc_sizes.ptr;
  call_memory m(st);
  return parz_gpu_whole_encode(n, arrays, d_data, cfg, written, place, place_arg, st, failed, err,
                               [&](size_t i, coded_chunk* c) {
                                 return encode_one(ctx, m, &arrays[i], d_data[i], cfg, c,
                                                   &written[i], small, small + small_words, err);
                               });
}
