/* Stored chunks on the GPU (codec/stored/stored.h, FORMAT.md "Stored chunks") and their entry in
 * the GPU's codec table (gpu_codecs.h): their decode is a copy of the payload, with one warp per
 * checksummed partition verifying it as block_kernel's warps verify a zfp payload
 * (checksum.cuh). */
#include <stdlib.h>
#include <string.h>

#include "gpu_codecs.h"
#include "payload_checksum.h"
#include "stored.h"

/* What the verify kernel needs of a stored chunk: partition p covers payload bits
 * [p * partition_bits, (p + 1) * partition_bits), the last up to the payload's end. */
struct stored_sums {
  const unsigned char* payload;
  const unsigned char* sums;
  unsigned long long partition_bits, count, payload_end;
  parz_gpu_fault* fault;
};

__global__ void stored_verify_kernel(const stored_sums a) {
  const unsigned long long p = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / 32u;
  const unsigned lane = threadIdx.x & 31u;
  if (p >= a.count)
    return; /* the whole warp */
  const unsigned long long begin = p * a.partition_bits;
  const unsigned long long end = p + 1 == a.count ? a.payload_end : begin + a.partition_bits;
  unsigned long long sum = parz_checksum_lane(a.payload, begin, end, lane, 32);
#pragma unroll
  for (unsigned d = 16; d > 0; d >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, d);
  if (lane == 0 && parz_word_load(a.sums + 8 * p) != sum) {
    atomicMin(&a.fault->partition, p);
    atomicOr(&a.fault->code, (unsigned)PARZ_GPU_FAULT_CHECKSUM);
  }
}

/* The payload copied into d_dst and its checksums verified into s's fault record. */
static int enqueue_chunk(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                         void* d_dst, const parz_gpu_scratch* s, const parz_gpu_shape* shape,
                         cudaStream_t stream, parz_error* err) {
  (void)ctx;
  (void)shape;
  const unsigned char* chunk = (const unsigned char*)d_chunk;
  cudaError_t e = cudaMemcpyAsync(d_dst, chunk + parz_gpu_payload_offset(v), v->raw_bytes,
                                  cudaMemcpyDeviceToDevice, stream);
  if (e == cudaSuccess && v->nchecksums) {
    stored_sums a;
    a.payload = chunk + parz_gpu_payload_offset(v);
    a.sums = chunk + parz_gpu_checksums_offset(v);
    a.partition_bits =
        (unsigned long long)v->checksum_segments * v->segment_blocks * v->params.maxbits;
    a.count = v->nchecksums;
    a.payload_end = 8ull * v->payload_bytes;
    a.fault = s->fault;
    const unsigned threads = 256, warps = threads / 32;
    stored_verify_kernel<<<(unsigned)((a.count + warps - 1) / warps), threads, 0, stream>>>(a);
    e = cudaGetLastError();
  }
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "copying a stored chunk");
}

extern const parz_gpu_codec parz_gpu_codec_stored = {
    PARZ_CODEC_STORED,
    enqueue_chunk,
    NULL, /* no runs: a chunk's decode is one copy */
    0,
    NULL, /* the filter path copies it on the host: through the GPU it would be three copies */
    NULL, /* written where the rule of stored chunks says so (parz_gpu_store_chunk), not named */
    NULL, /* no scratch beyond the frame's */
    0,    /* not on the filter path */
    NULL, /* every chunk */
};

/* The values of a (strided or not) in C order, element e by thread e: one grid-stride loop. */
struct gather_args {
  unsigned dims, size;
  unsigned long long count;
  unsigned long long shape[4];
  long long stride[4]; /* elements */
};

__global__ void stored_gather_kernel(const gather_args g, const unsigned char* __restrict__ src,
                                     unsigned char* __restrict__ dst) {
  const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long e = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
       e < g.count; e += step) {
    unsigned long long rest = e;
    long long at = 0;
    for (int k = (int)g.dims - 1; k >= 0; k--) {
      const unsigned long long q = rest / g.shape[k];
      at += (long long)(rest - q * g.shape[k]) * g.stride[k];
      rest = q;
    }
    if (g.size == 8)
      ((unsigned long long*)dst)[e] = ((const unsigned long long*)src)[at];
    else
      ((unsigned*)dst)[e] = ((const unsigned*)src)[at];
  }
}

int parz_gpu_store_chunk(const parz_array* a, const void* d_data, const parz_chunk_config* cfg,
                         void* d_chunk, cudaStream_t stream, parz_error* err) {
  parz_array host = *a;
  gather_args g;
  unsigned k;
  int strided = 0, rc;
  const size_t chunk_bytes = parz_stored_bytes(a, cfg);
  g.dims = a->dims;
  g.size = (unsigned)parz_type_size(a->type);
  g.count = parz_array_count(a);
  for (k = 0; k < a->dims; k++) {
    g.shape[k] = a->shape[k];
    strided |= a->stride[k] != 0;
  }
  for (k = a->dims; k-- > 0;) /* C order's strides where none are given */
    g.stride[k] = strided            ? a->stride[k]
                  : k + 1 == a->dims ? 1
                                     : g.stride[k + 1] * (long long)a->shape[k + 1];
  memset(host.stride, 0, sizeof host.stride);
  const size_t raw = (size_t)g.count * g.size;
  void* d_values = NULL;
  unsigned char* values = (unsigned char*)malloc(raw ? raw : 1);
  unsigned char* chunk = (unsigned char*)malloc(chunk_bytes ? chunk_bytes : 1);
  cudaError_t e =
      values && chunk ? cudaMalloc(&d_values, raw ? raw : 1) : cudaErrorMemoryAllocation;
  if (e == cudaSuccess) {
    stored_gather_kernel<<<(unsigned)((g.count + 255) / 256 < 4096 ? (g.count + 255) / 256 : 4096),
                           256, 0, stream>>>(g, (const unsigned char*)d_data,
                                             (unsigned char*)d_values);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(values, d_values, raw, cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(stream);
  rc = e == cudaSuccess ? parz_stored_encode(&host, values, cfg, chunk, chunk_bytes, NULL, err)
                        : parz_gpu_cuda_fail(err, e, "downloading the values of a stored chunk");
  if (rc == PARZ_OK) {
    e = cudaMemcpyAsync(d_chunk, chunk, chunk_bytes, cudaMemcpyHostToDevice, stream);
    if (e == cudaSuccess)
      e = cudaStreamSynchronize(stream); /* `chunk` is freed below */
    if (e != cudaSuccess)
      rc = parz_gpu_cuda_fail(err, e, "uploading a stored chunk");
  }
  if (d_values)
    cudaFree(d_values);
  free(values);
  free(chunk);
  return rc;
}
