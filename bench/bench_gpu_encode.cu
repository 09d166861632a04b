/* GPU encoder throughput: arrays resident in GPU memory encoded into ParZ chunks in GPU memory
 * (parz_gpu_encode_device), against segment size C.
 *
 * For each array and C (0 = auto), one chunk holds the whole array. The whole
 * parz_gpu_encode_device call (its kernels, the read-back of the sizes and the host's layout in
 * between) is timed with CUDA events on the stream, median of --reps after warm-up; GiB/s are
 * of the input array. Nsight Compute splits it by kernel (scripts/gpu_encode.sh). A device-to-device copy of the array is the bandwidth anchor.
 * Every chunk is compared with the CPU encoder's (OpenMP, the same bytes as the serial one).
 * With --chunk-mib the array is also cut into chunks of about that size (rows of the slowest
 * dimension, each a strided view of the one array) and encoded by one
 * parz_gpu_encode_device_batch call, against one call per chunk; --tile N first repeats the
 * array N times along its slowest dimension; --f64 converts a float32 array to float64.
 *
 * usage: bench_gpu_encode [--reps N] [--c 0,1,32] [--rel 1e-2] [--mode accuracy|reversible]
 *                         [--chunk-mib 4,16] [--tile N] [--f64] FILE...
 *   FILE: raw little-endian array named like name_f32le_AxBxC.bin (f32 or f64, C order).
 * Output: Markdown table rows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include <cuda_runtime.h>

#include "bench_gpu_args.h"
#include "bench_raw_file.h"
#include "parz_gpu.h"
#include "parz_omp.h"

/* The raw array at path (bench_raw_file.h) repeated `tile` times along its slowest dimension,
 * widened to float64 when f64 is set. */
static int load(const char* path, int tile, bool f64, raw_array* r) {
  if (!raw_file_load(path, r))
    return 0;
  const size_t bytes = r->data.size();
  r->data.resize(bytes * tile);
  for (int k = 1; k < tile; k++)
    memcpy(r->data.data() + k * bytes, r->data.data(), bytes);
  r->a.shape[0] *= tile;
  if (f64 && r->a.type == PARZ_FLOAT) {
    std::vector<unsigned char> wide(2 * r->data.size());
    for (size_t i = 0; i < r->data.size() / 4; i++)
      ((double*)wide.data())[i] = ((const float*)r->data.data())[i];
    r->data.swap(wide);
    r->a.type = PARZ_DOUBLE;
  }
  return 1;
}

struct timer {
  cudaEvent_t a, b;
  cudaStream_t st;
};

/* Median GPU time in ms of what fn queues (after two warm-up runs). */
template <class F>
static double median_ms(timer& t, int reps, F fn) {
  std::vector<float> ms;
  for (int i = 0; i < 2; i++)
    fn();
  CHECK_CUDA(cudaStreamSynchronize(t.st));
  for (int i = 0; i < reps; i++) {
    float x;
    CHECK_CUDA(cudaEventRecord(t.a, t.st));
    fn();
    CHECK_CUDA(cudaEventRecord(t.b, t.st));
    CHECK_CUDA(cudaEventSynchronize(t.b));
    CHECK_CUDA(cudaEventElapsedTime(&x, t.a, t.b));
    ms.push_back(x);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

int main(int argc, char** argv) {
  int reps = 15, tile = 1;
  bool f64 = false, fill = false;
  double fill_value = 0;
  std::vector<double> cs = {0, 1, 32}, rels = {1e-2}, chunk_mib;
  const char* mode = "accuracy";
  std::vector<const char*> files;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--c") && i + 1 < argc)
      cs = parse_list(argv[++i]);
    else if (!strcmp(argv[i], "--rel") && i + 1 < argc)
      rels = parse_list(argv[++i]);
    else if (!strcmp(argv[i], "--mode") && i + 1 < argc)
      mode = argv[++i];
    else if (!strcmp(argv[i], "--chunk-mib") && i + 1 < argc)
      chunk_mib = parse_list(argv[++i]);
    else if (!strcmp(argv[i], "--f64"))
      f64 = true;
    else if (!strcmp(argv[i], "--fill") && i + 1 < argc)
      fill = true, fill_value = atof(argv[++i]);
    else if (!strcmp(argv[i], "--tile") && i + 1 < argc)
      tile = std::max(1, atoi(argv[++i]));
    else
      files.push_back(argv[i]);
  }
  if (files.empty() || reps < 1) {
    fprintf(stderr,
            "usage: bench_gpu_encode [--reps N] [--c 0,1,32] [--rel 1e-2] "
            "[--mode accuracy|reversible] [--chunk-mib 4,16] "
            "[--tile N] [--f64] [--fill VALUE] FILE...\n");
    return 2;
  }
  if (!parz_gpu_available()) {
    printf("no CUDA device\n");
    return 77;
  }
  parz_gpu_context* ctx;
  parz_error e;
  if (parz_gpu_context_create(&ctx, 0, &e) != PARZ_OK) {
    fprintf(stderr, "%s\n", e.message);
    return 1;
  }
  timer t;
  CHECK_CUDA(cudaStreamCreateWithFlags(&t.st, cudaStreamNonBlocking));
  CHECK_CUDA(cudaEventCreate(&t.a));
  CHECK_CUDA(cudaEventCreate(&t.b));
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  printf("GPU: %s, %d SMs; reps %d (median); mode %s\n\n", prop.name, prop.multiProcessorCount,
         reps, mode);
  printf(
      "| array | MB | setting | C | ratio | table | GiB/s | ms | same bytes |\n"
      "|---|---:|---|---:|---:|---:|---:|---:|---|\n");
  for (const char* path : files) {
    raw_array r;
    if (!load(path, tile, f64, &r)) {
      fprintf(stderr, "%s: cannot load\n", path);
      continue;
    }
    const size_t raw = r.data.size();
    const double gib = raw / 1073741824.0;
    void *d_in = NULL, *d_copy = NULL;
    CHECK_CUDA(cudaMalloc(&d_in, raw));
    CHECK_CUDA(cudaMalloc(&d_copy, raw));
    CHECK_CUDA(cudaMemcpy(d_in, r.data.data(), raw, cudaMemcpyHostToDevice));
    const double copy_ms = median_ms(t, reps, [&] {
      CHECK_CUDA(cudaMemcpyAsync(d_copy, d_in, raw, cudaMemcpyDeviceToDevice, t.st));
    });
    char label[256];
    if (f64) {
      snprintf(label, sizeof label, "%s as float64", r.name);
      r.name = label;
    }
    printf("| %s | %.1f | device-to-device copy | | | | %.1f | %.3f | |\n", r.name, raw / 1e6,
           gib / (copy_ms / 1e3), copy_ms);
    for (double rel : rels)
      for (double cd : cs) {
        parz_chunk_config cfg;
        memset(&cfg, 0, sizeof cfg);
        char setting[64];
        if (!strcmp(mode, "reversible")) {
          parz_params_reversible(&cfg.params);
          snprintf(setting, sizeof setting, "reversible");
        } else {
          parz_params_accuracy(&cfg.params, rel * r.range, NULL, NULL);
          snprintf(setting, sizeof setting, "accuracy %.0e x range", rel);
        }
        cfg.segment_blocks = (uint32_t)cd;
        if (fill) { /* the array's fill value, as its dataset declares it: masked */
          const float f32 = (float)fill_value;
          cfg.fill = 1;
          if (r.a.type == PARZ_FLOAT)
            memcpy(&cfg.fill_bits, &f32, 4);
          else
            memcpy(&cfg.fill_bits, &fill_value, 8);
        }
        const size_t cap = parz_chunk_bound(&r.a, &cfg);
        std::vector<unsigned char> ref(cap), got(cap);
        size_t nref = 0;
        if (parz_omp_chunk_encode(&r.a, r.data.data(), &cfg, ref.data(), cap, &nref, 0, &e)) {
          fprintf(stderr, "CPU encode: %s\n", e.message);
          continue;
        }
        parz_chunk_view v;
        parz_chunk_parse(ref.data(), nref, &v, NULL);
        void* d_chunk = NULL;
        CHECK_CUDA(cudaMalloc(&d_chunk, cap));
        size_t n = 0;
        int rc = PARZ_OK;
        const double call_ms = median_ms(t, reps, [&] {
          if (rc == PARZ_OK)
            rc = parz_gpu_encode_device(ctx, &r.a, d_in, &cfg, d_chunk, cap, &n, t.st, &e);
        });
        if (rc != PARZ_OK) {
          printf("| %s | | %s | %g | failed: %s |\n", r.name, setting, cd, e.message);
          continue;
        }
        CHECK_CUDA(cudaMemcpy(got.data(), d_chunk, n, cudaMemcpyDeviceToHost));
        const bool same = n == nref && !memcmp(got.data(), ref.data(), n);
        printf("| %s | %.1f | %s | %u%s | %.2f | %.2f%% | %.1f | %.3f | %s |\n", r.name, raw / 1e6,
               setting, v.segment_blocks, cd == 0 ? " (auto)" : "", (double)raw / nref,
               100.0 * v.table_bytes / v.payload_bytes, gib / (call_ms / 1e3), call_ms,
               same ? "yes" : "NO");
        /* the array in chunks: one batch call against one call per chunk */
        for (double mib : chunk_mib) {
          const size_t row = raw / r.a.shape[0];
          size_t rows = (size_t)(mib * 1048576.0 / row);
          rows = std::max<size_t>(1, std::min(rows, r.a.shape[0]));
          std::vector<parz_array> arrays;
          std::vector<const void*> ins;
          std::vector<void*> outs;
          std::vector<size_t> caps, written;
          std::vector<std::vector<unsigned char>> refs;
          for (size_t r0 = 0; r0 < r.a.shape[0]; r0 += rows) {
            parz_array a = r.a;
            a.shape[0] = std::min(rows, r.a.shape[0] - r0);
            arrays.push_back(a);
            ins.push_back((const unsigned char*)d_in + r0 * row);
            caps.push_back(parz_chunk_bound(&a, &cfg));
            void* d = NULL;
            CHECK_CUDA(cudaMalloc(&d, caps.back()));
            outs.push_back(d);
            std::vector<unsigned char> one(caps.back());
            size_t m = 0;
            parz_omp_chunk_encode(&a, r.data.data() + r0 * row, &cfg, one.data(), one.size(), &m, 0,
                                  &e);
            one.resize(m);
            refs.push_back(one);
          }
          written.assign(arrays.size(), 0);
          int rc = PARZ_OK;
          const double batch_ms = median_ms(t, reps, [&] {
            if (rc == PARZ_OK)
              rc = parz_gpu_encode_device_batch(ctx, arrays.size(), arrays.data(), ins.data(), &cfg,
                                                outs.data(), caps.data(), written.data(), t.st,
                                                NULL, &e);
          });
          const double loop_ms = median_ms(t, reps, [&] {
            for (size_t i = 0; i < arrays.size() && rc == PARZ_OK; i++)
              rc = parz_gpu_encode_device(ctx, &arrays[i], ins[i], &cfg, outs[i], caps[i],
                                          &written[i], t.st, &e);
          });
          bool same = rc == PARZ_OK;
          for (size_t i = 0; i < arrays.size() && same; i++) {
            std::vector<unsigned char> back(written[i]);
            CHECK_CUDA(cudaMemcpy(back.data(), outs[i], written[i], cudaMemcpyDeviceToHost));
            same = written[i] == refs[i].size() && !memcmp(back.data(), refs[i].data(), written[i]);
          }
          printf(
              "| %s | %.1f | %s, %zu chunks of %.1f MiB, batch / one call each | %g | | | "
              "%.1f / %.1f | %.3f / %.3f | %s |\n",
              r.name, raw / 1e6, setting, arrays.size(), rows * row / 1048576.0, cd,
              gib / (batch_ms / 1e3), gib / (loop_ms / 1e3), batch_ms, loop_ms,
              same ? "yes" : "NO");
          for (void* d : outs)
            CHECK_CUDA(cudaFree(d));
        }
        CHECK_CUDA(cudaFree(d_chunk));
      }
    CHECK_CUDA(cudaFree(d_in));
    CHECK_CUDA(cudaFree(d_copy));
  }
  parz_gpu_context_free(ctx);
  return 0;
}
