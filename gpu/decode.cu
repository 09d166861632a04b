/* Segment decode kernels and the device API.
 *
 * Why not one thread per segment (Noordsij 2019's decoder): its parallelism is nsegments, so it
 * starves the GPU as soon as C is large enough for a small table, and a warp's 32 lanes write 32
 * blocks C blocks apart (uncoalesced). The WARP scheme here gives each warp G consecutive
 * segments and works in rounds of K blocks per segment:
 *   phase 1: lane l < G walks K blocks of segment l with the length-only parser
 *            (block_skip.cuh), writing each block's bit offset to shared memory;
 *   phase 2: all 32 lanes decode the G*K blocks one block per lane, neighbouring lanes taking
 *            neighbouring blocks, so the stores of a warp land in the same rows.
 * Parsing a length costs a fraction of decoding the block, so phase 1 is cheap, and G sets the
 * trade between parallelism (nsegments / G warps) and idle lanes in phase 1; parz_gpu_plan picks
 * G from the chunk size and the GPU. Fixed-rate chunks skip phase 1 (every block is maxbits).
 * Values are decoded by parz_decode_block's width functions from codec/block_decode.h, the code
 * the CPU runs, so the output is bit-identical. */
#include <string.h>

#include "block_skip.cuh"
#include "gpu_internal.h"

#define WARPS_PER_CTA 4
#define MAX_ROUND 32

struct seg_args {
  const unsigned char* payload;
  unsigned long long payload_bytes;
  const unsigned long long* offsets; /* nsegments + 1 absolute bit offsets */
  unsigned long long nblocks;
  unsigned long long first;          /* segments [first, end) */
  unsigned long long end;
  unsigned long long shape[4];       /* C order */
  unsigned long long bgrid[4];       /* blocks along each dimension */
  parz_params params;
  unsigned C, K, G;
  int fixed;                         /* every block is maxbits long */
  int vec;                           /* full rows may be stored as aligned 16-byte vectors */
  void* dst;
  parz_gpu_fault* fault;
};

__device__ void report_fault(parz_gpu_fault* f, unsigned long long segment, unsigned code)
{
  atomicMin(&f->segment, segment);
  atomicOr(&f->code, code);
}

template <parz_type T>
struct raw_of {
  typedef uint32_t type;
};
template <>
struct raw_of<PARZ_DOUBLE> {
  typedef uint64_t type;
};
template <>
struct raw_of<PARZ_INT64> {
  typedef uint64_t type;
};

/* One block, by the CPU's code. Returns the bits it occupied. */
template <parz_type T, unsigned D>
__device__ __forceinline__ unsigned decode_block(parz_reader* r, const parz_params* p,
                                                 typename raw_of<T>::type* out)
{
  if constexpr (T == PARZ_FLOAT)
    return parz_decode_fblock32(r, p, D, out);
  else if constexpr (T == PARZ_DOUBLE)
    return parz_decode_fblock64(r, p, D, out);
  else if constexpr (T == PARZ_INT32)
    return parz_decode_sblock32(r, p, D, out);
  else
    return parz_decode_sblock64(r, p, D, out);
}

/* Writes decoded block b (4^D raw values, x fastest) into its place in the array; values of
 * partial blocks that fall outside the array are dropped. */
template <parz_type T, unsigned D>
__device__ __forceinline__ void scatter(const seg_args& a, unsigned long long b,
                                        const typename raw_of<T>::type* v)
{
  typedef typename raw_of<T>::type U;
  U* dst = (U*)a.dst;
  unsigned long long base = 0, stride = 1;
  unsigned long long lim[4]; /* values of the block inside the array, per dimension */
  unsigned long long str[4]; /* element stride per dimension */
#pragma unroll
  for (int k = (int)D - 1; k >= 0; k--) {
    unsigned long long bc = b % a.bgrid[k];
    b /= a.bgrid[k];
    unsigned long long left = a.shape[k] - 4 * bc;
    lim[k] = left < 4 ? left : 4;
    str[k] = stride;
    base += 4 * bc * stride;
    stride *= a.shape[k];
  }
  const unsigned rows = 1u << (2 * (D - 1));
#pragma unroll
  for (unsigned row = 0; row < rows; row++) {
    /* row coordinates in dimensions 0..D-2 (dimension D-2 varies fastest) */
    unsigned long long off = base;
    bool inside = true;
#pragma unroll
    for (int k = (int)D - 2; k >= 0; k--) {
      unsigned c = (row >> (2 * (D - 2 - k))) & 3u;
      inside = inside && c < lim[k];
      off += c * str[k];
    }
    if (!inside)
      continue;
    const U* src = v + 4 * row;
    if (a.vec && lim[D - 1] == 4) {
      if constexpr (sizeof(U) == 4) {
        *(uint4*)(dst + off) = make_uint4(src[0], src[1], src[2], src[3]);
      } else {
        *(ulonglong2*)(dst + off) = make_ulonglong2(src[0], src[1]);
        *(ulonglong2*)(dst + off + 2) = make_ulonglong2(src[2], src[3]);
      }
    } else {
#pragma unroll
      for (unsigned x = 0; x < 4; x++)
        if (x < lim[D - 1])
          dst[off + x] = src[x];
    }
  }
}

__device__ __forceinline__ unsigned long long seg_blocks(const seg_args& a, unsigned long long s)
{
  unsigned long long left = a.nblocks - s * a.C;
  return left < a.C ? left : a.C;
}

template <parz_type T, unsigned D>
__global__ void __launch_bounds__(32 * WARPS_PER_CTA)
    warp_kernel(const seg_args a)
{
  typedef typename raw_of<T>::type U;
  __shared__ uint32_t s_rel[WARPS_PER_CTA][32 * MAX_ROUND];
  __shared__ unsigned long long s_base[WARPS_PER_CTA][32];
  const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
  const unsigned G = a.G, K = a.K, C = a.C;
  const unsigned long long seg0 =
      a.first + ((unsigned long long)blockIdx.x * WARPS_PER_CTA + warp) * G;
  if (seg0 >= a.end)
    return; /* the whole warp */
  const unsigned long long s = seg0 + lane;
  const bool mine = lane < G && s < a.end;
  const parz_params p = a.params;
  parz_reader r;
  unsigned long long start = 0, nb = 0;
  uint32_t rel = 0;
  if (mine) {
    start = a.offsets[s];
    nb = seg_blocks(a, s);
    s_base[warp][lane] = start;
    parz_reader_init(&r, a.payload, a.payload_bytes, start);
  }
  for (unsigned round = 0; round < C; round += K) {
    if (mine) {
      for (unsigned i = 0; i < K && round + i < nb; i++) {
        s_rel[warp][lane * K + i] = rel;
        rel += a.fixed ? p.maxbits : parz_skip_block<T, D>(&r, &p);
      }
    }
    __syncwarp();
    for (unsigned j = lane; j < G * K; j += 32) {
      unsigned l = j / K, i = j - l * K;
      unsigned long long s2 = seg0 + l;
      if (s2 >= a.end || round + i >= seg_blocks(a, s2))
        continue;
      parz_reader rb;
      U out[1u << (2 * D)];
      parz_reader_init(&rb, a.payload, a.payload_bytes, s_base[warp][l] + s_rel[warp][j]);
      decode_block<T, D>(&rb, &p, out);
      if (rb.err)
        report_fault(a.fault, s2, PARZ_GPU_FAULT_OVERRUN);
      scatter<T, D>(a, s2 * C + round + i, out);
    }
    __syncwarp();
  }
  if (mine) {
    if (!a.fixed && r.err)
      report_fault(a.fault, s, PARZ_GPU_FAULT_OVERRUN);
    if (start + rel != a.offsets[s + 1])
      report_fault(a.fault, s, PARZ_GPU_FAULT_END);
  }
}

template <parz_type T, unsigned D>
__global__ void __launch_bounds__(128) thread_kernel(const seg_args a)
{
  typedef typename raw_of<T>::type U;
  const unsigned long long s = a.first + (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= a.end)
    return;
  const parz_params p = a.params;
  const unsigned long long nb = seg_blocks(a, s);
  parz_reader r;
  parz_reader_init(&r, a.payload, a.payload_bytes, a.offsets[s]);
  for (unsigned long long i = 0; i < nb; i++) {
    U out[1u << (2 * D)];
    decode_block<T, D>(&r, &p, out);
    scatter<T, D>(a, s * a.C + i, out);
  }
  if (r.err)
    report_fault(a.fault, s, PARZ_GPU_FAULT_OVERRUN);
  if (parz_reader_tell(&r) != a.offsets[s + 1])
    report_fault(a.fault, s, PARZ_GPU_FAULT_END);
}

template <parz_type T, unsigned D>
static cudaError_t launch(int scheme, const seg_args& a, cudaStream_t stream)
{
  unsigned long long n = a.end - a.first;
  if (scheme == PARZ_GPU_SCHEME_THREAD) {
    thread_kernel<T, D><<<(unsigned)((n + 127) / 128), 128, 0, stream>>>(a);
  } else {
    unsigned long long warps = (n + a.G - 1) / a.G;
    unsigned long long ctas = (warps + WARPS_PER_CTA - 1) / WARPS_PER_CTA;
    warp_kernel<T, D><<<(unsigned)ctas, 32 * WARPS_PER_CTA, 0, stream>>>(a);
  }
  return cudaGetLastError();
}

template <parz_type T>
static cudaError_t launch_dims(unsigned dims, int scheme, const seg_args& a, cudaStream_t st)
{
  switch (dims) {
    case 1: return launch<T, 1>(scheme, a, st);
    case 2: return launch<T, 2>(scheme, a, st);
    case 3: return launch<T, 3>(scheme, a, st);
    default: return launch<T, 4>(scheme, a, st);
  }
}

/* Chooses the scheme, G and K for a chunk (tuning fields override). The rules come from
 * examples/bench_gpu_kernel on an H200 (132 SMs; float32 2D/4D and float64 3D arrays, every mode,
 * C = 1..128): decoding is latency-bound, so what matters is how many independent parsers run.
 * - THREAD wins when segments are short (C <= 2: nothing to parse ahead) or so many that one
 *   thread each already fills the GPU (>= 1024 per SM).
 * - Otherwise WARP, with the largest G that still leaves 12 warps per SM: a larger G leaves
 *   fewer lanes idle while lengths are parsed, but fewer warps to hide latency; G = 4 at least.
 *   (Best measured G kept 8 to 17 warps per SM; see gpu/README.md.) */
static void plan(const parz_gpu_context* ctx, const parz_chunk_view* v, uint64_t nsegments,
                 int* scheme, unsigned* G, unsigned* K)
{
  const parz_gpu_tuning* t = &ctx->tuning;
  const unsigned long long sms = (unsigned long long)ctx->sm_count;
  if (t->scheme)
    *scheme = t->scheme;
  else if (v->segment_blocks <= 2 || nsegments >= 1024 * sms)
    *scheme = PARZ_GPU_SCHEME_THREAD;
  else
    *scheme = PARZ_GPU_SCHEME_WARP;
  *K = t->round_blocks ? (unsigned)t->round_blocks : PARZ_MIN(v->segment_blocks, MAX_ROUND);
  if (*K > v->segment_blocks)
    *K = v->segment_blocks;
  if (t->group) {
    *G = (unsigned)t->group;
  } else {
    *G = 32;
    while (*G > 4 && nsegments / *G < 12 * sms)
      *G /= 2;
  }
}

int parz_gpu_enqueue_segments(parz_gpu_context* ctx, const parz_chunk_view* v,
                              const void* d_chunk, void* d_dst, uint64_t first, uint64_t count,
                              cudaStream_t stream, parz_error* err)
{
  seg_args a;
  int scheme;
  unsigned k;
  if (count == 0)
    return PARZ_OK;
  memset(&a, 0, sizeof a);
  a.payload = (const unsigned char*)d_chunk + parz_gpu_payload_offset(v);
  a.payload_bytes = v->payload_bytes;
  a.offsets = (const unsigned long long*)ctx->d_offsets.ptr;
  a.nblocks = v->nblocks;
  a.first = first;
  a.end = first + count;
  for (k = 0; k < v->array.dims; k++) {
    a.shape[k] = v->array.shape[k];
    a.bgrid[k] = (v->array.shape[k] + 3) / 4;
  }
  a.params = v->params;
  a.C = v->segment_blocks;
  plan(ctx, v, count, &scheme, &a.G, &a.K);
  a.fixed = v->params.minbits == v->params.maxbits;
  a.vec = ((uintptr_t)d_dst % 16 == 0) && v->array.shape[v->array.dims - 1] % 4 == 0;
  a.dst = d_dst;
  a.fault = (parz_gpu_fault*)ctx->d_fault.ptr;
  cudaError_t e;
  switch (v->array.type) {
    case PARZ_FLOAT: e = launch_dims<PARZ_FLOAT>(v->array.dims, scheme, a, stream); break;
    case PARZ_DOUBLE: e = launch_dims<PARZ_DOUBLE>(v->array.dims, scheme, a, stream); break;
    case PARZ_INT32: e = launch_dims<PARZ_INT32>(v->array.dims, scheme, a, stream); break;
    case PARZ_INT64: e = launch_dims<PARZ_INT64>(v->array.dims, scheme, a, stream); break;
    default: return parz_fail(err, PARZ_ERR_TYPE, "unknown scalar type %d", (int)v->array.type);
  }
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "segment decode launch");
}

extern "C" int parz_gpu_decode_device(parz_gpu_context* ctx, const parz_chunk_view* view,
                                      const void* d_chunk, void* d_dst, void* stream,
                                      parz_error* err)
{
  cudaStream_t st = (cudaStream_t)stream;
  int rc;
  if (!ctx || !view || !d_chunk || !d_dst)
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_decode_device: NULL argument");
  if ((uintptr_t)d_chunk % 8)
    return parz_fail(err, PARZ_ERR_ARG,
                     "parz_gpu_decode_device: the chunk must start at an 8-byte aligned address");
  if ((rc = parz_gpu_fault_clear(ctx, st, err)) != PARZ_OK ||
      (rc = parz_gpu_enqueue_offsets(ctx, view, d_chunk, st, err)) != PARZ_OK ||
      (rc = parz_gpu_enqueue_segments(ctx, view, d_chunk, d_dst, 0, view->nsegments, st, err)) !=
          PARZ_OK ||
      (rc = parz_gpu_enqueue_exceptions(ctx, view, d_chunk, d_dst, st, err)) != PARZ_OK)
    return rc;
  return parz_gpu_fault_check(ctx, view, st, err);
}
