/* parz_h5_read_device against H5Dread (h5_read_cases.h): every case read into GPU memory and
 * copied back; the same bytes as H5Dread, the same refusals, and a refusal of chunks stored
 * without the filter in big-endian order. Exits 77 (ctest SKIP) when no CUDA device is present.
 *
 * usage: test_h5_read_device SCRATCH_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <hdf5.h>

#include "h5_read_cases.h"
#include "parz_h5_device.h"

/* Reads into GPU memory poisoned like `host` and copies back one byte more than the values, so
 * that places left alone and a write past the end show up as in a host read. */
static int read_device(void* ctx, hid_t dset, hid_t file_space, void* host, size_t bytes,
                       parz_error* e) {
  void* d = NULL;
  int rc;
  if (cudaMalloc(&d, bytes + 1) != cudaSuccess)
    return parz_fail(e, PARZ_ERR_DEVICE, "cudaMalloc of %zu bytes failed", bytes + 1);
  cudaMemcpy(d, host, bytes + 1, cudaMemcpyHostToDevice);
  rc = parz_h5_read_device((parz_gpu_context*)ctx, dset, file_space, d, bytes, NULL, e);
  if (rc == PARZ_OK)
    cudaMemcpy(host, d, bytes + 1, cudaMemcpyDeviceToHost);
  cudaFree(d);
  return rc;
}

int main(int argc, char** argv) {
  char path[1024];
  parz_error e;
  parz_gpu_context* ctx = NULL;
  int failures;
  if (argc < 2) {
    fprintf(stderr, "usage: %s SCRATCH_DIR\n", argv[0]);
    return 2;
  }
  if (!parz_gpu_available()) {
    printf("SKIP: no CUDA device\n");
    return 77;
  }
  if (parz_gpu_context_create(&ctx, 0, &e) != PARZ_OK) {
    fprintf(stderr, "context: %s\n", e.message);
    return 1;
  }
  snprintf(path, sizeof path, "%s/h5_read_device.h5", argv[1]);
  if (h5_read_cases_write(path))
    return 1;
  {
    const h5_reader r = {"parz_h5_read_device", read_device, ctx, 0};
    failures = h5_read_cases_check(path, &r);
  }
  remove(path);
  parz_gpu_context_free(ctx);
  printf("%s\n", failures ? "FAILED" : "all reads matched H5Dread");
  return failures ? 1 : 0;
}
