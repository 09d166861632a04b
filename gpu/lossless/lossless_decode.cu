/* The lossless codec's decode on the GPU (codec/FORMAT.md, "Lossless chunks (codec 3)") and its
 * entry in the GPU's codec table (gpu_codecs.h). A chunk decodes in three kernels on one stream,
 * after the offsets kernel (offsets.cu) has turned the table into segment offsets; the chunks of
 * a batch share each launch, a chunk per row of the grid (enqueue_run):
 *
 *   1. the payload checksums: of one chunk (or a slice), the frame's launches that spread each
 *      partition over many CTAs (parz_gpu_enqueue_checksums); of a run of chunks, the frame's
 *      two launches for the whole run (parz_gpu_enqueue_run_checksums), every partition of
 *      every chunk spread over CTAs by its bytes;
 *   2. segments_kernel: a CTA per segment (seg_threads). Thread 0 reads its head; a warp per
 *      context sets up its code, the threads of each context fill its fast table in shared
 *      memory (gpu/lossless/lossless_runs.cuh), and all copy the segment's words into the
 *      shared memory after the tables where they fit. A coder 3 or 4 segment's runs decode
 *      independently, spread over the CTA's warps, a few lanes of each (their starts by a scan
 *      of their byte lengths over the CTA; coder 4's empty runs are zeros); in coders 1 and 2
 *      each residual's code depends on the one before it (its context), so one thread walks
 *      the segment. Each walk reads its bits from the copy (the window's words in registers),
 *      or through a register window of aligned words of global memory where the segment did
 *      not fit, and writes each residual, still zigzagged, to its value's place in the
 *      destination, a row at a time, the blocks stepped through by their grid coordinates;
 *      all threads copy a raw segment;
 *   3. grid_kernel for blocks of two dimensions (a chunk of rank 2 under the Lorenzo predictor):
 *      one CTA per block rebuilds it in registers, a warp per 8 of its rows, a lane per 2 of its
 *      columns; blocks_kernel for every other block: one CTA per block of 4096 values rebuilds
 *      the block in place, in shared memory padded against bank conflicts. The Lorenzo
 *      residual is the block's difference along every predicted dimension (values outside the
 *      block 0), so the values are the residuals' inclusive prefix sums along each predicted
 *      dimension in turn, in the values' w-bit wrap-around arithmetic, which is exact in any
 *      order: the same integers as the CPU's row by row prediction (codec/lossless/lorenzo.c);
 *      under the row predictor only the last dimension is predicted, a block being one row.
 *      Holt's predictor is a recurrence through the block's one row: one thread walks it with
 *      the CPU's step (codec/lossless/holt_step.h). Then each integer becomes its value through
 *      the CPU's inverse transform (codec/lossless/transform_decode.h), under the value
 *      dictionary through its word, which the host reads with the CPU's checks and uploads
 *      once per chunk.
 *
 * A segment the CPU refuses (unknown coder, raw of another size, lengths that are no prefix
 * code, bits that start no word, residuals past its bytes or bytes after them, runs that lie
 * about their lengths, bounds that are not whole bytes) is recorded in the chunk's fault record
 * and comes back as PARZ_ERR_STREAM, as does a rank past the dictionary; nothing is written
 * outside the destination's values of the chunk. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.cuh"
#include "gpu_codecs.h"
#include "lossless_gpu.h"
#include "holt_step.h"
extern "C" { /* C headers without C++ guards */
#include "dictionary.h"
#include "lorenzo.h"
}
#include "lossless.h"
#include "lossless_codec.h"
#include "lossless_runs.cuh"
#include "warp_code.cuh"
#include "residual_decode.h"
#include "transform_decode.h"

namespace {

/* A chunk's segments [first, end) as kernel arguments. */
struct ll_args {
  const unsigned char* payload;
  const unsigned long long* offsets; /* every segment's bit offset, and the payload's end */
  void* dst;
  parz_gpu_fault* fault;
  unsigned long long payload_bytes, nblocks, C, first, end;
  unsigned long long n[4], side[4], grid[4], st[4]; /* the core's geometry (lorenzo.h) */
  unsigned w, transform, predicted;                 /* predicted: a bit per dimension */
  unsigned holt, alpha, beta;                       /* Holt's predictor (holt_step.h) */
  const unsigned long long* dict;                   /* the value dictionary's words, or NULL */
  unsigned long long dict_count;
  int is_float;
  double scale;
  double unscale; /* 1 / scale where that is a power of two (so exact), else 0 */
  unsigned long long sum_first, sum_end; /* the checksummed partitions its segments start */
};

/* How a block's integers become values, the chunk's arguments read once (before the block's
 * stores, which the compiler cannot keep from aliasing them): a rank of the value dictionary
 * becomes its word, an integer image (a rank past it is a fault, and 0 its value), then a float's
 * integer the float of the chunk's transform. blocks_kernel's last step, and grid_kernel's for
 * chunks whose transform it does not take at launch. */
struct ll_values {
  const unsigned long long* dict;
  unsigned long long dict_count;
  parz_gpu_fault* fault;
  unsigned transform;
  int is_float;
  double scale;
  __device__ explicit ll_values(const ll_args& a)
      : dict(a.dict),
        dict_count(a.dict_count),
        fault(a.fault),
        transform(a.dict ? 0 : a.transform),
        is_float(a.is_float),
        scale(a.scale) {}
  /* The value of integer u at place `at` of the destination. */
  template <typename T>
  __device__ __forceinline__ T of(T u, unsigned long long at) const {
    if (dict) {
      if (u >= dict_count) {
        atomicMin(&fault->segment, at);
        atomicOr(&fault->code, (unsigned)PARZ_GPU_FAULT_VALUE);
        u = 0;
      } else {
        u = (T)dict[u];
      }
    }
    return is_float ? (T)parz_ll_float_bits(sizeof(T) == 8, transform, scale, u) : u;
  }
};

const unsigned BLOCK_THREADS = 256;
/* A segment's CTA: 128 threads, 5 an SM (etopo5's 578 segments of 4 blocks in one wave), for
 * segments of at least 4 blocks (32 runs of the writers' 512 residuals: 8 lanes of each of 4
 * warps walk); 64 threads, 11 an SM, for smaller ones (runs of 8 lanes in 2 warps where 4 warps
 * would walk 2 or 4 lanes each; a segment of 1 block has few runs, so the more segments an SM
 * holds at once, the more runs it walks side by side, and 11 still leave each CTA room for a
 * copy of a typical segment beside its 16-bit tables): measured at C = 4 and C = 1 on etopo5
 * (bench/results/h200/bench_gpu_lossless.md). */
__host__ __device__ constexpr unsigned seg_threads(unsigned long long C) {
  return C >= 4 ? 128 : 64;
}
__host__ __device__ constexpr unsigned seg_ctas(unsigned threads) {
  return threads == 128 ? 5 : 11;
}

__device__ void record(const ll_args& a, unsigned long long s) {
  atomicMin(&a.fault->segment, s);
  atomicOr(&a.fault->code, (unsigned)PARZ_GPU_FAULT_END);
}

/* Block b's origin o and extents e (C order of the grid); its count of values. */
__device__ unsigned block_box(const ll_args& a, unsigned long long b, unsigned long long o[4],
                              unsigned e[4]) {
  unsigned count = 1;
  for (int k = 3; k >= 0; k--) {
    const unsigned long long c = b % a.grid[k];
    b /= a.grid[k];
    o[k] = c * a.side[k];
    e[k] = (unsigned)(a.n[k] - o[k] < a.side[k] ? a.n[k] - o[k] : a.side[k]);
    count *= e[k];
  }
  return count;
}

/* Where value i (C order inside the block) of the block at o, e lies in the array. */
__device__ unsigned long long place(const ll_args& a, const unsigned long long o[4],
                                    const unsigned e[4], unsigned i) {
  unsigned long long at = 0;
  for (int k = 3; k >= 0; k--) {
    at += (o[k] + i % e[k]) * a.st[k];
    i /= e[k];
  }
  return at;
}

/* The arguments of the chunk a CTA works on: `one` for a launch of one chunk (all == NULL),
 * else chunk blockIdx.y of a run's arguments in device memory. `one` is a __grid_constant__
 * parameter, so that the reference is to the parameter itself, not to a copy of its 272 bytes
 * in every thread's local memory. */
__device__ __forceinline__ const ll_args& args_of(const ll_args& one, const ll_args* all) {
  return all ? all[blockIdx.y] : one;
}

/* The grid coordinates of block b (C order of the grid), by 32-bit divisions where b and the
 * grid's extents fit 32 bits (a 64-bit division is a subroutine of some 70 instructions, which a
 * segment's CTA waits for at its head). */
__device__ void block_coords(const ll_args& a, unsigned long long b, unsigned long long c[4]) {
  for (int k = 3; k >= 0; k--) {
    const unsigned long long g = a.grid[k];
    if ((b | g) >> 32) {
      c[k] = b % g;
      b /= g;
    } else {
      const unsigned q = (unsigned)b / (unsigned)g;
      c[k] = (unsigned)b - q * (unsigned)g;
      b = q;
    }
  }
}

/* The coordinates of the block after the one at c. */
__device__ __forceinline__ void block_step(const ll_args& a, unsigned long long c[4]) {
  for (int k = 3; k >= 0; k--) {
    if (++c[k] < a.grid[k])
      return;
    c[k] = 0;
  }
}

/* The extents e of the block at grid coordinates c; its count of values. */
__device__ __forceinline__ unsigned coords_box(const ll_args& a, const unsigned long long c[4],
                                               unsigned e[4]) {
  unsigned count = 1;
  for (int k = 3; k >= 0; k--) {
    const unsigned long long o = c[k] * a.side[k];
    e[k] = (unsigned)(a.n[k] - o < a.side[k] ? a.n[k] - o : a.side[k]);
    count *= e[k];
  }
  return count;
}

/* A walk through a segment's values in the order of its residuals: the block at grid
 * coordinates c (extents e), value x of it (C order), the row of x[3] in the destination. The
 * walk's loop touches only the row and x[3]; the rest is read once a row. */
template <typename T>
struct ll_cursor {
  unsigned long long c[4];
  unsigned e[4], x[4];
  T* row;
};

template <typename T>
__device__ __forceinline__ void cursor_row(const ll_args& a, ll_cursor<T>* c) {
  unsigned long long at = c->c[3] * a.side[3];
  for (int k = 0; k < 3; k++)
    at += (c->c[k] * a.side[k] + c->x[k]) * a.st[k];
  c->row = (T*)a.dst + at;
}

/* The cursor at residual i of the segment whose first block is at grid coordinates c0: blocks
 * stepped through by their coordinates, no division but the value's in its block. */
template <typename T>
__device__ __forceinline__ void cursor_seek(const ll_args& a, const unsigned long long c0[4],
                                            unsigned long long i, ll_cursor<T>* c) {
  unsigned count;
  for (int k = 0; k < 4; k++)
    c->c[k] = c0[k];
  while (i >= (count = coords_box(a, c->c, c->e))) {
    i -= count;
    block_step(a, c->c);
  }
  unsigned v = (unsigned)i; /* below the block's count, at most PARZ_LL_BLOCK_VALUES */
  for (int k = 3; k >= 0; k--) {
    c->x[k] = v % c->e[k];
    v /= c->e[k];
  }
  cursor_row(a, c);
}

/* Past the end of a row: the next row, or the next block's first (the caller knows there is
 * one: the segment has more values). */
template <typename T>
__device__ __forceinline__ void cursor_next_row(const ll_args& a, ll_cursor<T>* c) {
  c->x[3] = 0;
  for (int k = 2; k >= 0; k--) {
    if (++c->x[k] < c->e[k]) {
      cursor_row(a, c);
      return;
    }
    c->x[k] = 0;
  }
  block_step(a, c->c);
  coords_box(a, c->c, c->e);
  cursor_row(a, c);
}

/* A run's readers: of the segment's bytes in global memory, or of its copy in the CTA's shared
 * memory (lossless_runs.cuh). */
__device__ __forceinline__ int next_of(parz_gpu_ll_reader* rd, uint64_t* z) {
  return parz_gpu_ll_next(rd, z);
}
__device__ __forceinline__ int next_of(parz_gpu_ll_w2reader* rd, uint64_t* z) {
  return parz_gpu_ll_w2next(rd, z);
}
__device__ __forceinline__ int end_of(const parz_gpu_ll_reader* rd) {
  return parz_gpu_ll_reader_end(rd);
}
__device__ __forceinline__ int end_of(const parz_gpu_ll_w2reader* rd) {
  return parz_gpu_ll_w2reader_end(rd);
}

/* Values v[0..16 / sizeof(T)) as one 16-byte store at p (16-byte aligned). */
__device__ __forceinline__ void store16(uint32_t* p, const uint32_t* v) {
  *reinterpret_cast<uint4*>(p) = make_uint4(v[0], v[1], v[2], v[3]);
}
__device__ __forceinline__ void store16(uint64_t* p, const uint64_t* v) {
  *reinterpret_cast<ulonglong2*>(p) = make_ulonglong2(v[0], v[1]);
}

/* Residuals [i0, i1) of the segment whose first block is at grid coordinates c0, read by rd, at
 * their values' places; whether they decoded and their bits ended where the run's bytes do. The
 * loop runs a row at a time, the row, x and the reader in registers. WIDE: a row's values from
 * its first 16-byte aligned one on go out 16 bytes a store, so that the lanes of a warp, each on
 * its own row, send the memory system a quarter (a half for 64-bit values) of the requests of a
 * store per value. */
template <typename T, bool WIDE, typename R>
__device__ __forceinline__ bool walk(const ll_args& a, const unsigned long long c0[4],
                                     unsigned long long i0, unsigned long long i1, R* rd) {
  ll_cursor<T> c;
  cursor_seek(a, c0, i0, &c);
  for (unsigned long long left = i1 - i0;;) {
    const unsigned x0 = c.x[3], end = left < c.e[3] - x0 ? x0 + (unsigned)left : c.e[3];
    T* const row = c.row;
    unsigned x = x0;
    if (WIDE) {
      constexpr unsigned V = 16 / sizeof(T);
      for (; x < end && ((uintptr_t)(row + x) & 15u); x++) {
        uint64_t z;
        if (next_of(rd, &z) != PARZ_LL_OK)
          return false;
        row[x] = (T)z;
      }
      for (; x + V <= end; x += V) {
        T v[V];
#pragma unroll
        for (unsigned k = 0; k < V; k++) {
          uint64_t z;
          if (next_of(rd, &z) != PARZ_LL_OK)
            return false;
          v[k] = (T)z;
        }
        store16(row + x, v);
      }
    }
    for (; x < end; x++) {
      uint64_t z;
      if (next_of(rd, &z) != PARZ_LL_OK)
        return false;
      row[x] = (T)z;
    }
    left -= end - x0;
    if (!left)
      break;
    cursor_next_row(a, &c);
  }
  return end_of(rd) == PARZ_LL_OK;
}

/* Segment src (bytes long, lead bytes after an aligned word) into words[0..n + 2): its aligned
 * words (parz_gpu_ll_word's, the bytes outside it zeros), n = (lead + bytes + 3) / 4 of them,
 * then two words of zeros; THREADS threads, each with eight loads in flight. */
template <unsigned THREADS>
__device__ void copy_segment(const unsigned char* src, size_t bytes, unsigned lead, unsigned n,
                             uint32_t* words) {
  const unsigned t = threadIdx.x, all = n + 2;
  const unsigned inner0 = (lead + 3) / 4, inner1 = (unsigned)((lead + bytes) / 4);
  const uint32_t* aligned = (const uint32_t*)(src - lead);
  for (unsigned j0 = 0; j0 < all; j0 += 8 * THREADS) {
    uint32_t v[8];
#pragma unroll
    for (unsigned u = 0; u < 8; u++) {
      const unsigned j = j0 + u * THREADS + t;
      v[u] = j >= inner0 && j < inner1 ? __ldg(aligned + j) : 0u;
    }
#pragma unroll
    for (unsigned u = 0; u < 8; u++) {
      const unsigned j = j0 + u * THREADS + t;
      if (j < n && (j < inner0 || j >= inner1)) /* a word the segment's bytes end inside */
        v[u] = parz_gpu_ll_word(src, bytes, lead, j);
      if (j < all)
        words[j] = v[u];
    }
  }
}

/* A run of zeros: residuals [i0, i1) of the segment whose first block is at c0. */
template <typename T>
__device__ void zeros(const ll_args& a, const unsigned long long c0[4], unsigned long long i0,
                      unsigned long long i1) {
  ll_cursor<T> c;
  cursor_seek(a, c0, i0, &c);
  for (unsigned long long left = i1 - i0;;) {
    const unsigned x0 = c.x[3], end = left < c.e[3] - x0 ? x0 + (unsigned)left : c.e[3];
    for (unsigned x = x0; x < end; x++)
      c.row[x] = 0;
    left -= end - x0;
    if (!left)
      break;
    cursor_next_row(a, &c);
  }
}

/* The sum of x over the CTA (THREADS threads, warp_sums: a word per warp), every thread taking
 * part; *before: the sum over the threads before this one. */
template <unsigned THREADS>
__device__ unsigned long long cta_scan(unsigned long long x, unsigned long long* warp_sums,
                                       unsigned long long* before) {
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  unsigned long long incl = x, total = 0, prior = 0;
  for (unsigned d = 1; d < 32; d <<= 1) {
    const unsigned long long y = __shfl_up_sync(0xffffffffu, incl, d);
    if (lane >= d)
      incl += y;
  }
  if (lane == 31)
    warp_sums[warp] = incl;
  __syncthreads();
  for (unsigned k = 0; k < THREADS / 32; k++) {
    prior += k < warp ? warp_sums[k] : 0;
    total += warp_sums[k];
  }
  __syncthreads(); /* warp_sums is free again */
  *before = prior + incl - x;
  return total;
}

/* The run of each round of THREADS runs that thread t walks: the runs spread over the CTA's
 * warps (run u on lane u / W of warp u % W, W warps), so that a segment of fewer runs than
 * threads walks in every warp, with fewer lanes each: a warp waits for the slowest of its lanes
 * at every step (a load that misses, a refill), and more warps of fewer lanes keep more of an
 * SM's issue slots busy. */
template <unsigned THREADS>
__device__ __forceinline__ unsigned run_of(unsigned t) {
  return (t & 31u) * (THREADS / 32) + (t >> 5);
}

/* One CTA per segment: its residuals, zigzagged, at their values' places. Thread 0 reads the
 * head; a warp per context sets up its code and all threads fill the fast tables, and copy the
 * segment's words into the shared memory after them where copy_words of it hold them; a coder 3
 * or 4 segment's runs decode side by side, spread over the warps (run_of; their starts by a scan
 * of their byte lengths; coder 4's empty runs are zeros), each read from the copy, else from
 * global memory; a coder 1 or 2 segment is one walk of thread 0; a raw segment is copied by all.
 * The 128-thread CTAs store 16 bytes at a time (walk's WIDE); the 64-thread ones, which hold
 * more CTAs an SM with fewer walking lanes each, a value at a time, which measured faster there
 * (bench/results/h200/bench_gpu_lossless.md). */
template <typename T, unsigned THREADS>
__global__ void __launch_bounds__(THREADS, seg_ctas(THREADS))
    segments_kernel(const __grid_constant__ ll_args one, const ll_args* all, unsigned copy_words) {
  extern __shared__ unsigned long long shared[];
  __shared__ parz_gpu_ll_head h;
  __shared__ int ok, codes_ok;
  __shared__ unsigned long long values, warp_sums[THREADS / 32], c0[4];
  __shared__ unsigned long long starts[THREADS]; /* a round's runs' first bytes */
  const ll_args& a = args_of(one, all);
  const unsigned long long s = a.first + blockIdx.x;
  const unsigned t = threadIdx.x;
  if (s >= a.end) /* the whole CTA: a shorter chunk of a run */
    return;
  const unsigned long long begin = a.offsets[s], end = a.offsets[s + 1];
  const unsigned long long b0 = s * a.C, b1 = b0 + a.C < a.nblocks ? b0 + a.C : a.nblocks;
  const unsigned char* src = a.payload + begin / 8;
  const size_t bytes = (size_t)((end - begin) / 8);
  const unsigned w = a.w;
  if (t == 0) {
    unsigned long long c[4], n = 0;
    unsigned e[4];
    block_coords(a, b0, c);
    for (int k = 0; k < 4; k++)
      c0[k] = c[k];
    for (unsigned long long b = b0; b < b1; b++, block_step(a, c))
      n += coords_box(a, c, e);
    ok = !(begin % 8 || end % 8 || end <= begin || end / 8 > a.payload_bytes) &&
         parz_gpu_ll_head_read(src, bytes, n, w, &h);
    codes_ok = 1;
    values = n;
  }
  __syncthreads();
  if (!ok) {
    if (t == 0)
      record(a, s);
    return;
  }
  if (h.coder == PARZ_LL_CODER_RAW) {
    unsigned long long o[4], i0 = 0;
    unsigned e[4];
    for (unsigned long long b = b0; b < b1; b++) {
      const unsigned count = block_box(a, b, o, e);
      for (unsigned i = t; i < count; i += THREADS)
        ((T*)a.dst)[place(a, o, e, i)] = (T)parz_ll_raw_residual(src + 1, i0 + i, w);
      i0 += count;
    }
    return;
  }
  const unsigned nc = h.nc;
  /* the contexts' codes, their fast tables, their codes' memory */
  parz_huff_decoder* code = (parz_huff_decoder*)shared;
  uint16_t* fast = (uint16_t*)(code + nc);
  uint32_t* mem = (uint32_t*)(fast + nc * PARZ_LL_TABLE_SIZE); /* whole KiBs on: aligned */
  const unsigned cw = parz_gpu_ll_code_words(w);
  for (unsigned k = t >> 5; k < nc; k += THREADS / 32)
    if (!parz_gpu_ll_warp_code_setup(parz_gpu_ll_cuda_warp(), parz_gpu_ll_lengths(src, &h), w, k,
                                     &code[k], mem + k * cw) &&
        (t & 31u) == 0)
      atomicAnd(&codes_ok, 0);
  __syncthreads();
  if (!codes_ok) {
    if (t == 0)
      record(a, s);
    return;
  }
  const unsigned per = THREADS / nc; /* threads per context's fast table */
  if (t < per * nc)
    parz_gpu_ll_fast_fill(&code[t / per], nc, fast + (t / per) * PARZ_LL_TABLE_SIZE, t % per, per);
  /* the segment's words after the codes' memory, where they fit (the same for the whole CTA) */
  uint32_t* words = mem + nc * cw;
  const unsigned lead = (unsigned)((uintptr_t)src & 3u);
  const unsigned long long need = (bytes + lead + 3) / 4 + 2; /* and two words of zeros */
  const bool copied = need <= copy_words;
  const unsigned nwords = copied ? (unsigned)(need - 2) : 0;
  if (copied)
    copy_segment<THREADS>(src, bytes, lead, nwords, words);
  __syncthreads();
  const unsigned long long n = values, nruns = h.runs, q = h.q;
  unsigned long long told = 0, before, base = h.first;
  for (unsigned long long r = t; r + 1 < nruns; r += THREADS)
    told += parz_ll_run_bytes(src, (size_t)h.lengths_bytes, (size_t)r);
  told = cta_scan<THREADS>(told, warp_sums, &before);
  if (h.first + told > bytes) { /* the last run would start past the bytes */
    if (t == 0)
      record(a, s);
    return;
  }
  const unsigned u = run_of<THREADS>(t);
  for (unsigned long long r0 = 0; r0 < nruns; r0 += THREADS) {
    /* the round's starts, in the runs' order */
    const unsigned long long total =
        cta_scan<THREADS>(parz_gpu_ll_run_len(src, bytes, &h, r0 + t, told), warp_sums, &before);
    starts[t] = base + before;
    base += total;
    __syncthreads();
    const unsigned long long r = r0 + u, start = starts[u];
    if (r < nruns) {
      const unsigned long long len = parz_gpu_ll_run_len(src, bytes, &h, r, told);
      const unsigned long long i0 = r << q, i1 = n - i0 > (1ull << q) ? i0 + (1ull << q) : n;
      if (start + len > bytes) {
        record(a, s);
      } else if (parz_ll_run_zero(h.coder, (size_t)len)) {
        zeros<T>(a, c0, i0, i1);
      } else if (copied) {
        parz_gpu_ll_w2reader rd;
        parz_gpu_ll_w2reader_init(&rd, words, nwords, (uint32_t)(lead + start), (uint32_t)len,
                                  (uint32_t)h.pos, h.code_coder, code, fast);
        if (!walk<T, THREADS == 128>(a, c0, i0, i1, &rd))
          record(a, s);
      } else {
        parz_gpu_ll_reader rd;
        parz_gpu_ll_reader_init(&rd, src + start, (size_t)len, h.pos, h.code_coder, code, fast);
        if (!walk<T, THREADS == 128>(a, c0, i0, i1, &rd))
          record(a, s);
      }
    }
    __syncthreads(); /* starts is free again */
  }
}

/* A block's value i in shared memory: a word of padding after every 32, so that threads
 * reading a word each of lines 32 words apart read distinct banks. */
__device__ __forceinline__ unsigned pad(unsigned i) { return i + (i >> 5); }

/* Inclusive prefix sums of v (the block, extents e, count values, padded) along dimension k, in
 * place: each line along k is cut among `per` threads, each sums its piece, the pieces' totals
 * are scanned, and each thread adds what comes before its piece. */
template <typename T>
__device__ void scan_dimension(T* v, T* totals, const unsigned e[4], unsigned count, int k) {
  unsigned q = 1;
  for (int j = 3; j > k; j--)
    q *= e[j];
  const unsigned len = e[k], lines = count / len;
  const unsigned per = lines >= BLOCK_THREADS ? 1 : BLOCK_THREADS / lines;
  const unsigned piece = (len + per - 1) / per;
  for (unsigned l0 = 0; l0 < lines; l0 += BLOCK_THREADS / per) {
    const unsigned line = l0 + threadIdx.x / per, j = threadIdx.x % per;
    const bool mine = line < lines && threadIdx.x / per < BLOCK_THREADS / per;
    const unsigned base = (line / q) * len * q + line % q;
    const unsigned t0 = j * piece, t1 = t0 + piece < len ? t0 + piece : len;
    T sum = 0;
    if (mine)
      for (unsigned t = t0; t < t1; t++) {
        sum += v[pad(base + t * q)];
        v[pad(base + t * q)] = sum;
      }
    if (per > 1) {
      totals[threadIdx.x] = sum;
      __syncthreads();
      if (mine && j == 0) { /* exclusive scan of the line's pieces */
        T run = 0;
        for (unsigned i = 0; i < per; i++) {
          const T x = totals[threadIdx.x + i];
          totals[threadIdx.x + i] = run;
          run += x;
        }
      }
      __syncthreads();
      if (mine && j)
        for (unsigned t = t0; t < t1; t++)
          v[pad(base + t * q)] += totals[threadIdx.x];
    }
    __syncthreads();
  }
}

/* A block as blocks_kernel's thread 0 finds it for the CTA: its extents, count, the magic
 * multipliers of its three inner extents (parz_gpu_ll_div) and its first value's place. */
struct ll_box {
  unsigned e[4], count;
  unsigned long long m[4], at;
};

/* A block's rows (its values along the last dimension): at most 8^3, the rows of a block of
 * four dimensions of side 8 (lorenzo.h's sides; any block of fewer dimensions has fewer). */
const unsigned BLOCK_ROWS = 512;

/* Where row r (C order of the block's rows) of the block lies in the array. */
__device__ __forceinline__ unsigned long long row_place(const ll_box& x,
                                                        const unsigned long long st[3],
                                                        unsigned r) {
  const unsigned r1 = parz_gpu_ll_div(r, x.m[2]), x0 = parz_gpu_ll_div(r1, x.m[1]);
  return x.at + x0 * st[0] + (r1 - x0 * x.e[1]) * st[1] + (r - r1 * x.e[2]) * st[2];
}

/* Where value i (C order inside the block) lies in the array, its row's place in rows. */
__device__ __forceinline__ unsigned long long box_place(const ll_box& x,
                                                        const unsigned long long* rows,
                                                        unsigned i) {
  const unsigned r = parz_gpu_ll_div(i, x.m[3]);
  return rows[r] + (i - r * x.e[3]);
}

/* One CTA per block: the residuals at its values' places become its values. Each row's place
 * is found once, into shared memory, so that a value's place is a division by multiplication
 * and a load. */
template <typename T>
__global__ void __launch_bounds__(BLOCK_THREADS)
    blocks_kernel(const __grid_constant__ ll_args one, const ll_args* all) {
  __shared__ T v[PARZ_LL_BLOCK_VALUES + PARZ_LL_BLOCK_VALUES / 32];
  __shared__ T totals[BLOCK_THREADS];
  __shared__ unsigned long long rows[BLOCK_ROWS];
  __shared__ ll_box box;
  const ll_args& a = args_of(one, all);
  const unsigned long long b = a.first * a.C + blockIdx.x;
  if (b >= PARZ_MIN(a.end * a.C, a.nblocks)) /* the whole CTA */
    return;
  if (threadIdx.x == 0) {
    unsigned long long o[4];
    box.count = block_box(a, b, o, box.e);
    box.at = o[0] * a.st[0] + o[1] * a.st[1] + o[2] * a.st[2] + o[3];
    for (int k = 1; k < 4; k++)
      box.m[k] = parz_gpu_ll_magic(box.e[k]);
  }
  __syncthreads();
  T* dst = (T*)a.dst;
  const unsigned count = box.count, holt = a.holt;
  {
    const unsigned long long st[3] = {a.st[0], a.st[1], a.st[2]};
    const unsigned nrows = parz_gpu_ll_div(count, box.m[3]); /* at most BLOCK_ROWS (setup) */
    for (unsigned r = threadIdx.x; r < nrows; r += BLOCK_THREADS)
      rows[r] = row_place(box, st, r);
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < count; i += BLOCK_THREADS) {
    const T z = dst[box_place(box, rows, i)];
    v[pad(i)] = holt ? z : (z >> 1) ^ ((T)0 - (z & 1));
  }
  __syncthreads();
  if (holt) { /* a series' block: Holt's state is a serial recurrence, one thread walks it */
    if (threadIdx.x == 0) {
      const uint64_t mask = parz_ll_holt_mask(a.w);
      parz_ll_holt_state h = {0, 0};
      for (unsigned i = 0; i < count; i++)
        v[pad(i)] = (T)parz_ll_holt_decode(&h, i, v[pad(i)], a.w, a.alpha, a.beta, mask);
    }
    __syncthreads();
  } else {
    for (int k = 0; k < 4; k++)
      if (a.predicted >> k & 1 && box.e[k] > 1)
        scan_dimension(v, totals, box.e, count, k);
  }
  const ll_values values(a);
  for (unsigned i = threadIdx.x; i < count; i += BLOCK_THREADS) {
    const unsigned long long at = box_place(box, rows, i);
    dst[at] = values.of(v[pad(i)], at);
  }
}

/* Two-dimensional blocks (grid_kernel_fits: sides {1, 1, at most 64, at most 64}, Lorenzo or
 * unpredicted dimensions, no Holt): one CTA per block, the block in registers. Warp w holds rows
 * 8w..8w+7 of the block, lane l columns 2l and 2l + 1 of each (zeros outside the block), so that
 * a warp reads and writes each row in one coalesced access and nothing goes through shared
 * memory but the warps' column sums: the prefix sums along a row by shuffles over the lanes,
 * down a column through a lane's own rows, then the sums of the warps above. */
const unsigned GRID_THREADS = 256, GRID_SIDE = 64, GRID_WARPS = GRID_THREADS / 32,
               GRID_ROWS = GRID_SIDE / GRID_WARPS;
/* grid_kernel's CTAs an SM for values of `bytes` bytes: 4 (64 registers) for 4-byte values, the
 * quicker of 4 and 3 (80) on etopo5 (bench/results/h200/bench_gpu_lossless.md); 3 for 8-byte
 * values, which take twice the registers and would spill at 64. */
__host__ __device__ constexpr unsigned grid_ctas(unsigned bytes) { return bytes == 8 ? 3 : 4; }

/* Whether grid_kernel decodes the blocks of a chunk of these arguments. */
bool grid_kernel_fits(const ll_args& a) {
  return !a.holt && a.n[0] == 1 && a.n[1] == 1 && a.side[2] <= GRID_SIDE && a.side[3] <= GRID_SIDE;
}

/* A pair of T in one access. */
template <typename T>
struct pair_of;
template <>
struct pair_of<uint32_t> {
  typedef uint2 type;
};
template <>
struct pair_of<uint64_t> {
  typedef ulonglong2 type;
};

template <typename T>
__device__ __forceinline__ T unzigzag(T z) {
  return (z >> 1) ^ ((T)0 - (z & 1));
}

/* How grid_kernel turns a block's integers into values, the same for all the chunks of its
 * launch (grid_way), else GRID_ANY. */
enum { GRID_INTS, GRID_IMAGE, GRID_TIMES, GRID_ANY };

/* The way of a chunk of these arguments. */
int grid_way(const ll_args& a) {
  return a.dict         ? GRID_ANY
         : !a.is_float  ? GRID_INTS
         : !a.transform ? GRID_IMAGE
         : a.unscale    ? GRID_TIMES
                        : GRID_ANY;
}

/* The value of integer u at place `at` of the destination under way M, as blocks_kernel's:
 * integers as they are; a float's integer image; i / S for a scale S as the product i * inverse
 * (1 / S, a power of two: the converted integer times a power of two is exact, so it is the
 * correctly rounded quotient); under GRID_ANY, blocks_kernel's steps (the dictionary, where a
 * rank past it is a fault, then the inverse transform). */
template <typename T, int M>
__device__ __forceinline__ T grid_value(const ll_args& a, T u, unsigned long long at,
                                        double inverse) {
  const int wide = sizeof(T) == 8;
  if (M == GRID_INTS)
    return u;
  if (M == GRID_IMAGE)
    return (T)parz_ll_float_bits(wide, 0, 1.0, u);
  if (M == GRID_TIMES) {
    if (wide)
      return (T)__double_as_longlong((double)(int64_t)u * inverse);
    return (T)__float_as_uint((float)(int32_t)(uint32_t)u * (float)inverse);
  }
  return ll_values(a).of(u, at);
}

/* The block of e2 rows and e3 columns whose lane's first value (row 8w, column 2l) is at dst
 * (place `at`), rows st apart, rebuilt under way M (inverse: a.unscale, read before any store,
 * which the compiler cannot keep from aliasing the arguments). FULL: a block of 64 x 64 whose
 * pairs are aligned, so that no row or column needs a check. */
template <typename T, int M, bool FULL>
__device__ __forceinline__ void grid_block(const ll_args& a, T* dst, unsigned long long at,
                                           unsigned long long st, unsigned e2, unsigned e3,
                                           double inverse, typename pair_of<T>::type (*sums)[32]) {
  typedef typename pair_of<T>::type P;
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, x = 2 * lane;
  const unsigned predicted = a.predicted;
  /* a pair in one access where both are in the block and the pair is aligned in every row */
  const bool both = FULL || (x + 1 < e3 && !(((uintptr_t)dst | st * sizeof(T)) % sizeof(P)));
  T lo[GRID_ROWS], hi[GRID_ROWS];
#pragma unroll
  for (unsigned j = 0; j < GRID_ROWS; j++) {
    const unsigned r = warp * GRID_ROWS + j;
    lo[j] = hi[j] = 0;
    if (FULL || r < e2) {
      const T* p = dst + j * st;
      if (both) {
        const P v = *(const P*)p;
        lo[j] = v.x, hi[j] = v.y;
      } else {
        if (x < e3)
          lo[j] = p[0];
        if (x + 1 < e3)
          hi[j] = p[1];
      }
    }
    lo[j] = unzigzag(lo[j]);
    hi[j] = unzigzag(hi[j]);
  }
  if (predicted >> 3 & 1) { /* along the rows: a lane's pair, then the lanes before it */
    T s[GRID_ROWS];
#pragma unroll
    for (unsigned j = 0; j < GRID_ROWS; j++)
      s[j] = lo[j] + hi[j];
#pragma unroll
    for (unsigned d = 1; d < 32; d <<= 1)
#pragma unroll
      for (unsigned j = 0; j < GRID_ROWS; j++) {
        const T y = __shfl_up_sync(0xffffffffu, s[j], d);
        if (lane >= d)
          s[j] += y;
      }
#pragma unroll
    for (unsigned j = 0; j < GRID_ROWS; j++) {
      lo[j] = s[j] - hi[j]; /* the row's sum through the pair's first */
      hi[j] = s[j];
    }
  }
  if (predicted >> 2 & 1) { /* down the columns: a lane's rows, then the warps above */
#pragma unroll
    for (unsigned j = 1; j < GRID_ROWS; j++) {
      lo[j] += lo[j - 1];
      hi[j] += hi[j - 1];
    }
    P m;
    m.x = lo[GRID_ROWS - 1], m.y = hi[GRID_ROWS - 1];
    sums[warp][lane] = m;
    __syncthreads();
    T above_lo = 0, above_hi = 0;
    for (unsigned k = 0; k < warp; k++) {
      const P v = sums[k][lane];
      above_lo += v.x;
      above_hi += v.y;
    }
#pragma unroll
    for (unsigned j = 0; j < GRID_ROWS; j++) {
      lo[j] += above_lo;
      hi[j] += above_hi;
    }
  }
#pragma unroll
  for (unsigned j = 0; j < GRID_ROWS; j++) {
    const unsigned r = warp * GRID_ROWS + j;
    if (FULL || r < e2) {
      T* p = dst + j * st;
      const unsigned long long pa = at + j * st;
      if (both) {
        P v;
        v.x = grid_value<T, M>(a, lo[j], pa, inverse);
        v.y = grid_value<T, M>(a, hi[j], pa + 1, inverse);
        *(P*)p = v;
      } else {
        if (x < e3)
          p[0] = grid_value<T, M>(a, lo[j], pa, inverse);
        if (x + 1 < e3)
          p[1] = grid_value<T, M>(a, hi[j], pa + 1, inverse);
      }
    }
  }
}

template <typename T, int M>
__global__ void __launch_bounds__(GRID_THREADS, grid_ctas(sizeof(T)))
    grid_kernel(const __grid_constant__ ll_args one, const ll_args* all) {
  typedef typename pair_of<T>::type P;
  __shared__ P sums[GRID_WARPS][32]; /* each warp's column sums, a pair a lane */
  const ll_args& a = args_of(one, all);
  const unsigned long long b = a.first * a.C + blockIdx.x;
  if (b >= PARZ_MIN(a.end * a.C, a.nblocks)) /* the whole CTA */
    return;
  unsigned long long c[4];
  block_coords(a, b, c);
  const unsigned long long o2 = c[2] * a.side[2], o3 = c[3] * a.side[3], st = a.st[2];
  const unsigned e2 = (unsigned)PARZ_MIN(a.n[2] - o2, a.side[2]);
  const unsigned e3 = (unsigned)PARZ_MIN(a.n[3] - o3, a.side[3]);
  const unsigned warp = threadIdx.x >> 5, x = 2 * (threadIdx.x & 31u);
  const unsigned long long at = o2 * st + o3 + (unsigned long long)warp * GRID_ROWS * st + x;
  T* const dst = (T*)a.dst + at; /* this lane's first value of row 8w */
  const double inverse = a.unscale;
  /* every row of the block whole, and its pairs aligned (the same in every row and lane) */
  const unsigned long long first = (uintptr_t)((T*)a.dst + o2 * st + o3);
  if (e2 == GRID_SIDE && e3 == GRID_SIDE && !((first | st * sizeof(T)) % sizeof(P)))
    grid_block<T, M, true>(a, dst, at, st, e2, e3, inverse, sums);
  else
    grid_block<T, M, false>(a, dst, at, st, e2, e3, inverse, sums);
}

size_t values_of(const parz_chunk_view* v) { return v->raw_bytes / parz_type_size(v->array.type); }

/* The value dictionary's words (transform 128) at most: its count D, the codec data's first u64,
 * which the parse held to the chunk's count of values. */
size_t dictionary_words(const parz_chunk_view* v) {
  if (v->codec_params[PARZ_LL_PARAM_TRANSFORM] != PARZ_LL_DICTIONARY || !v->codec_data ||
      v->codec_data_bytes < 8)
    return 0;
  return (size_t)PARZ_MIN(parz_word_load(v->codec_data), (unsigned long long)values_of(v));
}

size_t scratch_bytes(const parz_chunk_view* v, size_t* pinned) {
  *pinned = 8 * dictionary_words(v);
  return *pinned;
}

/* The value dictionary of chunk v read on the host with the serial decoder's checks, through the
 * chunk's pinned scratch into its device scratch on st (the chunk's launches, or a slice's). */
int upload_dictionary(parz_gpu_context* ctx, const parz_chunk_view* v, const parz_gpu_scratch* s,
                      ll_args* a, cudaStream_t st, parz_error* err) {
  uint64_t* words = NULL;
  size_t count = 0;
  int rc = parz_ll_dict_read(v->codec_data, (size_t)v->codec_data_bytes, a->w, values_of(v), &words,
                             &count, err);
  if (rc != PARZ_OK)
    return rc;
  if (count > dictionary_words(v) || !s->codec || !s->h_codec) {
    free(words);
    return parz_fail(err, PARZ_ERR_FORMAT, "lossless dictionary of %zu words where %zu fit", count,
                     dictionary_words(v));
  }
  memcpy(s->h_codec, words, 8 * count);
  free(words);
  cudaError_t e = cudaMemcpyAsync(s->codec, s->h_codec, 8 * count, cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess)
    e = cudaEventRecord(ctx->codec_copied, st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "uploading a lossless chunk's dictionary");
  a->dict = (const unsigned long long*)s->codec;
  a->dict_count = count;
  return PARZ_OK;
}

/* The kernels' arguments for segments [first, first + count) of v, its dictionary uploaded on
 * st. */
int setup(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk, void* d_dst,
          uint64_t first, uint64_t count, const parz_gpu_scratch* s, ll_args* a, cudaStream_t st,
          parz_error* err) {
  parz_ll_geometry g;
  const unsigned predictor = v->codec_params[PARZ_LL_PARAM_PREDICTOR];
  int rc = parz_ll_geometry_init(&g, &v->array, predictor, err);
  if (rc != PARZ_OK)
    return rc;
  if (g.blocks != v->nblocks)
    return parz_fail(err, PARZ_ERR_FORMAT, "lossless chunk of %llu blocks where its array has %zu",
                     (unsigned long long)v->nblocks, g.blocks);
  if (g.side[0] * g.side[1] * g.side[2] > BLOCK_ROWS) /* blocks_kernel's table of rows */
    return parz_fail(err, PARZ_ERR_UNSUPPORTED, "lossless blocks of %zu rows: decode on the CPU",
                     g.side[0] * g.side[1] * g.side[2]);
  memset(a, 0, sizeof *a);
  a->payload = (const unsigned char*)d_chunk + parz_gpu_payload_offset(v);
  a->payload_bytes = v->payload_bytes;
  a->offsets = s->offsets;
  a->dst = d_dst;
  a->fault = s->fault;
  a->nblocks = v->nblocks;
  a->C = v->segment_blocks;
  a->first = first;
  a->end = first + count;
  for (int k = 3; k >= 0; k--) {
    a->n[k] = g.n[k];
    a->side[k] = g.side[k];
    a->grid[k] = g.grid[k];
    a->st[k] = k == 3 ? 1 : a->st[k + 1] * g.n[k + 1];
    if (g.n[k] > 1 && g.side[k] > 1)
      a->predicted |= 1u << k;
  }
  a->w = g.w;
  a->holt = predictor == PARZ_LL_PREDICT_HOLT;
  a->alpha = v->codec_params[PARZ_LL_PARAM_ALPHA];
  a->beta = v->codec_params[PARZ_LL_PARAM_BETA];
  a->transform = v->codec_params[PARZ_LL_PARAM_TRANSFORM];
  a->scale = parz_ll_scale_of(a->transform);
  int exponent;
  if (frexp(a->scale, &exponent) == 0.5) /* a power of two: 1 / scale is exact */
    a->unscale = 1.0 / a->scale;
  if (a->transform == PARZ_LL_DICTIONARY && (rc = upload_dictionary(ctx, v, s, a, st, err)))
    return rc;
  a->is_float = v->array.type == PARZ_FLOAT || v->array.type == PARZ_DOUBLE;
  if (v->nchecksums) { /* the partitions whose first segment is in [first, end) */
    const unsigned long long P = v->checksum_segments;
    a->sum_first = (first + P - 1) / P;
    a->sum_end = PARZ_MIN((first + count + P - 1) / P, (unsigned long long)v->nchecksums);
  }
  return PARZ_OK;
}

/* The dynamic shared memory a CTA of segments_kernel<T, THREADS> may take so that
 * seg_ctas(THREADS) of them fit an SM of ctx's device: the SM's shared memory over them in the
 * 128-byte lines it is allocated in, less the system's reserve per CTA and the kernel's static
 * share; 0 where the kernel's attributes are not to be had. From the device's attributes alone
 * (the occupancy API's answer for the dynamic share changes with the size last set on the
 * kernel). */
template <typename T, unsigned THREADS>
size_t segments_budget(const parz_gpu_context* ctx) {
  cudaFuncAttributes fa;
  if (cudaFuncGetAttributes(&fa, segments_kernel<T, THREADS>) != cudaSuccess) {
    (void)cudaGetLastError(); /* no copy: the segments read global memory */
    return 0;
  }
  const size_t share = (size_t)ctx->smem_per_sm / seg_ctas(THREADS) / 128 * 128;
  const size_t fixed = (size_t)ctx->smem_reserved + (fa.sharedSizeBytes + 127) / 128 * 128;
  const size_t most = (size_t)ctx->smem_per_cta;
  return share > fixed && most > fa.sharedSizeBytes
             ? PARZ_MIN(share - fixed, most - fa.sharedSizeBytes)
             : 0;
}

/* segments_kernel<T, THREADS> over `segments` CTAs of each of n chunks, `tables` bytes of shared
 * memory each for the codes and, where the budget leaves room, the rest of it (less a line) for
 * a segment's copy. */
template <typename T, unsigned THREADS>
cudaError_t launch_segments(const parz_gpu_context* ctx, const ll_args* h, const ll_args* d,
                            unsigned n, unsigned long long segments, size_t tables,
                            cudaStream_t st) {
  const size_t budget = segments_budget<T, THREADS>(ctx);
  const size_t copy = budget > tables + 128 + 512 ? (budget - tables - 128) / 128 * 128 : 0;
  const size_t shared = tables + copy;
  cudaError_t e = cudaFuncSetAttribute(segments_kernel<T, THREADS>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
  if (e == cudaSuccess && segments) {
    segments_kernel<T, THREADS>
        <<<dim3((unsigned)segments, n), THREADS, shared, st>>>(h[0], d, (unsigned)(copy / 4));
    e = cudaGetLastError();
  }
  return e;
}

/* Enqueues the kernels of n chunks of one type (arguments h[0..n), the same at d in device
 * memory; n = 1 and d = NULL: one chunk, its arguments by value): a chunk per row of each grid,
 * segments_kernel's CTAs sized by the largest C among them. */
template <typename T>
cudaError_t launch(const parz_gpu_context* ctx, const ll_args* h, const ll_args* d, unsigned n,
                   cudaStream_t st) {
  unsigned long long segments = 0, blocks = 0, C = 0;
  for (unsigned i = 0; i < n; i++) {
    segments = PARZ_MAX(segments, h[i].end - h[i].first);
    blocks = PARZ_MAX(blocks, PARZ_MIN(h[i].end * h[i].C, h[i].nblocks) - h[i].first * h[i].C);
    C = PARZ_MAX(C, h[i].C);
  }
  const unsigned nc = parz_ll_contexts(h[0].w, PARZ_LL_CODER_CONTEXT);
  const size_t tables = nc * (sizeof(parz_huff_decoder) + PARZ_LL_TABLE_SIZE * sizeof(uint16_t) +
                              4u * parz_gpu_ll_code_words(h[0].w));
  cudaError_t e = seg_threads(C) == 128
                      ? launch_segments<T, 128>(ctx, h, d, n, segments, tables, st)
                      : launch_segments<T, 64>(ctx, h, d, n, segments, tables, st);
  bool grid = true;
  int way = grid_way(h[0]);
  for (unsigned i = 0; i < n; i++) {
    grid = grid && grid_kernel_fits(h[i]);
    way = grid_way(h[i]) == way ? way : GRID_ANY;
  }
  if (e == cudaSuccess && blocks) {
    const dim3 ctas((unsigned)blocks, n);
    if (grid && way == GRID_INTS)
      grid_kernel<T, GRID_INTS><<<ctas, GRID_THREADS, 0, st>>>(h[0], d);
    else if (grid && way == GRID_IMAGE)
      grid_kernel<T, GRID_IMAGE><<<ctas, GRID_THREADS, 0, st>>>(h[0], d);
    else if (grid && way == GRID_TIMES)
      grid_kernel<T, GRID_TIMES><<<ctas, GRID_THREADS, 0, st>>>(h[0], d);
    else if (grid)
      grid_kernel<T, GRID_ANY><<<ctas, GRID_THREADS, 0, st>>>(h[0], d);
    else
      blocks_kernel<T><<<dim3((unsigned)blocks, n), BLOCK_THREADS, 0, st>>>(h[0], d);
    e = cudaGetLastError();
  }
  return e;
}

int launch_typed(const parz_gpu_context* ctx, const ll_args* h, const ll_args* d, unsigned n,
                 cudaStream_t st, parz_error* err) {
  const cudaError_t e =
      h[0].w == 64 ? launch<uint64_t>(ctx, h, d, n, st) : launch<uint32_t>(ctx, h, d, n, st);
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "lossless decode launch");
}

int enqueue_slice(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk, void* d_dst,
                  uint64_t first, uint64_t count, const parz_gpu_scratch* s, cudaStream_t st,
                  parz_error* err) {
  ll_args a;
  int rc;
  if (count == 0)
    return PARZ_OK;
  if ((rc = setup(ctx, v, d_chunk, d_dst, first, count, s, &a, st, err)) != PARZ_OK ||
      (rc = parz_gpu_enqueue_checksums(ctx, v, d_chunk, s, a.sum_first, a.sum_end, st, err)) !=
          PARZ_OK)
    return rc;
  return launch_typed(ctx, &a, NULL, 1, st, err);
}

int enqueue_chunk(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk, void* d_dst,
                  const parz_gpu_scratch* s, const parz_gpu_shape* shape, cudaStream_t st,
                  parz_error* err) {
  (void)shape; /* nothing to shape: one CTA per segment, one per block */
  int rc = parz_gpu_enqueue_offsets(ctx, v, d_chunk, s, st, err);
  return rc == PARZ_OK ? enqueue_slice(ctx, v, d_chunk, d_dst, 0, v->nsegments, s, st, err) : rc;
}

/* Chunks [0, n) of one type and rank in one launch per kernel, their checksums in the frame's
 * two launches for a run: the kernels' arguments, then the offsets kernels', then the
 * checksums', go to the device in one copy from h_args (pinned, this run's part). */
int enqueue_run(parz_gpu_context* ctx, const parz_chunk_view* v, const void* const* d_chunks,
                void* const* d_dsts, size_t n, const parz_gpu_scratch* s, unsigned char* h_args,
                unsigned char* d_args, cudaStream_t st, parz_error* err) {
  ll_args* ha = (ll_args*)h_args;
  parz_gpu_table_args* ht = (parz_gpu_table_args*)(ha + n);
  size_t i, m = 0;
  unsigned long long ctas = 0;
  int rc;
  for (i = 0; i < n; i++) {
    if ((rc = setup(ctx, &v[i], d_chunks[i], d_dsts[i], 0, v[i].nsegments, &s[i], &ha[i], st,
                    err)) != PARZ_OK)
      return rc;
    m += parz_gpu_table_args_init(ctx, &v[i], d_chunks[i], &s[i], &ht[m]);
  }
  parz_gpu_run_sums* hr = (parz_gpu_run_sums*)(ht + m);
  for (i = 0; i < n; i++)
    ctas += parz_gpu_run_sums_init(&v[i], d_chunks[i], &s[i], ha[i].sum_first, ha[i].sum_end, ctas,
                                   &hr[i]);
  const size_t bytes = (unsigned char*)(hr + n) - h_args;
  cudaError_t e = cudaMemcpyAsync(d_args, h_args, bytes, cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess)
    e = cudaEventRecord(ctx->args_copied, st);
  if (e == cudaSuccess && m)
    e = parz_gpu_launch_offsets(ht, (const parz_gpu_table_args*)((ll_args*)d_args + n), (unsigned)m,
                                st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "lossless offsets launch");
  const parz_gpu_run_sums* dr = (const parz_gpu_run_sums*)(d_args + ((unsigned char*)hr - h_args));
  if ((rc = parz_gpu_enqueue_run_checksums(ctx, hr, dr, (unsigned)n, st, err)) != PARZ_OK)
    return rc;
  return launch_typed(ctx, ha, (const ll_args*)d_args, (unsigned)n, st, err);
}

/* The modes these kernels decode: every predictor and transform the library reads. */
int decodes(const parz_chunk_view* v, size_t i, parz_error* err) {
  const unsigned predictor = v->codec_params[PARZ_LL_PARAM_PREDICTOR];
  const unsigned transform = v->codec_params[PARZ_LL_PARAM_TRANSFORM];
  if (predictor > PARZ_LL_PREDICT_ROWS)
    return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                     "chunk %zu: lossless predictor %u has no GPU decoder: decode it on the CPU", i,
                     predictor);
  if (transform > PARZ_LL_SCALES && transform != PARZ_LL_DICTIONARY)
    return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                     "chunk %zu: lossless transform %u has no GPU decoder: decode it on the CPU", i,
                     transform);
  return PARZ_OK;
}

}  // namespace

extern const parz_gpu_codec parz_gpu_codec_lossless = {
    PARZ_CODEC_LOSSLESS,
    enqueue_chunk,
    enqueue_run,
    sizeof(ll_args) + sizeof(parz_gpu_table_args) + sizeof(parz_gpu_run_sums), /* enqueue_run's */
    enqueue_slice,
    NULL,          /* no block kernel: its chunks are encoded whole (encode_chunks) */
    scratch_bytes, /* the value dictionary's words (the residuals go to the destination) */
    0,             /* the filter path decodes it in slices */
    decodes,
    parz_gpu_lossless_encode_chunks,
};
