/* The device memory of the GPU encoders of whole chunks (gpu_codecs.h, encode_chunks): a call's
 * (or a chunk's) buffers from the stream's allocator, freed in stream order, the host's reads of
 * a few words between their steps, and the chunks, once encoded, copied to their places; or a
 * call's one chunk placed as soon as its size is known, its payload written there (parz_gpu_whole_
 * direct); a head whose table, exception records or sums the GPU writes sealed by the GPU behind
 * them (head_crc.cuh). Internal to gpu/ (C++/CUDA). */
#ifndef PARZ_GPU_WHOLE_MEMORY_H
#define PARZ_GPU_WHOLE_MEMORY_H

#include <vector>

#include "encode_whole.h"
#include "gpu_internal.h"
#include "head_crc.cuh"

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

/* A chunk once encoded, waiting for its place: its head on the host (or d_head_bytes of it in
 * device memory at d_head), its payload in device memory, or stored (its values as they are). */
struct parz_gpu_whole_chunk {
  std::vector<unsigned char> head;
  const unsigned char* d_head = NULL;
  size_t d_head_bytes = 0;
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
    const size_t head = c.d_head ? c.d_head_bytes : c.head.size();
    e = c.d_head ? cudaMemcpyAsync(d_chunks[i], c.d_head, head, cudaMemcpyDeviceToDevice, st)
                 : cudaMemcpyAsync(d_chunks[i], c.head.data(), head, cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync((unsigned char*)d_chunks[i] + head, c.payload, c.payload_bytes,
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
 * into *d_chunk, so that its payload is written there and its head there; *d_chunk NULL where direct is NULL (a batch's chunk) or
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

/* A CTA per span of the GPU's bytes of a head (head_crc.cuh). */
static __global__ void __launch_bounds__(PARZ_GPU_CRC_THREADS)
    parz_gpu_whole_crc_kernel(const parz_gpu_head_crc s) {
  parz_gpu_crc_cta(s, blockIdx.x);
}

/* One thread: the header's CRC-32C into its field. */
static __global__ void parz_gpu_whole_field_kernel(const parz_gpu_head_crc s) {
  parz_gpu_crc_field(s);
}

/* The head (head bytes at h_head, its bytes outside [from, to) final) up into d_head on st: where
 * the GPU writes bytes [from, to) of it (whole words) after this copy, the key of its header's
 * CRC-32C into *s for parz_gpu_whole_head_seal (raw: a zeroed word of device memory); where from
 * == to, sealed here. From pageable memory at h_head the copy may wait for st's work first: the
 * encoders that queue other work before it hand pinned memory. */
static inline cudaError_t parz_gpu_whole_head_up(unsigned char* h_head, size_t head, size_t from,
                                                 size_t to, unsigned char* d_head, uint32_t* raw,
                                                 parz_gpu_head_crc* s, cudaStream_t st) {
  if (from < to) {
    parz_gpu_whole_crc_of(h_head, head, from, to, d_head, raw, s);
  } else {
    parz_chunk_header_seal(h_head, head);
    memset(s, 0, sizeof *s);
  }
  return cudaMemcpyAsync(d_head, h_head, head, cudaMemcpyHostToDevice, st);
}

/* The header's CRC-32C of head s (parz_gpu_whole_head_up) into its field, queued on st behind
 * the GPU's writes of its bytes; nothing where the host sealed it. */
static inline cudaError_t parz_gpu_whole_head_seal(const parz_gpu_head_crc& s, cudaStream_t st) {
  if (s.from >= s.to)
    return cudaSuccess;
  parz_gpu_whole_crc_kernel<<<(unsigned)parz_gpu_crc_spans(s), PARZ_GPU_CRC_THREADS, 0, st>>>(s);
  parz_gpu_whole_field_kernel<<<1, 1, 0, st>>>(s);
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
