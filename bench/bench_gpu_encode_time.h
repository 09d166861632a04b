/* What the GPU encoders' benchmarks of whole chunks share: one configuration of one resident
 * array timed on the GPU (parz_gpu_encode_device) and on the host (parz_omp_chunk_encode), the
 * two chunks compared byte for byte, its table row, and the benchmark's start-up (options,
 * context, each array copied into device memory). */
#ifndef PARZ_BENCH_GPU_ENCODE_TIME_H
#define PARZ_BENCH_GPU_ENCODE_TIME_H

#include <string.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "bench_gpu_args.h"
#include "bench_raw_file.h"
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
 * reps times after a warm-up by each encoder, into *t, the host asleep pause_ms before each GPU
 * call; the GPU's refusal's status (message in err) where it refuses. */
static inline int bench_encode_time(parz_gpu_context* ctx, cudaStream_t st, int reps,
                                    double pause_ms, const parz_array& a, const void* data,
                                    const void* d_data, const parz_chunk_config& cfg,
                                    bench_encode_times* t, parz_error* err) {
  const size_t bound = parz_chunk_bound(&a, &cfg);
  void* d_chunk = NULL;
  CHECK_CUDA(cudaMalloc(&d_chunk, bound));
  std::vector<unsigned char> cpu(bound), gpu;
  std::vector<double> tg, tc;
  size_t written = 0, cw = 0;
  int rc = PARZ_OK;
  for (int k = 0; k <= reps && rc == PARZ_OK; k++) {
    if (pause_ms > 0)
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(pause_ms));
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

/* What a benchmark's rows share: the context, the stream, the timed runs of each encoder and the
 * pause before each GPU call (--pause MS; 0: none). */
struct bench_encode_run {
  parz_gpu_context* ctx;
  cudaStream_t st;
  int reps;
  double pause_ms;
};

/* Array r (in device memory at d_data) under cfg, timed, as a table row: the array's name and
 * MiB, `cells` (the configuration's columns, "|"-separated), each encoder's ms and GiB/s, the
 * ratio and whether the two chunks are the same; or the GPU's refusal. */
static inline void bench_encode_row(const bench_encode_run& run, const raw_array& r,
                                    const void* d_data, const parz_chunk_config& cfg,
                                    const char* cells) {
  const size_t bytes = r.data.size();
  bench_encode_times t;
  parz_error err;
  if (bench_encode_time(run.ctx, run.st, run.reps, run.pause_ms, r.a, r.data.data(), d_data, cfg,
                        &t, &err) != PARZ_OK) {
    printf("| %s | | %s | refused: %s |\n", r.name, cells, err.message);
    return;
  }
  const double g = t.gpu, c = t.cpu, gib = (double)bytes / (1 << 30);
  printf("| %s | %.1f | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n", r.name,
         (double)bytes / (1 << 20), cells, 1e3 * g, gib / g, 1e3 * c, gib / c,
         (double)bytes / (double)t.written, t.same ? "yes" : "NO");
  fflush(stdout);
}

/* A GPU encoder benchmark's main: --reps N (`reps` unless given), --pause MS (the host asleep MS
 * milliseconds before each GPU call: the context's host threads, which spin 2 ms after a job,
 * then sleep when a call starts, as between a user's single writes) and the list options `lists`,
 * the other arguments raw array files; the table's head with the configurations' `ncolumns`
 * columns named by `columns` ("|"-separated); then each array, copied into device memory,
 * handed to each(run, r, d_data), which prints its rows. 77 without a usable GPU. */
template <typename Each>
static inline int bench_encode_main(int argc, char** argv, int reps,
                                    std::initializer_list<bench_list> lists, const char* columns,
                                    unsigned ncolumns, Each each) {
  bench_encode_run run;
  run.reps = reps;
  std::vector<double> pause = {0};
  std::vector<bench_list> options(lists);
  options.push_back({"--pause", &pause});
  const std::vector<const char*> files = bench_args(argc, argv, &run.reps, options);
  run.pause_ms = pause.empty() ? 0 : pause[0];
  parz_error err;
  if (!parz_gpu_available() || parz_gpu_context_create(&run.ctx, 0, &err) != PARZ_OK) {
    fprintf(stderr, "no usable CUDA device\n");
    return 77;
  }
  CHECK_CUDA(cudaStreamCreate(&run.st));
  printf(
      "| array | MiB | %s | GPU call ms | GPU GiB/s | OpenMP ms | OpenMP GiB/s | ratio | same "
      "bytes |\n|",
      columns);
  for (unsigned k = 0; k < ncolumns + 8; k++)
    printf("---|");
  printf("\n");
  for (const char* path : files) {
    raw_array r;
    if (!raw_file_load(path, &r)) {
      fprintf(stderr, "%s: not a raw array\n", path);
      continue;
    }
    void* d_data = NULL;
    CHECK_CUDA(cudaMalloc(&d_data, r.data.size()));
    CHECK_CUDA(cudaMemcpy(d_data, r.data.data(), r.data.size(), cudaMemcpyHostToDevice));
    each(run, r, d_data);
    cudaFree(d_data);
  }
  cudaStreamDestroy(run.st);
  parz_gpu_context_free(run.ctx);
  return 0;
}

#endif
