/* The device memory of the GPU encoders of whole chunks (gpu_codecs.h, encode_chunks): a call's
 * (or a chunk's) buffers from the stream's allocator, freed in stream order, the host's reads of
 * a few words between their steps, and the chunks, once encoded, copied to their places; or a
 * call's one chunk placed as soon as its size is known, its payload written there and its head
 * sealed there by the GPU behind its sums (parz_gpu_whole_direct). Internal to gpu/ (C++/CUDA). */
#ifndef PARZ_GPU_WHOLE_MEMORY_H
#define PARZ_GPU_WHOLE_MEMORY_H

#include <vector>

#include "encode_whole.h"
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

/* The caller's place of a call's one chunk (parz_gpu_enc_place's contract), taken by its encoder
 * as soon as the chunk's size is known, and whether it was. */
struct parz_gpu_whole_direct {
  parz_gpu_enc_place place;
  void* arg;
  size_t* failed;
  int placed;
};

/* Chunk fin (head bytes in front of its payload, *size bytes in all) given its place by direct
 * into *d_chunk, so that its payload is written there and its head sealed there
 * (parz_gpu_whole_direct_head, _seal); *d_chunk NULL where direct is NULL (a batch's chunk) or
 * the head's size leaves the payload or the sums unaligned to their words: such a chunk is placed
 * once encoded (parz_gpu_whole_place). */
static inline int parz_gpu_whole_direct_place(parz_gpu_whole_direct* direct,
                                              const parz_chunk_view* fin, size_t head, size_t* size,
                                              unsigned char** d_chunk, parz_error* err) {
  *d_chunk = NULL;
  if (!direct)
    return PARZ_OK;
  parz_chunk_offsets o;
  parz_chunk_section_offsets(fin, &o);
  if (head % 8 || o.checksums % 8)
    return PARZ_OK;
  void* at = NULL;
  const int rc = direct->place(direct->arg, 1, size, &at, direct->failed, err);
  if (rc != PARZ_OK)
    return rc;
  *d_chunk = (unsigned char*)at;
  direct->placed = 1;
  return PARZ_OK;
}

/* One warp (PARZ_GPU_SEAL_LANES): the sums at `sums` into the head at chunk, where they are not
 * there already, and the header's CRC-32C (s, parz_gpu_seal) into its field. */
static __global__ void parz_gpu_seal_kernel(unsigned char* chunk, const unsigned long long* sums,
                                            parz_gpu_seal s) {
  unsigned long long k0, k1;
  parz_gpu_seal_run(s, threadIdx.x, &k0, &k1);
  unsigned long long* field = (unsigned long long*)(chunk + s.at);
  if (sums != field)
    for (unsigned long long k = k0; k < k1; k++)
      field[k] = sums[k];
  const uint32_t shares = __reduce_xor_sync(
      0xffffffffu, parz_gpu_seal_share(s, (const unsigned char*)sums, threadIdx.x));
  if (threadIdx.x == 0)
    *(uint32_t*)(chunk + PARZ_HEADER_BYTES - 4) = parz_gpu_seal_crc(s, shares);
}

/* The head of chunk fin placed at d_chunk (parz_gpu_whole_direct_place; head bytes at h_head, as
 * parz_gpu_whole_unsealed writes them) up into its place on st: sealed here where it has no sums,
 * else the host's part of its header's CRC-32C into *seal for parz_gpu_whole_direct_seal. Its
 * sums' field goes up as zeros, so the sums are written there after it, or elsewhere. From
 * pageable memory at h_head the copy may wait for st's work first: the encoders that queue the
 * payload's writes before it hand pinned memory. */
static inline cudaError_t parz_gpu_whole_direct_head(const parz_chunk_view* fin,
                                                     unsigned char* h_head, size_t head,
                                                     unsigned char* d_chunk, parz_gpu_seal* seal,
                                                     cudaStream_t st) {
  if (fin->nchecksums)
    parz_gpu_seal_of(fin, h_head, head, seal);
  else
    parz_gpu_whole_seal(fin, NULL, h_head, head);
  return cudaMemcpyAsync(d_chunk, h_head, head, cudaMemcpyHostToDevice, st);
}

/* The sums (d_sums: fin's nchecksums words, in their field at d_chunk or elsewhere) into the head
 * at d_chunk and its header's CRC-32C, queued on st behind them and the head's copy
 * (parz_gpu_whole_direct_head, seal its host part); nothing where fin has no sums. */
static inline cudaError_t parz_gpu_whole_direct_seal(const parz_chunk_view* fin,
                                                     const parz_gpu_seal& seal,
                                                     unsigned char* d_chunk,
                                                     const unsigned long long* d_sums,
                                                     cudaStream_t st) {
  if (!fin->nchecksums)
    return cudaSuccess;
  parz_gpu_seal_kernel<<<1, PARZ_GPU_SEAL_LANES, 0, st>>>(d_chunk, d_sums, seal);
  return cudaGetLastError();
}

/* The n chunks encoded one after the other, encode(i, &chunk, direct) returning PARZ_OK or the
 * error, then placed (parz_gpu_whole_place) and their writes waited for. A call's one chunk gets
 * direct (a batch's NULL), with which its encoder may place it itself as soon as its size is
 * known and queue the rest of it there (parz_gpu_whole_direct_place). *failed: the chunk that
 * failed. */
template <typename Encode>
static inline int parz_gpu_whole_encode(size_t n, const parz_array* arrays,
                                        const void* const* d_data, const parz_chunk_config* cfg,
                                        size_t* written, parz_gpu_enc_place place, void* place_arg,
                                        cudaStream_t st, size_t* failed, parz_error* err,
                                        Encode encode) {
  std::vector<parz_gpu_whole_chunk> chunks(n);
  parz_gpu_whole_direct direct = {place, place_arg, failed, 0};
  for (size_t i = 0; i < n; i++) {
    const int rc = encode(i, &chunks[i], n == 1 ? &direct : NULL);
    if (rc != PARZ_OK) {
      if (failed)
        *failed = i;
      return rc;
    }
  }
  if (direct.placed) {
    const cudaError_t e = cudaStreamSynchronize(st);
    return e == cudaSuccess ? PARZ_OK
                            : parz_gpu_cuda_fail(err, e, "GPU encode: writing the chunks");
  }
  return parz_gpu_whole_place(n, arrays, d_data, cfg, chunks, written, place, place_arg, st, failed,
                              err);
}

#endif
