/* GPU decode of error-bounded chunks (codec 4) resident on the device: the array as one chunk, and
 * cut along its first dimension into chunks of about --chunk-mib MiB decoded as one batch.
 *
 * The chunks are encoded with the OpenMP encoder at eb = rel x the array's range (predictor 0:
 * the encoder's choice, or one forced), uploaded once, and decoded with the kernels of
 * parz_gpu_decode_device_batch (gpu_internal.h's parz_gpu_enqueue_chunks). Each timed run is
 * queued behind a kernel that keeps the GPU busy longer than the host takes to queue the decode
 * (the codebooks are read on the host), so that the CUDA events around the decode time the GPU's
 * work alone: the codebook uploads and every kernel (median of --reps after a warm-up). The host's
 * time to queue the decode is reported apart, and so is a device-to-device copy of the decoded
 * bytes, the bandwidth anchor. The output is compared with the serial decoder's once.
 *
 * usage: bench_gpu_bounded [--reps N] [--rel 1e-3,1e-5] [--pred 0,1,3] [--chunk-mib 0,1,4]
 *                          [--segment-blocks 0,1024] FILE...
 *   FILE: raw little-endian array named like name_f32le_AxB.bin; --chunk-mib 0: one chunk;
 *   --segment-blocks: the codes of a segment (C), 0 the writers' default.
 * Output: one Markdown table row per (array, rel, predictor, chunking); the predictor column
 * names each predictor the encoder chose with its count of chunks. */
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
#include "gpu_internal.h"
#include "parz_gpu.h"
#include "parz_omp.h"

/* Keeps the GPU busy for about `ns` nanoseconds. */
__global__ void busy_kernel(unsigned long long ns) {
  unsigned long long t0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (;;) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 >= ns)
      break;
  }
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

static const char* predictor_name(int p) {
  static const char* names[] = {"auto", "lorenzo", "linear", "cubic", "linear-fast", "cubic-fast"};
  return p >= 0 && p <= 5 ? names[p] : "?";
}

int main(int argc, char** argv) {
  int reps = 9;
  std::vector<double> rels = {1e-3}, preds = {0}, mibs = {0, 1, 4}, cs = {0};
  const std::vector<const char*> files = bench_args(
      argc, argv, &reps,
      {{"--rel", &rels}, {"--pred", &preds}, {"--chunk-mib", &mibs}, {"--segment-blocks", &cs}});
  parz_gpu_context* ctx;
  parz_error err;
  if (parz_gpu_context_create(&ctx, 0, &err) != PARZ_OK) {
    fprintf(stderr, "no GPU: %s\n", err.message);
    return 1;
  }
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s, %d SMs; median of %d runs after a warm-up\n\n", prop.name,
         prop.multiProcessorCount, reps);
  printf(
      "| array | eb / range | predictor (chosen) | chunks | MiB each | C | ratio | segments | "
      "kernel ms | GiB/s | host queue ms | copy GiB/s |\n|---|---:|---|---:|---:|---:|---:|---:|"
      "---:|---:|---:|---:|\n");
  cudaStream_t st;
  cudaEvent_t t0, t1;
  CHECK_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  CHECK_CUDA(cudaEventCreate(&t0));
  CHECK_CUDA(cudaEventCreate(&t1));
  for (const char* path : files) {
    raw_array r;
    if (!raw_file_load(path, &r)) {
      fprintf(stderr, "skipped %s: not a raw array\n", path);
      continue;
    }
    const size_t w = parz_type_size(r.a.type), n = parz_array_count(&r.a), raw = n * w;
    const size_t slice = raw / r.a.shape[0];
    void* d_out = NULL;
    void* d_copy = NULL;
    CHECK_CUDA(cudaMalloc(&d_out, raw));
    CHECK_CUDA(cudaMalloc(&d_copy, raw));
    for (double rel : rels)
      for (double pd : preds)
        for (double mib : mibs)
          for (double cb : cs) {
            size_t per = mib > 0 ? (size_t)(mib * 1048576.0 / (double)slice) : r.a.shape[0];
            per = per ? per : 1;
            std::vector<std::vector<unsigned char>> chunks;
            std::vector<parz_chunk_view> views;
            std::vector<size_t> rows;
            size_t total = 0;
            parz_chunk_config cfg;
            memset(&cfg, 0, sizeof cfg);
            cfg.codec = PARZ_CODEC_BOUNDED;
            cfg.settings.error_bound = rel * r.range;
            cfg.settings.predictor = (unsigned)pd;
            cfg.checksum = PARZ_CHECKSUM_ON;
            cfg.segment_blocks = (uint32_t)cb;
            for (size_t s0 = 0; s0 < r.a.shape[0]; s0 += per) {
              parz_array a = r.a;
              a.shape[0] = std::min(per, r.a.shape[0] - s0);
              size_t cap = parz_chunk_bound(&a, &cfg), bytes = 0;
              std::vector<unsigned char> c(cap);
              if (parz_omp_chunk_encode(&a, r.data.data() + s0 * slice, &cfg, c.data(), cap, &bytes,
                                        0, &err) != PARZ_OK) {
                fprintf(stderr, "%s: encode: %s\n", r.name, err.message);
                return 1;
              }
              c.resize(bytes);
              total += bytes;
              chunks.push_back(c);
              rows.push_back(s0);
            }
            const size_t m = chunks.size();
            views.resize(m);
            std::vector<const void*> d_chunks(m);
            std::vector<void*> d_dsts(m);
            unsigned long long segments = 0;
            for (size_t i = 0; i < m; i++) {
              if (parz_chunk_parse(chunks[i].data(), chunks[i].size(), &views[i], &err) !=
                  PARZ_OK) {
                fprintf(stderr, "%s: parse: %s\n", r.name, err.message);
                return 1;
              }
              segments += views[i].nsegments;
              void* p;
              CHECK_CUDA(cudaMalloc(&p, chunks[i].size()));
              CHECK_CUDA(cudaMemcpy(p, chunks[i].data(), chunks[i].size(), cudaMemcpyHostToDevice));
              d_chunks[i] = p;
              d_dsts[i] = (unsigned char*)d_out + rows[i] * slice;
            }
            /* once through the public call, against the serial decoder */
            std::vector<unsigned char> want(raw), got(raw);
            for (size_t i = 0; i < m; i++)
              if (parz_chunk_decode(chunks[i].data(), chunks[i].size(),
                                    want.data() + rows[i] * slice, views[i].raw_bytes,
                                    &err) != PARZ_OK) {
                fprintf(stderr, "%s: serial decode: %s\n", r.name, err.message);
                return 1;
              }
            size_t failed = 0;
            if (parz_gpu_decode_device_batch(ctx, m, views.data(), d_chunks.data(), d_dsts.data(),
                                             st, &failed, &err) != PARZ_OK) {
              fprintf(stderr, "%s: GPU decode: %s\n", r.name, err.message);
              return 1;
            }
            CHECK_CUDA(cudaMemcpy(got.data(), d_out, raw, cudaMemcpyDeviceToHost));
            if (memcmp(got.data(), want.data(), raw) != 0) {
              fprintf(stderr, "%s: GPU decode differs from the serial decoder's\n", r.name);
              return 1;
            }
            std::vector<parz_gpu_scratch> s(m);
            std::vector<double> ms, host_ms, copy_ms;
            for (int rep = 0; rep <= reps; rep++) {
              if (parz_gpu_scratch_reserve(ctx, views.data(), m, s.data(), &err) != PARZ_OK ||
                  parz_gpu_fault_clear(ctx, m, st, &err) != PARZ_OK) {
                fprintf(stderr, "%s: %s\n", r.name, err.message);
                return 1;
              }
              busy_kernel<<<1, 1, 0, st>>>(20000000ull + 2000000ull * m); /* 20 ms + 2 ms a chunk */
              CHECK_CUDA(cudaEventRecord(t0, st));
              const auto h0 = std::chrono::steady_clock::now();
              if (parz_gpu_enqueue_chunks(ctx, views.data(), d_chunks.data(), d_dsts.data(), m,
                                          s.data(), st, &err) != PARZ_OK) {
                fprintf(stderr, "%s: enqueue: %s\n", r.name, err.message);
                return 1;
              }
              const double hq =
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - h0)
                      .count();
              CHECK_CUDA(cudaEventRecord(t1, st));
              if (parz_gpu_fault_check(ctx, views.data(), m, st, &failed, &err) != PARZ_OK) {
                fprintf(stderr, "%s: fault: %s\n", r.name, err.message);
                return 1;
              }
              float t = 0;
              CHECK_CUDA(cudaEventElapsedTime(&t, t0, t1));
              CHECK_CUDA(cudaEventRecord(t0, st));
              CHECK_CUDA(cudaMemcpyAsync(d_copy, d_out, raw, cudaMemcpyDeviceToDevice, st));
              CHECK_CUDA(cudaEventRecord(t1, st));
              CHECK_CUDA(cudaStreamSynchronize(st));
              float tc = 0;
              CHECK_CUDA(cudaEventElapsedTime(&tc, t0, t1));
              if (rep) {
                ms.push_back(t);
                host_ms.push_back(hq);
                copy_ms.push_back(tc);
              }
            }
            const double k = median(ms), gib = (double)raw / 1073741824.0;
            /* the predictors the encoder wrote (codec data byte 8, FORMAT.md), each with its
             * count of chunks */
            char chosen[128] = "";
            for (int p = 0; p <= 5; p++) {
              size_t c = 0;
              for (size_t i = 0; i < m; i++)
                c += views[i].codec_data[8] == p;
              if (c && strlen(chosen) + 32 < sizeof chosen)
                snprintf(chosen + strlen(chosen), sizeof chosen - strlen(chosen), "%s%s %zu",
                         *chosen ? ", " : "", predictor_name(p), c);
            }
            printf(
                "| %s | %g | %s (%s) | %zu | %.2f | %u | %.2f | %llu | %.3f | %.1f | %.2f%s | %.0f "
                "|\n",
                r.name, rel, predictor_name((int)pd), chosen, m,
                (double)std::min(per, r.a.shape[0]) * (double)slice / 1048576.0,
                views[0].segment_blocks, (double)raw / (double)total, segments, k, gib / (k * 1e-3),
                median(host_ms),
                median(host_ms) > 20.0 + 2.0 * (double)m ? " (longer than the wait: timed)" : "",
                gib / (median(copy_ms) * 1e-3));
            fflush(stdout);
            for (size_t i = 0; i < m; i++)
              cudaFree((void*)d_chunks[i]);
          }
    cudaFree(d_out);
    cudaFree(d_copy);
  }
  parz_gpu_context_free(ctx);
  return 0;
}
