/* The payload checksums of a chunk whose codec verifies them in launches of their own (the scratch
 * codecs: bounded, lossless), gpu_internal.h's parz_gpu_enqueue_checksums, and their sums alone
 * for the encoders that write them (parz_gpu_enqueue_sums): a checksum is a sum
 * (checksum.cuh, payload_checksum.h), so a partition's words may be shared among any number of
 * CTAs, each adding its lanes' shares into the partition's sum, which a second launch checks.
 * A run of a batch's chunks (parz_gpu_enqueue_run_checksums) takes the same two launches for all
 * its chunks at once: one chunk's launches each cost more than a small chunk's sums.
 * zfp's decoder verifies its partitions a warp each in its decode launch instead. */
#include <string.h>

#include "checksum.cuh"
#include "gpu_internal.h"

#define THREADS 256u
/* A partition's CTAs in parz_gpu_enqueue_sums: one for each CTA_MIN_BYTES of it (four words a
 * thread), up to CTAS_PER_SM an SM for the launch's partitions together (as many CTAs of THREADS
 * as an SM holds at once). A thread reads its words one after another, each a wait on memory, so
 * fewer words a thread end the sums sooner; but a decoder's checks may run beside its decode
 * kernels (bounded_decode.cu), and CTAs of fewer words take more of the SMs from those. */
#define CTA_MIN_BYTES (32u * THREADS)
#define CTAS_PER_SM 8u

/* CTA c of the `per` CTAs of partition first + c / per adds its threads' shares of the
 * per * blockDim lanes into acc[partition], once per CTA: the CTAs of a partition add to one
 * word, and such atomics are made one after another. */
__global__ void __launch_bounds__(THREADS)
    checksum_sums_kernel(const parz_gpu_sums s, const unsigned char* __restrict__ payload,
                         unsigned long long first, unsigned long long end, unsigned per,
                         unsigned long long* acc) {
  __shared__ unsigned long long warps[THREADS / 32];
  const unsigned long long p = first + blockIdx.x / per;
  const unsigned lane = (blockIdx.x % per) * THREADS + threadIdx.x;
  if (p >= end)
    return;
  unsigned long long begin, stop;
  parz_gpu_partition_bits(s, p, &begin, &stop);
  unsigned long long sum = parz_checksum_lane(payload, begin, stop, lane, per * THREADS);
#pragma unroll
  for (unsigned d = 16; d > 0; d >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, d);
  if ((threadIdx.x & 31u) == 0)
    warps[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned w = 1; w < THREADS / 32; w++)
      sum += warps[w];
    atomicAdd(&acc[p], sum);
  }
}

/* Each partition's sum against its stored checksum. */
__global__ void checksum_check_kernel(const parz_gpu_sums s, unsigned long long first,
                                      unsigned long long end, const unsigned long long* acc,
                                      parz_gpu_fault* fault) {
  const unsigned long long p = first + (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (p < end && !parz_gpu_checksum_ok(s, p, acc[p])) {
    atomicMin(&fault->partition, p);
    atomicOr(&fault->code, (unsigned)PARZ_GPU_FAULT_CHECKSUM);
  }
}

/* CTA g of a run's launch: its share of its chunk's partition (checksum.cuh), the CTA's total
 * stored in part[g]: no atomics, so nothing to clear first. */
__global__ void __launch_bounds__(PARZ_GPU_RUN_THREADS)
    run_sums_kernel(const parz_gpu_run_sums* __restrict__ r, unsigned n,
                    unsigned long long* __restrict__ part) {
  __shared__ unsigned long long warps[PARZ_GPU_RUN_THREADS / 32];
  const unsigned long long g = blockIdx.x;
  unsigned long long p;
  unsigned long long sum = parz_gpu_run_share(r[parz_gpu_run_chunk(r, n, g)], g, threadIdx.x, &p);
#pragma unroll
  for (unsigned d = 16; d > 0; d >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, d);
  if ((threadIdx.x & 31u) == 0)
    warps[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned w = 1; w < PARZ_GPU_RUN_THREADS / 32; w++)
      sum += warps[w];
    part[g] = sum;
  }
}

/* Partition first + x of chunk y of a run: its CTAs' totals against its stored checksum. */
__global__ void run_check_kernel(const parz_gpu_run_sums* __restrict__ r,
                                 const unsigned long long* __restrict__ part) {
  const parz_gpu_run_sums& c = r[blockIdx.y];
  const unsigned long long p = c.first + (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= c.end)
    return;
  const unsigned long long* mine = part + c.cta + (p - c.first) * c.per;
  unsigned long long sum = 0;
  for (unsigned long long j = 0; j < c.per; j++)
    sum += mine[j];
  if (!parz_gpu_checksum_ok(c.sums, p, sum)) {
    atomicMin(&c.fault->partition, p);
    atomicOr(&c.fault->code, (unsigned)PARZ_GPU_FAULT_CHECKSUM);
  }
}

unsigned long long parz_gpu_run_sums_init(const parz_chunk_view* v, const void* d_chunk,
                                          const parz_gpu_scratch* s, unsigned long long first,
                                          unsigned long long end, unsigned long long cta,
                                          parz_gpu_run_sums* r) {
  const unsigned char* chunk = (const unsigned char*)d_chunk;
  memset(r, 0, sizeof *r);
  r->cta = cta;
  r->per = 1;
  if (end > v->nchecksums)
    end = v->nchecksums;
  if (first >= end)
    return 0;
  r->sums.sums = chunk + parz_gpu_checksums_offset(v);
  r->sums.table = v->table == PARZ_TABLE_HYBRID ? chunk + parz_gpu_table_offset(v) : NULL;
  r->sums.offsets = s->offsets;
  r->sums.record_bytes = parz_gpu_record_bytes(v);
  r->sums.P = v->checksum_segments;
  r->sums.count = v->nchecksums;
  r->sums.payload_end = 8ull * v->payload_bytes;
  r->payload = chunk + parz_gpu_payload_offset(v);
  r->fault = s->fault;
  r->first = first;
  r->end = end;
  r->per = parz_gpu_run_per(v->payload_bytes, v->nchecksums);
  return r->per * (end - first);
}

int parz_gpu_enqueue_run_checksums(parz_gpu_context* ctx, const parz_gpu_run_sums* h,
                                   const parz_gpu_run_sums* d, unsigned n, cudaStream_t st,
                                   parz_error* err) {
  unsigned long long ctas = 0, most = 0;
  for (unsigned i = 0; i < n; i++) {
    ctas += h[i].per * (h[i].end - h[i].first);
    most = h[i].end - h[i].first > most ? h[i].end - h[i].first : most;
  }
  if (!ctas)
    return PARZ_OK;
  if (ctas > 0x7fffffffull)
    return parz_fail(err, PARZ_ERR_UNSUPPORTED, "a batch's payload checksums need %llu CTAs", ctas);
  int rc = parz_gpu_reserve(&ctx->d_run_sums, 8 * ctas, 0, err);
  if (rc != PARZ_OK)
    return rc;
  unsigned long long* part = (unsigned long long*)ctx->d_run_sums.ptr;
  run_sums_kernel<<<(unsigned)ctas, PARZ_GPU_RUN_THREADS, 0, st>>>(d, n, part);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) {
    run_check_kernel<<<dim3((unsigned)((most + THREADS - 1) / THREADS), n), THREADS, 0, st>>>(d,
                                                                                           part);
    e = cudaGetLastError();
  }
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "a batch's payload checksums");
}

int parz_gpu_enqueue_checksums(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                               const parz_gpu_scratch* s, unsigned long long first,
                               unsigned long long end, cudaStream_t st, parz_error* err) {
  if (end > v->nchecksums)
    end = v->nchecksums;
  if (first >= end)
    return PARZ_OK;
  const unsigned char* chunk = (const unsigned char*)d_chunk;
  parz_gpu_sums sums;
  memset(&sums, 0, sizeof sums);
  sums.sums = chunk + parz_gpu_checksums_offset(v);
  sums.table = v->table == PARZ_TABLE_HYBRID ? chunk + parz_gpu_table_offset(v) : NULL;
  sums.offsets = s->offsets;
  sums.record_bytes = parz_gpu_record_bytes(v);
  sums.P = v->checksum_segments;
  sums.count = v->nchecksums;
  sums.payload_end = 8ull * v->payload_bytes;
  const unsigned long long count = end - first;
  int rc = parz_gpu_enqueue_sums(ctx, &sums, chunk + parz_gpu_payload_offset(v), first, end,
                                 s->sums, st, err);
  if (rc != PARZ_OK)
    return rc;
  checksum_check_kernel<<<(unsigned)((count + THREADS - 1) / THREADS), THREADS, 0, st>>>(
      sums, first, end, s->sums, s->fault);
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "payload checksum launch");
}

int parz_gpu_enqueue_sums(parz_gpu_context* ctx, const parz_gpu_sums* sums,
                          const unsigned char* payload, unsigned long long first,
                          unsigned long long end, unsigned long long* acc, cudaStream_t st,
                          parz_error* err) {
  if (first >= end)
    return PARZ_OK;
  const unsigned long long count = end - first;
  /* a CTA for each CTA_MIN_BYTES of a partition, a wave of them at most */
  unsigned long long per = (unsigned long long)ctx->sm_count * CTAS_PER_SM / count;
  const unsigned long long most = sums->payload_end / 8 / sums->count / CTA_MIN_BYTES;
  per = per > most ? most : per;
  per = per < 1 ? 1 : per;
  cudaError_t e = cudaMemsetAsync(acc + first, 0, 8 * count, st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "clearing a chunk's checksum sums");
  checksum_sums_kernel<<<(unsigned)(per * count), THREADS, 0, st>>>(*sums, payload, first, end,
                                                                    (unsigned)per, acc);
  e = cudaGetLastError();
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "payload checksum launch");
}
