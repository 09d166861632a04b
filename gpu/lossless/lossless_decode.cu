/* The lossless codec's decode on the GPU (codec/FORMAT.md, "Lossless chunks (codec 3)") and its
 * entry in the GPU's codec table (gpu_codecs.h). A chunk decodes in three kernels on one stream,
 * after the offsets kernel (offsets.cu) has turned the table into segment offsets:
 *
 *   1. verify_kernel: one warp per checksummed partition, as for zfp and stored chunks
 *      (checksum.cuh);
 *   2. segments_kernel: one warp per segment. The residuals of a segment form one stream of
 *      variable-length codes, each depending on the one before it (its context), so one lane
 *      walks it, with the CPU's own reader (codec/lossless/residual_decode.h); the other lanes
 *      first build the codes' tables of the segment's contexts, one context each, in shared
 *      memory, and copy raw segments. Each residual goes, still zigzagged, to its value's place
 *      in the destination;
 *   3. blocks_kernel: one CTA per block of 4096 values rebuilds the block in place. The Lorenzo
 *      residual is the block's difference along every predicted dimension (values outside the
 *      block 0), so the values are the residuals' inclusive prefix sums along each predicted
 *      dimension in turn, in the values' w-bit wrap-around arithmetic, which is exact in any
 *      order: the same integers as the CPU's row by row prediction (codec/lossless/lorenzo.c).
 *      Then each integer becomes its value through the CPU's inverse transform
 *      (codec/lossless/transform_decode.h).
 *
 * A segment the CPU refuses (unknown coder, raw of another size, lengths that are no prefix
 * code, bits that start no word, residuals past its bytes or bytes after them, bounds that are
 * not whole bytes) is recorded in the chunk's fault record and comes back as PARZ_ERR_STREAM;
 * nothing is written outside the destination's values of the chunk. */
#include <string.h>

#include "checksum.cuh"
#include "gpu_codecs.h"
extern "C" {
#include "lorenzo.h" /* a C header without C++ guards */
}
#include "lossless.h"
#include "lossless_codec.h"
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
  int is_float;
  double scale;
  parz_gpu_sums sums;
  unsigned long long sum_first, sum_end;
};

const unsigned BLOCK_THREADS = 256;

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

__global__ void verify_kernel(const ll_args a) {
  const unsigned long long p =
      a.sum_first + ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / 32u;
  const unsigned lane = threadIdx.x & 31u;
  if (p >= a.sum_end)
    return; /* the whole warp */
  parz_gpu_checksum_verify(a.sums, a.payload, p, lane, a.fault, PARZ_GPU_FAULT_CHECKSUM);
}

/* One warp (the whole CTA) per segment: its residuals, zigzagged, at their values' places. */
template <typename T>
__global__ void segments_kernel(const ll_args a) {
  extern __shared__ unsigned long long shared[];
  const unsigned long long s = a.first + blockIdx.x;
  const unsigned lane = threadIdx.x;
  const unsigned long long begin = a.offsets[s], end = a.offsets[s + 1];
  const unsigned long long b0 = s * a.C, b1 = b0 + a.C < a.nblocks ? b0 + a.C : a.nblocks;
  T* dst = (T*)a.dst;
  unsigned long long o[4], b;
  unsigned e[4];
  if (begin % 8 || end % 8 || end <= begin || end / 8 > a.payload_bytes) {
    if (lane == 0)
      record(a, s);
    return;
  }
  const unsigned char* src = a.payload + begin / 8;
  const size_t bytes = (size_t)((end - begin) / 8);
  const unsigned coder = src[0], w = a.w;
  unsigned long long n = 0;
  for (b = b0; b < b1; b++)
    n += block_box(a, b, o, e);
  if (coder == PARZ_LL_CODER_RAW) {
    if (bytes != 1 + n * (w / 8)) {
      if (lane == 0)
        record(a, s);
      return;
    }
    unsigned long long i0 = 0;
    for (b = b0; b < b1; b++) {
      const unsigned count = block_box(a, b, o, e);
      for (unsigned i = lane; i < count; i += 32)
        dst[place(a, o, e, i)] = (T)parz_ll_raw_residual(src + 1, i0 + i, w);
      i0 += count;
    }
    return;
  }
  if (coder != PARZ_LL_CODER_LENGTHS && coder != PARZ_LL_CODER_CONTEXT) {
    if (lane == 0)
      record(a, s);
    return;
  }
  const unsigned nc = parz_ll_contexts(w, coder);
  if ((bytes - 1) * 8 < 4ull * (w + 1) * nc) {
    if (lane == 0)
      record(a, s);
    return;
  }
  /* the contexts' decoders, their fast tables, their decoders' tables */
  parz_huff_decoder* code = (parz_huff_decoder*)shared;
  uint32_t* fast = (uint32_t*)(code + nc);
  uint32_t* mem = fast + nc * PARZ_LL_TABLE_SIZE;
  const int bad = lane < nc ? parz_ll_context_setup(src, bytes, w, lane, &code[lane],
                                                    mem + lane * PARZ_LL_CODE_WORDS,
                                                    fast + lane * PARZ_LL_TABLE_SIZE)
                            : PARZ_LL_OK;
  if (__any_sync(0xffffffffu, bad != PARZ_LL_OK)) {
    if (lane == 0)
      record(a, s);
    return;
  }
  if (lane != 0)
    return;
  parz_ll_residual_reader rd;
  parz_ll_reader_init(&rd, src, bytes, w, coder, code, fast);
  for (b = b0; b < b1; b++) {
    block_box(a, b, o, e);
    for (unsigned x0 = 0; x0 < e[0]; x0++)
      for (unsigned x1 = 0; x1 < e[1]; x1++)
        for (unsigned x2 = 0; x2 < e[2]; x2++) {
          T* row =
              dst + (o[0] + x0) * a.st[0] + (o[1] + x1) * a.st[1] + (o[2] + x2) * a.st[2] + o[3];
          for (unsigned x3 = 0; x3 < e[3]; x3++) {
            uint64_t z;
            if (parz_ll_residual_next(&rd, &z) != PARZ_LL_OK) {
              record(a, s);
              return;
            }
            row[x3] = (T)z;
          }
        }
  }
  if (parz_ll_reader_end(&rd) != PARZ_LL_OK)
    record(a, s);
}

/* Inclusive prefix sums of v (the block, extents e, count values) along dimension k, in place:
 * each line along k is cut among `per` threads, each sums its piece, the pieces' totals are
 * scanned, and each thread adds what comes before its piece. */
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
    T* base = v + (line / q) * len * q + line % q;
    const unsigned t0 = j * piece, t1 = t0 + piece < len ? t0 + piece : len;
    T sum = 0;
    if (mine)
      for (unsigned t = t0; t < t1; t++) {
        sum += base[(size_t)t * q];
        base[(size_t)t * q] = sum;
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
          base[(size_t)t * q] += totals[threadIdx.x];
    }
    __syncthreads();
  }
}

/* One CTA per block: the residuals at its values' places become its values. */
template <typename T>
__global__ void __launch_bounds__(BLOCK_THREADS) blocks_kernel(const ll_args a) {
  __shared__ T v[PARZ_LL_BLOCK_VALUES];
  __shared__ T totals[BLOCK_THREADS];
  const unsigned long long b = a.first * a.C + blockIdx.x;
  unsigned long long o[4];
  unsigned e[4];
  T* dst = (T*)a.dst;
  const unsigned count = block_box(a, b, o, e);
  for (unsigned i = threadIdx.x; i < count; i += BLOCK_THREADS) {
    const T z = dst[place(a, o, e, i)];
    v[i] = (z >> 1) ^ ((T)0 - (z & 1));
  }
  __syncthreads();
  for (int k = 0; k < 4; k++)
    if (a.predicted >> k & 1 && e[k] > 1)
      scan_dimension(v, totals, e, count, k);
  const int wide = sizeof(T) == 8;
  for (unsigned i = threadIdx.x; i < count; i += BLOCK_THREADS)
    dst[place(a, o, e, i)] =
        a.is_float ? (T)parz_ll_float_bits(wide, a.transform, a.scale, v[i]) : v[i];
}

/* The kernels' arguments for segments [first, first + count) of v. */
int setup(const parz_chunk_view* v, const void* d_chunk, void* d_dst, uint64_t first,
          uint64_t count, const parz_gpu_scratch* s, ll_args* a, parz_error* err) {
  parz_ll_geometry g;
  const unsigned predictor = v->codec_params[PARZ_LL_PARAM_PREDICTOR];
  int rc = parz_ll_geometry_init(&g, &v->array, predictor, err);
  if (rc != PARZ_OK)
    return rc;
  if (g.blocks != v->nblocks)
    return parz_fail(err, PARZ_ERR_FORMAT, "lossless chunk of %llu blocks where its array has %zu",
                     (unsigned long long)v->nblocks, g.blocks);
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
  a->transform = v->codec_params[PARZ_LL_PARAM_TRANSFORM];
  a->scale = parz_ll_scale_of(a->transform);
  a->is_float = v->array.type == PARZ_FLOAT || v->array.type == PARZ_DOUBLE;
  if (v->nchecksums) { /* the partitions whose first segment is in [first, end) */
    const unsigned long long P = v->checksum_segments;
    a->sums.sums = (const unsigned char*)d_chunk + parz_gpu_checksums_offset(v);
    a->sums.table = NULL;
    a->sums.offsets = s->offsets;
    a->sums.P = P;
    a->sums.count = v->nchecksums;
    a->sums.payload_end = 8ull * v->payload_bytes;
    a->sum_first = (first + P - 1) / P;
    a->sum_end = PARZ_MIN((first + count + P - 1) / P, (unsigned long long)v->nchecksums);
  }
  return PARZ_OK;
}

template <typename T>
cudaError_t launch(const ll_args& a, cudaStream_t st) {
  const unsigned long long segments = a.end - a.first;
  const unsigned long long block_end = PARZ_MIN(a.end * a.C, a.nblocks);
  const unsigned nc = parz_ll_contexts(a.w, PARZ_LL_CODER_CONTEXT);
  const size_t shared =
      nc * (sizeof(parz_huff_decoder) + (PARZ_LL_TABLE_SIZE + PARZ_LL_CODE_WORDS) * 4u);
  cudaError_t e = cudaFuncSetAttribute(segments_kernel<T>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
  if (e == cudaSuccess && a.sum_end > a.sum_first) {
    const unsigned warps = BLOCK_THREADS / 32;
    verify_kernel<<<(unsigned)((a.sum_end - a.sum_first + warps - 1) / warps), BLOCK_THREADS, 0,
                    st>>>(a);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) {
    segments_kernel<T><<<(unsigned)segments, 32, shared, st>>>(a);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess && block_end > a.first * a.C) {
    blocks_kernel<T><<<(unsigned)(block_end - a.first * a.C), BLOCK_THREADS, 0, st>>>(a);
    e = cudaGetLastError();
  }
  return e;
}

int enqueue_slice(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk, void* d_dst,
                  uint64_t first, uint64_t count, const parz_gpu_scratch* s, cudaStream_t st,
                  parz_error* err) {
  (void)ctx;
  ll_args a;
  int rc;
  if (count == 0)
    return PARZ_OK;
  if ((rc = setup(v, d_chunk, d_dst, first, count, s, &a, err)) != PARZ_OK)
    return rc;
  const cudaError_t e = a.w == 64 ? launch<uint64_t>(a, st) : launch<uint32_t>(a, st);
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "lossless decode launch");
}

int enqueue_chunk(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk, void* d_dst,
                  const parz_gpu_scratch* s, const parz_gpu_shape* shape, cudaStream_t st,
                  parz_error* err) {
  (void)shape; /* nothing to shape: one warp per segment, one CTA per block */
  int rc = parz_gpu_enqueue_offsets(ctx, v, d_chunk, s, st, err);
  return rc == PARZ_OK ? enqueue_slice(ctx, v, d_chunk, d_dst, 0, v->nsegments, s, st, err) : rc;
}

/* The modes these kernels decode: both predictors and every transform the library reads. */
int decodes(const parz_chunk_view* v, size_t i, parz_error* err) {
  const unsigned predictor = v->codec_params[PARZ_LL_PARAM_PREDICTOR];
  const unsigned transform = v->codec_params[PARZ_LL_PARAM_TRANSFORM];
  if (predictor > PARZ_LL_PREDICT_STACK)
    return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                     "chunk %zu: lossless predictor %u has no GPU decoder: decode it on the CPU", i,
                     predictor);
  if (transform > PARZ_LL_SCALES)
    return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                     "chunk %zu: lossless transform %u has no GPU decoder: decode it on the CPU", i,
                     transform);
  return PARZ_OK;
}

}  // namespace

extern const parz_gpu_codec parz_gpu_codec_lossless = {
    PARZ_CODEC_LOSSLESS,
    enqueue_chunk,
    NULL, /* no runs yet: each chunk of a batch has its own launches */
    0,
    enqueue_slice,
    NULL, /* the GPU encoder does not write lossless chunks */
    NULL, /* the destination is its scratch */
    0,    /* the filter path decodes it in slices */
    decodes,
};
