/* Table -> absolute segment offsets, non-finite exception patching, and the device fault word.
 *
 * The decode kernels read one u64 offset per segment (and the next one, to check where the
 * segment ends) whatever the table kind, so the table is expanded once per chunk: 8 bytes per
 * segment, well under 1% of the decoded bytes at any sensible C. HYBRID partitions are
 * independent: one warp per partition turns its lengths into offsets with a warp prefix sum
 * (Noordsij 2019, strategy 3: no inter-warp dependency). LENGTHS, one long partition, uses a
 * single warp: it is the rare kind and only has to keep up with the decode kernel.
 * Table bytes are read byte by byte (little-endian on any device, no alignment assumption);
 * parz_chunk_parse has validated the table on the host, so every offset is inside the payload. */
#include "gpu_internal.h"

struct table_args {
  const unsigned char* table;
  unsigned long long* offsets;
  unsigned long long nsegments;
  unsigned long long payload_bits;
  unsigned long long fixed_segment_bits; /* NONE: C * maxbits */
  unsigned long long record_bytes;       /* HYBRID: bytes of a full partition record */
  unsigned long long P;                  /* segments per partition (LENGTHS: all) */
  unsigned width;                        /* length field bytes */
  int kind;
};

/* NONE and OFFSETS: one thread per segment. */
__global__ void direct_offsets_kernel(const table_args a)
{
  unsigned long long s = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (s < a.nsegments)
    a.offsets[s] = a.kind == PARZ_TABLE_NONE ? s * a.fixed_segment_bits
                                             : parz_gpu_load_le(a.table + 8 * s, 8);
  if (s == 0)
    a.offsets[a.nsegments] = a.payload_bits;
}

/* HYBRID (one warp per partition) and LENGTHS (one warp, one partition without a base). */
__global__ void scan_offsets_kernel(const table_args a)
{
  const unsigned lane = threadIdx.x & 31u;
  const unsigned long long part =
      ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
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
    unsigned long long incl = len;
#pragma unroll
    for (unsigned d = 1; d < 32; d <<= 1) {
      unsigned long long t = __shfl_up_sync(0xffffffffu, incl, d);
      if (lane >= d)
        incl += t;
    }
    if (j < m)
      a.offsets[s0 + j] = base + incl - len;
    base += __shfl_sync(0xffffffffu, incl, 31);
  }
  if (s0 + m == a.nsegments && lane == 0)
    a.offsets[a.nsegments] = a.payload_bits;
}

size_t parz_gpu_payload_offset(const parz_chunk_view* v)
{
  return v->chunk_bytes - v->payload_bytes; /* the payload closes the chunk (FORMAT.md) */
}
size_t parz_gpu_table_offset(const parz_chunk_view* v)
{
  return parz_gpu_payload_offset(v) - (size_t)(v->payload - v->table_data);
}
size_t parz_gpu_exceptions_offset(const parz_chunk_view* v)
{
  return parz_gpu_payload_offset(v) - (size_t)(v->payload - v->exceptions);
}

unsigned long long parz_gpu_record_bytes(const parz_chunk_view* v)
{
  return 8 + (((unsigned long long)v->length_bytes * v->partition_segments + 7) & ~7ull);
}

int parz_gpu_enqueue_offsets(parz_gpu_context* ctx, const parz_chunk_view* v,
                             const void* d_chunk, cudaStream_t stream, parz_error* err)
{
  table_args a;
  int rc;
  if ((rc = parz_gpu_reserve(&ctx->d_offsets, 8 * (size_t)(v->nsegments + 1), 0, err)) !=
      PARZ_OK)
    return rc;
  if (parz_gpu_parse_offsets(ctx, v))
    return PARZ_OK; /* the lengths kernel reads them from the table */
  a.table = (const unsigned char*)d_chunk + parz_gpu_table_offset(v);
  a.offsets = (unsigned long long*)ctx->d_offsets.ptr;
  a.nsegments = v->nsegments;
  a.payload_bits = v->payload_bits;
  a.fixed_segment_bits = (unsigned long long)v->segment_blocks * v->params.maxbits;
  a.width = v->length_bytes;
  a.kind = v->table;
  a.record_bytes = parz_gpu_record_bytes(v);
  switch (v->table) {
    case PARZ_TABLE_NONE:
    case PARZ_TABLE_OFFSETS:
      direct_offsets_kernel<<<(unsigned)((v->nsegments + 255) / 256), 256, 0, stream>>>(a);
      break;
    case PARZ_TABLE_HYBRID:
    case PARZ_TABLE_LENGTHS: {
      unsigned long long parts;
      a.P = v->table == PARZ_TABLE_HYBRID ? v->partition_segments : v->nsegments;
      parts = v->table == PARZ_TABLE_HYBRID ? v->npartitions : 1;
      scan_offsets_kernel<<<(unsigned)((parts + 7) / 8), 256, 0, stream>>>(a);
      break;
    }
    default:
      return parz_fail(err, PARZ_ERR_FORMAT, "unknown table kind %d", (int)v->table);
  }
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "segment offsets launch");
}

/* One thread per record: u64 position, u64 bit pattern (FORMAT.md, "Exceptions"). */
__global__ void exceptions_kernel(const unsigned char* rec, unsigned long long n, int wide,
                                  void* dst)
{
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
                                parz_error* err)
{
  (void)ctx;
  if (!v->nexceptions)
    return PARZ_OK;
  exceptions_kernel<<<(unsigned)((v->nexceptions + 255) / 256), 256, 0, stream>>>(
      (const unsigned char*)d_chunk + parz_gpu_exceptions_offset(v), v->nexceptions,
      parz_type_size(v->array.type) == 8, d_dst);
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "exception patch launch");
}

int parz_gpu_fault_clear(parz_gpu_context* ctx, cudaStream_t stream, parz_error* err)
{
  cudaError_t e = cudaSuccess;
  if (ctx->fault_dirty) {
    e = cudaMemsetAsync(ctx->d_fault.ptr, 0xff, 8, stream);
    if (e == cudaSuccess)
      e = cudaMemsetAsync((char*)ctx->d_fault.ptr + 8, 0, sizeof(parz_gpu_fault) - 8, stream);
    if (e != cudaSuccess)
      return parz_gpu_cuda_fail(err, e, "clearing the fault word");
  }
  ctx->fault_dirty = 1; /* until fault_check reads it clean */
  return PARZ_OK;
}

int parz_gpu_fault_check(parz_gpu_context* ctx, const parz_chunk_view* v, cudaStream_t stream,
                         parz_error* err)
{
  parz_gpu_fault* f = (parz_gpu_fault*)ctx->h_fault.ptr;
  cudaError_t e = cudaMemcpyAsync(f, ctx->d_fault.ptr, sizeof *f, cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "decoding the chunk");
  if (!f->code) {
    ctx->fault_dirty = 0;
    return PARZ_OK;
  }
  if (f->code & PARZ_GPU_FAULT_OVERRUN)
    return parz_fail(err, PARZ_ERR_STREAM,
                     "segment %llu of %llu reads past the end of the %zu-byte payload: corrupt "
                     "payload (GPU decoder)",
                     f->segment, (unsigned long long)v->nsegments, v->payload_bytes);
  return parz_fail(err, PARZ_ERR_STREAM,
                   "segment %llu of %llu does not end where the table says: corrupt payload "
                   "(GPU decoder)",
                   f->segment, (unsigned long long)v->nsegments);
}
