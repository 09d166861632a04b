/* The error-bounded codec's decode on the GPU (codec/FORMAT.md, "Error-bounded chunks (codec 4)")
 * and its entry in the GPU's codec table (gpu_codecs.h). A scratch codec: the chunk decodes in
 * the steps of codec/frame/chunk_scratch.h, one or more launches each, on one stream:
 *
 *   0. the codebook, read on the host with the serial decoder's checks (parz_bounded_chunk_decoder;
 *      a chunk refused there is left out of the launches and reported by the fault check,
 *      parz_gpu_refuse), its table decoder and the table's step table uploaded from pinned
 *      memory; the segment offsets (offsets.cu); the payload checksums (checksum.cu), on a stream
 *      beside steps 1 to 3, since they only add to the fault record (a batch's chunks share the
 *      offsets' launch and the checksums' two);
 *   1. segments: a warp per segment, found through the offsets, decodes its codes into the
 *      chunk's scratch (the segment's zeroed first by the warp's coalesced stores, so that runs
 *      of zeros cost its lanes nothing), its 32 lanes each a
 *      share of the segment's bits (codec/bounded/bounded_lanes.h: the lanes decode from guessed
 *      starts and correct them from their neighbours' ends) read from shared memory, where the
 *      warp stages them, with the codec's own token decoder (parz_bounded_read_token), the table
 *      decoder's table in shared memory and beside it its step table (short tokens taken several
 *      at a lookup); as many CTAs as fit on the GPU, each warp taking segment after segment; a
 *      segment the CPU refuses sets the fault record; where its warps take two segments or more
 *      each (segment_folds), for a chunk alone or in a batch of more interpolation chunks than
 *      streams, the interpolation's first passes, a few values each, run by one CTA of this step
 *      once the segments of their codes are decoded, beside the other CTAs' segments, on a grid
 *      in the shared memory of its tables where it fits (coarse_passes);
 *   2. the inverse passes: Lorenzo's prefix sums, a thread per column along the leading axes and
 *      a warp or a CTA per row along the last (a batch's chunks sharing these launches); the
 *      interpolation's passes, a thread per value each, the first small ones (where step 1 did
 *      not run them) in one CTA over shared memory, a level's two linear passes in one launch
 *      where they pair;
 *   3. the values: stored by Lorenzo's last sums along the last axis (with the range check) or by
 *      the interpolation's last pass, else a thread per value;
 *   4. the masked values: the groups' records expanded into a map (mask.cuh), then a thread per
 *      4^d block of the mask writes its masked values;
 *   5. the exceptions (offsets.cu).
 *
 * Every step runs the codec's arithmetic from codec/bounded/bounded_inverse.h, the code the CPU
 * runs, so the values are the serial decoder's bit for bit. Indices are 32-bit where they divide:
 * a chunk holds fewer than 2^32 values (parz_gpu_view_fits). */
#include <stdlib.h>
#include <string.h>

#include <type_traits>
#include <vector>

#include "bounded_codec.h"
#include "bounded_gpu.h"
#include "bounded_inverse.h"
#include "bounded_lanes.h"
#include "bounded_pair.cuh"
#include "bounded_passes.cuh"
#include "checksum.cuh"
#include "gpu_codecs.h"
#include "mask.cuh"

#define THREADS 256u
#define SEGMENT_WARPS 8u /* a CTA of the segment kernel: its warps share the codebook's table */
/* 8-byte words of shared memory a warp of the segment kernel stages its segment's payload in
 * (1.5 KiB, 12,288 bits; etopo5's segments of 1024 codes at 1e-3 take about 1,800) */
#define STAGE_WORDS 192u

/* ---------------- step 1: the segments ---------------- */

struct segment_args {
  parz_huff_decoder huff; /* table and sorted in device memory */
  const uint32_t* steps;  /* the table's step table (parz_bounded_step_entry), beside it */
  const unsigned char* payload;
  unsigned long long payload_bytes;
  const unsigned long long* offsets;
  unsigned long long nsegments, n, C;
  unsigned long long taken; /* segments handed out past each warp's first (0 on upload) */
  /* an interpolation chunk's first passes (parz_gpu_bdec_coarse), in device memory beside the
   * step table: run by the one of the first coarse_ctas CTAs that ends its first segments last
   * (coarse_done counts them, 0 on upload), those segments holding every code the passes read */
  const parz_gpu_bdec_pass* coarse;
  unsigned coarse_np, coarse_ctas;
  unsigned long long coarse_done;
  /* with coarse_grid, the passes' values on grid g in the CTA's shared memory (coarse_passes) */
  int coarse_grid;
  parz_gpu_bdec_grid g;
  int32_t* codes;
  parz_gpu_fault* fault;
  /* a run's Lorenzo chunks with rows of 2 values or more, whose inverse the run's chunks share
   * launches of (lorenzo_run_*): their extents (parz_bounded_shape4), sums, values and unit;
   * lorenzo 0 for the others */
  unsigned lorenzo, n4[4];
  uint32_t* q;
  void* dst;
  double unit;
};

#define TABLE_WORDS_MAX 4096u /* bounded_huff.c's table of 12 bits */
/* 4-byte words of a segment CTA's shared memory: the table, the step table and the warps' staging
 * words, in this order, which the CTA that runs the coarse passes on a grid takes for the grid */
#define POOL_WORDS (2u * TABLE_WORDS_MAX + 2u * SEGMENT_WARPS * STAGE_WORDS)

/* The chunk's device scratch: the codes (interpolation only: Lorenzo sums its codes in place),
 * the quantized values, the table decoder's words followed by the step table and the coarse
 * passes (coarse_at), and the segment kernel's arguments (uploaded from the chunk's pinned share,
 * laid out alike from dec on). */
struct layout {
  size_t codes, q, dec, args, bytes;
};

static size_t round16(size_t b) { return (b + 15) & ~(size_t)15; }

static size_t values_of(const parz_chunk_view* v) {
  return v->raw_bytes / parz_type_size(v->array.type);
}

static layout layout_of(const parz_chunk_view* v) {
  const size_t n = values_of(v);
  layout l;
  l.codes = 0;
  l.q = round16(4 * n);
  l.dec = l.q + round16(4 * n);
  l.args = l.dec + round16(4 * (parz_bounded_decoder_words_bound(v) + TABLE_WORDS_MAX)) +
           round16(PARZ_GPU_BDEC_COARSE_PASSES * sizeof(parz_gpu_bdec_pass));
  l.bytes = l.args + round16(sizeof(segment_args));
  return l;
}

static size_t scratch_bytes(const parz_chunk_view* v, size_t* pinned) {
  const layout l = layout_of(v);
  *pinned = l.bytes - l.dec;
  return l.bytes;
}

__device__ __forceinline__ void fault_at(parz_gpu_fault* f, unsigned long long at, unsigned code) {
  atomicMin(&f->segment, at);
  atomicOr(&f->code, code);
}

#define FULL 0xffffffffu
/* Bits a lane decodes before its guessed start, so that its chain has met the true one there:
 * on etopo5 at 1e-3 this cuts the lanes' decodes again from 62 to 15 tokens a segment (the
 * slowest lane's, over the rounds) for 14 tokens more in the first decode
 * (tests/test_bounded_lanes.c emulates the lanes). */
#define LEAD_BITS 64u

/* The next segment of warp-wide loop over a chunk's segments, past the grid's first `warps`:
 * taken from the chunk's counter, so that a CTA that starts late (the GPU busy with the
 * checksums beside it) takes fewer. */
__device__ __forceinline__ unsigned long long next_segment(const segment_args& a,
                                                           unsigned long long warps,
                                                           unsigned lane) {
  unsigned long long t = 0;
  if (lane == 0) /* the one field written, and only through atomics: the rest stays read-only */
    t = atomicAdd((unsigned long long*)&a.taken, 1ull);
  return warps + __shfl_sync(0xffffffffu, t, 0);
}

/* codes[0..count) zeroed by a warp, lane `lane` of it, in coalesced stores, 16 bytes a store where
 * codes lies on 16 bytes: the segment step zeroes its codes itself, its stores beside loops that
 * leave memory idle, rather than a memset of the chunk's codes before it, a pass of its own. */
__device__ __forceinline__ void zero_codes(int32_t* codes, unsigned long long count,
                                           unsigned lane) {
  unsigned long long k = lane;
  if (((uintptr_t)codes & 15u) == 0) {
    const int4 z = make_int4(0, 0, 0, 0);
    for (; k < count / 4; k += 32)
      ((int4*)codes)[k] = z;
    k = count / 4 * 4 + lane;
  }
  for (; k < count; k += 32)
    codes[k] = 0;
}

/* Segment g of chunk a by one warp, lane `lane` of it, the decoder d with its table and step
 * table in shared memory, `stage` the warp's staging words: the segment's codes zeroed, its
 * payload words staged, the lanes' decodes of bounded_lanes.h, their ends passed on until every
 * lane starts where the one before it ends, the codes counted, and each lane's codes written
 * after those of the lanes before it. Every branch on the segment is the whole warp's. */
__device__ __forceinline__ void decode_segment(const segment_args& a, unsigned long long g,
                                               const parz_huff_decoder* d, const uint32_t* table,
                                               const uint32_t* steps, uint64_t* stage,
                                               unsigned lane) {
  /* the payload's 8-byte words can be loaded whole (parz_bitr_peek's own condition) */
  const bool aligned = ((uintptr_t)a.payload & 7u) == 0;
  const unsigned long long bit0 = a.offsets[g], end = a.offsets[g + 1];
  const unsigned long long c0 = g * a.C, count = a.n - c0 < a.C ? a.n - c0 : a.C;
  /* before the lanes store the codes other than 0, ordered by the __syncwarp below */
  zero_codes(a.codes + c0, count, lane);
  if (end < bit0 || end > 8 * a.payload_bytes) {
    if (lane == 0)
      fault_at(a.fault, g, PARZ_GPU_FAULT_OVERRUN);
    return;
  }
  if (!parz_bounded_lanes_fit(end - bit0, count)) {
    if (lane == 0)
      fault_at(a.fault, g, PARZ_GPU_FAULT_END);
    return;
  }
  const uint32_t len = (uint32_t)(end - bit0), lim = parz_bounded_lane_limit(len, lane, 32);
  /* The segment's payload words, those every read of its lanes may touch
   * (parz_bounded_lanes_words), copied by the warp in coalesced loads into shared memory,
   * where its lanes then read them: the same bytes (zeros past the payload, as parz_bitr_peek
   * reads them), so the same tokens. A segment too long for the warp's staging words reads
   * the payload where it lies. */
  uint64_t w0;
  const uint64_t nw = parz_bounded_lanes_words(bit0, end, &w0);
  const bool local = aligned && nw <= STAGE_WORDS;
  __syncwarp(); /* the last segment's reads of the staging words are done */
  if (local)
    for (unsigned k = lane; k < nw; k += 32) {
      const unsigned long long at = (w0 + k) * 8;
      uint64_t w = 0;
      if (at + 8 <= a.payload_bytes)
        w = *(const uint64_t*)(a.payload + at);
      else
        for (unsigned b = 0; b < 8 && at + b < a.payload_bytes; b++)
          w |= (uint64_t)a.payload[at + b] << (8 * b);
      stage[k] = w;
    }
  __syncwarp();
  const parz_bounded_lanes s =
      local ? parz_bounded_lanes_init(d, table, steps, (const uint8_t*)stage, 8 * nw,
                                      bit0 - 64 * w0)
            : parz_bounded_lanes_init(d, table, steps, a.payload, (size_t)a.payload_bytes, bit0);
  parz_bounded_lane o;
  parz_bounded_lane_first(&s, len, lane, 32, LEAD_BITS, &o);
  /* lane r is exact after round r: 32 rounds settle every lane, the last one only checks */
  bool settled = false;
  for (unsigned round = 0; round <= 32 && !settled; round++) {
    uint32_t want = __shfl_up_sync(FULL, o.end, 1);
    if (lane == 0)
      want = 0;
    const bool moved = want != o.start;
    settled = !__any_sync(FULL, moved);
    if (moved)
      parz_bounded_lane_redecode(&s, want, lim, &o);
  }
  unsigned long long before = o.codes; /* inclusive, then exclusive, prefix sum */
#pragma unroll
  for (unsigned k = 1; k < 32; k <<= 1) {
    const unsigned long long t = __shfl_up_sync(FULL, before, k);
    if (lane >= k)
      before += t;
  }
  const unsigned long long total = __shfl_sync(FULL, before, 31);
  const uint32_t last_end = __shfl_sync(FULL, o.end, 31);
  const int bad = __any_sync(FULL, o.bad != 0);
  before -= o.codes;
  if (!settled || !parz_bounded_lanes_ok(total, count, bad, last_end, len)) {
    if (lane == 0)
      fault_at(a.fault, g, PARZ_GPU_FAULT_END);
    return;
  }
  parz_bounded_lane_write(&s, &o, a.codes + c0, (size_t)before, 1);
}

/* Value u of coarse pass p into q: with `grid` also onto grid g at gq in shared memory, whence it
 * reads its neighbours (parz_gpu_bdec_coarse_value, its code from codes), else read from q
 * (parz_gpu_bdec_value); a value that leaves the codec's range recorded in fault instead. */
__device__ __forceinline__ void coarse_value(const parz_gpu_bdec_pass* p, unsigned long long u,
                                             bool grid, const parz_gpu_bdec_grid* g, int32_t* gq,
                                             const int32_t* codes, parz_gpu_fault* fault) {
  uint64_t idx;
  int32_t v;
  int bad;
  if (grid) {
    bad = parz_gpu_bdec_coarse_value(p, g, gq, codes, u, &idx, &v);
  } else {
    unsigned c0, c1, c2, t;
    uint64_t pk;
    parz_gpu_bdec_line(p, u, &c0, &c1, &c2, &t);
    bad = parz_gpu_bdec_value(p, c0, c1, c2, t, u, &idx, &pk, &v);
  }
  if (bad)
    fault_at(fault, idx, PARZ_GPU_FAULT_VALUE);
  else
    p->q[idx] = v;
}

/* The coarse passes of chunk a (a.coarse) by the CTA, after its first segments, where it is the
 * last of the first a.coarse_ctas CTAs to end theirs: each pass a thread per value through q, a
 * barrier between passes (it orders the CTA's global stores too). The passes' codes lie in those
 * CTAs' first segments, so they run beside the other CTAs' segments rather than in a launch of
 * their own after the whole step; every thread's fence before the count, and after it in the
 * CTA that counts last, makes the other CTAs' codes visible to its loads. With a.coarse_grid the
 * values also go to the grid in pool, the CTA's shared memory, whence the later passes read their
 * neighbours: a pass then waits on shared memory rather than on the global stores of the pass
 * before it. The pool holds the CTA's tables, so that CTA takes no segment after the passes (the
 * host sets coarse_grid only where the chunk's segments have other CTAs to take them). Returns
 * whether the CTA ran the passes on the grid. */
__device__ __forceinline__ bool coarse_passes(const segment_args& a, unsigned* last,
                                              uint32_t* pool) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0)
    *last = atomicAdd((unsigned long long*)&a.coarse_done, 1ull) + 1 == a.coarse_ctas;
  __syncthreads();
  if (!*last)
    return false;
  __threadfence();
  const bool grid = a.coarse_grid != 0;
  for (unsigned i = 0; i < a.coarse_np; i++) {
    const parz_gpu_bdec_pass* p = &a.coarse[i];
    for (unsigned long long u = threadIdx.x; u < p->count; u += blockDim.x) {
      coarse_value(p, u, grid, &a.g, (int32_t*)pool, p->codes, a.fault);
    }
    __syncthreads();
  }
  return grid;
}

/* A warp per segment of chunk blockIdx.y (its arguments all[blockIdx.y], in device memory, so that
 * a run of chunks shares the launch; the grid's warps along x take the chunk's first segments, then
 * each the next one not taken (next_segment): the grid is what fits on the GPU at once, so that
 * each CTA's copy of the tables serves several segments), each by decode_segment; between a CTA's
 * first segments and the rest, the chunk's coarse passes where its first CTAs hold their codes
 * (coarse_passes). At most 80 registers, so that 3 CTAs fit on an SM. */
__global__ void __launch_bounds__(SEGMENT_WARPS * 32, 3)
    segments_kernel(const segment_args* __restrict__ all) {
  const segment_args& a = all[blockIdx.y];
  if (a.nsegments == 0) /* a chunk left out of the run (its codebook refused) or empty */
    return;
  /* the decoder in shared memory, its table too (the long words' limits are indexed by length),
   * and the table's step table, built on the host */
  __shared__ __align__(16) uint32_t pool[POOL_WORDS];
  uint32_t* const table = pool;
  uint32_t* const steps = pool + TABLE_WORDS_MAX;
  __shared__ parz_huff_decoder d;
  __shared__ unsigned last;
  constexpr unsigned PER = TABLE_WORDS_MAX / (SEGMENT_WARPS * 32);
  const unsigned words = 1u << a.huff.table_bits;
  const uint32_t* __restrict__ gt = a.huff.table;
  const uint32_t* __restrict__ gs = a.steps;
  /* every load first, then the stores: each CTA's copy waits for one load's latency, not PER */
  uint32_t tw[PER], sw[PER];
#pragma unroll
  for (unsigned k = 0; k < PER; k++) {
    const unsigned i = threadIdx.x + k * SEGMENT_WARPS * 32;
    tw[k] = i < words ? gt[i] : 0u;
    sw[k] = i < words ? gs[i] : 0u;
  }
#pragma unroll
  for (unsigned k = 0; k < PER; k++) {
    const unsigned i = threadIdx.x + k * SEGMENT_WARPS * 32;
    if (i < words) {
      table[i] = tw[k];
      steps[i] = sw[k];
    }
  }
  if (threadIdx.x == 0) {
    d = a.huff;
    d.table = table;
  }
  __syncthreads();
  const unsigned lane = threadIdx.x & 31u;
  uint64_t* const stage = (uint64_t*)(pool + 2 * TABLE_WORDS_MAX) + threadIdx.x / 32 * STAGE_WORDS;
  const unsigned long long warps = (unsigned long long)gridDim.x * SEGMENT_WARPS;
  /* one call of decode_segment in the loop (its code once, not inlined twice); a warp's first
   * segment is below `warps`, those of the counter not, so the coarse passes' turn comes once, in
   * the whole CTA's first round */
  for (unsigned long long g = (unsigned long long)blockIdx.x * SEGMENT_WARPS + threadIdx.x / 32;;
       g = next_segment(a, warps, lane)) {
    if (g < a.nsegments)
      decode_segment(a, g, &d, table, steps, stage, lane);
    if (g < warps && blockIdx.x < a.coarse_ctas && coarse_passes(a, &last, pool))
      break;
    if (g >= a.nsegments)
      break;
  }
}

/* ---------------- steps 2 and 3: the inverse passes and the values ---------------- */

/* dst[i] = the reconstruction of quantized value v. */
template <typename T>
__device__ __forceinline__ void put_value(T* dst, unsigned long long i, int32_t v, double unit) {
  if (sizeof(T) == 4)
    dst[i] = (T)parz_bounded_value_f32(v, unit);
  else
    dst[i] = (T)parz_bounded_value_f64(v, unit);
}

/* dst[i] = the reconstruction of Lorenzo's sum u, checked first (parz_bounded_lorenzo_value): a
 * value out of range written as 0 and recorded. */
template <typename T>
__device__ __forceinline__ void put_lorenzo(T* dst, unsigned long long i, uint32_t u, double unit,
                                            parz_gpu_fault* fault) {
  int32_t v;
  if (!parz_bounded_lorenzo_value(u, &v)) {
    fault_at(fault, i, PARZ_GPU_FAULT_VALUE);
    v = 0;
  }
  put_value(dst, i, v, unit);
}

/* Lorenzo along the last axis, always its last sum: a warp per row of n3 values, 32 at a time,
 * carrying the sum, each sum stored as its value. Wrapping unsigned sums, as on the CPU: any
 * order of the additions gives the same bits. */
template <typename T>
__device__ __forceinline__ void lorenzo_row(const uint32_t* u, unsigned row, unsigned n3, T* dst,
                                            double unit, parz_gpu_fault* fault) {
  const unsigned lane = threadIdx.x & 31u;
  const uint32_t* r = u + (size_t)row * n3;
  uint32_t carry = 0;
  for (unsigned j0 = 0; j0 < n3; j0 += 32) {
    const unsigned j = j0 + lane;
    uint32_t v = j < n3 ? r[j] : 0;
#pragma unroll
    for (unsigned d = 1; d < 32; d <<= 1) {
      const uint32_t t = __shfl_up_sync(0xffffffffu, v, d);
      if (lane >= d)
        v += t;
    }
    v += carry;
    if (j < n3)
      put_lorenzo(dst, (unsigned long long)row * n3 + j, v, unit, fault);
    carry = __shfl_sync(0xffffffffu, v, 31);
  }
}

template <typename T>
__global__ void lorenzo_rows_kernel(const uint32_t* u, unsigned rows, unsigned n3, T* dst,
                                    double unit, parz_gpu_fault* fault) {
  const unsigned row = (blockIdx.x * blockDim.x + threadIdx.x) / 32u;
  if (row < rows) /* the whole warp */
    lorenzo_row(u, row, n3, dst, unit, fault);
}

/* Rows at least this long take a CTA each (lorenzo_long_rows_kernel): a warp walking such a
 * row 32 values at a time takes as long as the whole step of a chunk of few rows (a batch's small
 * chunks: 60 rows of 4320 values in 75 us). */
#define LONG_ROW 1024u
#define ROW_TILE (4u * THREADS) /* values of a long row a CTA sums at once, 4 a thread */

/* Lorenzo along the last axis for long rows: a CTA per row, which it takes in tiles of ROW_TILE
 * values, each thread summing its 4, the threads' sums scanned by a warp's shuffles and the
 * warps' totals through shared memory, the tiles before carried; each sum stored as its value,
 * as lorenzo_rows_kernel does. */
template <typename T>
__device__ __forceinline__ void lorenzo_long_row(const uint32_t* u, unsigned row, unsigned n3,
                                                 T* dst, double unit, parz_gpu_fault* fault) {
  __shared__ uint32_t totals[THREADS / 32];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x / 32u;
  const unsigned long long first = (unsigned long long)row * n3;
  const uint32_t* r = u + first;
  uint32_t carry = 0;
  for (unsigned j0 = 0; j0 < n3; j0 += ROW_TILE) {
    const unsigned j = j0 + 4 * threadIdx.x;
    uint32_t x[4];
#pragma unroll
    for (unsigned m = 0; m < 4; m++)
      x[m] = j + m < n3 ? r[j + m] : 0;
#pragma unroll
    for (unsigned m = 1; m < 4; m++)
      x[m] += x[m - 1];
    uint32_t t = x[3]; /* the warp's inclusive scan of the threads' sums */
#pragma unroll
    for (unsigned d = 1; d < 32; d <<= 1) {
      const uint32_t y = __shfl_up_sync(FULL, t, d);
      if (lane >= d)
        t += y;
    }
    if (lane == 31)
      totals[warp] = t;
    __syncthreads();
    uint32_t before = carry + (t - x[3]), tile = 0;
    for (unsigned w = 0; w < THREADS / 32; w++) {
      before += w < warp ? totals[w] : 0u;
      tile += totals[w];
    }
#pragma unroll
    for (unsigned m = 0; m < 4; m++)
      if (j + m < n3)
        put_lorenzo(dst, first + j + m, before + x[m], unit, fault);
    carry += tile;
    __syncthreads(); /* totals are the next tile's */
  }
}

template <typename T>
__global__ void __launch_bounds__(THREADS)
    lorenzo_long_rows_kernel(const uint32_t* u, unsigned n3, T* dst, double unit,
                             parz_gpu_fault* fault) {
  lorenzo_long_row(u, blockIdx.x, n3, dst, unit, fault);
}

/* Lorenzo along axis k (not the last): a thread per column, one of `inner` (the stride of the
 * axis) in each of `outer` slabs, summing n_k values `inner` apart; neighbouring threads take
 * neighbouring columns. */
__device__ __forceinline__ void lorenzo_column(uint32_t* u, unsigned nk, unsigned inner,
                                               unsigned long long t) {
  const unsigned o = (unsigned)(t / inner), j = (unsigned)(t % inner);
  uint32_t* c = u + (size_t)o * nk * inner + j;
  uint32_t sum = 0;
  /* eight loads in flight before their sums are stored: the column is long and the thread
   * count small, so each thread must hide its own latency */
  unsigned i = 0;
  for (; i + 8 <= nk; i += 8) {
    uint32_t x[8];
#pragma unroll
    for (unsigned m = 0; m < 8; m++)
      x[m] = c[(size_t)(i + m) * inner];
#pragma unroll
    for (unsigned m = 0; m < 8; m++) {
      sum += x[m];
      c[(size_t)(i + m) * inner] = sum;
    }
  }
  for (; i < nk; i++) {
    sum += c[(size_t)i * inner];
    c[(size_t)i * inner] = sum;
  }
}

__global__ void lorenzo_columns_kernel(uint32_t* u, unsigned outer, unsigned nk, unsigned inner) {
  const unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < (unsigned long long)outer * inner)
    lorenzo_column(u, nk, inner, t);
}

/* The columns along axis k (not the last) of chunk v's sums (lorenzo_column): their count, and
 * in *outer and *inner the slabs and the stride of the axis. */
__host__ __device__ inline unsigned long long lorenzo_columns(const unsigned n4[4], unsigned k,
                                                              unsigned long long* outer,
                                                              unsigned long long* inner) {
  *outer = *inner = 1;
  for (unsigned j = 0; j < 4; j++)
    if (j < k)
      *outer *= n4[j];
    else if (j > k)
      *inner *= n4[j];
  return *outer * *inner;
}

/* Lorenzo along axis k (not the last) for the Lorenzo chunks of a run (all[c].lorenzo) in one
 * launch, chunk blockIdx.y each: a batch's small chunks take as long a launch each as a large
 * one. */
__global__ void lorenzo_run_columns_kernel(const segment_args* __restrict__ all, unsigned k) {
  const segment_args& a = all[blockIdx.y];
  if (!a.lorenzo || a.n4[k] < 2)
    return;
  unsigned long long outer, inner;
  const unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < lorenzo_columns(a.n4, k, &outer, &inner))
    lorenzo_column(a.q, a.n4[k], (unsigned)inner, t);
}

/* Lorenzo along the last axis for the Lorenzo chunks of a run, the values stored, chunk
 * blockIdx.y each: a CTA per row of long rows (lorenzo_long_row), else a warp per row. */
template <typename T>
__global__ void __launch_bounds__(THREADS)
    lorenzo_run_rows_kernel(const segment_args* __restrict__ all) {
  const segment_args& a = all[blockIdx.y];
  if (!a.lorenzo)
    return;
  const unsigned n3 = a.n4[3], rows = (unsigned)(a.n / n3);
  if (n3 >= LONG_ROW) {
    if (blockIdx.x < rows) /* the whole CTA */
      lorenzo_long_row(a.q, blockIdx.x, n3, (T*)a.dst, a.unit, a.fault);
  } else {
    const unsigned row = blockIdx.x * (THREADS / 32) + threadIdx.x / 32;
    if (row < rows) /* the whole warp */
      lorenzo_row(a.q, row, n3, (T*)a.dst, a.unit, a.fault);
  }
}

/* One interpolation pass (bounded_passes.cuh); dst and unit for the last pass, which stores the
 * values. */
struct pass_args {
  parz_gpu_bdec_pass p;
  parz_gpu_fault* fault;
  void* dst;
  double unit;
};

/* The value of pass a at t along the last axis of line (c0, c1, c2), u its place in code order,
 * into q; or, with T the values' type (not void), the last pass's, stored with the values beside
 * it in dst instead (parz_gpu_bdec_last_places). */
template <typename T>
__device__ __forceinline__ void interp_at(const pass_args& a, unsigned c0, unsigned c1, unsigned c2,
                                          unsigned t, unsigned long long u) {
  uint64_t idx, pk;
  int32_t v = 0;
  const int bad = parz_gpu_bdec_value(&a.p, c0, c1, c2, t, u, &idx, &pk, &v);
  if (bad)
    fault_at(a.fault, idx, PARZ_GPU_FAULT_VALUE);
  if constexpr (std::is_void<T>::value) {
    if (!bad)
      a.p.q[idx] = v;
  } else {
    uint64_t at[3];
    const unsigned m = parz_gpu_bdec_last_places(&a.p, idx, pk, at);
    T* dst = (T*)a.dst;
    put_value(dst, at[0], a.p.q[at[0]], a.unit);
    put_value(dst, idx, v, a.unit);
    if (m == 3)
      put_value(dst, at[2], a.p.q[at[2]], a.unit);
  }
}

/* Value u (< a.p.count) of pass a: its line (c0, c1, c2) and t along the last axis by division. */
template <typename T>
__device__ __forceinline__ void interp_value(const pass_args& a, unsigned long long u) {
  unsigned c0, c1, c2, t;
  parz_gpu_bdec_line(&a.p, u, &c0, &c1, &c2, &t);
  interp_at<T>(a, c0, c1, c2, t, u);
}

/* A pass on a grid of its own shape: x along the last axis (threadIdx.x, blockIdx.x), y the lines
 * along axis 2 (threadIdx.y, blockIdx.y), z the lines of axes 0 and 1 (blockIdx.z, c1 fastest):
 * a thread's place comes without interp_value's three divisions by the pass's counts. */
template <typename T>
__global__ void interp_kernel(const pass_args a) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned c2 = blockIdx.y * blockDim.y + threadIdx.y;
  if (t >= a.p.cnt[3] || c2 >= a.p.cnt[2])
    return;
  const unsigned c0 = blockIdx.z / a.p.cnt[1], c1 = blockIdx.z - c0 * a.p.cnt[1];
  const unsigned long long line = ((unsigned long long)blockIdx.z * a.p.cnt[2] + c2);
  interp_at<T>(a, c0, c1, c2, t, line * a.p.cnt[3] + t);
}

/* interp_kernel's CTA and grid for pass a: a CTA of THREADS threads, as many along the last axis
 * as it has values (a warp at least), the rest along axis 2. False where the grid's y or z would
 * pass CUDA's limit (65535). */
static bool interp_grid(const parz_gpu_bdec_pass& a, dim3* block, dim3* grid) {
  unsigned bx = 32;
  while (bx < THREADS && bx < a.cnt[3])
    bx *= 2;
  const unsigned by = THREADS / bx;
  const unsigned long long gy = (a.cnt[2] + by - 1) / by,
                           gz = (unsigned long long)a.cnt[0] * a.cnt[1];
  if (gy > 65535 || gz > 65535)
    return false;
  *block = dim3(bx, by, 1);
  *grid = dim3((a.cnt[3] + bx - 1) / bx, (unsigned)gy, (unsigned)gz);
  return true;
}

/* A pass whose grid interp_grid refuses: a thread per value in code order. */
template <typename T>
__global__ void interp_flat_kernel(const pass_args a) {
  const unsigned long long u = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (u < a.p.count)
    interp_value<T>(a, u);
}

/* Pass a's launch on st: on a grid of its shape where interp_grid allows one, else flat; T as
 * for interp_at. */
template <typename T>
static void launch_pass(const pass_args& a, cudaStream_t st) {
  dim3 block, grid;
  if (interp_grid(a.p, &block, &grid))
    interp_kernel<T><<<grid, block, 0, st>>>(a);
  else
    interp_flat_kernel<T><<<(unsigned)((a.p.count + THREADS - 1) / THREADS), THREADS, 0, st>>>(a);
}

/* A level's passes along axes 3 and 2 in one launch (bounded_pair.cuh): x the column pairs, y the
 * even rows, one a thread, z the planes; with T the values' type (not void) pass b is the last
 * pass and the step stores the values of both rows instead of q. One row a thread rather than
 * several: more threads run, each with fewer loads in turn (the rows a thread takes are compared
 * in bench/results/h200/bench_gpu_bounded.md). */
struct pair_args {
  parz_gpu_bdec_pass a, b;
  parz_gpu_fault* fault;
  void* dst;
  double unit;
};

/* Where pair_kernel's values go: q, or with T (not void) the values. */
template <typename T>
struct pair_out {
  const pair_args& p;
  __device__ void even(uint64_t at, const int32_t e[2], int odd, int bad) {
    if (bad)
      fault_at(p.fault, at, PARZ_GPU_FAULT_VALUE);
    if constexpr (std::is_void<T>::value) {
      if (odd && !bad)
        p.a.q[at] = e[1];
    } else {
      put_value((T*)p.dst, at - p.a.sk, e[0], p.unit);
      if (odd)
        put_value((T*)p.dst, at, e[1], p.unit);
    }
  }
  __device__ void odd(uint64_t at, int32_t v, int bad) {
    if (bad)
      fault_at(p.fault, at, PARZ_GPU_FAULT_VALUE);
    if constexpr (std::is_void<T>::value) {
      if (!bad)
        p.a.q[at] = v;
    } else {
      put_value((T*)p.dst, at, v, p.unit);
    }
  }
};

template <typename T>
__global__ void __launch_bounds__(THREADS) pair_kernel(const pair_args p) {
  const unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned i = blockIdx.y * blockDim.y + threadIdx.y;
  if (j >= parz_gpu_bdec_pair_cols(&p.b) || i >= p.a.cnt[2])
    return;
  const unsigned c0 = blockIdx.z / p.a.cnt[1], c1 = blockIdx.z - c0 * p.a.cnt[1];
  pair_out<T> out{p};
  parz_gpu_bdec_pair_unit(&p.a, &p.b, c0, c1, i, j, out);
}

/* The launch of pair p on st (T as for pair_kernel); false where its grid would pass CUDA's
 * limits (65535 along y and z), the passes then left to a launch each. */
template <typename T>
static bool launch_pair(const pair_args& p, cudaStream_t st) {
  const unsigned cols = parz_gpu_bdec_pair_cols(&p.b);
  const unsigned long long planes = parz_gpu_bdec_pair_planes(&p.a);
  unsigned bx = 32;
  while (bx < THREADS && bx < cols)
    bx *= 2;
  const unsigned by = THREADS / bx;
  const unsigned long long gy = (p.a.cnt[2] + by - 1) / by;
  if (gy > 65535 || planes > 65535)
    return false;
  const dim3 block(bx, by, 1), grid((cols + bx - 1) / bx, (unsigned)gy, (unsigned)planes);
  pair_kernel<T><<<grid, block, 0, st>>>(p);
  return true;
}

/* The first passes, a handful of values each, in one CTA (bounded_passes.cuh, "coarse") where the
 * segment step does not run them (folds): a barrier between passes (it orders the CTA's global
 * stores too) instead of a launch each, and
 * with `grid` their values in shared memory, so that a pass waits on shared memory rather than on
 * the global stores of the pass before it; with `staged` their codes too, copied in by loads all
 * in flight at once, so that no pass waits on a global load. */
#define COARSE_THREADS 1024u
#define COARSE_SHARED_MAX (160u * 1024u) /* the most bytes of that grid and the codes */
#define COARSE_LOADS 8u                  /* codes a thread loads before it stores them */
struct coarse_args {
  parz_gpu_bdec_pass p[PARZ_GPU_BDEC_COARSE_PASSES];
  unsigned np;
  int grid;
  parz_gpu_bdec_grid g;
  /* the grid's points, then the codes 0 to staged - 1 in shared memory (0: none there) */
  unsigned long long points, staged;
  parz_gpu_fault* fault;
};

__global__ void __launch_bounds__(COARSE_THREADS) interp_coarse_kernel(const coarse_args a) {
  extern __shared__ int32_t gq[];
  int32_t* const codes = gq + a.points;
  if (a.staged) {
    const int32_t* __restrict__ c = a.p[0].codes;
    for (unsigned long long u0 = threadIdx.x; u0 < a.staged; u0 += COARSE_LOADS * COARSE_THREADS) {
      int32_t x[COARSE_LOADS];
#pragma unroll
      for (unsigned m = 0; m < COARSE_LOADS; m++) {
        const unsigned long long u = u0 + m * COARSE_THREADS;
        x[m] = u < a.staged ? c[u] : 0;
      }
#pragma unroll
      for (unsigned m = 0; m < COARSE_LOADS; m++) {
        const unsigned long long u = u0 + m * COARSE_THREADS;
        if (u < a.staged)
          codes[u] = x[m];
      }
    }
    __syncthreads();
  }
  for (unsigned i = 0; i < a.np; i++) {
    const parz_gpu_bdec_pass* p = &a.p[i];
    for (unsigned long long u = threadIdx.x; u < p->count; u += blockDim.x) {
      coarse_value(p, u, a.grid, &a.g, gq, a.staged ? codes : p->codes, a.fault);
    }
    __syncthreads();
  }
}

/* interp_coarse_kernel's launch on st for passes ca of a chunk of extents n4, its grid in shared
 * memory where the device has room for it, and the passes' codes beside it where it has room for
 * both. Returns an error of the launch's setting. */
static cudaError_t launch_coarse(coarse_args& ca, const size_t n4[4], cudaStream_t st) {
  const unsigned long long S = ca.p[ca.np - 1].s; /* the levels' strides fall */
  int device = 0, room = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&room, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e != cudaSuccess)
    return e;
  /* the kernel's limit set to the same value by every caller (the attribute is the process's,
   * and host threads of other contexts may launch it at once) */
  const size_t most = (size_t)room < COARSE_SHARED_MAX ? (size_t)room : COARSE_SHARED_MAX;
  ca.points = parz_gpu_bdec_grid_of(S, n4, &ca.g);
  size_t bytes = 4 * ca.points;
  ca.grid = (1ull << ca.g.shift) == S && bytes <= most;
  /* the passes' codes, the chunk's first ones where each pass's follow the last's */
  unsigned long long codes = ca.p[0].pos == 0 ? ca.p[0].count : 0;
  for (unsigned i = 1; codes && i < ca.np; i++)
    codes = ca.p[i].pos == codes ? codes + ca.p[i].count : 0;
  ca.staged = ca.grid && bytes + 4 * codes <= most ? codes : 0;
  bytes += 4 * ca.staged;
  if (!ca.grid)
    bytes = 0;
  else if (bytes > 48 * 1024 &&
           (e = cudaFuncSetAttribute(interp_coarse_kernel,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)most)) !=
               cudaSuccess)
    return e;
  interp_coarse_kernel<<<1, COARSE_THREADS, bytes, st>>>(ca);
  return cudaSuccess; /* the launch's own error is the caller's last check */
}

/* dst[i] = the reconstruction of q[i] (Lorenzo's sums checked first), where no pass stored the
 * values. */
template <typename T, bool LORENZO>
__global__ void store_kernel(const int32_t* __restrict__ q, T* __restrict__ dst,
                             unsigned long long n, double unit, parz_gpu_fault* fault) {
  const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  if (LORENZO)
    put_lorenzo(dst, i, (uint32_t)q[i], unit, fault);
  else
    put_value(dst, i, q[i], unit);
}

/* ---------------- step 4: the masked values ---------------- */

__global__ void mask_expand_kernel(const parz_gpu_mask m) {
  parz_gpu_mask_expand(m, ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / 32u);
}

/* The masked values of 4^d block b of the mask (FORMAT.md, "Mask": positions in zfp's order, x
 * along the last dimension fastest) written at their places in the chunk's C-order values, those
 * past the array's edge skipped. */
struct mask_args {
  parz_gpu_mask m;
  unsigned long long shape[4], bgrid[4];
  unsigned dims, size;
  void* dst;
};

__global__ void mask_apply_kernel(const mask_args a) {
  const unsigned long long b = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= a.m.nblocks)
    return;
  const uint32_t at = a.m.map[b];
  parz_mask_record r;
  if (at == PARZ_GPU_MASK_NONE ||
      !parz_mask_read(a.m.records + at, a.m.records + a.m.record_bytes, a.dims, a.m.V, &r))
    return;
  unsigned long long origin[4], rest = b;
  for (int k = (int)a.dims - 1; k >= 0; k--) {
    origin[k] = 4 * (rest % a.bgrid[k]);
    rest /= a.bgrid[k];
  }
  const unsigned char* index = r.index;
  uint64_t bits = parz_mask_value(a.m.values, a.m.V > 1 ? index[0] : 0u);
  const unsigned n = 1u << (2 * a.dims);
  for (unsigned i = 0; i < n; i++) {
    if (r.kind != PARZ_MASK_RUN) {
      if (!((r.bitmap[i >> 3] >> (i & 7u)) & 1u))
        continue;
      if (a.m.V > 1)
        bits = parz_mask_value(a.m.values, *index++);
    }
    unsigned long long pos = 0;
    unsigned k;
    for (k = 0; k < a.dims; k++) {
      const unsigned long long x = origin[k] + (i >> (2 * (a.dims - 1 - k)) & 3u);
      if (x >= a.shape[k])
        break;
      pos = pos * a.shape[k] + x;
    }
    if (k < a.dims)
      continue;
    if (a.size == 4)
      ((uint32_t*)a.dst)[pos] = (uint32_t)bits;
    else
      ((uint64_t*)a.dst)[pos] = bits;
  }
}

/* ---------------- the chunk ---------------- */

static unsigned grid_of(unsigned long long units, unsigned threads) {
  return (unsigned)((units + threads - 1) / threads);
}

/* Chunk v's extents and strides as four axes (parz_bounded_shape4). */
static void shape4_of(const parz_chunk_view* v, size_t n4[4], size_t st4[4]) {
  parz_bounded_shape shape;
  memset(&shape, 0, sizeof shape);
  shape.type = v->array.type;
  shape.dims = v->array.dims;
  for (unsigned k = 0; k < v->array.dims; k++)
    shape.shape[k] = v->array.shape[k];
  parz_bounded_shape4(&shape, n4, st4);
}

/* A chunk's codebook, read on the host with the serial decoder's checks: its table decoder's words
 * in the chunk's pinned share (s->h_codec), the decoder's limits with the symbols' place among
 * those words, the grid step and the predictor. */
struct book {
  parz_huff_decoder huff;
  size_t words, sorted_at; /* the words are followed by the step table's 2^table_bits */
  double step;
  int predictor;
};

/* Where the coarse passes follow the step table in the chunk's pinned share and in its device
 * copy: bytes from the table decoder's first word. */
static size_t coarse_at(const book* b) {
  return round16(4 * (b->words + ((size_t)1 << b->huff.table_bits)));
}

/* The most values of the passes a CTA of the segment step runs: passes of more values, on the
 * CTA's 256 threads, outlast the step's other CTAs and delay it (bench/results/h200/
 * bench_gpu_bounded.md has the measurements). */
#define SEGMENT_COARSE_VALUES 10240u

/* The passes of an interpolation chunk v (predictor, its codes and q in device memory) that the
 * segment step runs where it folds them (segment_folds): the first coarse ones
 * (parz_gpu_bdec_coarse), at most SEGMENT_COARSE_VALUES values in all, into out, *np of them,
 * with *end the codes they read, the chunk's first. The later passes are enqueue_values'. */
static int coarse_of(const parz_chunk_view* v, int predictor, int32_t* codes, int32_t* q,
                     parz_gpu_bdec_pass* out, unsigned* np, unsigned long long* end,
                     parz_error* err) {
  *np = 0;
  *end = 0;
  if (predictor == PARZ_BOUNDED_LORENZO || values_of(v) == 0)
    return PARZ_OK;
  parz_bounded_pass* passes = (parz_bounded_pass*)malloc(PARZ_BOUNDED_PASSES_MAX * sizeof *passes);
  if (!passes)
    return parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory for the interpolation's passes");
  size_t n4[4], st4[4];
  shape4_of(v, n4, st4);
  const unsigned all = parz_bounded_interp_passes(n4, predictor, passes);
  for (unsigned p = 0; p < all; p++) {
    const parz_gpu_bdec_pass a = parz_gpu_bdec_pass_of(&passes[p], n4, st4, predictor, codes, q);
    if (!parz_gpu_bdec_coarse(p, a.count, *np) || a.pos + a.count > SEGMENT_COARSE_VALUES)
      break;
    out[(*np)++] = a;
    *end = a.pos + a.count;
  }
  free(passes);
  return PARZ_OK;
}

static int read_book(const parz_chunk_view* v, const parz_gpu_scratch* s, book* b,
                     parz_error* err) {
  parz_bounded_chunk_info info;
  int rc = parz_bounded_chunk_decoder(v, &info, err);
  if (rc != PARZ_OK)
    return rc;
  const parz_huff_decoder* h = parz_bounded_decoder_huff(info.dec);
  b->words = parz_bounded_decoder_words(info.dec);
  if (b->words > parz_bounded_decoder_words_bound(v) || h->table_bits > 12) {
    parz_bounded_decoder_free(info.dec);
    return parz_fail(err, PARZ_ERR_STREAM,
                     "bounded: a codebook decoder of %zu words where its codec data allows %zu",
                     b->words, parz_bounded_decoder_words_bound(v));
  }
  b->huff = *h;
  b->sorted_at = (size_t)(h->sorted - h->table);
  b->step = info.step;
  b->predictor = info.predictor;
  memcpy(s->h_codec, h->table, b->words * 4);
  /* the step table once per chunk here rather than by every CTA of the segment kernel */
  uint32_t* steps = (uint32_t*)s->h_codec + b->words;
  for (uint32_t i = 0; i < (1u << h->table_bits); i++)
    steps[i] = parz_bounded_step_entry(h->table, h->table_bits, i);
  parz_bounded_decoder_free(info.dec);
  return PARZ_OK;
}

/* The segment kernel's CTAs that fit on the GPU at once, shared by `chunks` chunks: each chunk's
 * share, at least 1. */
static unsigned segment_share(const parz_gpu_context* ctx, size_t chunks) {
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, segments_kernel, SEGMENT_WARPS * 32,
                                                    0) != cudaSuccess ||
      per_sm < 1) {
    cudaGetLastError(); /* not a launch's error: the kernel's known limit stands in */
    per_sm = 3;
  }
  const unsigned long long share = (unsigned long long)per_sm * ctx->sm_count / chunks;
  return share < 1 ? 1u : (unsigned)share;
}

/* The segment kernel's CTAs along x for chunk v, at most `share` but no fewer than the CTAs
 * whose first segments hold the codes of the coarse passes it runs (sa, its arguments): its warps
 * go round the segments past them. */
static unsigned segment_ctas(const parz_chunk_view* v, unsigned share, const segment_args* sa) {
  const unsigned ctas = grid_of(v->nsegments, SEGMENT_WARPS);
  const unsigned most = ctas > share ? share : ctas;
  return most > sa->coarse_ctas ? most : sa->coarse_ctas;
}

/* Whether the segment step of chunk v, with `share` CTAs at most, runs its coarse passes
 * (coarse_passes): where its warps take two segments or more each, so that the CTA that runs
 * them, once its first segments are done, ends them while the others decode; a chunk of fewer
 * segments takes the coarse CTA after the step (interp_coarse_kernel), 1024 threads on a grid in
 * shared memory. */
static bool segment_folds(const parz_chunk_view* v, unsigned share) {
  const segment_args none = {};
  return v->nsegments >= 2ull * SEGMENT_WARPS * segment_ctas(v, share, &none);
}

/* Step 0 of chunk v on st, its codebook b read: the table decoder's upload, with *sa the segment
 * kernel's arguments for the chunk (no segments for an empty chunk), which the caller puts in
 * device memory. The payload checksums are the caller's (enqueue_sums). */
static int enqueue_prepare(parz_gpu_context* ctx, const parz_chunk_view* v, const book* b,
                           const void* d_chunk, const parz_gpu_scratch* s, unsigned share,
                           int may_fold, cudaStream_t st, segment_args* sa, parz_error* err) {
  const unsigned char* chunk = (const unsigned char*)d_chunk;
  const layout l = layout_of(v);
  const unsigned long long n = values_of(v);
  unsigned char* scratch = (unsigned char*)s->codec;
  cudaError_t e;
  memset(sa, 0, sizeof *sa);
  if (n == 0)
    return PARZ_OK;
  /* the table decoder, its pointers moved to its device copy */
  sa->huff = b->huff;
  uint32_t* d_words = (uint32_t*)(scratch + l.dec);
  sa->huff.table = d_words;
  sa->huff.sorted = d_words + b->sorted_at;
  sa->steps = d_words + b->words;
  /* the coarse passes the segment step runs (coarse_passes) go up after the step table */
  unsigned np = 0;
  unsigned long long end = 0;
  if (may_fold && segment_folds(v, share)) {
    const int rc = coarse_of(v, b->predictor, (int32_t*)(scratch + l.codes),
                             (int32_t*)(scratch + l.q),
                             (parz_gpu_bdec_pass*)(s->h_codec + coarse_at(b)), &np, &end, err);
    if (rc != PARZ_OK)
      return rc;
  }
  const size_t up = np ? coarse_at(b) + np * sizeof(parz_gpu_bdec_pass)
                       : (b->words + ((size_t)1 << b->huff.table_bits)) * 4;
  e = cudaMemcpyAsync(d_words, s->h_codec, up, cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess)
    e = cudaEventRecord(ctx->codec_copied, st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "uploading a bounded chunk's codebook");

  const unsigned char* payload = chunk + parz_gpu_payload_offset(v);
  int32_t* codes = (int32_t*)(scratch + (b->predictor == PARZ_BOUNDED_LORENZO ? l.q : l.codes));
  sa->payload = payload;
  sa->payload_bytes = v->payload_bytes;
  sa->offsets = s->offsets;
  sa->nsegments = v->nsegments;
  sa->n = n;
  sa->C = v->segment_blocks;
  sa->codes = codes;
  sa->fault = s->fault; /* the codes are zeroed by the segment step (zero_codes) */
  if (np) {
    const unsigned long long C = v->segment_blocks, need = (end + C - 1) / C;
    sa->coarse = (const parz_gpu_bdec_pass*)((unsigned char*)d_words + coarse_at(b));
    sa->coarse_np = np;
    sa->coarse_ctas =
        (unsigned)grid_of(need < v->nsegments ? need : v->nsegments, SEGMENT_WARPS);
    /* the grid of the passes' least stride in the coarse CTA's shared memory where it fits, and
     * where another CTA takes the segments that CTA then leaves */
    size_t n4[4], st4[4];
    shape4_of(v, n4, st4);
    const parz_gpu_bdec_pass* last =
        (const parz_gpu_bdec_pass*)(s->h_codec + coarse_at(b)) + np - 1;
    const unsigned long long points = parz_gpu_bdec_grid_of(last->s, n4, &sa->g);
    sa->coarse_grid = (1ull << sa->g.shift) == last->s && points <= POOL_WORDS &&
                      segment_ctas(v, share, sa) >= 2;
  }
  return PARZ_OK;
}

/* The fields of *sa for the run's shared Lorenzo launches (lorenzo_run_*) where chunk v, its
 * codebook b read and *sa prepared, is a Lorenzo chunk with rows of 2 values or more. */
static void lorenzo_run_args(const parz_chunk_view* v, const book* b, const parz_gpu_scratch* s,
                             void* d_dst, segment_args* sa) {
  size_t n4[4], st4[4];
  if (b->predictor != PARZ_BOUNDED_LORENZO || values_of(v) == 0)
    return;
  shape4_of(v, n4, st4);
  if (n4[3] < 2)
    return;
  sa->lorenzo = 1;
  for (unsigned k = 0; k < 4; k++)
    sa->n4[k] = (unsigned)n4[k];
  sa->q = (uint32_t*)((unsigned char*)s->codec + layout_of(v).q);
  sa->dst = d_dst;
  sa->unit = parz_bounded_unit(b->predictor, b->step);
}

/* Steps 2 to 4 of chunk v into d_dst on st, its codebook b read and its segments decoded; with
 * `shared`, Lorenzo's steps were the run's (lorenzo_run_args) and only the masked values are
 * left; the first `folded` interpolation passes were the segment step's (coarse_passes). */
static int enqueue_values(const parz_chunk_view* v, const book* b, const void* d_chunk, void* d_dst,
                          const parz_gpu_scratch* s, int shared, unsigned folded, cudaStream_t st,
                          parz_error* err) {
  const unsigned char* chunk = (const unsigned char*)d_chunk;
  const layout l = layout_of(v);
  const unsigned long long n = values_of(v);
  unsigned char* scratch = (unsigned char*)s->codec;
  cudaError_t e = cudaSuccess;
  parz_bounded_chunk_info info;
  info.step = b->step;
  info.predictor = b->predictor;
  if (n == 0)
    return PARZ_OK;
  const int lorenzo = info.predictor == PARZ_BOUNDED_LORENZO;
  int32_t* codes = (int32_t*)(scratch + (lorenzo ? l.q : l.codes));
  int32_t* q = (int32_t*)(scratch + l.q);
  size_t n4[4], st4[4];
  shape4_of(v, n4, st4);
  const double unit = parz_bounded_unit(info.predictor, info.step);
  const int f32 = v->array.type == PARZ_FLOAT;
  int stored = shared; /* Lorenzo's rows or the last interpolation pass stored the values */
  if (lorenzo && !shared) {
    for (unsigned k = 0; k < 4; k++) {
      if (n4[k] < 2)
        continue;
      if (k == 3 && n4[3] >= LONG_ROW) {
        const unsigned rows = (unsigned)(n / n4[3]);
        if (f32)
          lorenzo_long_rows_kernel<float><<<rows, THREADS, 0, st>>>(
              (const uint32_t*)q, (unsigned)n4[3], (float*)d_dst, unit, s->fault);
        else
          lorenzo_long_rows_kernel<double><<<rows, THREADS, 0, st>>>(
              (const uint32_t*)q, (unsigned)n4[3], (double*)d_dst, unit, s->fault);
        stored = 1;
      } else if (k == 3) {
        const unsigned rows = (unsigned)(n / n4[3]), grid = grid_of(32ull * rows, THREADS);
        if (f32)
          lorenzo_rows_kernel<float><<<grid, THREADS, 0, st>>>(
              (const uint32_t*)q, rows, (unsigned)n4[3], (float*)d_dst, unit, s->fault);
        else
          lorenzo_rows_kernel<double><<<grid, THREADS, 0, st>>>(
              (const uint32_t*)q, rows, (unsigned)n4[3], (double*)d_dst, unit, s->fault);
        stored = 1;
      } else {
        const unsigned outer = (unsigned)(n / (n4[k] * st4[k]));
        lorenzo_columns_kernel<<<grid_of((unsigned long long)outer * st4[k], THREADS), THREADS, 0,
                                 st>>>((uint32_t*)q, outer, (unsigned)n4[k], (unsigned)st4[k]);
      }
    }
  } else if (!lorenzo) {
    parz_bounded_pass* passes =
        (parz_bounded_pass*)malloc(PARZ_BOUNDED_PASSES_MAX * sizeof *passes);
    if (!passes)
      return parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory for the interpolation's passes");
    const unsigned np = parz_bounded_interp_passes(n4, info.predictor, passes);
    coarse_args ca;
    memset(&ca, 0, sizeof ca);
    ca.fault = s->fault;
    for (unsigned p = folded; p < np; p++) {
      pass_args a;
      a.p = parz_gpu_bdec_pass_of(&passes[p], n4, st4, info.predictor, codes, q);
      a.fault = s->fault;
      a.dst = d_dst;
      a.unit = unit;
      /* the last pass stores the values where it has a launch of its own (interp_at) */
      const bool last = parz_gpu_bdec_last(p, np, &a.p);
      if (!folded && parz_gpu_bdec_coarse(p, a.p.count, ca.np)) {
        ca.p[ca.np++] = a.p;
        continue;
      }
      if (ca.np && ca.np == p && (e = launch_coarse(ca, n4, st)) != cudaSuccess)
        break;
      if (p + 1 < np) { /* the level's passes along axes 3 and 2 in one launch where they pair */
        pair_args pa;
        pa.a = a.p;
        pa.b = parz_gpu_bdec_pass_of(&passes[p + 1], n4, st4, info.predictor, codes, q);
        pa.fault = s->fault;
        pa.dst = d_dst;
        pa.unit = unit;
        const bool pair_last = parz_gpu_bdec_last(p + 1, np, &pa.b);
        if (parz_gpu_bdec_pair(&pa.a, &pa.b) &&
            (pair_last ? (f32 ? launch_pair<float>(pa, st) : launch_pair<double>(pa, st))
                       : launch_pair<void>(pa, st))) {
          stored = pair_last;
          p++;
          continue;
        }
      }
      if (a.p.count && last && f32)
        launch_pass<float>(a, st);
      else if (a.p.count && last)
        launch_pass<double>(a, st);
      else if (a.p.count)
        launch_pass<void>(a, st);
      stored = last && a.p.count;
    }
    if (e == cudaSuccess && ca.np == np && np)
      e = launch_coarse(ca, n4, st);
    free(passes);
    if (e != cudaSuccess)
      return parz_gpu_cuda_fail(err, e, "setting up a bounded chunk's first passes");
  }

  if (!stored && f32)
    lorenzo ? store_kernel<float, true>
        <<<grid_of(n, THREADS), THREADS, 0, st>>>(q, (float*)d_dst, n, unit, s->fault)
            : store_kernel<float, false>
        <<<grid_of(n, THREADS), THREADS, 0, st>>>(q, (float*)d_dst, n, unit, s->fault);
  else if (!stored)
    lorenzo ? store_kernel<double, true>
        <<<grid_of(n, THREADS), THREADS, 0, st>>>(q, (double*)d_dst, n, unit, s->fault)
            : store_kernel<double, false>
        <<<grid_of(n, THREADS), THREADS, 0, st>>>(q, (double*)d_dst, n, unit, s->fault);

  if (v->mask.nvalues) {
    mask_args ma;
    memset(&ma, 0, sizeof ma);
    parz_gpu_mask* m = &ma.m;
    m->values = chunk + parz_gpu_section_offset(v, v->mask.values);
    m->starts = chunk + parz_gpu_section_offset(v, v->mask.starts);
    m->records = chunk + parz_gpu_section_offset(v, v->mask.records);
    m->record_bytes = v->mask.record_bytes;
    m->ngroups = v->mask.ngroups;
    m->nblocks = parz_block_count(&v->array);
    m->map = s->mask;
    m->G = v->mask.group_blocks;
    m->V = v->mask.nvalues;
    m->dims = v->array.dims;
    m->group_first = 0;
    m->group_end = v->mask.ngroups;
    for (unsigned k = 0; k < v->array.dims; k++) {
      ma.shape[k] = v->array.shape[k];
      ma.bgrid[k] = (v->array.shape[k] + 3) / 4;
    }
    ma.dims = v->array.dims;
    ma.size = (unsigned)parz_type_size(v->array.type);
    ma.dst = d_dst;
    mask_expand_kernel<<<grid_of(32ull * m->ngroups, THREADS), THREADS, 0, st>>>(*m);
    mask_apply_kernel<<<grid_of(m->nblocks, THREADS), THREADS, 0, st>>>(ma);
  }
  e = cudaGetLastError();
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "bounded decode launch");
}

/* The payload checksums of chunk v (none for an empty chunk, whose payload nothing reads), on st
 * after its segment offsets: they read the payload and add to the fault record only, so they may
 * run beside the segment step. */
static int enqueue_sums(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                        const parz_gpu_scratch* s, cudaStream_t st, parz_error* err) {
  if (values_of(v) == 0)
    return PARZ_OK;
  return parz_gpu_enqueue_checksums(ctx, v, d_chunk, s, 0, v->nchecksums, st, err);
}

/* A stream forked from `main` after its work so far, joined back into it by join(), released
 * once its work is done; where one cannot be made, `main` itself stands in. */
struct side_stream {
  cudaStream_t main, st = NULL;
  cudaEvent_t fork = NULL, done = NULL;
  explicit side_stream(cudaStream_t m) : main(m) {
    if (cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreateWithFlags(&fork, cudaEventDisableTiming) != cudaSuccess ||
        cudaEventCreateWithFlags(&done, cudaEventDisableTiming) != cudaSuccess ||
        cudaEventRecord(fork, main) != cudaSuccess ||
        cudaStreamWaitEvent(st, fork, 0) != cudaSuccess) {
      cudaGetLastError(); /* not a launch's error: the work goes on main */
      release();
    }
  }
  cudaStream_t stream() const { return st ? st : main; }
  /* main waits for the stream's work so far */
  cudaError_t join() {
    if (!st)
      return cudaSuccess;
    cudaError_t e = cudaEventRecord(done, st);
    return e == cudaSuccess ? cudaStreamWaitEvent(main, done, 0) : e;
  }
  void release() {
    if (st)
      cudaStreamDestroy(st);
    if (fork)
      cudaEventDestroy(fork);
    if (done)
      cudaEventDestroy(done);
    st = NULL;
    fork = done = NULL;
  }
  ~side_stream() { release(); }
};

/* Steps 0 to 4 of chunk v into d_dst on st, its codebook b read and its segment offsets queued
 * on st: the segment kernel's arguments go up from the chunk's pinned share, the checksums run
 * on a stream beside st's steps, joined back before this returns; the exceptions are the
 * caller's. */
static int enqueue_book(parz_gpu_context* ctx, const parz_chunk_view* v, const book* b,
                        const void* d_chunk, void* d_dst, const parz_gpu_scratch* s,
                        cudaStream_t st, parz_error* err) {
  const layout l = layout_of(v);
  segment_args* h = (segment_args*)(s->h_codec + (l.args - l.dec));
  segment_args* d = (segment_args*)((unsigned char*)s->codec + l.args);
  const unsigned share = segment_share(ctx, 1);
  if (values_of(v) == 0)
    return enqueue_prepare(ctx, v, b, d_chunk, s, share, 1, st, h, err);
  side_stream side(st);
  int rc = enqueue_sums(ctx, v, d_chunk, s, side.stream(), err);
  if (rc == PARZ_OK)
    rc = enqueue_prepare(ctx, v, b, d_chunk, s, share, 1, st, h, err);
  cudaError_t e = cudaSuccess;
  if (rc == PARZ_OK) {
    e = cudaMemcpyAsync(d, h, sizeof *h, cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess)
      e = cudaEventRecord(ctx->codec_copied, st);
    if (e != cudaSuccess)
      rc = parz_gpu_cuda_fail(err, e, "uploading a bounded chunk's segment arguments");
  }
  if (rc == PARZ_OK && v->nsegments)
    segments_kernel<<<segment_ctas(v, share, h), SEGMENT_WARPS * 32, 0, st>>>(d);
  if (rc == PARZ_OK)
    rc = enqueue_values(v, b, d_chunk, d_dst, s, 0, h->coarse_np, st, err);
  /* joined whatever happened: st must not run ahead of the checksums */
  e = side.join();
  if (e != cudaSuccess && rc == PARZ_OK)
    rc = parz_gpu_cuda_fail(err, e, "joining a bounded chunk's checksums");
  return rc;
}

/* Steps 0 to 4 of chunk v (all its segments) into d_dst on st: the exceptions are the caller's. */
static int enqueue_all(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                       void* d_dst, uint64_t first, uint64_t count, const parz_gpu_scratch* s,
                       cudaStream_t st, parz_error* err) {
  book b;
  int rc;
  if (first != 0 || count != v->nsegments)
    return parz_fail(err, PARZ_ERR_ARG,
                     "bounded: segments %llu to %llu of %llu decoded alone: the GPU decodes a "
                     "bounded chunk whole",
                     (unsigned long long)first, (unsigned long long)(first + count),
                     (unsigned long long)v->nsegments);
  if ((rc = read_book(v, s, &b, err)) != PARZ_OK)
    return rc;
  return enqueue_book(ctx, v, &b, d_chunk, d_dst, s, st, err);
}

/* Whether read_book's status refuses the chunk's bytes (reported with the chunk's faults,
 * parz_gpu_refuse) rather than failing the call. */
static int refuses(int rc) {
  return rc == PARZ_ERR_STREAM || rc == PARZ_ERR_FORMAT || rc == PARZ_ERR_CHECKSUM;
}

/* Chunk v whole, its codebook b read: offsets, steps 0 to 4, exceptions. */
static int enqueue_read(parz_gpu_context* ctx, const parz_chunk_view* v, const book* b,
                        const void* d_chunk, void* d_dst, const parz_gpu_scratch* s,
                        cudaStream_t st, parz_error* err) {
  int rc;
  if ((rc = parz_gpu_enqueue_offsets(ctx, v, d_chunk, s, st, err)) != PARZ_OK ||
      (rc = enqueue_book(ctx, v, b, d_chunk, d_dst, s, st, err)) != PARZ_OK)
    return rc;
  return parz_gpu_enqueue_exceptions(ctx, v, d_chunk, d_dst, st, err);
}

static int enqueue_chunk(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                         void* d_dst, const parz_gpu_scratch* s, const parz_gpu_shape* shape,
                         cudaStream_t st, parz_error* err) {
  book b;
  parz_error why;
  (void)shape;
  const int rc = read_book(v, s, &b, &why);
  if (rc == PARZ_OK)
    return enqueue_read(ctx, v, &b, d_chunk, d_dst, s, st, err);
  if (!refuses(rc))
    return parz_fail(err, rc, "%s", why.message);
  parz_gpu_refuse(ctx, s, &why);
  return PARZ_OK;
}

/* Chunks of a batch (a run of one type and rank): their codebooks read on the context's host
 * threads, then each chunk's uploads on one of RUN_STREAMS streams forked from st; on st the run's
 * arguments in one copy from h_args to d_args (the segment kernel's, then the offsets kernel's,
 * then the checksums'), the segment offsets of every chunk in one launch, the payload checksums of
 * every chunk in the frame's two launches for a run on a stream beside the segment step, one launch
 * of the segment kernel for every chunk (a chunk per row of its grid), and each chunk's steps 2 to
 * 4 and exceptions on the side streams again, joined back into st: a chunk's segment step takes as
 * long as a whole array's, so the chunks share it rather than queue it, and a small chunk's
 * launches of its own cost more than its offsets and sums. */
#define RUN_STREAMS 8

/* The shared Lorenzo launches of a run's chunks on st (lorenzo_run_args; ha their arguments on
 * the host, d_args on the device): the sums along each axis but the last, then the rows. */
static cudaError_t enqueue_lorenzo_run(const parz_chunk_view* v, const segment_args* ha, size_t n,
                                       const segment_args* d_args, cudaStream_t st) {
  unsigned long long cols[3] = {0, 0, 0}, rows = 0;
  for (size_t c = 0; c < n; c++) {
    if (!ha[c].lorenzo)
      continue;
    unsigned long long outer, inner;
    for (unsigned k = 0; k < 3; k++) {
      const unsigned long long x = grid_of(lorenzo_columns(ha[c].n4, k, &outer, &inner), THREADS);
      if (ha[c].n4[k] >= 2 && x > cols[k])
        cols[k] = x;
    }
    const unsigned long long r = ha[c].n / ha[c].n4[3];
    const unsigned long long x = ha[c].n4[3] >= LONG_ROW ? r : grid_of(r, THREADS / 32);
    rows = x > rows ? x : rows;
  }
  for (unsigned k = 0; k < 3; k++)
    if (cols[k])
      lorenzo_run_columns_kernel<<<dim3((unsigned)cols[k], (unsigned)n), THREADS, 0, st>>>(d_args,
                                                                                           k);
  if (rows && v[0].array.type == PARZ_FLOAT)
    lorenzo_run_rows_kernel<float><<<dim3((unsigned)rows, (unsigned)n), THREADS, 0, st>>>(d_args);
  else if (rows)
    lorenzo_run_rows_kernel<double><<<dim3((unsigned)rows, (unsigned)n), THREADS, 0, st>>>(d_args);
  return cudaGetLastError();
}

static int enqueue_run(parz_gpu_context* ctx, const parz_chunk_view* v, const void* const* d_chunks,
                       void* const* d_dsts, size_t n, const parz_gpu_scratch* s,
                       unsigned char* h_args, unsigned char* d_args, cudaStream_t st,
                       parz_error* err) {
  cudaStream_t side[RUN_STREAMS];
  cudaEvent_t fork = NULL, join[RUN_STREAMS];
  const unsigned k = n < RUN_STREAMS ? (unsigned)n : RUN_STREAMS;
  unsigned made = 0, i;
  int rc = PARZ_OK;
  segment_args* ha = (segment_args*)h_args;
  cudaError_t e = cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
  while (e == cudaSuccess && made < k) { /* made: the streams and events that exist */
    e = cudaStreamCreateWithFlags(&side[made], cudaStreamNonBlocking);
    if (e == cudaSuccess &&
        (e = cudaEventCreateWithFlags(&join[made], cudaEventDisableTiming)) != cudaSuccess)
      cudaStreamDestroy(side[made]);
    if (e == cudaSuccess)
      made++;
  }
  /* the side streams wait for st's work so far */
  auto fork_side = [&]() {
    cudaError_t f = cudaEventRecord(fork, st);
    for (unsigned j = 0; f == cudaSuccess && j < made; j++)
      f = cudaStreamWaitEvent(side[j], fork, 0);
    return f;
  };
  /* st waits for the side streams' work so far */
  auto join_side = [&]() {
    cudaError_t f = cudaSuccess;
    for (unsigned j = 0; j < made; j++) {
      cudaError_t g = cudaEventRecord(join[j], side[j]);
      if (g == cudaSuccess)
        g = cudaStreamWaitEvent(st, join[j], 0);
      if (f == cudaSuccess)
        f = g;
    }
    return f;
  };
  if (e == cudaSuccess)
    e = fork_side();
  if (e != cudaSuccess)
    rc = parz_gpu_cuda_fail(err, e, "forking a batch of bounded chunks");
  /* the codebooks read on the context's host threads: a chunk they refuse is left out (no
   * segments in its row of the launch) and reported by the fault check, as a chunk that faults
   * on the device is */
  book* books = rc == PARZ_OK ? (book*)malloc(n * sizeof *books) : NULL;
  if (rc == PARZ_OK && !books)
    rc = parz_fail(err, PARZ_ERR_NOMEM, "no memory for %zu bounded chunks' codebooks", n);
  std::vector<int> status(n, PARZ_OK);
  if (rc == PARZ_OK) {
    const int threads = parz_host_pool_size(ctx->host_pool);
    std::vector<parz_error> errs(n);
    parz_host_pool_each(ctx->host_pool, [&](int t) {
      for (size_t c = (size_t)t; c < n; c += (size_t)threads)
        status[c] = read_book(&v[c], &s[c], &books[c], &errs[c]);
    });
    for (size_t c = 0; rc == PARZ_OK && c < n; c++) {
      memset(&ha[c], 0, sizeof ha[c]);
      if (status[c] == PARZ_OK)
        continue;
      if (refuses(status[c]))
        parz_gpu_refuse(ctx, &s[c], &errs[c]);
      else
        rc = parz_fail(err, status[c], "%s", errs[c].message);
    }
  }
  unsigned ctas = 0;
  const unsigned share = segment_share(ctx, n);
  /* the run's interpolation chunks: where they fit on its streams, their coarse CTAs run side by
   * side after the segment step, one CTA's time; where more share a stream, they would run one
   * after another there, and the segment step runs their coarse passes instead (segment_folds;
   * measured in bench/results/h200/bench_gpu_bounded.md) */
  size_t interp = 0;
  for (size_t c = 0; rc == PARZ_OK && c < n; c++)
    interp += status[c] == PARZ_OK && books[c].predictor != PARZ_BOUNDED_LORENZO &&
              values_of(&v[c]) > 0;
  const int may_fold = interp > k;
  parz_gpu_table_args* ht = (parz_gpu_table_args*)(ha + n);
  size_t m = 0; /* chunks with an offsets kernel: ht[0..m) */
  for (size_t c = 0; rc == PARZ_OK && c < n; c++) {
    if (status[c] != PARZ_OK)
      continue;
    m += (size_t)parz_gpu_table_args_init(ctx, &v[c], d_chunks[c], &s[c], &ht[m]);
    rc = enqueue_prepare(ctx, &v[c], &books[c], d_chunks[c], &s[c], share, may_fold, side[c % k],
                         &ha[c], err);
    if (rc == PARZ_OK && v[c].array.type == v[0].array.type)
      lorenzo_run_args(&v[c], &books[c], &s[c], d_dsts[c], &ha[c]);
    const unsigned x = segment_ctas(&v[c], share, &ha[c]);
    ctas = x > ctas ? x : ctas;
  }
  /* every chunk has a checksums record, one left out or empty with no CTAs */
  parz_gpu_run_sums* hr = (parz_gpu_run_sums*)(ht + m);
  unsigned long long sum_ctas = 0;
  for (size_t c = 0; c < n; c++) {
    const unsigned long long end = status[c] == PARZ_OK && values_of(&v[c]) ? v[c].nchecksums : 0;
    sum_ctas += parz_gpu_run_sums_init(&v[c], d_chunks[c], &s[c], 0, end, sum_ctas, &hr[c]);
  }
  side_stream sums(st); /* made here, it waits for nothing of this run yet */
  if (rc == PARZ_OK) {
    e = cudaMemcpyAsync(d_args, h_args, (unsigned char*)(hr + n) - h_args,
                        cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess)
      e = cudaEventRecord(ctx->args_copied, st);
    if (e == cudaSuccess && m)
      e = parz_gpu_launch_offsets(ht, (const parz_gpu_table_args*)(d_args + ((unsigned char*)ht -
                                                                             h_args)),
                                  (unsigned)m, st);
    /* the checksums after the offsets, beside the rest: they only add to the fault records */
    if (e == cudaSuccess && sums.st && (e = cudaEventRecord(sums.fork, st)) == cudaSuccess)
      e = cudaStreamWaitEvent(sums.st, sums.fork, 0);
    if (e != cudaSuccess)
      rc = parz_gpu_cuda_fail(err, e, "the offsets of a batch of bounded chunks");
  }
  if (rc == PARZ_OK)
    rc = parz_gpu_enqueue_run_checksums(
        ctx, hr, (const parz_gpu_run_sums*)(d_args + ((unsigned char*)hr - h_args)), (unsigned)n,
        sums.stream(), err);
  if (rc == PARZ_OK && (e = join_side()) != cudaSuccess)
    rc = parz_gpu_cuda_fail(err, e, "joining a batch of bounded chunks");
  if (rc == PARZ_OK) {
    if (ctas) {
      segments_kernel<<<dim3(ctas, (unsigned)n), SEGMENT_WARPS * 32, 0, st>>>(
          (const segment_args*)d_args);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess)
      e = enqueue_lorenzo_run(v, ha, n, (const segment_args*)d_args, st);
    if (e == cudaSuccess)
      e = fork_side();
    if (e != cudaSuccess)
      rc = parz_gpu_cuda_fail(err, e, "the segments of a batch of bounded chunks");
  }
  for (size_t c = 0; rc == PARZ_OK && c < n; c++)
    if (status[c] == PARZ_OK &&
        (rc = enqueue_values(&v[c], &books[c], d_chunks[c], d_dsts[c], &s[c], (int)ha[c].lorenzo,
                             ha[c].coarse_np, side[c % k], err)) == PARZ_OK)
      rc = parz_gpu_enqueue_exceptions(ctx, &v[c], d_chunks[c], d_dsts[c], side[c % k], err);
  free(books);
  /* joined whatever happened: st must not run ahead of work queued on the side streams */
  e = join_side();
  const cudaError_t f = sums.join();
  e = e == cudaSuccess ? f : e;
  if (e != cudaSuccess && rc == PARZ_OK)
    rc = parz_gpu_cuda_fail(err, e, "joining a batch of bounded chunks");
  for (i = 0; i < made; i++) {
    cudaStreamDestroy(side[i]); /* released once its work is done */
    cudaEventDestroy(join[i]);
  }
  if (rc == PARZ_OK && (e = cudaEventRecord(ctx->codec_copied, st)) != cudaSuccess)
    rc = parz_gpu_cuda_fail(err, e, "recording a batch's codebook uploads");
  if (fork)
    cudaEventDestroy(fork);
  return rc;
}

extern const parz_gpu_codec parz_gpu_codec_bounded = {
    PARZ_CODEC_BOUNDED,
    enqueue_chunk,
    enqueue_run,          /* a batch's segments in one launch, the rest on streams */
    /* a run's arguments (enqueue_run) */
    sizeof(segment_args) + sizeof(parz_gpu_table_args) + sizeof(parz_gpu_run_sums),
    enqueue_all, /* the filter path: the chunk whole (`whole`), its exceptions on the host */
    NULL,        /* no block kernel: its chunks are encoded whole (encode_chunks) */
    scratch_bytes,
    1,
    NULL, /* every mode */
    parz_gpu_bounded_encode_chunks,
};
