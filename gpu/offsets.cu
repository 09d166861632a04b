/* Table -> absolute segment offsets, non-finite exception patching, and the device fault records.
 *
 * The decode kernels read one u64 offset per segment (and the next one, to check where the
 * segment ends) whatever the table kind, so the table is expanded once per chunk: 8 bytes per
 * segment, well under 1% of the decoded bytes at any sensible C. HYBRID partitions are
 * independent: one warp per partition turns its lengths into offsets with a warp prefix sum
 * (Noordsij 2019, strategy 3: no inter-warp dependency). LENGTHS, one long partition, uses a
 * single warp: it is the rare kind and only has to keep up with the decode kernel.
 * Table bytes are read byte by byte (little-endian on any device, no alignment assumption);
 * parz_chunk_parse has validated the table on the host, so every offset is inside the payload.
 * A batch of chunks (parz_gpu_decode_device_batch) takes one launch: chunk blockIdx.y. */
#include <stdio.h>
#include <string.h>

#include "gpu_internal.h"

typedef parz_gpu_table_args table_args;

/* NONE and OFFSETS: one thread per segment. */
__device__ __forceinline__ void direct_offsets(const table_args& a, unsigned long long s) {
  if (s < a.nsegments)
    a.offsets[s] =
        a.kind == PARZ_TABLE_NONE ? s * a.fixed_segment_bits : parz_gpu_load_le(a.table + 8 * s, 8);
  if (s == 0)
    a.offsets[a.nsegments] = a.payload_bits;
}

/* HYBRID (one warp per partition) and LENGTHS (one warp, one partition without a base). */
__device__ __forceinline__ void scan_offsets(const table_args& a, unsigned long long part,
                                             unsigned lane) {
  const unsigned long long s0 = part * a.P;
  if (s0 >= a.nsegments)
    return;
  const unsigned long long m = a.nsegments - s0 < a.P ? a.nsegments - s0 : a.P;
  const unsigned char* rec = a.table;
  unsigned long long base = 0;
  if (a.kind == PARZ_TABLE_HYBRID) {
    rec += part * a.record_bytes;
    base = parz_gpu_load_le(rec, 8);
    rec += 8;
  }
  for (unsigned long long j0 = 0; j0 < m; j0 += 32) {
    unsigned long long j = j0 + lane;
    unsigned long long len = j < m ? parz_gpu_load_le(rec + a.width * j, a.width) : 0;
    unsigned long long incl = parz_gpu_warp_scan(len, false);
    if (j < m)
      a.offsets[s0 + j] = base + incl - len;
    base += __shfl_sync(0xffffffffu, incl, 31);
  }
  if (s0 + m == a.nsegments && lane == 0)
    a.offsets[a.nsegments] = a.payload_bits;
}

/* One chunk's arguments by value, or (BATCH) chunk blockIdx.y of many. */
template <bool BATCH>
__global__ void offsets_kernel(const table_args one, const table_args* __restrict__ many) {
  const table_args& a = BATCH ? many[blockIdx.y] : one;
  const unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (a.kind == PARZ_TABLE_NONE || a.kind == PARZ_TABLE_OFFSETS)
    direct_offsets(a, t);
  else
    scan_offsets(a, t >> 5, threadIdx.x & 31u);
}

int parz_gpu_table_args_init(const parz_gpu_context* ctx, const parz_chunk_view* v,
                             const void* d_chunk, const parz_gpu_scratch* s, table_args* a) {
  if (parz_gpu_parse_offsets(ctx, v))
    return 0; /* the lengths kernel reads them from the table */
  memset(a, 0, sizeof *a);
  a->table = (const unsigned char*)d_chunk + parz_gpu_table_offset(v);
  a->offsets = s->offsets;
  a->nsegments = v->nsegments;
  a->payload_bits = v->payload_bits;
  a->fixed_segment_bits = (unsigned long long)v->segment_blocks * v->params.maxbits;
  a->width = v->length_bytes;
  a->kind = v->table;
  a->record_bytes = parz_gpu_record_bytes(v);
  a->P = v->table == PARZ_TABLE_HYBRID ? v->partition_segments : v->nsegments;
  if (v->table == PARZ_TABLE_NONE || v->table == PARZ_TABLE_OFFSETS)
    a->units = v->nsegments;
  else
    a->units = 32 * (v->table == PARZ_TABLE_HYBRID ? v->npartitions : 1);
  return 1;
}

cudaError_t parz_gpu_launch_offsets(const table_args* h, const table_args* d, unsigned n,
                                    cudaStream_t stream) {
  unsigned long long units = 0;
  for (unsigned i = 0; i < n; i++)
    units = h[i].units > units ? h[i].units : units;
  const dim3 grid((unsigned)((units + 255) / 256), n);
  if (d)
    offsets_kernel<true><<<grid, 256, 0, stream>>>(h[0], d);
  else
    offsets_kernel<false><<<grid, 256, 0, stream>>>(h[0], NULL);
  return cudaGetLastError();
}

size_t parz_gpu_payload_offset(const parz_chunk_view* v) {
  return v->chunk_bytes - v->payload_bytes; /* the payload closes the chunk (FORMAT.md) */
}
size_t parz_gpu_table_offset(const parz_chunk_view* v) {
  return parz_gpu_payload_offset(v) - (size_t)(v->payload - v->table_data);
}
size_t parz_gpu_exceptions_offset(const parz_chunk_view* v) {
  return parz_gpu_payload_offset(v) - (size_t)(v->payload - v->exceptions);
}
size_t parz_gpu_checksums_offset(const parz_chunk_view* v) {
  return parz_gpu_payload_offset(v) - (size_t)(v->payload - v->checksums);
}
size_t parz_gpu_section_offset(const parz_chunk_view* v, const unsigned char* p) {
  return parz_gpu_payload_offset(v) - (size_t)(v->payload - p);
}

unsigned long long parz_gpu_record_bytes(const parz_chunk_view* v) {
  return 8 + (((unsigned long long)v->length_bytes * v->partition_segments + 7) & ~7ull);
}

int parz_gpu_enqueue_offsets(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                             const parz_gpu_scratch* s, cudaStream_t stream, parz_error* err) {
  table_args a;
  if (v->table != PARZ_TABLE_NONE && v->table != PARZ_TABLE_OFFSETS &&
      v->table != PARZ_TABLE_HYBRID && v->table != PARZ_TABLE_LENGTHS)
    return parz_fail(err, PARZ_ERR_FORMAT, "unknown table kind %d", (int)v->table);
  if (!parz_gpu_table_args_init(ctx, v, d_chunk, s, &a))
    return PARZ_OK;
  cudaError_t e = parz_gpu_launch_offsets(&a, NULL, 1, stream);
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "segment offsets launch");
}

/* One thread per record: u64 position, u64 bit pattern (FORMAT.md, "Exceptions"). */
__global__ void exceptions_kernel(const unsigned char* rec, unsigned long long n, int wide,
                                  void* dst) {
  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned long long pos = parz_gpu_load_le(rec + 16 * i, 8);
  unsigned long long bits = parz_gpu_load_le(rec + 16 * i + 8, 8);
  if (wide)
    ((unsigned long long*)dst)[pos] = bits;
  else
    ((unsigned int*)dst)[pos] = (unsigned int)bits;
}

int parz_gpu_enqueue_exceptions(parz_gpu_context* ctx, const parz_chunk_view* v,
                                const void* d_chunk, void* d_dst, cudaStream_t stream,
                                parz_error* err) {
  (void)ctx;
  if (!v->nexceptions)
    return PARZ_OK;
  exceptions_kernel<<<(unsigned)((v->nexceptions + 255) / 256), 256, 0, stream>>>(
      (const unsigned char*)d_chunk + parz_gpu_exceptions_offset(v), v->nexceptions,
      parz_type_size(v->array.type) == 8, d_dst);
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "exception patch launch");
}

/* Every record: no segment or partition (~0), no fault. */
__global__ void fault_reset_kernel(parz_gpu_fault* f, unsigned long long n) {
  const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    f[i].segment = ~0ull;
    f[i].partition = ~0ull;
    f[i].code = PARZ_GPU_FAULT_NONE;
  }
}

int parz_gpu_fault_clear(parz_gpu_context* ctx, size_t n, cudaStream_t stream, parz_error* err) {
  ctx->refused = SIZE_MAX;
  if (n > ctx->fault_clean) {
    fault_reset_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(
        (parz_gpu_fault*)ctx->d_fault.ptr, n);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
      return parz_gpu_cuda_fail(err, e, "clearing the fault records");
  }
  ctx->fault_clean = 0; /* until fault_check reads them clean */
  return PARZ_OK;
}

void parz_gpu_refuse(parz_gpu_context* ctx, const parz_gpu_scratch* s, const parz_error* e) {
  const size_t i = (size_t)(s->fault - (const parz_gpu_fault*)ctx->d_fault.ptr);
  if (i < ctx->refused) {
    ctx->refused = i;
    ctx->refused_err = *e;
  }
}

int parz_gpu_fault_check(parz_gpu_context* ctx, const parz_chunk_view* views, size_t n,
                         cudaStream_t stream, size_t* failed, parz_error* err) {
  const parz_gpu_fault* h = (const parz_gpu_fault*)ctx->h_fault.ptr;
  size_t i;
  cudaError_t e = cudaMemcpyAsync(ctx->h_fault.ptr, ctx->d_fault.ptr, n * sizeof *h,
                                  cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, n > 1 ? "decoding the chunks" : "decoding the chunk");
  for (i = 0; i < n && !h[i].code; i++)
    ;
  if (i == n)
    ctx->fault_clean = n;
  if (ctx->refused < i) {
    i = ctx->refused;
    if (failed)
      *failed = i;
    if (n == 1)
      return parz_fail(err, ctx->refused_err.code, "%s", ctx->refused_err.message);
    return parz_fail(err, ctx->refused_err.code, "chunk %zu of %zu: %s", i, n,
                     ctx->refused_err.message);
  }
  if (i == n)
    return PARZ_OK;
  if (failed)
    *failed = i;
  char which[48] = "";
  if (n > 1)
    snprintf(which, sizeof which, "chunk %zu of %zu: ", i, n);
  const parz_gpu_fault* f = &h[i];
  const parz_chunk_view* v = &views[i];
  /* the CPU decoders verify every partition before decoding: a bad checksum comes first */
  if (f->code & PARZ_GPU_FAULT_CHECKSUM) {
    const unsigned long long last = (f->partition + 1) * v->checksum_segments;
    return parz_fail(err, PARZ_ERR_CHECKSUM,
                     "%spayload checksum of partition %llu of %llu (segments %llu to %llu) does "
                     "not match: corrupt payload (GPU decoder)",
                     which, f->partition, (unsigned long long)v->nchecksums,
                     f->partition * v->checksum_segments,
                     (last < v->nsegments ? last : (unsigned long long)v->nsegments) - 1);
  }
  if (f->code & PARZ_GPU_FAULT_OVERRUN)
    return parz_fail(err, PARZ_ERR_STREAM,
                     "%ssegment %llu of %llu reads past the end of the %zu-byte payload: corrupt "
                     "payload (GPU decoder)",
                     which, f->segment, (unsigned long long)v->nsegments, v->payload_bytes);
  if (f->code & PARZ_GPU_FAULT_END)
    return parz_fail(err, PARZ_ERR_STREAM,
                     "%ssegment %llu of %llu does not end where the table says: corrupt payload "
                     "(GPU decoder)",
                     which, f->segment, (unsigned long long)v->nsegments);
  return parz_fail(err, PARZ_ERR_STREAM,
                   "%sthe decoded value at %llu leaves the codec's range: corrupt payload (GPU "
                   "decoder)",
                   which, f->segment);
}
