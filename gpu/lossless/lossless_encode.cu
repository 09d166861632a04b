/* The lossless codec's GPU encoder: the kernels of lossless_encode.cuh's steps and the driver that
 * runs them, chunk after chunk, and places the chunks (gpu_codecs.h, encode_chunks). Each chunk
 * is built in buffers of its own from the context's pool (parz_gpu_enc_pool, whose pages stay
 * mapped across the host's waits); the host waits once for the transform's probe, the check of
 * the probe's first scale (which the GPU takes behind the probe), the measure of the row
 * predictor (on the context's second stream, beside the residuals and segments) and the
 * segments' sizes, read at once (again for the row predictor's where the measure favours it, for
 * the second scale's where a value misses the first, and for the other scales' check where a
 * value misses the second too). A call's one chunk is placed as soon as its size is known: its
 * payload is written there, its sums added into its head there and the head sealed by the GPU,
 * with no wait for them. A batch's chunks wait for their checksums, each a few bytes per
 * segment; once every chunk's size is known, `place` gives each its place and its head and
 * payload are copied there. */
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "checksum.cuh"
#include "encode_whole.h"
#include "gpu_codecs.h"
#include "lossless_encode.cuh"
#include "lossless_gpu.h"
#include "whole_memory.h"

#define THREADS 256u
#define COPY_THREADS 256u
#define OFFSETS_THREADS 1024u
/* Residual CTAs an SM holds at once: as many as their shared memory allows, the registers kept
 * to that. */
#define RESIDUAL_CTAS 6
/* Segments' CTAs an SM holds at once (registers kept to 48 a thread), so that a chunk of up to
 * this many segments per SM is coded in one wave. */
#define PARZ_GPU_LL_CTAS 5

/* A warp's group of pieces lies in one run. */
static_assert(PARZ_LL_RUN / PARZ_GPU_LL_PIECE % PARZ_GPU_LL_GROUP == 0, "whole groups a run");

static unsigned blocks_for(unsigned long long units, unsigned threads) {
  const unsigned long long b = (units + threads - 1) / threads;
  return b ? (unsigned)b : 1u;
}

/* ---------------- kernels ---------------- */

/* The transform's probe: a CTA per scale (transform blockIdx.x + 1), a thread per value of the
 * array's first `probe`; bit k - 1 ORed into *passed where every one fits transform k's scale. */
__global__ void __launch_bounds__(PARZ_GPU_LL_PROBE)
    probe_kernel(parz_gpu_ll L, unsigned probe, unsigned long long* passed) {
  const unsigned k = blockIdx.x + 1;
  const int fit = threadIdx.x >= probe || parz_gpu_ll_fits(L, threadIdx.x, parz_ll_scale_of(k));
  if (__syncthreads_and(fit) && threadIdx.x == 0)
    atomicOr(passed, 1ull << (k - 1));
}

/* A thread per value: the scales of `want` it misses ORed into *missed, once per warp. */
__global__ void misses_kernel(parz_gpu_ll L, unsigned long long want, unsigned long long* missed) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  const uint64_t x = i < L.n ? parz_gpu_ll_misses(L, i, want) : 0;
  const unsigned lo = __reduce_or_sync(0xffffffffu, (unsigned)x);
  const unsigned hi = __reduce_or_sync(0xffffffffu, (unsigned)(x >> 32));
  if ((threadIdx.x & 31u) == 0 && (lo | hi))
    atomicOr(missed, (unsigned long long)hi << 32 | lo);
}

/* The measure of the row predictor (rows: its geometry) into sums[0] (predictor 0) and sums[1]
 * (predictor 3): a thread per value of the sampled blocks, PARZ_LL_BLOCK_VALUES / THREADS CTAs
 * a block, each CTA's bits added once (atomics of every warp to two words serialize). */
__global__ void __launch_bounds__(THREADS)
    measure_kernel(parz_gpu_ll L, parz_ll_geometry rows, unsigned long long* sums) {
  __shared__ unsigned warps[2][THREADS / 32];
  if (L.misfit && *L.misfit) /* the scale misses a value: the measure is of no use */
    return;
  const unsigned long long i = blockIdx.x * (unsigned long long)THREADS + threadIdx.x;
  unsigned bits[2];
  parz_gpu_ll_measure(L, rows, i / PARZ_LL_BLOCK_VALUES, (unsigned)(i % PARZ_LL_BLOCK_VALUES),
                      bits);
  const unsigned all = __reduce_add_sync(0xffffffffu, bits[0]);
  const unsigned by_rows = __reduce_add_sync(0xffffffffu, bits[1]);
  if ((threadIdx.x & 31u) == 0) {
    warps[0][threadIdx.x / 32] = all;
    warps[1][threadIdx.x / 32] = by_rows;
  }
  __syncthreads();
  if (threadIdx.x < 2) {
    unsigned long long sum = 0;
    for (unsigned w = 0; w < THREADS / 32; w++)
      sum += warps[threadIdx.x][w];
    if (sum)
      atomicAdd(&sums[threadIdx.x], sum);
  }
}

/* A CTA per block: its values' transformed integers into shared memory, each read once (and,
 * where L.misfit is set, checked against the scale: 1 ORed into it once per CTA that finds a
 * value missing it), then their residuals from there to the block's place in block order; the
 * place into L.block_at (the last block's CTA the count of all after it). */
__global__ void __launch_bounds__(THREADS, RESIDUAL_CTAS) residual_kernel(parz_gpu_ll L) {
  __shared__ uint64_t u[PARZ_LL_BLOCK_VALUES];
  __shared__ uint8_t back[PARZ_LL_BLOCK_VALUES];
  __shared__ parz_gpu_ll_box B;
  const unsigned long long b = blockIdx.x;
  const parz_gpu_ll_xf X = parz_gpu_ll_xf_of(L);
  if (threadIdx.x == 0) {
    parz_gpu_ll_box_of(L, b, &B);
    L.block_at[b] = B.first;
    if (b + 1 == L.g.blocks)
      L.block_at[b + 1] = L.n;
  }
  __syncthreads();
  const int misfit = parz_gpu_ll_forward_block(L, X, B, u, back, threadIdx.x, THREADS);
  if (__syncthreads_or(misfit) && threadIdx.x == 0)
    atomicOr(L.misfit, 1u);
  parz_gpu_ll_residuals(L.g, B, u, back, L.z + B.first, threadIdx.x, THREADS);
}

/* Code q of a segment (W's counts) built by a warp (B its scratch), lossless_encode.cuh's
 * steps with a barrier of the warp between two. */
__device__ void build_code(parz_gpu_ll_seg* W, parz_gpu_ll_build* B, unsigned w, unsigned q,
                           unsigned lane) {
  const unsigned all = 0xffffffffu;
  uint8_t* len = parz_gpu_ll_code_len(W, w, q);
  const unsigned m = __reduce_add_sync(all, parz_gpu_ll_build_counts(W, B, w, q, lane));
  __syncwarp();
  parz_gpu_ll_build_sort(B, w, lane);
  __syncwarp();
  if (lane == 0 && m >= 2)
    parz_gpu_ll_build_merge(B, m);
  __syncwarp();
  if (__reduce_max_sync(all, parz_gpu_ll_build_depth(B, m, lane)) > PARZ_LL_CODE_MAX) {
    unsigned items = m;
    for (unsigned j = PARZ_LL_CODE_MAX - 1; j >= 1; j--) {
      __syncwarp();
      parz_gpu_ll_pm_packages(B, items, j == PARZ_LL_CODE_MAX - 1, lane);
      __syncwarp();
      items = parz_gpu_ll_pm_level(B, m, items / 2, j, lane);
    }
    __syncwarp();
    parz_gpu_ll_pm_lengths(B, m, lane);
  }
  __syncwarp();
  parz_gpu_ll_build_lengths(B, len, w, m, lane);
  __syncwarp();
  parz_gpu_ll_build_per_len(B, len, w, lane);
  __syncwarp();
  uint64_t bits = parz_gpu_ll_build_words(B, len, parz_gpu_ll_code_words(W, w, q), w, lane);
  for (unsigned o = 16; o; o >>= 1)
    bits += __shfl_xor_sync(all, bits, o);
  if (lane == 0)
    W->bits[q] = bits;
  __syncwarp();
}

/* Lane `lane` of a warp's residuals of the group of pieces from residual i0 of a segment of n (z;
 * runs: coder 3's) into x (parz_gpu_ll_lane_load), their count into *m; returns the bit length of
 * the residual before its first (the lane before's last; lane 0: parz_gpu_ll_before's). */
template <typename X>
__device__ __forceinline__ unsigned lane_load(const uint64_t* z, unsigned n, unsigned i0,
                                              unsigned lane, int runs, X* x, unsigned* m) {
  const uint64_t before = parz_gpu_ll_before(z, i0, runs);
  *m = parz_gpu_ll_lane_load<X>(z, n, i0 + lane * PARZ_GPU_LL_LANE, x);
  const unsigned up = __shfl_up_sync(0xffffffffu, parz_gpu_ll_bitlen(x[PARZ_GPU_LL_LANE - 1]), 1);
  return lane ? up : parz_bitlen64(before);
}

/* The pieces of a segment of n residuals (z; np of them; runs: coder 3's) sized by the CTA's
 * warps (t: the thread), a group of PARZ_GPU_LL_GROUP pieces a warp at once, PARZ_GPU_LL_LANE
 * neighbouring residuals a lane: each piece's bits under the code (contexts: coder 2's) and
 * whether a residual is not 0 into W->pc, its lanes' bits added by shuffles. */
template <typename X>
__device__ __forceinline__ void size_pieces(parz_gpu_ll_seg* W, const uint64_t* z, unsigned n,
                                            unsigned np, int runs, int contexts, unsigned t) {
  const unsigned all = 0xffffffffu, lane = t & 31u, G = PARZ_GPU_LL_GROUP,
                 lanes = PARZ_GPU_LL_PIECE / PARZ_GPU_LL_LANE; /* a piece's */
  for (unsigned p0 = t / 32 * G; p0 < np; p0 += PARZ_GPU_LL_THREADS / 32 * G) {
    X x[PARZ_GPU_LL_LANE], any = 0;
    unsigned m;
    const unsigned kp = lane_load<X>(z, n, p0 * PARZ_GPU_LL_PIECE, lane, runs, x, &m);
    unsigned bits = parz_gpu_ll_lane_bits<X>(x, m, kp, contexts, W->len[contexts]);
#pragma unroll
    for (unsigned u = 0; u < PARZ_GPU_LL_LANE; u++)
      any |= x[u];
    const unsigned nonzero = __ballot_sync(all, any != 0);
#pragma unroll
    for (unsigned o = 1; o < lanes; o <<= 1)
      bits += __shfl_xor_sync(all, bits, o);
    const unsigned p = p0 + lane / lanes;
    if (lane % lanes == 0 && p < np) {
      W->pc.piece[p] = bits;
      W->pc.nonzero[p] = (uint8_t)((nonzero >> lane & ((1u << lanes) - 1)) != 0);
    }
  }
}

/* The pieces of a segment of n residuals (z; np of them; runs: coder 3's) written into dst (zeros
 * where lanes share words) by the CTA's warps (t: the thread), a group of pieces a warp at once
 * as size_pieces takes them: each lane's bits, their offset the piece group's (W->pc, a run's
 * first bit W->run_at's) and the warp's prefix sum, then its residuals ORed in side by side.
 * Groups of a run of zeros (coder 4's) take no bytes. */
template <typename X>
__device__ __forceinline__ void write_pieces(parz_gpu_ll_seg* W, uint8_t* dst, const uint64_t* z,
                                             unsigned n, unsigned np, int runs, int contexts,
                                             unsigned t) {
  const unsigned all = 0xffffffffu, lane = t & 31u, G = PARZ_GPU_LL_GROUP,
                 per = PARZ_LL_RUN / PARZ_GPU_LL_PIECE;
  for (unsigned p0 = t / 32 * G; p0 < np; p0 += PARZ_GPU_LL_THREADS / 32 * G) {
    const unsigned r = runs ? p0 / per : 0;
    if (runs && W->run_at[r + 1] == W->run_at[r])
      continue;
    X x[PARZ_GPU_LL_LANE];
    unsigned m;
    const unsigned kp = lane_load<X>(z, n, p0 * PARZ_GPU_LL_PIECE, lane, runs, x, &m);
    const unsigned bits = parz_gpu_ll_lane_bits<X>(x, m, kp, contexts, W->len[contexts]);
    unsigned inc = bits;
#pragma unroll
    for (unsigned o = 1; o < 32; o <<= 1) {
      const unsigned v = __shfl_up_sync(all, inc, o);
      if (lane >= o)
        inc += v;
    }
    const uint64_t bit = 8ull * (runs ? W->run_at[r] : 0) + (runs ? 0 : W->run_at[0]) +
                         W->pc.piece[p0] + (inc - bits);
    parz_gpu_ll_lane_write<X>(dst, bit, x, m, kp, contexts, W->len[contexts], W->code[contexts]);
  }
}

/* A CTA per segment: its bytes into its slot, their count into seg_bytes; none where the
 * residual step found a value that misses the scale (L.misfit). */
__global__ void __launch_bounds__(PARZ_GPU_LL_THREADS, PARZ_GPU_LL_CTAS)
    segment_kernel(parz_gpu_ll L) {
  __shared__ parz_gpu_ll_seg W;
  __shared__ unsigned long long total; /* the coded segment's bytes */
  __shared__ int as_raw;
  const unsigned t = threadIdx.x, T = PARZ_GPU_LL_THREADS, lane = t & 31u;
  const unsigned long long s = blockIdx.x;
  const unsigned w = L.g.w;
  if (L.misfit && *L.misfit)
    return;
  unsigned long long first;
  size_t n;
  parz_gpu_ll_segment(L, s, &first, &n);
  const uint64_t* z = L.z + first;
  uint8_t* dst = L.slots + s * L.slot;
  const size_t raw = parz_ll_raw_bytes(n, w), np = parz_gpu_ll_pieces(n);
  const int runs = parz_ll_runs_of(n);
  const unsigned parts = parz_gpu_ll_parts(w, T / 32);
  parz_gpu_ll_clear(&W, w, parts, t, T);
  __syncthreads();
  /* the counts, each warp into its copy (parz_gpu_ll_parts), then added: a thread takes
   * PARZ_GPU_LL_KEYS neighbouring residuals a round, each one's context from the one before it
   * in its registers, and adds each of their keys once, by the times it occurs among them
   * (neighbours often share a key, and a warp's adds to one word are made one after another) */
  uint32_t* part = W.part + parz_gpu_ll_copy_of(t, parts) * parz_gpu_ll_part_keys(w);
  for (size_t i0 = 0; i0 < n; i0 += PARZ_GPU_LL_KEYS * T) {
    const size_t i = i0 + PARZ_GPU_LL_KEYS * t;
    uint64_t x[PARZ_GPU_LL_KEYS];
    const uint64_t before = i && i < n ? z[i - 1] : 0;
#pragma unroll
    for (unsigned u = 0; u < PARZ_GPU_LL_KEYS; u++)
      x[u] = i + u < n ? z[i + u] : 0;
    unsigned key[PARZ_GPU_LL_KEYS], k = parz_bitlen64(before);
#pragma unroll
    for (unsigned u = 0; u < PARZ_GPU_LL_KEYS; u++) {
      const size_t j = i + u;
      const unsigned c = j && !parz_ll_run_starts(j, (unsigned)runs) ? parz_ll_context_of(k) : 0;
      k = parz_bitlen64(x[u]);
      key[u] = j < n ? c * (w + 1) + k : ~0u;
    }
#pragma unroll
    for (unsigned u = 0; u < PARZ_GPU_LL_KEYS; u++) {
      unsigned times = 1;
      int first = key[u] != ~0u;
#pragma unroll
      for (unsigned v = 0; v < PARZ_GPU_LL_KEYS; v++) {
        if (v < u)
          first &= key[v] != key[u];
        if (v > u)
          times += key[v] == key[u];
      }
      if (first)
        atomicAdd(part + key[u], times);
    }
  }
  __syncthreads();
  parz_gpu_ll_parts_add(&W, w, parts, t, T);
  __syncthreads();
  /* the codes, a warp each */
  if (t / 32 < PARZ_GPU_LL_BUILDS)
    for (unsigned q = t / 32; q <= parz_ll_contexts(w, PARZ_LL_CODER_CONTEXT);
         q += PARZ_GPU_LL_BUILDS)
      build_code(&W, &W.build[t / 32], w, q, lane);
  __syncthreads();
  const unsigned coder = parz_gpu_ll_coder(&W, w, n);
  const int pick = coder == PARZ_LL_CODER_CONTEXT;
  if (coder != PARZ_LL_CODER_RAW) {
    /* each piece's bits and whether a residual is not 0, a group of pieces a warp */
    if (w == 32)
      size_pieces<uint32_t>(&W, z, (unsigned)n, (unsigned)np, runs, pick, t);
    else
      size_pieces<uint64_t>(&W, z, (unsigned)n, (unsigned)np, runs, pick, t);
    __syncthreads();
    /* each run's bits into its pieces' offsets and its bytes; then the runs' places */
    const size_t per = PARZ_LL_RUN / PARZ_GPU_LL_PIECE, m = runs ? parz_ll_run_count(n) : 1;
    for (size_t r = t; r < m; r += T) {
      const size_t p1 = runs && (r + 1) * per < np ? (r + 1) * per : np;
      int zero;
      const uint64_t bits = parz_gpu_ll_run_offsets(&W, runs ? r * per : 0, p1, &zero);
      W.run_at[r + 1] = (uint32_t)(!runs ? bits : zero ? 0 : (bits + 7) / 8);
    }
    __syncthreads();
    if (t == 0)
      total = parz_gpu_ll_runs_head(&W, dst, w, coder, n, &as_raw);
    __syncthreads();
    if (!as_raw) {
      /* the words the lanes' bits are ORed into, zeros first (a word a store: the slot is
       * 4-byte aligned); the code lengths */
      const size_t from = runs ? ((size_t)W.run_at[0] + 3) / 4 : 0, to = ((size_t)total + 3) / 4;
      for (size_t k = from + t; k < to; k += T)
        ((uint32_t*)dst)[k] = 0;
      if (runs && t < 4 && (size_t)W.run_at[0] + t < 4 * from)
        dst[W.run_at[0] + t] = 0;
      if (runs)
        parz_gpu_ll_runs_lengths(dst, w, coder, W.len[pick], t, T);
      __syncthreads();
      if (!runs && t == 0)
        parz_gpu_ll_single_head(dst, raw, w, coder, W.len[pick]);
      __syncthreads();
      if (w == 32)
        write_pieces<uint32_t>(&W, dst, z, (unsigned)n, (unsigned)np, runs, pick, t);
      else
        write_pieces<uint64_t>(&W, dst, z, (unsigned)n, (unsigned)np, runs, pick, t);
      __syncthreads();
      for (size_t r = t; runs && r + 1 < m; r += T)
        parz_ll_run_length_put(dst, parz_ll_runs_lengths_end(w, coder), r,
                               W.run_at[r + 1] - W.run_at[r]);
    }
  } else if (t == 0) {
    as_raw = 1;
  }
  __syncthreads();
  if (as_raw)
    parz_gpu_ll_raw(dst, z, n, w, t, T);
  if (t == 0)
    L.seg_bytes[s] = as_raw ? raw : total;
}

/* One CTA: the nseg segments' places from their bytes (seg_bytes), a running sum: at[0..nseg]
 * their first bytes then the payload's end, at[nseg + 1..2 nseg + 1] the same in bits (the
 * payload sums' offsets). A thread adds a run of neighbouring segments, its warp's and the
 * CTA's sums before it taken by shuffles and one round in shared memory. */
__global__ void __launch_bounds__(OFFSETS_THREADS)
    offsets_kernel(const unsigned long long* seg_bytes, unsigned long long nseg,
                   unsigned long long* at) {
  __shared__ unsigned long long warps[OFFSETS_THREADS / 32];
  const unsigned all = 0xffffffffu, t = threadIdx.x, lane = t & 31u;
  const unsigned long long per = (nseg + OFFSETS_THREADS - 1) / OFFSETS_THREADS;
  const unsigned long long i0 = t * per < nseg ? t * per : nseg;
  const unsigned long long i1 = i0 + per < nseg ? i0 + per : nseg;
  unsigned long long own = 0, x;
  for (unsigned long long i = i0; i < i1; i++)
    own += seg_bytes[i];
  x = own;
  for (unsigned o = 1; o < 32; o <<= 1) {
    const unsigned long long y = __shfl_up_sync(all, x, o);
    if (lane >= o)
      x += y;
  }
  if (lane == 31)
    warps[t / 32] = x;
  __syncthreads();
  if (t < 32) {
    unsigned long long v = warps[t];
    for (unsigned o = 1; o < 32; o <<= 1) {
      const unsigned long long y = __shfl_up_sync(all, v, o);
      if (lane >= o)
        v += y;
    }
    warps[t] = v;
  }
  __syncthreads();
  unsigned long long before = x - own + (t >= 32 ? warps[t / 32 - 1] : 0);
  for (unsigned long long i = i0; i < i1; i++) {
    at[i] = before;
    at[nseg + 1 + i] = 8 * before;
    before += seg_bytes[i];
  }
  if (t == OFFSETS_THREADS - 1) {
    at[nseg] = before;
    at[2 * nseg + 1] = 8 * before;
  }
}

/* A CTA per segment writes its payload words (parz_gpu_ll_copy_words), a word per thread. */
__global__ void copy_kernel(parz_gpu_ll L) {
  unsigned long long w0, w1;
  parz_gpu_ll_copy_words(L, blockIdx.x, &w0, &w1);
  for (unsigned long long w = w0 + threadIdx.x; w < w1; w += blockDim.x)
    parz_gpu_ll_copy_word(L, blockIdx.x, w);
}

/* ---------------- the driver ---------------- */

/* The transform's probe, launched: the scales whose check the array's first values pass
 * (parz_ll_choose_transform may choose only those) into the device word d_passed, which it
 * returns; NULL for integer types, which take none. */
static unsigned long long* launch_probe(parz_gpu_whole_memory& m, const parz_gpu_ll_plan& p,
                                        const parz_gpu_ll& L, unsigned long long* d_passed) {
  if (p.a.type != PARZ_FLOAT && p.a.type != PARZ_DOUBLE)
    return NULL;
  const unsigned probe = L.n < PARZ_GPU_LL_PROBE ? (unsigned)L.n : PARZ_GPU_LL_PROBE;
  if (m.e == cudaSuccess)
    m.e = cudaMemsetAsync(d_passed, 0, sizeof *d_passed, m.st);
  if (m.e == cudaSuccess)
    probe_kernel<<<PARZ_LL_SCALES, PARZ_GPU_LL_PROBE, 0, m.st>>>(L, probe, d_passed);
  return d_passed;
}

/* Into *k the first of scales[from..] that every value fits, all checked by the GPU at once (one
 * wait), 0 where none does. missed: a pinned word. */
static int first_fitting(parz_gpu_whole_memory& m, const parz_gpu_ll& L,
                         const std::vector<unsigned>& scales, size_t from,
                         unsigned long long* missed, unsigned* k, parz_error* err) {
  const uint64_t want = parz_gpu_ll_want(scales, from);
  *k = 0;
  if (!want)
    return PARZ_OK;
  unsigned long long* d_missed = m.device<unsigned long long>(1);
  if (m.e == cudaSuccess)
    m.e = cudaMemsetAsync(d_missed, 0, sizeof *d_missed, m.st);
  if (m.e == cudaSuccess)
    misses_kernel<<<blocks_for(L.n, THREADS), THREADS, 0, m.st>>>(L, want, d_missed);
  if (!parz_gpu_whole_down(m, missed, d_missed, sizeof *missed))
    return parz_gpu_cuda_fail(err, m.e, "lossless GPU encode: the transform's check");
  m.release(d_missed);
  *k = parz_gpu_ll_first_fitting(scales, from, *missed);
  return PARZ_OK;
}

/* The measure of the row predictor for plan p under L's transform (the values at L.src),
 * launched on stream `side` behind what m's stream has done (`forked`), m's stream then waiting
 * for it (`joined`): predictor 0's and predictor 3's bits into d_sums, while the residuals and
 * segments launched next on m's stream run beside it. */
static int launch_measure(parz_gpu_whole_memory& m, const parz_gpu_ll_plan& p, const parz_gpu_ll& L,
                          unsigned long long* d_sums, cudaStream_t side, cudaEvent_t forked,
                          cudaEvent_t joined, parz_error* err) {
  parz_ll_geometry rows;
  int rc = parz_ll_geometry_init(&rows, &p.a, PARZ_LL_PREDICT_ROWS, err);
  if (rc != PARZ_OK)
    return rc;
  if (m.e == cudaSuccess)
    m.e = cudaEventRecord(forked, m.st);
  if (m.e == cudaSuccess)
    m.e = cudaStreamWaitEvent(side, forked, 0);
  if (m.e == cudaSuccess)
    m.e = cudaMemsetAsync(d_sums, 0, 2 * sizeof *d_sums, side);
  if (m.e == cudaSuccess)
    measure_kernel<<<(unsigned)(parz_gpu_ll_sampled(L.g) * (PARZ_LL_BLOCK_VALUES / THREADS)),
                     THREADS, 0, side>>>(L, rows, d_sums);
  if (m.e == cudaSuccess)
    m.e = cudaEventRecord(joined, side);
  return PARZ_OK;
}

/* Plan p's residuals and segments under transform k (its values at d_data), launched: the
 * segments in their slots (L->slots, in m), their bytes in L->seg_bytes (seg_bytes where not
 * NULL, else in m), room for their places (L->seg_at, segments_down's); misfit: where not NULL,
 * set where a value misses k's scale; passed: where not NULL, the probe's scales, whose first
 * valid one is taken in place of k (parz_gpu_ll.passed). */
static void segments_args(const parz_gpu_ll_plan& p, unsigned k, const void* d_data,
                          unsigned* misfit, const unsigned long long* passed, parz_gpu_ll* L) {
  parz_gpu_ll_args(&p, k, L);
  parz_gpu_ll_source(L, d_data);
  L->misfit = misfit;
  L->passed = passed;
  L->valid = parz_gpu_ll_valid(&p);
}
static void launch_segments(parz_gpu_whole_memory& m, const parz_gpu_ll_plan& p, unsigned k,
                            const void* d_data, unsigned* misfit,
                            const unsigned long long* passed, unsigned long long* seg_bytes,
                            parz_gpu_ll* L) {
  segments_args(p, k, d_data, misfit, passed, L);
  unsigned long long* block_at = m.device<unsigned long long>((size_t)L->g.blocks + 1);
  L->block_at = block_at;
  L->z = m.device<uint64_t>((size_t)L->n);
  L->slots = m.device<uint8_t>((size_t)(L->nseg * L->slot));
  L->seg_bytes = seg_bytes ? seg_bytes : m.device<unsigned long long>((size_t)L->nseg);
  L->seg_at = m.device<unsigned long long>(2 * ((size_t)L->nseg + 1));
  if (m.e == cudaSuccess)
    residual_kernel<<<(unsigned)L->g.blocks, THREADS, 0, m.st>>>(*L);
  if (m.e == cudaSuccess)
    segment_kernel<<<(unsigned)L->nseg, PARZ_GPU_LL_THREADS, 0, m.st>>>(*L);
  if (m.e == cudaSuccess)
    m.e = cudaGetLastError();
  m.release(L->z);
  m.release(block_at);
}

/* The host's pinned words of a call (the context's h_enc_sizes): a few for the transform's check
 * of every value (`small`), then two runs of LL_WORDS + `room` words, for the words read after
 * the segments under the chunk's predictor (ll_words: the transform's, the measure's and the
 * segments' bytes, one read) and for the segments' bytes under the row predictor; the payload's
 * sums take the first run once it is read. Pinned, so that a read is queued behind the kernels
 * and the host waits on its event, not on the copy of pageable memory. */
struct ll_host {
  unsigned long long* small;
  unsigned long long* words[2];
  size_t room;
};

/* The words the host reads after the segments under the chunk's predictor, one read from one
 * device buffer: the residual step's misfit (its low 4 bytes), the probe's scales, the measure's
 * two sums, then the segments' bytes. */
enum { LL_MISFIT, LL_PASSED, LL_BITS, LL_SEG_BYTES = LL_BITS + 2, LL_WORDS = LL_SEG_BYTES };

/* The most segments of plan p's chunk under its predictor or, where the encoder chooses it, the
 * row predictor: at most their blocks. */
static size_t segments_most(const parz_gpu_ll_plan& p) {
  parz_ll_geometry rows;
  parz_error err;
  size_t most = p.g.blocks;
  if (parz_gpu_ll_rows_chosen(&p) &&
      parz_ll_geometry_init(&rows, &p.a, PARZ_LL_PREDICT_ROWS, &err) == PARZ_OK &&
      rows.blocks > most)
    most = rows.blocks;
  return most;
}

/* The segments' bytes of L (launch_segments') and the `first` words before them in device memory
 * into dst (pinned, first + L.nseg words), waited for (`read`: an event for it); behind their
 * copy, their places into L.seg_at (offsets_kernel), not waited for. */
static int segments_down(parz_gpu_whole_memory& m, const parz_gpu_ll& L, size_t first,
                         unsigned long long* dst, cudaEvent_t read, parz_error* err) {
  if (m.e == cudaSuccess)
    m.e = cudaMemcpyAsync(dst, L.seg_bytes - first,
                          (first + (size_t)L.nseg) * sizeof(unsigned long long),
                          cudaMemcpyDeviceToHost, m.st);
  if (m.e == cudaSuccess)
    m.e = cudaEventRecord(read, m.st);
  if (m.e == cudaSuccess)
    offsets_kernel<<<1, OFFSETS_THREADS, 0, m.st>>>(L.seg_bytes, L.nseg,
                                                    (unsigned long long*)L.seg_at);
  if (m.e == cudaSuccess)
    m.e = cudaGetLastError();
  if (m.e == cudaSuccess)
    m.e = cudaEventSynchronize(read);
  if (m.e != cudaSuccess)
    return parz_gpu_cuda_fail(err, m.e, "lossless GPU encode: the segments");
  return PARZ_OK;
}

static unsigned long long sum_of(const unsigned long long* v, size_t n) {
  unsigned long long t = 0;
  for (size_t i = 0; i < n; i++)
    t += v[i];
  return t;
}

/* Chunk p (its values at d_data) encoded into c (its head on the host, its payload in device
 * memory from keep) and its size; or, where direct is not NULL and the chunk is not stored,
 * into its place (parz_gpu_whole_direct_place), queued on keep's stream. Its scratch is freed on
 * return, in stream order. h: pinned words for the host's reads, room for segments_most(p). */
static int encode_one(parz_gpu_context* ctx, parz_gpu_whole_memory& keep, parz_gpu_ll_plan& p,
                      const void* d_data, const parz_chunk_config* cfg, parz_gpu_whole_chunk* c,
                      size_t* size, const ll_host& h, const cudaEvent_t events[3],
                      parz_gpu_whole_direct* direct, parz_error* err) {
  parz_gpu_whole_memory m(keep.st, keep.pool);
  parz_gpu_ll L;
  std::vector<unsigned> scales;
  unsigned long long* words = h.words[0]; /* ll_words' */
  int rc = PARZ_OK;
  parz_gpu_ll_args(&p, 0, &L);
  L.src = d_data;
  unsigned long long* d_words = m.device<unsigned long long>(LL_WORDS + (size_t)L.nseg);
  unsigned long long* d_passed = launch_probe(m, p, L, d_words + LL_PASSED);

  /* the first scale the probe passes (transform 0 where none does), taken on the GPU behind the
   * probe and before it is checked on every value: the residual step checks it, and the host
   * waits once for the probe, the check, the segments' sizes and the measure of the row
   * predictor; where a value misses it (the segments and the measure then left undone), the
   * next one the probe passes the same way, and after PARZ_GPU_LL_SPECULATE of them the first of
   * the others that fits every value (parz_ll_choose_transform's choice) and the steps again */
  const int measured = parz_gpu_ll_rows_chosen(&p);
  size_t tried = 0;
  unsigned k = 0;
  int checked = d_passed == NULL, favoured = 0;
  unsigned* d_misfit = (unsigned*)(d_words + LL_MISFIT);
  unsigned long long* seg_bytes = words + LL_SEG_BYTES;
  for (;;) {
    const int probed = d_passed && !tried; /* the transform the GPU's, from the probe */
    if (!checked && m.e == cudaSuccess)
      m.e = cudaMemsetAsync(d_words + LL_MISFIT, 0, sizeof *d_words, m.st);
    if (measured) {
      /* the measure beside the residuals and segments, checking nothing (a misfit found by
       * the residual step sets aside its sums) */
      parz_gpu_ll M;
      segments_args(p, k, d_data, NULL, probed ? d_passed : NULL, &M);
      if ((rc = launch_measure(m, p, M, d_words + LL_BITS, ctx->copy_stream, events[0],
                               events[1], err)) != PARZ_OK)
        return rc;
    }
    launch_segments(m, p, k, d_data, checked ? NULL : d_misfit, probed ? d_passed : NULL,
                    d_words + LL_SEG_BYTES, &L);
    if (measured) {
      /* joined even after a failure: m's memory, which the measure reads and writes, is freed
       * in m's stream order */
      const cudaError_t joined = cudaStreamWaitEvent(m.st, events[1], 0);
      if (m.e == cudaSuccess)
        m.e = joined;
    }
    /* one read: the words the host reads are written only where they are read below */
    if ((rc = segments_down(m, L, LL_WORDS, words, events[2], err)) != PARZ_OK)
      return rc;
    if (probed) {
      /* the GPU's choice, the host's from here on: under transform 0 nothing was checked */
      scales = parz_gpu_ll_scales(&p, words[LL_PASSED]);
      k = scales.empty() ? 0 : scales[0];
      checked = k == 0;
    }
    if (checked || !words[LL_MISFIT])
      break;
    m.release(L.slots);
    m.release((void*)L.seg_at);
    if (++tried < scales.size() && tried < PARZ_GPU_LL_SPECULATE) {
      k = scales[tried];
      continue;
    }
    if ((rc = first_fitting(m, L, scales, tried, h.small, &k, err)) != PARZ_OK)
      return rc;
    checked = 1;
  }
  favoured = measured && words[LL_BITS + 1] < words[LL_BITS];
  parz_gpu_ll_choose(&p, k);

  /* under the row predictor too where the measure favours it, kept where its chunk takes fewer
   * bytes */
  if (favoured) {
    parz_gpu_ll_plan q = p;
    parz_gpu_ll R;
    unsigned long long* rows_bytes = h.words[1];
    if ((rc = parz_gpu_ll_cut(&q, PARZ_LL_PREDICT_ROWS, err)) != PARZ_OK)
      return rc;
    launch_segments(m, q, k, d_data, NULL, NULL, NULL, &R);
    if ((rc = segments_down(m, R, 0, rows_bytes, events[2], err)) != PARZ_OK)
      return rc;
    if (parz_ll_rows_smaller(sum_of(seg_bytes, (size_t)L.nseg), (size_t)L.nseg,
                             sum_of(rows_bytes, (size_t)R.nseg), (size_t)R.nseg)) {
      parz_gpu_ll_choose(&q, k);
      m.release(L.slots);
      m.release((void*)L.seg_at);
      p = q;
      L = R;
      seg_bytes = rows_bytes;
    } else {
      m.release(R.slots);
      m.release((void*)R.seg_at);
    }
  }
  std::vector<unsigned long long> seg_bits((size_t)L.nseg);
  unsigned long long bytes = 0;
  for (size_t s = 0; s < seg_bits.size(); s++) {
    seg_bits[s] = 8 * seg_bytes[s];
    bytes += seg_bytes[s];
  }
  parz_chunk_view fin;
  size_t head = 0;
  rc = parz_gpu_whole_settle(&p.a, &p.v, cfg, 8 * bytes, 0, 0, p.v.version, &fin, &head, size,
                             &c->stored, err);
  if (rc != PARZ_OK || c->stored)
    return rc;

  /* the call's one chunk placed here (direct), its payload written there: no copy of it, and the
   * head sealed on the GPU behind the sums (no wait for them) */
  parz_chunk_offsets o;
  parz_chunk_section_offsets(&fin, &o);
  unsigned char* d_chunk = NULL;
  if ((rc = parz_gpu_whole_direct_place(direct, &fin, head, size, &d_chunk, err)) != PARZ_OK)
    return rc;

  /* the payload (its words all written by the copy), its checksums over the segments' bit
   * offsets (offsets_kernel's), the head's sections while the GPU writes them */
  unsigned long long* d_sums = d_chunk ? (unsigned long long*)(d_chunk + o.checksums)
                                       : m.device<unsigned long long>((size_t)fin.nchecksums);
  c->payload_bytes = fin.payload_bytes;
  c->payload = d_chunk ? d_chunk + head
                       : (unsigned char*)keep.device<unsigned long long>(fin.payload_bytes / 8);
  if (keep.e != cudaSuccess)
    return parz_gpu_cuda_fail(err, keep.e, "lossless GPU encode: the payload");
  L.payload = c->payload;
  L.payload_words = fin.payload_bytes / 4;
  if (m.e == cudaSuccess)
    copy_kernel<<<(unsigned)L.nseg, COPY_THREADS, 0, m.st>>>(L);
  if (m.e == cudaSuccess)
    m.e = cudaGetLastError();
  if (m.e != cudaSuccess)
    return parz_gpu_cuda_fail(err, m.e, "lossless GPU encode: the payload");
  /* placed: the head from the context's pinned words (the words read above are done with), so
   * that its copy waits for nothing queued before it */
  unsigned char* h_head = NULL;
  if (d_chunk) {
    if ((rc = parz_gpu_reserve_slack(&ctx->h_enc_sizes, head, 1, err)) != PARZ_OK)
      return rc;
    h_head = (unsigned char*)ctx->h_enc_sizes.ptr;
  } else {
    c->head.resize(head);
    h_head = c->head.data();
  }
  if ((rc = parz_gpu_whole_unsealed(&fin, seg_bits.data(), NULL, NULL, NULL, h_head, head, err)) !=
      PARZ_OK)
    return rc;
  parz_gpu_head_crc seal;
  if (d_chunk) {
    /* the head up before the sums are added into it; the GPU takes their share of its CRC-32C */
    uint32_t* raw = m.zeroed<uint32_t>(1);
    if (m.e == cudaSuccess)
      m.e = parz_gpu_whole_head_up(h_head, head, o.checksums,
                                   o.checksums + 8 * (size_t)fin.nchecksums, d_chunk, raw, &seal,
                                   m.st);
    if (m.e != cudaSuccess)
      return parz_gpu_cuda_fail(err, m.e, "lossless GPU encode: the head");
  }
  parz_gpu_sums sums;
  memset(&sums, 0, sizeof sums);
  sums.offsets = L.seg_at + L.nseg + 1;
  sums.P = fin.checksum_segments;
  sums.count = fin.nchecksums;
  sums.payload_end = 8ull * fin.payload_bytes;
  if (fin.nchecksums && (rc = parz_gpu_enqueue_sums(ctx, &sums, c->payload, 0, fin.nchecksums,
                                                    d_sums, m.st, err)) != PARZ_OK)
    return rc;
  if (d_chunk) {
    if (m.e == cudaSuccess)
      m.e = parz_gpu_whole_head_seal(seal, m.st);
    if (m.e != cudaSuccess)
      return parz_gpu_cuda_fail(err, m.e, "lossless GPU encode: the head's seal");
    return PARZ_OK;
  }
  /* the words read above: their pinned words take the sums (nchecksums <= nsegments) */
  uint64_t* h_sums = (uint64_t*)h.words[0];
  if (!parz_gpu_whole_down(m, h_sums, d_sums, (size_t)fin.nchecksums * sizeof(uint64_t)))
    return parz_gpu_cuda_fail(err, m.e, "lossless GPU encode: the payload's checksums");
  parz_gpu_whole_seal(&fin, h_sums, c->head.data(), head);
  return PARZ_OK;
}

int parz_gpu_lossless_encode_chunks(parz_gpu_context* ctx, size_t n, const parz_array* arrays,
                                    const void* const* d_data, const parz_chunk_config* cfg,
                                    parz_gpu_enc_place place, void* place_arg, size_t* written,
                                    cudaStream_t st, size_t* failed, parz_error* err) {
  cudaError_t e = cudaSetDevice(ctx->device);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");
  /* every chunk's refusal before any work */
  std::vector<parz_gpu_ll_plan> plans(n);
  int rc = PARZ_OK;
  for (size_t i = 0; i < n && rc == PARZ_OK; i++)
    if ((rc = parz_gpu_ll_plan_of(&plans[i], &arrays[i], cfg, err)) != PARZ_OK && failed)
      *failed = i;
  if (rc != PARZ_OK)
    return rc;
  ll_host h;
  h.room = 0;
  for (const parz_gpu_ll_plan& p : plans) {
    const size_t most = segments_most(p);
    h.room = most > h.room ? most : h.room;
  }
  if ((rc = parz_gpu_reserve(&ctx->h_enc_sizes, 64 + 2 * 8 * (LL_WORDS + h.room), 1, err)) !=
      PARZ_OK)
    return rc;
  h.small = (unsigned long long*)ctx->h_enc_sizes.ptr;
  h.words[0] = (unsigned long long*)((unsigned char*)ctx->h_enc_sizes.ptr + 64);
  h.words[1] = h.words[0] + LL_WORDS + h.room;
  cudaMemPool_t pool = NULL;
  if ((rc = parz_gpu_enc_pool(ctx, &pool, err)) != PARZ_OK)
    return rc;
  /* the measure of the row predictor runs on the context's second stream (the filter path's
   * downloads' otherwise), forked from and joined to st by the first two; the third marks the
   * segments' bytes read back */
  struct events {
    cudaEvent_t e[3] = {NULL, NULL, NULL};
    ~events() {
      for (cudaEvent_t x : e)
        if (x)
          cudaEventDestroy(x);
    }
  } events;
  for (cudaEvent_t& x : events.e)
    if ((e = cudaEventCreateWithFlags(&x, cudaEventDisableTiming)) != cudaSuccess)
      return parz_gpu_cuda_fail(err, e, "lossless GPU encode: the events");
  parz_gpu_whole_memory m(st, pool);
  return parz_gpu_whole_encode(n, arrays, d_data, cfg, written, place, place_arg, st, failed, err,
                               [&](size_t i, parz_gpu_whole_chunk* c,
                                   parz_gpu_whole_direct* direct) {
                                 return encode_one(ctx, m, plans[i], d_data[i], cfg, c,
                                                   &written[i], h, events.e, direct, err);
                               });
}
