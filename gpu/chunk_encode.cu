/* Filter path for writes: host array in, host chunk out.
 *
 * The array goes up through pinned memory in pieces: the context's host threads copy piece k
 * from the caller's (pageable) buffer into pinned memory while piece k - 1 is on its way to the
 * device, as pageable memory uploads several times slower than pinned and one host thread copies
 * slower than PCIe carries. The device API then encodes it; the chunk, several times smaller,
 * comes down the same way in one piece:
 *
 *   host threads : copy 0 | copy 1 | copy 2 | ...              | copy the chunk out
 *   stream       :        | H2D 0  | H2D 1  | ... | encode | D2H |
 */
#include <string.h>

#include "exceptions.h" /* PARZ_EXCEPTION_BYTES */
#include "gpu_internal.h"
#include "table.h"      /* parz_chunk_layout */

/* Pieces of at least this many bytes: smaller ones cost more in copies and waits than their
 * overlap saves. */
#define PIECE_MIN_BYTES ((size_t)4 << 20)

/* Uploads `bytes` of src into ctx->d_out through h_in, in pieces (see above). */
static int upload(parz_gpu_context* ctx, const unsigned char* src, size_t bytes, parz_error* err)
{
  unsigned char* h_in = (unsigned char*)ctx->h_in.ptr;
  const int nthreads = parz_host_pool_size(ctx->host_pool);
  size_t pieces = bytes / PIECE_MIN_BYTES;
  pieces = pieces < 1 ? 1 : pieces > PARZ_GPU_PIECES_MAX ? PARZ_GPU_PIECES_MAX : pieces;
  for (size_t k = 0; k < pieces; k++) {
    const size_t a = bytes * k / pieces, b = bytes * (k + 1) / pieces;
    parz_host_pool_each(ctx->host_pool, [&](int t) {
      parz_gpu_copy_share(h_in + a, src + a, b - a, t, nthreads);
    });
    cudaError_t e = cudaMemcpyAsync((unsigned char*)ctx->d_out.ptr + a, h_in + a, b - a,
                                    cudaMemcpyHostToDevice, ctx->stream);
    if (e != cudaSuccess)
      return parz_gpu_cuda_fail(err, e, "uploading the array");
  }
  return PARZ_OK;
}

extern "C" int parz_gpu_chunk_encode(parz_gpu_context* ctx, const parz_array* a, const void* data,
                                     const parz_chunk_config* cfg, void* dst, size_t dst_bytes,
                                     size_t* written, parz_error* err)
{
  parz_chunk_view v;
  size_t size = 0, cap, full;
  cudaError_t e;
  int rc;
  if (written)
    *written = 0;
  if (!ctx || !a || !data || !dst)
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_chunk_encode: NULL argument");
  if ((rc = parz_chunk_layout(&v, a, cfg, err)) != PARZ_OK)
    return rc;
  for (unsigned k = 0; k < a->dims; k++)
    if (a->stride[k])
      return parz_fail(err, PARZ_ERR_UNSUPPORTED, "parz_gpu_chunk_encode: strided array");
  /* room for the chunk on the device: at most the caller's, and at first none for exception
   * records, which every value of a float array might need (parz_chunk_bound) and almost none
   * has; a chunk that then does not fit is encoded again with room for all */
  full = parz_chunk_bound(a, cfg);
  if (full > dst_bytes)
    full = dst_bytes;
  cap = full;
  if (a->type == PARZ_FLOAT || a->type == PARZ_DOUBLE) {
    const size_t records = PARZ_EXCEPTION_BYTES * (v.raw_bytes / parz_type_size(a->type));
    if (parz_chunk_bound(a, cfg) - records < cap)
      cap = parz_chunk_bound(a, cfg) - records;
  }
  if ((e = cudaSetDevice(ctx->device)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");
  if ((rc = parz_gpu_reserve(&ctx->h_in, v.raw_bytes, 1, err)) != PARZ_OK ||
      (rc = parz_gpu_reserve(&ctx->d_out, v.raw_bytes, 0, err)) != PARZ_OK ||
      (rc = upload(ctx, (const unsigned char*)data, v.raw_bytes, err)) != PARZ_OK)
    return rc;
  for (;;) {
    if ((rc = parz_gpu_reserve(&ctx->d_chunk, cap, 0, err)) != PARZ_OK)
      return rc;
    rc = parz_gpu_encode_device(ctx, a, ctx->d_out.ptr, cfg, ctx->d_chunk.ptr, cap, &size,
                                ctx->stream, err);
    if (rc != PARZ_ERR_BUFFER || cap == full)
      break;
    cap = full;
  }
  if (rc != PARZ_OK)
    return rc;
  if ((rc = parz_gpu_reserve(&ctx->h_out, size, 1, err)) != PARZ_OK)
    return rc;
  e = cudaMemcpyAsync(ctx->h_out.ptr, ctx->d_chunk.ptr, size, cudaMemcpyDeviceToHost, ctx->stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "downloading the chunk");
  const int nthreads = parz_host_pool_size(ctx->host_pool);
  parz_host_pool_each(ctx->host_pool, [&](int t) {
    parz_gpu_copy_share((unsigned char*)dst, (const unsigned char*)ctx->h_out.ptr, size, t, nthreads);
  });
  if (written)
    *written = size;
  return PARZ_OK;
}
