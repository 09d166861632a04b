/* GPU encode of error-bounded chunks (codec 4): arrays resident in GPU memory encoded into one
 * chunk each in GPU memory (parz_gpu_encode_device), against the OpenMP encoder on the host.
 *
 * For each array, bound (--rel, times the array's range), predictor (--pred, 0 = chosen per
 * chunk) and segment size (--seg, codes per segment, 0 = the codec's), the whole parz_gpu_encode_device call (its kernels, the host's steps between them and
 * the waits for them) is timed on the host around a stream synchronization, median of --reps
 * after a warm-up; GiB/s are of the input array. The OpenMP encode (all threads) of the same
 * array is timed the same way, and the two chunks must be equal byte for byte.
 *
 * usage: bench_gpu_bounded_encode [--reps N] [--rel 1e-3,1e-5] [--pred 0,1,2,3,4,5] [--seg 0]
 *   FILE...
 *   FILE: raw little-endian array named like name_f32le_AxBxC.bin (f32 or f64, C order).
 * Output: Markdown table rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <cuda_runtime.h>

#include "bench_gpu_args.h"
#include "bench_gpu_encode_time.h"
#include "bench_raw_file.h"
#include "parz_gpu.h"
#include "parz_omp.h"

int main(int argc, char** argv) {
  int reps = 5;
  std::vector<double> rels = {1e-3}, preds = {0, 1, 2, 3, 4, 5}, segs = {0};
  std::vector<const char*> files;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--rel") && i + 1 < argc)
      rels = parse_list(argv[++i]);
    else if (!strcmp(argv[i], "--pred") && i + 1 < argc)
      preds = parse_list(argv[++i]);
    else if (!strcmp(argv[i], "--seg") && i + 1 < argc)
      segs = parse_list(argv[++i]);
    else
      files.push_back(argv[i]);
  }
  parz_gpu_context* ctx = NULL;
  parz_error err;
  if (!parz_gpu_available() || parz_gpu_context_create(&ctx, 0, &err) != PARZ_OK) {
    fprintf(stderr, "no usable CUDA device\n");
    return 77;
  }
  cudaStream_t st;
  CHECK_CUDA(cudaStreamCreate(&st));
  printf(
      "| array | MiB | eb / range | predictor | segment | GPU call ms | GPU GiB/s | OpenMP ms | "
      "OpenMP GiB/s | ratio | same bytes |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const char* path : files) {
    raw_array r;
    if (!raw_file_load(path, &r)) {
      fprintf(stderr, "%s: not a raw array\n", path);
      continue;
    }
    const size_t bytes = r.data.size();
    void* d_data = NULL;
    CHECK_CUDA(cudaMalloc(&d_data, bytes));
    CHECK_CUDA(cudaMemcpy(d_data, r.data.data(), bytes, cudaMemcpyHostToDevice));
    for (double rel : rels)
      for (double pd : preds)
        for (double seg : segs) {
          parz_chunk_config cfg;
          memset(&cfg, 0, sizeof cfg);
          cfg.codec = PARZ_CODEC_BOUNDED;
          cfg.settings.error_bound = rel * r.range;
          cfg.settings.predictor = (unsigned)pd;
          cfg.segment_blocks = (uint32_t)seg;
          bench_encode_times t;
          if (bench_encode_time(ctx, st, reps, r.a, r.data.data(), d_data, cfg, &t, &err) !=
              PARZ_OK) {
            printf("| %s | | %g | %u | %u | refused: %s |\n", r.name, rel, (unsigned)pd,
                   (unsigned)seg, err.message);
            continue;
          }
          const double g = t.gpu, c = t.cpu, gib = (double)bytes / (1 << 30);
          printf("| %s | %.1f | %g | %u | %u | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n", r.name,
                 (double)bytes / (1 << 20), rel, (unsigned)pd, (unsigned)seg, 1e3 * g, gib / g,
                 1e3 * c, gib / c, (double)bytes / (double)t.written, t.same ? "yes" : "NO");
          fflush(stdout);
        }
    cudaFree(d_data);
  }
  cudaStreamDestroy(st);
  parz_gpu_context_free(ctx);
  return 0;
}
