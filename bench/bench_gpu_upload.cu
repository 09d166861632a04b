/* How the filter path's upload of a host array spends its time: a pageable buffer, just written
 * by one thread as HDF5 writes its chunk buffer before it calls the filter, goes to device memory
 * through the context's pinned staging (parz_gpu_upload), against its parts alone: the transfer
 * from pinned memory (whole, and in the upload's pieces), the host threads' copy into pinned
 * memory, the driver's own pageable copy, and the buffer pinned where it is for the transfer.
 * The upload runs again for several sizes of the context's host pool and of its pieces
 * (internal knobs of the context, set here).
 *
 * usage: bench_gpu_upload [--mib 4,16,64] [--threads 4,8,16] [--piece-kib 512,1024,2048,4096]
 *                         [--reps 20]
 * Output: Markdown tables, milliseconds (median of --reps, best in brackets) and GB/s of the
 * median. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include <cuda_runtime.h>

#include "gpu_internal.h"

#define MAX_LIST 8

struct list {
  double v[MAX_LIST];
  int n;
};

static void parse_list(const char* s, list* l) {
  l->n = 0;
  while (*s && l->n < MAX_LIST) {
    char* end;
    double x = strtod(s, &end);
    if (end == s || x <= 0) {
      fprintf(stderr, "bench_gpu_upload: bad list %s\n", s);
      exit(2);
    }
    l->v[l->n++] = x;
    s = *end == ',' ? end + 1 : end;
  }
}

static double now(void) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct timing {
  double median, best;
};

/* Times op() reps times after one untimed call; before each call the source is written afresh
 * by one thread (prepare()). */
template <typename P, typename F>
static timing time_op(int reps, P prepare, F op) {
  std::vector<double> t;
  for (int k = 0; k <= reps; k++) {
    prepare();
    double t0 = now();
    if (op() != 0) {
      fprintf(stderr, "bench_gpu_upload: an operation failed\n");
      exit(1);
    }
    if (k > 0)
      t.push_back(now() - t0);
  }
  std::sort(t.begin(), t.end());
  return timing{t[t.size() / 2], t[0]};
}

static void print_cell(timing t, size_t bytes) {
  printf(" %.3f (%.3f) %.1f |", 1e3 * t.median, 1e3 * t.best, bytes / t.median / 1e9);
}

static void set_pool(parz_gpu_context* ctx, int threads) {
  parz_host_pool_free(ctx->host_pool);
  ctx->host_pool = parz_host_pool_create(threads, parz_host_pool_spin_from_env());
}

int main(int argc, char** argv) {
  list mib, threads, piece_kib;
  int reps = 20;
  parse_list("4,16,64", &mib);
  parse_list("4,8,16", &threads);
  parse_list("512,1024,2048,4096", &piece_kib);
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--mib"))
      parse_list(argv[i + 1], &mib);
    else if (!strcmp(argv[i], "--threads"))
      parse_list(argv[i + 1], &threads);
    else if (!strcmp(argv[i], "--piece-kib"))
      parse_list(argv[i + 1], &piece_kib);
    else if (!strcmp(argv[i], "--reps"))
      reps = atoi(argv[i + 1]) > 0 ? atoi(argv[i + 1]) : 1;
    else {
      fprintf(stderr,
              "usage: bench_gpu_upload [--mib 4,16,64] [--threads 4,8,16] "
              "[--piece-kib 512,1024,2048,4096] [--reps 20]\n");
      return 2;
    }
  }
  parz_gpu_context* ctx = NULL;
  if (parz_gpu_context_create(&ctx, 0, NULL) != PARZ_OK) {
    fprintf(stderr, "bench_gpu_upload: no GPU context\n");
    return 1;
  }
  const size_t default_piece = ctx->upload_piece;
  const int default_threads = parz_host_pool_size(ctx->host_pool);
  printf("context defaults: %d host threads, pieces of %zu KiB\n\n", default_threads,
         default_piece >> 10);
  printf("ms, median (best) GB/s of the median, %d reps\n\n", reps);
  for (int m = 0; m < mib.n; m++) {
    const size_t bytes = (size_t)(mib.v[m] * 1048576.0);
    unsigned char* array = (unsigned char*)malloc(bytes);
    unsigned char* src = (unsigned char*)malloc(bytes);
    void* d = NULL;
    if (!array || !src || cudaMalloc(&d, bytes) != cudaSuccess) {
      fprintf(stderr, "bench_gpu_upload: out of memory\n");
      return 1;
    }
    for (size_t i = 0; i < bytes; i++)
      array[i] = (unsigned char)(i * 2654435761u >> 13);
    auto fresh = [&] { memcpy(src, array, bytes); };
    cudaStream_t st = ctx->stream;
    if (parz_gpu_upload(ctx, src, d, bytes, st, NULL) != PARZ_OK)
      return 1;
    unsigned char* pinned = (unsigned char*)ctx->h_in.ptr;
    printf("## %.0f MiB\n\n| part | ms, median (best) GB/s |\n|---|---|\n", mib.v[m]);
    printf("| transfer from pinned, one copy |");
    print_cell(time_op(reps, fresh,
                       [&] {
                         return (int)(cudaMemcpyAsync(d, pinned, bytes, cudaMemcpyHostToDevice,
                                                      st) != cudaSuccess ||
                                      cudaStreamSynchronize(st) != cudaSuccess);
                       }),
               bytes);
    printf("\n");
    for (int p = 0; p < piece_kib.n; p++) {
      const size_t piece = (size_t)piece_kib.v[p] << 10;
      printf("| transfer from pinned, %zu KiB copies |", piece >> 10);
      print_cell(time_op(reps, fresh,
                         [&] {
                           for (size_t a = 0; a < bytes; a += piece)
                             if (cudaMemcpyAsync((unsigned char*)d + a, pinned + a,
                                                 std::min(piece, bytes - a), cudaMemcpyHostToDevice,
                                                 st) != cudaSuccess)
                               return 1;
                           return (int)(cudaStreamSynchronize(st) != cudaSuccess);
                         }),
                 bytes);
      printf("\n");
    }
    printf("| driver's pageable copy (cudaMemcpy) |");
    print_cell(time_op(reps, fresh,
                       [&] { return (int)(cudaMemcpy(d, src, bytes, cudaMemcpyHostToDevice)); }),
               bytes);
    printf("\n| the buffer pinned in place (cudaHostRegister), transferred, unpinned |");
    print_cell(time_op(reps, fresh,
                       [&] {
                         if (cudaHostRegister(src, bytes, cudaHostRegisterDefault) != cudaSuccess)
                           return 1;
                         int bad = cudaMemcpyAsync(d, src, bytes, cudaMemcpyHostToDevice, st) !=
                                       cudaSuccess ||
                                   cudaStreamSynchronize(st) != cudaSuccess;
                         return (int)(cudaHostUnregister(src) != cudaSuccess) | bad;
                       }),
               bytes);
    printf("\n| host copy into pinned, 1 thread |");
    print_cell(time_op(reps, fresh,
                       [&] {
                         memcpy(pinned, src, bytes);
                         return 0;
                       }),
               bytes);
    printf("\n");
    for (int t = 0; t < threads.n; t++) {
      set_pool(ctx, (int)threads.v[t]);
      const int n = parz_host_pool_size(ctx->host_pool);
      printf("| host copy into pinned, %d threads |", n);
      print_cell(time_op(reps, fresh,
                         [&] {
                           parz_host_pool_each(ctx->host_pool, [&](int k) {
                             parz_gpu_copy_share(pinned, src, bytes, k, n);
                           });
                           return 0;
                         }),
                 bytes);
      printf("\n");
    }
    printf("\nparz_gpu_upload\n\n| host threads |");
    for (int p = 0; p < piece_kib.n; p++)
      printf(" pieces of %.0f KiB |", piece_kib.v[p]);
    printf("\n|---:|");
    for (int p = 0; p < piece_kib.n; p++)
      printf("---|");
    printf("\n");
    for (int t = 0; t < threads.n; t++) {
      set_pool(ctx, (int)threads.v[t]);
      printf("| %d |", parz_host_pool_size(ctx->host_pool));
      for (int p = 0; p < piece_kib.n; p++) {
        ctx->upload_piece = (size_t)piece_kib.v[p] << 10;
        print_cell(
            time_op(reps, fresh, [&] { return parz_gpu_upload(ctx, src, d, bytes, st, NULL); }),
            bytes);
      }
      printf("\n");
    }
    printf("\n");
    set_pool(ctx, default_threads);
    ctx->upload_piece = default_piece;
    cudaFree(d);
    free(src);
    free(array);
  }
  parz_gpu_context_free(ctx);
  return 0;
}
