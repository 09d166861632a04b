/* The error-bounded codec's decode on the GPU (codec/FORMAT.md, "Error-bounded chunks (codec 4)")
 * and its entry in the GPU's codec table (gpu_codecs.h). A scratch codec: the chunk decodes in
 * the steps of codec/frame/chunk_scratch.h, one or more launches each, on one stream:
 *
 *   0. the codebook, read on the host with the serial decoder's checks (parz_bounded_chunk_decoder;
 *      a chunk refused there is left out of the launches and reported by the fault check,
 *      parz_gpu_refuse) and its table decoder uploaded from pinned memory; the segment offsets
 *      (offsets.cu); the payload checksums (checksum.cu);
 *   1. segments: a warp per segment, found through the offsets, decodes its codes into the
 *      chunk's scratch (zeroed first, so that runs of zeros cost nothing), its 32 lanes each a
 *      share of the segment's bits (codec/bounded/bounded_lanes.h: the lanes decode from guessed
 *      starts and correct them from their neighbours' ends), with the codec's own token decoder
 *      (parz_bounded_read_token), the table decoder's table in shared memory and beside it its
 *      step table (short tokens taken several at a lookup); a segment the CPU refuses sets the
 *      fault record;
 *   2. the inverse passes: Lorenzo's prefix sums, a thread per column along the leading axes and
 *      a warp per row along the last; the interpolation's passes, a thread per value each;
 *   3. the values: stored by Lorenzo's last sums along the last axis (with the range check),
 *      else a thread per value;
 *   4. the masked values: the groups' records expanded into a map (mask.cuh), then a thread per
 *      4^d block of the mask writes its masked values;
 *   5. the exceptions (offsets.cu).
 *
 * Every step runs the codec's arithmetic from codec/bounded/bounded_inverse.h, the code the CPU
 * runs, so the values are the serial decoder's bit for bit. Indices are 32-bit where they divide:
 * a chunk holds fewer than 2^32 values (parz_gpu_view_fits). */
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "bounded_codec.h"
#include "bounded_gpu.h"
#include "bounded_inverse.h"
#include "bounded_lanes.h"
#include "gpu_codecs.h"
#include "mask.cuh"

#define THREADS 256u
#define SEGMENT_WARPS 8u /* a CTA of the segment kernel: its warps share the codebook's table */

/* ---------------- step 1: the segments ---------------- */

struct segment_args {
  parz_huff_decoder huff; /* table and sorted in device memory */
  const unsigned char* payload;
  unsigned long long payload_bytes;
  const unsigned long long* offsets;
  unsigned long long nsegments, n, C;
  int32_t* codes;
  parz_gpu_fault* fault;
};

/* The chunk's device scratch: the codes (interpolation only: Lorenzo sums its codes in place),
 * the quantized values, the table decoder's words and the segment kernel's arguments (the last
 * two uploaded in one copy from the chunk's pinned share, laid out alike from dec on). */
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
  l.args = l.dec + round16(4 * parz_bounded_decoder_words_bound(v));
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

#define TABLE_WORDS_MAX 4096u /* bounded_huff.c's table of 12 bits */
#define FULL 0xffffffffu
/* Bits a lane decodes before its guessed start, so that its chain has met the true one there:
 * on etopo5 at 1e-3 this cuts the lanes' decodes again from 62 to 15 tokens a segment (the
 * slowest lane's, over the rounds) for 14 tokens more in the first decode
 * (tests/test_bounded_lanes.c emulates the lanes). */
#define LEAD_BITS 64u

/* A warp per segment of chunk blockIdx.y (its arguments all[blockIdx.y], in device memory, so
 * that a run of chunks shares the launch; the CTA's warps take the chunk's segments warp by warp
 * across the grid's x): the lanes' decodes of bounded_lanes.h, their ends passed on until every
 * lane starts where the one before it ends, the codes counted, and each lane's codes written
 * after those of the lanes before it. Every branch on the segment is the whole warp's. */
__global__ void __launch_bounds__(SEGMENT_WARPS * 32)
    segments_kernel(const segment_args* __restrict__ all) {
  const segment_args& a = all[blockIdx.y];
  if (a.nsegments == 0) /* a chunk left out of the run (its codebook refused) or empty */
    return;
  /* the decoder in shared memory, its table too (the long words' limits are indexed by length),
   * and the table's step table, built from it */
  __shared__ uint32_t table[TABLE_WORDS_MAX];
  __shared__ uint32_t steps[TABLE_WORDS_MAX];
  __shared__ parz_huff_decoder d;
  const unsigned words = 1u << a.huff.table_bits;
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x)
    table[i] = a.huff.table[i];
  if (threadIdx.x == 0) {
    d = a.huff;
    d.table = table;
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x)
    steps[i] = parz_bounded_step_entry(table, a.huff.table_bits, i);
  __syncthreads();
  const unsigned lane = threadIdx.x & 31u;
  const unsigned long long warps = (unsigned long long)gridDim.x * SEGMENT_WARPS;
  for (unsigned long long g = (unsigned long long)blockIdx.x * SEGMENT_WARPS + threadIdx.x / 32;
       g < a.nsegments; g += warps) {
    const unsigned long long bit0 = a.offsets[g], end = a.offsets[g + 1];
    const unsigned long long c0 = g * a.C, count = a.n - c0 < a.C ? a.n - c0 : a.C;
    if (end < bit0 || end > 8 * a.payload_bytes) {
      if (lane == 0)
        fault_at(a.fault, g, PARZ_GPU_FAULT_OVERRUN);
      continue;
    }
    if (!parz_bounded_lanes_fit(end - bit0, count)) {
      if (lane == 0)
        fault_at(a.fault, g, PARZ_GPU_FAULT_END);
      continue;
    }
    const uint32_t len = (uint32_t)(end - bit0), lim = parz_bounded_lane_limit(len, lane, 32);
    const parz_bounded_lanes s =
        parz_bounded_lanes_init(&d, table, steps, a.payload, (size_t)a.payload_bytes, bit0);
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
      continue;
    }
    parz_bounded_lane_write(&s, &o, a.codes + c0, (size_t)before, 1);
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
__global__ void lorenzo_rows_kernel(const uint32_t* u, unsigned rows, unsigned n3, T* dst,
                                    double unit, parz_gpu_fault* fault) {
  const unsigned row = (blockIdx.x * blockDim.x + threadIdx.x) / 32u, lane = threadIdx.x & 31u;
  if (row >= rows)
    return; /* the whole warp */
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
__global__ void __launch_bounds__(THREADS)
    lorenzo_long_rows_kernel(const uint32_t* u, unsigned n3, T* dst, double unit,
                             parz_gpu_fault* fault) {
  __shared__ uint32_t totals[THREADS / 32];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x / 32u;
  const unsigned long long first = (unsigned long long)blockIdx.x * n3;
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

/* Lorenzo along axis k (not the last): a thread per column, one of `inner` (the stride of the
 * axis) in each of `outer` slabs, summing n_k values `inner` apart; neighbouring threads take
 * neighbouring columns. */
__global__ void lorenzo_columns_kernel(uint32_t* u, unsigned outer, unsigned nk, unsigned inner) {
  const unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (unsigned long long)outer * inner)
    return;
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

/* One interpolation pass, a thread per value, in code order (codes from p.pos on). */
struct pass_args {
  unsigned long long n[4], st[4];
  unsigned start[4], step[4], cnt[4];
  unsigned long long pos, count, s, sk;
  unsigned k;
  int cubic, origin;
  const int32_t* codes;
  int32_t* q;
  parz_gpu_fault* fault;
};

/* The value of pass a at t along the last axis of line (c0, c1, c2), u its place in code order. */
__device__ __forceinline__ void interp_at(const pass_args& a, unsigned c0, unsigned c1, unsigned c2,
                                          unsigned t, unsigned long long u) {
  const unsigned long long i0 = a.start[0] + (unsigned long long)c0 * a.step[0];
  const unsigned long long i1 = a.start[1] + (unsigned long long)c1 * a.step[1];
  const unsigned long long i2 = a.start[2] + (unsigned long long)c2 * a.step[2];
  const unsigned long long i3 = a.start[3] + (unsigned long long)t * a.step[3];
  const unsigned long long idx = i0 * a.st[0] + i1 * a.st[1] + i2 * a.st[2] + i3;
  const unsigned long long pk = a.k == 0 ? i0 : a.k == 1 ? i1 : a.k == 2 ? i2 : i3;
  if (parz_bounded_interp_undo(a.q, (size_t)idx, (size_t)pk, (size_t)a.n[a.k], (size_t)a.sk,
                               (size_t)a.s, a.cubic, a.origin, a.codes[a.pos + u]))
    fault_at(a.fault, idx, PARZ_GPU_FAULT_VALUE);
}

/* Value u (< a.count) of pass a: its line (c0, c1, c2) and t along the last axis by division. */
__device__ __forceinline__ void interp_value(const pass_args& a, unsigned long long u) {
  const unsigned x = (unsigned)u, line = x / a.cnt[3], t = x - line * a.cnt[3];
  const unsigned l2 = line / a.cnt[2], c2 = line - l2 * a.cnt[2];
  const unsigned c0 = l2 / a.cnt[1], c1 = l2 - c0 * a.cnt[1];
  interp_at(a, c0, c1, c2, t, u);
}

/* A pass on a grid of its own shape: x along the last axis (threadIdx.x, blockIdx.x), y the lines
 * along axis 2 (threadIdx.y, blockIdx.y), z the lines of axes 0 and 1 (blockIdx.z, c1 fastest):
 * a thread's place comes without interp_value's three divisions by the pass's counts. */
__global__ void interp_kernel(const pass_args a) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned c2 = blockIdx.y * blockDim.y + threadIdx.y;
  if (t >= a.cnt[3] || c2 >= a.cnt[2])
    return;
  const unsigned c0 = blockIdx.z / a.cnt[1], c1 = blockIdx.z - c0 * a.cnt[1];
  const unsigned long long line = ((unsigned long long)blockIdx.z * a.cnt[2] + c2);
  interp_at(a, c0, c1, c2, t, line * a.cnt[3] + t);
}

/* interp_kernel's CTA and grid for pass a: a CTA of THREADS threads, as many along the last axis
 * as it has values (a warp at least), the rest along axis 2. False where the grid's y or z would
 * pass CUDA's limit (65535). */
static bool interp_grid(const pass_args& a, dim3* block, dim3* grid) {
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
__global__ void interp_flat_kernel(const pass_args a) {
  const unsigned long long u = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (u < a.count)
    interp_value(a, u);
}

/* The first passes, a handful of values each, in one CTA: a barrier between passes (it orders
 * the CTA's global stores too) instead of a launch each. */
#define COARSE_PASSES 16
#define COARSE_VALUES 8192u /* the most values of a pass run so */
#define COARSE_THREADS 1024u
struct coarse_args {
  pass_args p[COARSE_PASSES];
  unsigned np;
};

__global__ void __launch_bounds__(COARSE_THREADS) interp_coarse_kernel(const coarse_args a) {
  for (unsigned i = 0; i < a.np; i++) {
    for (unsigned long long u = threadIdx.x; u < a.p[i].count; u += blockDim.x)
      interp_value(a.p[i], u);
    __syncthreads();
  }
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

/* A chunk's codebook, read on the host with the serial decoder's checks: its table decoder's words
 * in the chunk's pinned share (s->h_codec), the decoder's limits with the symbols' place among
 * those words, the grid step and the predictor. */
struct book {
  parz_huff_decoder huff;
  size_t words, sorted_at;
  double step;
  int predictor;
};

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
  parz_bounded_decoder_free(info.dec);
  return PARZ_OK;
}

/* The segment kernel's CTAs along x for chunk v: the warps go round the segments past them. */
static unsigned segment_ctas(const parz_gpu_context* ctx, const parz_chunk_view* v) {
  const unsigned ctas = grid_of(v->nsegments, SEGMENT_WARPS);
  return ctas > 8u * (unsigned)ctx->sm_count ? 8u * (unsigned)ctx->sm_count : ctas;
}

/* Step 0 of chunk v on st, its codebook b read: the table decoder's upload, the payload
 * checksums and the codes zeroed, with *sa the segment kernel's arguments for the chunk (no
 * segments for an empty chunk), which the caller puts in device memory. */
static int enqueue_prepare(parz_gpu_context* ctx, const parz_chunk_view* v, const book* b,
                           const void* d_chunk, const parz_gpu_scratch* s, cudaStream_t st,
                           segment_args* sa, parz_error* err) {
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
  e = cudaMemcpyAsync(d_words, s->h_codec, b->words * 4, cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess)
    e = cudaEventRecord(ctx->codec_copied, st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "uploading a bounded chunk's codebook");

  const unsigned char* payload = chunk + parz_gpu_payload_offset(v);
  int rc = parz_gpu_enqueue_checksums(ctx, v, d_chunk, s, 0, v->nchecksums, st, err);
  if (rc != PARZ_OK)
    return rc;

  int32_t* codes = (int32_t*)(scratch + (b->predictor == PARZ_BOUNDED_LORENZO ? l.q : l.codes));
  sa->payload = payload;
  sa->payload_bytes = v->payload_bytes;
  sa->offsets = s->offsets;
  sa->nsegments = v->nsegments;
  sa->n = n;
  sa->C = v->segment_blocks;
  sa->codes = codes;
  sa->fault = s->fault;
  /* the codes zeroed first: runs of zeros then cost a segment's thread nothing */
  if ((e = cudaMemsetAsync(codes, 0, 4 * n, st)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "clearing a bounded chunk's codes");
  return PARZ_OK;
}

/* Steps 2 to 4 of chunk v into d_dst on st, its codebook b read and its segments decoded. */
static int enqueue_values(const parz_chunk_view* v, const book* b, const void* d_chunk, void* d_dst,
                          const parz_gpu_scratch* s, cudaStream_t st, parz_error* err) {
  const unsigned char* chunk = (const unsigned char*)d_chunk;
  const layout l = layout_of(v);
  const unsigned long long n = values_of(v);
  unsigned char* scratch = (unsigned char*)s->codec;
  cudaError_t e;
  parz_bounded_chunk_info info;
  info.step = b->step;
  info.predictor = b->predictor;
  if (n == 0)
    return PARZ_OK;
  const int lorenzo = info.predictor == PARZ_BOUNDED_LORENZO;
  int32_t* codes = (int32_t*)(scratch + (lorenzo ? l.q : l.codes));
  int32_t* q = (int32_t*)(scratch + l.q);
  parz_bounded_shape shape;
  size_t n4[4], st4[4];
  memset(&shape, 0, sizeof shape);
  shape.type = v->array.type;
  shape.dims = v->array.dims;
  for (unsigned k = 0; k < v->array.dims; k++)
    shape.shape[k] = v->array.shape[k];
  parz_bounded_shape4(&shape, n4, st4);
  const double unit = parz_bounded_unit(info.predictor, info.step);
  const int f32 = v->array.type == PARZ_FLOAT;
  int stored = 0; /* Lorenzo's rows stored the values */
  if (lorenzo) {
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
  } else {
    parz_bounded_pass* passes =
        (parz_bounded_pass*)malloc(PARZ_BOUNDED_PASSES_MAX * sizeof *passes);
    if (!passes)
      return parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory for the interpolation's passes");
    const unsigned np = parz_bounded_interp_passes(n4, info.predictor, passes);
    coarse_args ca;
    memset(&ca, 0, sizeof ca);
    for (unsigned p = 0; p < np; p++) {
      const parz_bounded_pass* ps = &passes[p];
      pass_args a;
      memset(&a, 0, sizeof a);
      a.count = 1;
      for (unsigned k = 0; k < 4; k++) {
        a.n[k] = n4[k];
        a.st[k] = st4[k];
        a.start[k] = (unsigned)ps->start[k];
        a.step[k] = (unsigned)ps->step[k];
        a.cnt[k] = (unsigned)ps->cnt[k];
        a.count *= ps->cnt[k];
      }
      a.pos = ps->pos;
      a.s = ps->s;
      a.k = ps->k;
      a.sk = ps->s * st4[ps->k];
      a.cubic = info.predictor == PARZ_BOUNDED_CUBIC || info.predictor == PARZ_BOUNDED_CUBIC_FAST;
      a.origin = ps->pos == 0;
      a.codes = codes;
      a.q = q;
      a.fault = s->fault;
      /* the leading small passes go to one CTA, the rest a launch each */
      if (ca.np == p && p < COARSE_PASSES && a.count <= COARSE_VALUES) {
        ca.p[ca.np++] = a;
        continue;
      }
      if (ca.np && ca.np == p)
        interp_coarse_kernel<<<1, COARSE_THREADS, 0, st>>>(ca);
      dim3 block, grid;
      if (a.count && interp_grid(a, &block, &grid))
        interp_kernel<<<grid, block, 0, st>>>(a);
      else if (a.count)
        interp_flat_kernel<<<grid_of(a.count, THREADS), THREADS, 0, st>>>(a);
    }
    if (ca.np == np && np)
      interp_coarse_kernel<<<1, COARSE_THREADS, 0, st>>>(ca);
    free(passes);
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

/* Steps 0 to 4 of chunk v into d_dst on st, its codebook b read: the segment kernel's arguments
 * go up from the chunk's pinned share; the exceptions are the caller's. */
static int enqueue_book(parz_gpu_context* ctx, const parz_chunk_view* v, const book* b,
                        const void* d_chunk, void* d_dst, const parz_gpu_scratch* s,
                        cudaStream_t st, parz_error* err) {
  const layout l = layout_of(v);
  segment_args* h = (segment_args*)(s->h_codec + (l.args - l.dec));
  segment_args* d = (segment_args*)((unsigned char*)s->codec + l.args);
  int rc = enqueue_prepare(ctx, v, b, d_chunk, s, st, h, err);
  if (rc != PARZ_OK || values_of(v) == 0)
    return rc;
  cudaError_t e = cudaMemcpyAsync(d, h, sizeof *h, cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess)
    e = cudaEventRecord(ctx->codec_copied, st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "uploading a bounded chunk's segment arguments");
  if (v->nsegments)
    segments_kernel<<<segment_ctas(ctx, v), SEGMENT_WARPS * 32, 0, st>>>(d);
  return enqueue_values(v, b, d_chunk, d_dst, s, st, err);
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
 * threads, then each chunk's step 0 (offsets, uploads, checksums, codes zeroed) on one of
 * RUN_STREAMS streams forked from st, one launch of the segment kernel for every chunk on st (a
 * chunk per row of its grid, the arguments in one copy from h_args to d_args), and each chunk's
 * steps 2 to 4 and exceptions on the side streams again, joined back into st: a chunk's segment
 * step takes as long as a whole array's, so the chunks share it rather than queue it. */
#define RUN_STREAMS 8

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
  for (size_t c = 0; rc == PARZ_OK && c < n; c++) {
    if (status[c] != PARZ_OK)
      continue;
    if ((rc = parz_gpu_enqueue_offsets(ctx, &v[c], d_chunks[c], &s[c], side[c % k], err)) ==
        PARZ_OK)
      rc = enqueue_prepare(ctx, &v[c], &books[c], d_chunks[c], &s[c], side[c % k], &ha[c], err);
    const unsigned x = segment_ctas(ctx, &v[c]);
    ctas = x > ctas ? x : ctas;
  }
  if (rc == PARZ_OK && (e = join_side()) != cudaSuccess)
    rc = parz_gpu_cuda_fail(err, e, "joining a batch of bounded chunks");
  if (rc == PARZ_OK) {
    e = cudaMemcpyAsync(d_args, h_args, n * sizeof *ha, cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess)
      e = cudaEventRecord(ctx->args_copied, st);
    if (e == cudaSuccess && ctas) {
      segments_kernel<<<dim3(ctas, (unsigned)n), SEGMENT_WARPS * 32, 0, st>>>(
          (const segment_args*)d_args);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess)
      e = fork_side();
    if (e != cudaSuccess)
      rc = parz_gpu_cuda_fail(err, e, "the segments of a batch of bounded chunks");
  }
  for (size_t c = 0; rc == PARZ_OK && c < n; c++)
    if (status[c] == PARZ_OK && (rc = enqueue_values(&v[c], &books[c], d_chunks[c], d_dsts[c],
                                                     &s[c], side[c % k], err)) == PARZ_OK)
      rc = parz_gpu_enqueue_exceptions(ctx, &v[c], d_chunks[c], d_dsts[c], side[c % k], err);
  free(books);
  /* joined whatever happened: st must not run ahead of work queued on the side streams */
  e = join_side();
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
    sizeof(segment_args), /* a run's arguments (enqueue_run) */
    enqueue_all, /* the filter path: the chunk whole (`whole`), its exceptions on the host */
    NULL,        /* no block kernel: its chunks are encoded whole (encode_chunks) */
    scratch_bytes,
    1,
    NULL, /* every mode */
    parz_gpu_bounded_encode_chunks,
};
