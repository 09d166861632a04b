/* The device memory of the GPU encoders of whole chunks (gpu_codecs.h, encode_chunks): a call's
 * (or a chunk's) buffers from the stream's allocator, freed in stream order, the host's reads of
 * a few words between their steps, and the chunks, once encoded, copied to their places. Internal
 * to gpu/ (C++/CUDA). */
#ifndef PARZ_GPU_WHOLE_MEMORY_H
#define PARZ_GPU_WHOLE_MEMORY_H

#include <vector>

#include "gpu_internal.h"

/* Device memory of one call (or chunk), from the stream's allocator (from `pool` where it is not
 * NULL: the context's, parz_gpu_enc_pool), freed in stream order. */
struct parz_gpu_whole_memory {
  cudaStream_t st;
  cudaMemPool_t pool;
  std::vector<void*> dev;
  cudaError_t e = cudaSuccess;
  explicit parz_gpu_whole_memory(cudaStream_t s, cudaMemPool_t p = NULL) : st(s), pool(p) {}
  ~parz_gpu_whole_memory() {
    for (void* p : dev)
      cudaFreeAsync(p, st);
  }
  template <typename T>
  T* device(size_t count) {
    void* p = NULL;
    const size_t bytes = count ? count * sizeof(T) : 1;
    if (e == cudaSuccess && (e = pool ? cudaMallocFromPoolAsync(&p, bytes, pool, st)
                                      : cudaMallocAsync(&p, bytes, st)) == cudaSuccess)
      dev.push_back(p);
    return (T*)p;
  }
  template <typename T>
  T* zeroed(size_t count) {
    T* p = device<T>(count);
    if (e == cudaSuccess)
      e = cudaMemsetAsync(p, 0, count ? count * sizeof(T) : 1, st);
    return p;
  }
  void release(void* p) { /* freed now, in stream order */
    for (size_t k = 0; k < dev.size(); k++)
      if (dev[k] == p) {
        cudaFreeAsync(p, st);
        dev.erase(dev.begin() + (long)k);
        return;
      }
  }
};

/* bytes of device memory src into host memory dst, waited for; 0 on a CUDA error (in m.e). */
static inline int parz_gpu_whole_down(parz_gpu_whole_memory& m, void* dst, const void* src,
                                      size_t bytes) {
  if (m.e == cudaSuccess && bytes)
    m.e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, m.st);
  if (m.e == cudaSuccess)
    m.e = cudaStreamSynchronize(m.st);
  return m.e == cudaSuccess;
}

/* A chunk once encoded, waiting for its place: its head on the host, its payload in device
 * memory, or stored (its values as they are). */
struct parz_gpu_whole_chunk {
  std::vector<unsigned char> head;
  unsigned char* payload = NULL;
  size_t payload_bytes = 0;
  int stored = 0;
};

/* The n chunks (written[i] bytes each; arrays and d_data their values) placed by `place`
 * (parz_gpu_encode_placed's contract) and copied there on st, a stored one by
 * parz_gpu_store_chunk; waits for the copies. *failed: the chunk that failed. */
static inline int parz_gpu_whole_place(size_t n, const parz_array* arrays,
                                       const void* const* d_data, const parz_chunk_config* cfg,
                                       const std::vector<parz_gpu_whole_chunk>& chunks,
                                       size_t* written, parz_gpu_enc_place place, void* place_arg,
                                       cudaStream_t st, size_t* failed, parz_error* err) {
  std::vector<void*> d_chunks(n);
  cudaError_t e = cudaSuccess;
  int rc = place(place_arg, n, written, d_chunks.data(), failed, err);
  if (rc != PARZ_OK)
    return rc;
  for (size_t i = 0; i < n && e == cudaSuccess; i++) {
    const parz_gpu_whole_chunk& c = chunks[i];
    if (c.stored) {
      if ((rc = parz_gpu_store_chunk(&arrays[i], d_data[i], cfg, d_chunks[i], st, err)) !=
          PARZ_OK) {
        if (failed)
          *failed = i;
        return rc;
      }
      continue;
    }
    e = cudaMemcpyAsync(d_chunks[i], c.head.data(), c.head.size(), cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync((unsigned char*)d_chunks[i] + c.head.size(), c.payload, c.payload_bytes,
                          cudaMemcpyDeviceToDevice, st);
  }
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "GPU encode: writing the chunks");
  return PARZ_OK;
}

/* The n chunks encoded one after the other, encode(i, &chunk) returning PARZ_OK or the error,
 * then placed (parz_gpu_whole_place); *failed: the chunk that failed. */
template <typename Encode>
static inline int parz_gpu_whole_encode(size_t n, const parz_array* arrays,
                                        const void* const* d_data, const parz_chunk_config* cfg,
                                        size_t* written, parz_gpu_enc_place place, void* place_arg,
                                        cudaStream_t st, size_t* failed, parz_error* err,
                                        Encode encode) {
  std::vector<parz_gpu_whole_chunk> chunks(n);
  for (size_t i = 0; i < n; i++) {
    const int rc = encode(i, &chunks[i]);
    if (rc != PARZ_OK) {
      if (failed)
        *failed = i;
      return rc;
    }
  }
  return parz_gpu_whole_place(n, arrays, d_data, cfg, chunks, written, place, place_arg, st, failed,
                              err);
}

#endif
