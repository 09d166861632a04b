/* The GPU decoder's device API and its batches: the frame's work (arguments, scratch, fault
 * records) around the kernels of each chunk's codec, reached through the GPU's codec table
 * (gpu_codecs.h). */
#include <stdlib.h>
#include <string.h>

#include "gpu_codecs.h"

int parz_gpu_enqueue_chunk(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                           void* d_dst, const parz_gpu_scratch* s, const parz_gpu_shape* shape,
                           cudaStream_t st, parz_error* err) {
  const parz_gpu_codec* codec;
  int rc = parz_gpu_codec_decoder(v, 0, &codec, err);
  return rc == PARZ_OK ? codec->enqueue_chunk(ctx, v, d_chunk, d_dst, s, shape, st, err) : rc;
}

/* Chunks per run: gridDim.y's limit. */
#define RUN_MAX 65535

int parz_gpu_enqueue_chunks(parz_gpu_context* ctx, const parz_chunk_view* views,
                            const void* const* d_chunks, void* const* d_dsts, size_t n,
                            const parz_gpu_scratch* s, cudaStream_t st, parz_error* err) {
  const size_t per = parz_gpu_codec_run_bytes();
  size_t i = 0, j;
  int rc;
  if (n > 1) {
    /* the last call's arguments may still be on their way up from h_args */
    cudaError_t e = cudaEventSynchronize(ctx->args_copied);
    if (e != cudaSuccess)
      return parz_gpu_cuda_fail(err, e, "waiting for the last batch's arguments");
    if ((rc = parz_gpu_reserve(&ctx->h_args, n * per, 1, err)) != PARZ_OK ||
        (rc = parz_gpu_reserve(&ctx->d_args, n * per, 0, err)) != PARZ_OK)
      return rc;
  }
  while (i < n) {
    const parz_chunk_view* v = &views[i];
    const parz_gpu_codec* codec;
    if ((rc = parz_gpu_codec_decoder(v, i, &codec, err)) != PARZ_OK)
      return rc;
    j = i + 1;
    while (codec->enqueue_run && j < n && j - i < RUN_MAX && views[j].codec == v->codec &&
           views[j].array.type == v->array.type && views[j].array.dims == v->array.dims)
      j++;
    if (j - i == 1)
      rc = codec->enqueue_chunk(ctx, v, d_chunks[i], d_dsts[i], &s[i], NULL, st, err);
    else
      rc = codec->enqueue_run(ctx, v, d_chunks + i, d_dsts + i, j - i, s + i,
                              (unsigned char*)ctx->h_args.ptr + i * per,
                              (unsigned char*)ctx->d_args.ptr + i * per, st, err);
    if (rc != PARZ_OK)
      return rc;
    i = j;
  }
  return PARZ_OK;
}

/* Checks the arguments of the device API, then refuses a chunk of a codec without GPU kernels,
 * before any work. */
static int check_device_args(size_t n, const parz_chunk_view* views, const void* const* d_chunks,
                             void* const* d_dsts, parz_error* err) {
  size_t i;
  if (n && (!views || !d_chunks || !d_dsts))
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_decode_device: NULL argument");
  for (i = 0; i < n; i++) {
    if (!d_chunks[i] || !d_dsts[i])
      return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_decode_device: NULL pointer for chunk %zu", i);
    if ((uintptr_t)d_chunks[i] % 8)
      return parz_fail(err, PARZ_ERR_ARG,
                       "parz_gpu_decode_device: chunk %zu does not start at an 8-byte aligned "
                       "address",
                       i);
    const size_t size = parz_type_size(views[i].array.type);
    if (!size)
      return parz_fail(err, PARZ_ERR_TYPE, "parz_gpu_decode_device: chunk %zu has type %d", i,
                       (int)views[i].array.type);
    if ((uintptr_t)d_dsts[i] % size)
      return parz_fail(err, PARZ_ERR_ARG,
                       "parz_gpu_decode_device: the destination of chunk %zu is not aligned to "
                       "its %zu-byte values",
                       i, size);
  }
  for (i = 0; i < n; i++) {
    const parz_gpu_codec* codec;
    const int rc = parz_gpu_codec_decoder(&views[i], i, &codec, err);
    if (rc != PARZ_OK)
      return rc;
  }
  return PARZ_OK;
}

extern "C" int parz_gpu_decode_device_batch(parz_gpu_context* ctx, size_t n,
                                            const parz_chunk_view* views,
                                            const void* const* d_chunks, void* const* d_dsts,
                                            void* stream, size_t* failed, parz_error* err) {
  cudaStream_t st = (cudaStream_t)stream;
  parz_gpu_scratch one, *s = &one;
  cudaError_t e;
  int rc;
  if (!ctx)
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_decode_device: NULL context");
  if ((rc = check_device_args(n, views, d_chunks, d_dsts, err)) != PARZ_OK || n == 0)
    return rc;
  if ((e = cudaSetDevice(ctx->device)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");
  if (n > 1 && !(s = (parz_gpu_scratch*)malloc(n * sizeof *s)))
    return parz_fail(err, PARZ_ERR_NOMEM, "no memory for %zu chunks' scratch", n);
  if ((rc = parz_gpu_scratch_reserve(ctx, views, n, s, err)) == PARZ_OK &&
      (rc = parz_gpu_fault_clear(ctx, n, st, err)) == PARZ_OK &&
      (rc = parz_gpu_enqueue_chunks(ctx, views, d_chunks, d_dsts, n, s, st, err)) == PARZ_OK)
    rc = parz_gpu_fault_check(ctx, views, n, st, failed, err);
  if (s != &one)
    free(s);
  return rc;
}

extern "C" int parz_gpu_decode_device(parz_gpu_context* ctx, const parz_chunk_view* view,
                                      const void* d_chunk, void* d_dst, void* stream,
                                      parz_error* err) {
  return parz_gpu_decode_device_batch(ctx, 1, view, &d_chunk, &d_dst, stream, NULL, err);
}
