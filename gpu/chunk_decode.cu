/* Filter path: host chunk in, host array out.
 *
 * The bound is the copy of the decoded array into the caller's pageable buffer (HDF5's): PCIe
 * moves decoded bytes to pinned memory several times faster than to pageable memory, and one host
 * thread copies memory slower than PCIe delivers it. So the array comes down in pieces into a
 * pinned buffer on a copy stream while several host threads move finished pieces on into the
 * pageable destination; the decode is sliced by segments so that the first pieces come down
 * while later segments still decode:
 *
 *   host threads : stage chunk | ............ copy piece 0 | copy piece 1 | ...
 *   stream       : H2D | offsets | slice 0 | slice 1 | slice 2 ...
 *   copy stream  :                 D2H 0    | D2H 1   | D2H 2 ...
 *
 * Non-finite exceptions are patched on the host afterwards by the codec's own patcher (pieces
 * may already be in the destination by the time the last slice has decoded). */
#include <string.h>

#include "gpu_codecs.h"

extern "C" int parz_gpu_chunk_decode(parz_gpu_context* ctx, const void* src, size_t src_bytes,
                                     void* dst, size_t dst_bytes, parz_error* err) {
  parz_chunk_view v;
  parz_gpu_scratch s;
  const parz_gpu_codec* codec;
  int rc, npieces, i, nthreads;
  size_t piece_end[PARZ_GPU_PIECES_MAX];
  cudaError_t e;
  if (!ctx || !src || !dst)
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_chunk_decode: NULL argument");
  if ((rc = parz_chunk_parse(src, src_bytes, &v, err)) != PARZ_OK ||
      (rc = parz_chunk_fits(&v, dst, dst_bytes, err)) != PARZ_OK ||
      (rc = parz_gpu_codec_decoder(&v, 0, &codec, err)) != PARZ_OK)
    return rc;
  if (!codec->enqueue_segments) /* host to host, a copy: through the GPU it would be three */
    return parz_chunk_decode_segments(&v, dst, 0, v.nsegments, err);
  if ((e = cudaSetDevice(ctx->device)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");
  /* the scratch first: it refuses a chunk the decoder does not take before any large buffer */
  if ((rc = parz_gpu_scratch_reserve(ctx, &v, 1, &s, err)) != PARZ_OK ||
      (rc = parz_gpu_reserve(&ctx->d_chunk, src_bytes, 0, err)) != PARZ_OK ||
      (rc = parz_gpu_reserve(&ctx->d_out, v.raw_bytes, 0, err)) != PARZ_OK ||
      (rc = parz_gpu_reserve(&ctx->h_in, src_bytes, 1, err)) != PARZ_OK ||
      (rc = parz_gpu_reserve(&ctx->h_out, v.raw_bytes, 1, err)) != PARZ_OK)
    return rc;

  unsigned char* h_in = (unsigned char*)ctx->h_in.ptr;
  unsigned char* h_out = (unsigned char*)ctx->h_out.ptr;
  unsigned char* d_out = (unsigned char*)ctx->d_out.ptr;
  nthreads = parz_host_pool_size(ctx->host_pool);
  parz_host_pool_each(ctx->host_pool, [&](int t) {
    parz_gpu_copy_share(h_in, (const unsigned char*)src, src_bytes, t, nthreads);
  });
  e = cudaMemcpyAsync(ctx->d_chunk.ptr, h_in, src_bytes, cudaMemcpyHostToDevice, ctx->stream);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "uploading the chunk");
  if ((rc = parz_gpu_fault_clear(ctx, 1, ctx->stream, err)) != PARZ_OK ||
      (rc = parz_gpu_enqueue_offsets(ctx, &v, ctx->d_chunk.ptr, &s, ctx->stream, err)) != PARZ_OK)
    return rc;

  /* slices of segments; piece i = the rows of dimension 0 complete after slice i */
  npieces = (int)(v.raw_bytes / PARZ_GPU_PIECE_MIN_BYTES);
  npieces = npieces < 1 ? 1 : npieces > PARZ_GPU_PIECES_MAX ? PARZ_GPU_PIECES_MAX : npieces;
  if (codec->whole || (uint64_t)npieces > v.nsegments)
    npieces = codec->whole ? 1 : (int)v.nsegments;
  {
    /* a row of blocks spans the codec's block side along dimension 0 */
    const uint64_t side = v.block_side[0] ? v.block_side[0] : 1;
    uint64_t rows = v.array.shape[0], per_row_blocks = v.nblocks / ((rows + side - 1) / side);
    size_t row_bytes = v.raw_bytes / rows, done = 0;
    uint64_t s0 = 0;
    for (i = 0; i < npieces; i++) {
      uint64_t s1 = v.nsegments * (uint64_t)(i + 1) / (uint64_t)npieces;
      uint64_t blocks = s1 * v.segment_blocks < v.nblocks ? s1 * v.segment_blocks : v.nblocks;
      uint64_t rows_done = s1 == v.nsegments ? rows : side * (blocks / per_row_blocks);
      size_t end = (size_t)(rows_done < rows ? rows_done : rows) * row_bytes;
      if ((rc = codec->enqueue_segments(ctx, &v, ctx->d_chunk.ptr, d_out, s0, s1 - s0, &s,
                                        ctx->stream, err)) != PARZ_OK)
        return rc;
      e = cudaEventRecord(ctx->piece_done[i], ctx->stream);
      if (e == cudaSuccess)
        e = cudaStreamWaitEvent(ctx->copy_stream, ctx->piece_done[i], 0);
      if (e == cudaSuccess && end > done)
        e = cudaMemcpyAsync(h_out + done, d_out + done, end - done, cudaMemcpyDeviceToHost,
                            ctx->copy_stream);
      if (e == cudaSuccess)
        e = cudaEventRecord(ctx->piece_done[i], ctx->copy_stream);
      if (e != cudaSuccess)
        return parz_gpu_cuda_fail(err, e, "queueing the download of the decoded array");
      piece_end[i] = end > done ? end : done;
      done = piece_end[i];
      s0 = s1;
    }
  }

  if ((rc = parz_gpu_drain_pieces(ctx, dst, piece_end, npieces, err)) != PARZ_OK)
    return rc;
  if ((rc = parz_gpu_fault_check(ctx, &v, 1, ctx->stream, NULL, err)) != PARZ_OK)
    return rc;
  return parz_chunk_patch_exceptions(&v, dst, err);
}
