/* ParZ on the GPU, through gpu/parz_gpu.h: the kernel time of a chunk resident in device memory
 * (CUDA events around parz_gpu_decode_device on one stream) and the end-to-end filter path
 * (host chunk in, host array out: parz_gpu_chunk_decode, wall clock). A device-to-device copy of
 * the decoded array's size, timed the same way, gives the memory-bandwidth anchor. Built only
 * with CUDA (PARZ_BENCH_HAVE_CUDA); plain C against the CUDA runtime's C API. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifdef PARZ_BENCH_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "parz_gpu.h"

struct bench_gpu {
  parz_gpu_context* ctx;
  parz_chunk_view view;
  const unsigned char* chunk;
  size_t chunk_bytes;
  void *d_chunk, *d_dst, *d_copy;
  void* host_out;
  int e2e_done; /* host_out holds an end-to-end decode */
  cudaStream_t stream;
  cudaEvent_t start, stop;
};

static char gpu_name[256];

int bench_gpu_available(void) {
  struct cudaDeviceProp prop;
  if (!parz_gpu_available())
    return 0;
  if (!gpu_name[0] && cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
    memcpy(gpu_name, prop.name, sizeof gpu_name - 1);
  return 1;
}

const char* bench_gpu_name(void) { return gpu_name[0] ? gpu_name : "none"; }

bench_gpu* bench_gpu_create(const unsigned char* chunk, size_t chunk_bytes, const bench_data* d) {
  bench_gpu* g = (bench_gpu*)calloc(1, sizeof *g);
  if (!g)
    return NULL;
  g->chunk = chunk;
  g->chunk_bytes = chunk_bytes;
  if (parz_chunk_parse(chunk, chunk_bytes, &g->view, NULL) != PARZ_OK ||
      parz_gpu_context_create(&g->ctx, 0, NULL) != PARZ_OK ||
      cudaStreamCreate(&g->stream) != cudaSuccess || cudaEventCreate(&g->start) != cudaSuccess ||
      cudaEventCreate(&g->stop) != cudaSuccess ||
      cudaMalloc(&g->d_chunk, chunk_bytes) != cudaSuccess ||
      cudaMalloc(&g->d_dst, d->bytes) != cudaSuccess ||
      cudaMalloc(&g->d_copy, d->bytes) != cudaSuccess ||
      cudaMemcpy(g->d_chunk, chunk, chunk_bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
      !(g->host_out = malloc(d->bytes))) {
    bench_gpu_free(g);
    return NULL;
  }
  bench_touch(g->host_out, d->bytes);
  return g;
}

/* Seconds between the two events around whatever was enqueued between them. */
static double event_seconds(bench_gpu* g) {
  float ms = 0;
  if (cudaEventRecord(g->stop, g->stream) != cudaSuccess ||
      cudaEventSynchronize(g->stop) != cudaSuccess ||
      cudaEventElapsedTime(&ms, g->start, g->stop) != cudaSuccess)
    return -1;
  return 1e-3 * ms;
}

double bench_gpu_kernel(void* ctx) {
  bench_gpu* g = (bench_gpu*)ctx;
  if (cudaEventRecord(g->start, g->stream) != cudaSuccess ||
      parz_gpu_decode_device(g->ctx, &g->view, g->d_chunk, g->d_dst, g->stream, NULL) != PARZ_OK)
    return -1;
  return event_seconds(g);
}

double bench_gpu_d2d(void* ctx) {
  bench_gpu* g = (bench_gpu*)ctx;
  if (cudaEventRecord(g->start, g->stream) != cudaSuccess ||
      cudaMemcpyAsync(g->d_copy, g->d_dst, g->view.raw_bytes, cudaMemcpyDeviceToDevice,
                      g->stream) != cudaSuccess)
    return -1;
  return event_seconds(g);
}

double bench_gpu_e2e(void* ctx) {
  bench_gpu* g = (bench_gpu*)ctx;
  double t0 = bench_now();
  if (parz_gpu_chunk_decode(g->ctx, g->chunk, g->chunk_bytes, g->host_out, g->view.raw_bytes,
                            NULL) != PARZ_OK)
    return -1;
  t0 = bench_now() - t0;
  g->e2e_done = 1;
  return t0;
}

int bench_gpu_check(bench_gpu* g, const void* ref) {
  void* dev = malloc(g->view.raw_bytes);
  int same = dev &&
             cudaMemcpy(dev, g->d_dst, g->view.raw_bytes, cudaMemcpyDeviceToHost) == cudaSuccess &&
             !memcmp(dev, ref, g->view.raw_bytes) &&
             (!g->e2e_done || !memcmp(g->host_out, ref, g->view.raw_bytes));
  free(dev);
  return same;
}

void bench_gpu_free(bench_gpu* g) {
  if (!g)
    return;
  if (g->d_chunk)
    cudaFree(g->d_chunk);
  if (g->d_dst)
    cudaFree(g->d_dst);
  if (g->d_copy)
    cudaFree(g->d_copy);
  if (g->start)
    cudaEventDestroy(g->start);
  if (g->stop)
    cudaEventDestroy(g->stop);
  if (g->stream)
    cudaStreamDestroy(g->stream);
  parz_gpu_context_free(g->ctx);
  free(g->host_out);
  free(g);
}

#else /* no CUDA in this build */

int bench_gpu_available(void) { return 0; }
const char* bench_gpu_name(void) { return "none"; }
bench_gpu* bench_gpu_create(const unsigned char* chunk, size_t chunk_bytes, const bench_data* d) {
  (void)chunk, (void)chunk_bytes, (void)d;
  return NULL;
}
double bench_gpu_kernel(void* g) {
  (void)g;
  return -1;
}
double bench_gpu_e2e(void* g) {
  (void)g;
  return -1;
}
double bench_gpu_d2d(void* g) {
  (void)g;
  return -1;
}
int bench_gpu_check(bench_gpu* g, const void* ref) {
  (void)g, (void)ref;
  return 0;
}
void bench_gpu_free(bench_gpu* g) { (void)g; }

#endif
