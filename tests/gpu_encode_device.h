/* The GPU encoders' device tests' encodes: one chunk by parz_gpu_encode_device, downloaded, and
 * the cases one configuration takes, encoded together by parz_gpu_encode_device_batch, each
 * chunk the CPU's byte for byte. */
#ifndef PARZ_TEST_GPU_ENCODE_DEVICE_H
#define PARZ_TEST_GPU_ENCODE_DEVICE_H

#include <string.h>

#include <vector>

#include <cuda_runtime.h>

#include "check.h"
#include "parz_gpu.h"

/* Array a (bytes of its buffer at data, as far as its strides reach) encoded under cfg on ctx's
 * device, the chunk downloaded into *got (empty unless PARZ_OK); returns the status, e its
 * message. */
static inline int gpu_encode_on_device(parz_gpu_context* ctx, const parz_array& a, const void* data,
                                       size_t bytes, const parz_chunk_config& cfg,
                                       std::vector<unsigned char>* got, parz_error* e) {
  const size_t bound = parz_chunk_bound(&a, &cfg);
  void *d_data = NULL, *d_chunk = NULL;
  CHECK(cudaMalloc(&d_data, bytes) == cudaSuccess && cudaMalloc(&d_chunk, bound) == cudaSuccess &&
        cudaMemcpy(d_data, data, bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  size_t written = 0;
  const int rc = parz_gpu_encode_device(ctx, &a, d_data, &cfg, d_chunk, bound, &written, NULL, e);
  got->assign(rc == PARZ_OK ? written : 0, 0);
  CHECK(got->empty() ||
        cudaMemcpy(got->data(), d_chunk, got->size(), cudaMemcpyDeviceToHost) == cudaSuccess);
  cudaFree(d_data);
  cudaFree(d_chunk);
  return rc;
}

/* The cases (each with a, data, name) that batchable takes, encoded under cfg in one batch on
 * ctx: at least 4 of them, each chunk parz_chunk_encode's. */
template <typename Case, typename Batchable>
static void gpu_encode_check_batch(parz_gpu_context* ctx, const std::vector<Case>& cases,
                                   const parz_chunk_config& cfg, Batchable batchable) {
  std::vector<parz_array> arrays;
  std::vector<const void*> d_data;
  std::vector<void*> d_chunks;
  std::vector<size_t> bytes, written;
  for (const Case& c : cases)
    if (batchable(c)) {
      void *d = NULL, *ch = NULL;
      const size_t b = parz_chunk_bound(&c.a, &cfg);
      cudaMalloc(&d, c.data.size());
      cudaMalloc(&ch, b);
      cudaMemcpy(d, c.data.data(), c.data.size(), cudaMemcpyHostToDevice);
      arrays.push_back(c.a);
      d_data.push_back(d);
      d_chunks.push_back(ch);
      bytes.push_back(b);
    }
  written.resize(arrays.size());
  parz_error e = {0, ""};
  size_t failed = 0;
  const int rc = parz_gpu_encode_device_batch(ctx, arrays.size(), arrays.data(), d_data.data(),
                                              &cfg, d_chunks.data(), bytes.data(), written.data(),
                                              NULL, &failed, &e);
  CHECK(rc == PARZ_OK && arrays.size() >= 4, ": batch of %zu: %d \"%s\"", arrays.size(), rc,
        e.message);
  size_t k = 0;
  for (const Case& c : cases)
    if (k < arrays.size() && batchable(c)) {
      std::vector<unsigned char> want(bytes[k]), got(written[k]);
      size_t cw = 0;
      CHECK(parz_chunk_encode(&c.a, c.data.data(), &cfg, want.data(), want.size(), &cw, &e) ==
            PARZ_OK);
      cudaMemcpy(got.data(), d_chunks[k], written[k], cudaMemcpyDeviceToHost);
      CHECK(cw == written[k] && memcmp(got.data(), want.data(), cw) == 0,
            ": batch chunk %zu (%s): the CPU's bytes", k, c.name.c_str());
      k++;
    }
  for (size_t i = 0; i < arrays.size(); i++) {
    cudaFree((void*)d_data[i]);
    cudaFree(d_chunks[i]);
  }
}

#endif
