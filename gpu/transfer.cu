/* Arrays moved between pageable host memory and GPU memory, plain device allocations, and the
 * check that a pointer is GPU memory.
 *
 * PCIe moves data into and out of pinned memory several times faster than pageable memory, and
 * one host thread copies memory slower than PCIe delivers it. So an array comes down in pieces
 * into the context's pinned buffer on its copy stream, while its host threads move each finished
 * piece on into the destination: the copies overlap the transfer, and the destination's pages are
 * first touched (faulted in) by several threads at once. An array goes up the same way round:
 * the host threads fill piece k of the pinned buffer while piece k - 1 is on its way. */
#include <string.h>

#include <atomic>
#include <thread>

#include "block_common.h"
#include "fresh_pages.h"
#include "gpu_internal.h"

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
  npieces = (int)PARZ_MIN(PARZ_MAX(bytes / PARZ_GPU_PIECE_MIN_BYTES, (size_t)1),
                          (size_t)PARZ_GPU_PIECES_MAX);
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

static void populate_job(void* arg, int t) {
  const parz_gpu_context* ctx = (const parz_gpu_context*)arg;
  const int workers = parz_host_pool_size(ctx->host_pool) - 1;
  parz_populate_slice(ctx->populate_dst, ctx->populate_bytes, t - 1, workers);
}

extern "C" void parz_gpu_populate_start(parz_gpu_context* ctx, void* dst, size_t bytes) {
  if (!ctx || !dst || !bytes)
    return;
  parz_host_pool_wait(ctx->host_pool);
  ctx->populate_dst = dst;
  ctx->populate_bytes = bytes;
  parz_host_pool_start(ctx->host_pool, populate_job, ctx);
}

extern "C" void parz_gpu_populate_wait(parz_gpu_context* ctx) {
  if (ctx)
    parz_host_pool_wait(ctx->host_pool);
}

/* Upload pieces (ctx->upload_piece bytes): the host threads fill one while the one before is on
 * its way. Where host memory serves both at full speed the upload takes about the longer of the
 * host copy and the transfer, plus one piece; where the two contend for it, nearer their sum.
 * Pieces cost a spin on a counter each, no wake-up of the threads (they run one job). */
int parz_gpu_enqueue_upload(parz_gpu_context* ctx, const void* src, void* d_dst, size_t bytes,
                            cudaStream_t st, parz_error* err) {
  const unsigned char* from = (const unsigned char*)src;
  const int nthreads = parz_host_pool_size(ctx->host_pool);
  size_t pieces = bytes / ctx->upload_piece;
  std::atomic<int> copied[PARZ_GPU_PIECES_MAX];
  std::atomic<int> cuda_code(0);
  int rc;
  if (bytes == 0)
    return PARZ_OK;
  if ((rc = parz_gpu_reserve(&ctx->h_in, bytes, 1, err)) != PARZ_OK)
    return rc;
  unsigned char* h_in = (unsigned char*)ctx->h_in.ptr;
  pieces = pieces < 1 ? 1 : pieces > PARZ_GPU_PIECES_MAX ? PARZ_GPU_PIECES_MAX : pieces;
  for (size_t k = 0; k < pieces; k++)
    copied[k] = 0;
  /* every thread copies its share of each piece in turn; thread 0 queues a piece's transfer
   * once every share of it is in */
  parz_host_pool_each(ctx->host_pool, [&](int t) {
    for (size_t k = 0; k < pieces; k++) {
      const size_t a = bytes * k / pieces, b = bytes * (k + 1) / pieces;
      parz_gpu_copy_share(h_in + a, from + a, b - a, t, nthreads);
      copied[k].fetch_add(1, std::memory_order_release);
      if (t != 0)
        continue;
      while (copied[k].load(std::memory_order_acquire) < nthreads)
        std::this_thread::yield();
      cudaError_t e = cuda_code ? cudaSuccess
                                : cudaMemcpyAsync((unsigned char*)d_dst + a, h_in + a, b - a,
                                                  cudaMemcpyHostToDevice, st);
      if (e != cudaSuccess)
        cuda_code = (int)e;
    }
  });
  if (cuda_code)
    return parz_gpu_cuda_fail(err, (cudaError_t)(int)cuda_code, "uploading the array");
  return PARZ_OK;
}

extern "C" int parz_gpu_upload(parz_gpu_context* ctx, const void* src, void* d_dst, size_t bytes,
                               void* stream, parz_error* err) {
  cudaError_t e;
  int rc;
  if (!ctx || (bytes && (!src || !d_dst)))
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_upload: NULL argument");
  if ((e = cudaSetDevice(ctx->device)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");
  if ((rc = parz_gpu_enqueue_upload(ctx, src, d_dst, bytes, (cudaStream_t)stream, err)) != PARZ_OK)
    return rc;
  e = cudaStreamSynchronize((cudaStream_t)stream);
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "uploading the array");
}

extern "C" int parz_gpu_check_memory(parz_gpu_context* ctx, const void* ptr, parz_error* err) {
  cudaPointerAttributes at;
  cudaError_t e;
  if (!ctx || !ptr)
    return parz_fail(err, PARZ_ERR_ARG, "NULL pointer or context");
  if ((e = cudaSetDevice(ctx->device)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");
  memset(&at, 0, sizeof at);
  e = cudaPointerGetAttributes(&at, ptr);
  cudaGetLastError(); /* a failed query is not the context's error */
  if (e != cudaSuccess || at.type == cudaMemoryTypeUnregistered)
    return parz_fail(err, PARZ_ERR_ARG, "the array is pageable host memory, not GPU memory");
  if (at.type == cudaMemoryTypeDevice && at.device != ctx->device)
    return parz_fail(err, PARZ_ERR_ARG, "the array lives on GPU %d, the context on GPU %d",
                     at.device, ctx->device);
  return PARZ_OK;
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
