/* Arrays in GPU memory brought down to pageable host memory, and plain device allocations.
 *
 * PCIe moves data into pinned memory several times faster than into pageable memory, and one
 * host thread copies memory slower than PCIe delivers it. So an array comes down in pieces into
 * the context's pinned buffer on its copy stream, while its host threads move each finished piece
 * on into the destination: the copies overlap the transfer, and the destination's pages are first
 * touched (faulted in) by several threads at once. */
#include <string.h>

#include <atomic>

#include "block_common.h"
#include "gpu_internal.h"

/* Pieces of at least this many bytes: smaller ones cost more in events than their overlap saves. */
#define PIECE_MIN_BYTES ((size_t)4 << 20)

void parz_gpu_copy_share(unsigned char* dst, const unsigned char* src, size_t bytes, int t, int n) {
  size_t a = bytes * (size_t)t / (size_t)n, b = bytes * (size_t)(t + 1) / (size_t)n;
  if (b > a)
    memcpy(dst + a, src + a, b - a);
}

int parz_gpu_drain_pieces(parz_gpu_context* ctx, void* dst, const size_t* piece_end, int npieces,
                          parz_error* err) {
  const unsigned char* h_out = (const unsigned char*)ctx->h_out.ptr;
  const int nthreads = parz_host_pool_size(ctx->host_pool);
  std::atomic<int> failed(0);
  std::atomic<int> cuda_code(0);
  parz_host_pool_each(ctx->host_pool, [&](int t) {
    size_t begin = 0;
    for (int p = 0; p < npieces; p++) {
      cudaError_t pe = cudaEventSynchronize(ctx->piece_done[p]);
      if (pe != cudaSuccess) {
        failed = 1;
        cuda_code = (int)pe;
        return;
      }
      parz_gpu_copy_share((unsigned char*)dst + begin, h_out + begin, piece_end[p] - begin, t,
                          nthreads);
      begin = piece_end[p];
    }
  });
  if (failed)
    return parz_gpu_cuda_fail(err, (cudaError_t)(int)cuda_code, "downloading an array");
  return PARZ_OK;
}

extern "C" void* parz_gpu_result(parz_gpu_context* ctx, size_t bytes, parz_error* err) {
  if (!ctx) {
    parz_fail(err, PARZ_ERR_ARG, "parz_gpu_result: NULL context");
    return NULL;
  }
  if (cudaSetDevice(ctx->device) != cudaSuccess) {
    parz_fail(err, PARZ_ERR_DEVICE, "parz_gpu_result: cannot select device %d", ctx->device);
    return NULL;
  }
  return parz_gpu_reserve(&ctx->d_result, bytes ? bytes : 1, 0, err) == PARZ_OK ? ctx->d_result.ptr
                                                                                : NULL;
}

extern "C" int parz_gpu_download(parz_gpu_context* ctx, const void* d_src, void* dst, size_t bytes,
                                 void* stream, parz_error* err) {
  size_t piece_end[PARZ_GPU_PIECES_MAX], piece;
  int npieces, i, rc;
  cudaError_t e;
  if (!ctx || (bytes && (!d_src || !dst)))
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_download: NULL argument");
  if (bytes == 0)
    return PARZ_OK;
  if ((e = cudaSetDevice(ctx->device)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");
  if ((rc = parz_gpu_reserve(&ctx->h_out, bytes, 1, err)) != PARZ_OK)
    return rc;
  /* the copy stream starts once the work queued on the caller's stream is done */
  e = cudaEventRecord(ctx->piece_done[0], (cudaStream_t)stream);
  if (e == cudaSuccess)
    e = cudaStreamWaitEvent(ctx->copy_stream, ctx->piece_done[0], 0);
  npieces =
      (int)PARZ_MIN(PARZ_MAX(bytes / PIECE_MIN_BYTES, (size_t)1), (size_t)PARZ_GPU_PIECES_MAX);
  piece = (bytes + (size_t)npieces - 1) / (size_t)npieces;
  for (i = 0; e == cudaSuccess && i < npieces; i++) {
    const size_t begin = (size_t)i * piece, end = PARZ_MIN(bytes, begin + piece);
    piece_end[i] = end;
    e = cudaMemcpyAsync((unsigned char*)ctx->h_out.ptr + begin, (const unsigned char*)d_src + begin,
                        end - begin, cudaMemcpyDeviceToHost, ctx->copy_stream);
    if (e == cudaSuccess)
      e = cudaEventRecord(ctx->piece_done[i], ctx->copy_stream);
  }
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "queueing a download");
  return parz_gpu_drain_pieces(ctx, dst, piece_end, npieces, err);
}

extern "C" void* parz_gpu_malloc(int device, size_t bytes, parz_error* err) {
  void* p = NULL;
  cudaError_t e = cudaSetDevice(device);
  if (e == cudaSuccess)
    e = cudaMalloc(&p, bytes ? bytes : 1);
  if (e != cudaSuccess) {
    parz_gpu_cuda_fail(err, e, "allocating device memory");
    return NULL;
  }
  return p;
}

extern "C" void parz_gpu_free(int device, void* ptr) {
  if (ptr && cudaSetDevice(device) == cudaSuccess)
    cudaFree(ptr);
}
