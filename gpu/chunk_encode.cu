/* Filter path for writes: host array in, host chunk out.
 *
 * The array goes up through pinned memory in pieces: the context's host threads copy piece k
 * from the caller's (pageable) buffer into pinned memory while piece k - 1 is on its way to the
 * device, as pageable memory uploads several times slower than pinned and one host thread copies
 * slower than PCIe carries. The device API then encodes it into a device buffer of exactly the
 * chunk's size; the chunk, several times smaller than the array, comes down the same way in one
 * piece:
 *
 *   host threads : copy 0 | copy 1 | copy 2 | ...              | copy the chunk out
 *   stream       :        | H2D 0  | H2D 1  | ... | encode | D2H |
 *
 * The caller's buffer for the chunk may come from its allocator once the chunk's size is known
 * (the block kernel's sizes, read back before the chunk is written): the filter then allocates
 * the chunk's size, with no pass over the array on the host to bound it.
 */
#include <string.h>

#include "gpu_codecs.h"

/* The chunk in the context's d_chunk, grown to its size, which must fit the caller's buffer
 * (when the caller gave one). */
struct chunk_place {
  parz_gpu_context* ctx;
  const void* dst;
  size_t dst_bytes;
};

static int place_chunk(void* arg, size_t n, const size_t* sizes, void** d_chunks, size_t* failed,
                       parz_error* err) {
  chunk_place* p = (chunk_place*)arg;
  int rc;
  (void)n;
  (void)failed;
  if (p->dst && sizes[0] > p->dst_bytes)
    return parz_fail(err, PARZ_ERR_BUFFER, "chunk needs %zu bytes, buffer has %zu", sizes[0],
                     p->dst_bytes);
  if ((rc = parz_gpu_reserve_slack(&p->ctx->d_chunk, sizes[0], 0, err)) != PARZ_OK)
    return rc;
  d_chunks[0] = p->ctx->d_chunk.ptr;
  return PARZ_OK;
}

extern "C" int parz_gpu_chunk_encode(parz_gpu_context* ctx, const parz_array* a, const void* data,
                                     const parz_chunk_config* cfg, void* dst, size_t dst_bytes,
                                     parz_chunk_alloc alloc, void* alloc_arg, size_t* written,
                                     parz_error* err) {
  parz_chunk_view v;
  size_t size = 0;
  cudaError_t e;
  int rc;
  if (written)
    *written = 0;
  if (!ctx || !a || !data || (!dst && !alloc))
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_chunk_encode: NULL argument");
  const parz_gpu_codec* codec; /* parz_gpu_encode_placed launches its kernels */
  if ((rc = parz_gpu_codec_encoder(a, cfg, &v, &codec, err)) != PARZ_OK)
    return rc;
  for (unsigned k = 0; k < a->dims; k++)
    if (a->stride[k])
      return parz_fail(err, PARZ_ERR_UNSUPPORTED, "parz_gpu_chunk_encode: strided array");
  if ((e = cudaSetDevice(ctx->device)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");
  chunk_place place = {ctx, dst, dst_bytes};
  if ((rc = parz_gpu_reserve(&ctx->d_out, v.raw_bytes, 0, err)) != PARZ_OK ||
      (rc = parz_gpu_enqueue_upload(ctx, data, ctx->d_out.ptr, v.raw_bytes, ctx->stream, err)) !=
          PARZ_OK ||
      (rc = parz_gpu_encode_placed(ctx, 1, a, (const void* const*)&ctx->d_out.ptr, cfg, place_chunk,
                                   &place, &size, ctx->stream, NULL, err)) != PARZ_OK ||
      (rc = parz_gpu_reserve_slack(&ctx->h_out, size, 1, err)) != PARZ_OK)
    return rc;
  e = cudaMemcpyAsync(ctx->h_out.ptr, ctx->d_chunk.ptr, size, cudaMemcpyDeviceToHost, ctx->stream);
  /* the caller's buffer, allocated while the chunk is written and comes down */
  if (!dst)
    dst = alloc(alloc_arg, size);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "downloading the chunk");
  if (!dst)
    return parz_fail(err, PARZ_ERR_NOMEM, "no buffer for a chunk of %zu bytes", size);
  const int nthreads = parz_host_pool_size(ctx->host_pool);
  parz_host_pool_each(ctx->host_pool, [&](int t) {
    parz_gpu_copy_share((unsigned char*)dst, (const unsigned char*)ctx->h_out.ptr, size, t,
                        nthreads);
  });
  if (written)
    *written = size;
  return PARZ_OK;
}
