/* What the GPU encoders' benchmarks of whole chunks share: one configuration of one resident
 * array timed on the GPU (parz_gpu_encode_device) and on the host (parz_omp_chunk_encode), the
 * two chunks compared byte for byte. */
#ifndef PARZ_BENCH_GPU_ENCODE_TIME_H
#define PARZ_BENCH_GPU_ENCODE_TIME_H

#include <string.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include <cuda_runtime.h>

#include "bench_gpu_args.h"
#include "parz_gpu.h"
#include "parz_omp.h"

static inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

static inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/* One configuration's row: the median seconds of each encoder, the GPU's chunk's bytes, and
 * whether the host's chunk is the same. */
struct bench_encode_times {
  double gpu, cpu;
  size_t written;
  bool same;
};

/* Array a (its values in host memory at data and in device memory at d_data) encoded under cfg
 * reps times after a warm-up by each encoder, into *t; the GPU's refusal's status (message in
 * err) where it refuses. */
static inline int bench_encode_time(parz_gpu_context* ctx, cudaStream_t st, int reps,
                                    const parz_array& a, const void* data, const void* d_data,
                                    const parz_chunk_config& cfg, bench_encode_times* t,
                                    parz_error* err) {
  const size_t bound = parz_chunk_bound(&a, &cfg);
  void* d_chunk = NULL;
  CHECK_CUDA(cudaMalloc(&d_chunk, bound));
  std::vector<unsigned char> cpu(bound), gpu;
  std::vector<double> tg, tc;
  size_t written = 0, cw = 0;
  int rc = PARZ_OK;
  for (int k = 0; k <= reps && rc == PARZ_OK; k++) {
    auto t0 = std::chrono::steady_clock::now();
    rc = parz_gpu_encode_device(ctx, &a, d_data, &cfg, d_chunk, bound, &written, st, err);
    CHECK_CUDA(cudaStreamSynchronize(st));
    if (k)
      tg.push_back(seconds_since(t0));
  }
  if (rc != PARZ_OK) {
    cudaFree(d_chunk);
    return rc;
  }
  for (int k = 0; k <= reps; k++) {
    auto t0 = std::chrono::steady_clock::now();
    rc = parz_omp_chunk_encode(&a, data, &cfg, cpu.data(), cpu.size(), &cw, 0, err);
    if (k)
      tc.push_back(seconds_since(t0));
  }
  gpu.resize(written);
  CHECK_CUDA(cudaMemcpy(gpu.data(), d_chunk, written, cudaMemcpyDeviceToHost));
  t->same = rc == PARZ_OK && cw == written && !memcmp(gpu.data(), cpu.data(), cw);
  t->gpu = median(tg);
  t->cpu = median(tc);
  t->written = written;
  cudaFree(d_chunk);
  return PARZ_OK;
}

#endif
