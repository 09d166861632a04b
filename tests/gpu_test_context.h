/* The GPU tests' start: a context on device 0, or the status the program exits with where it
 * cannot have one. */
#ifndef PARZ_TEST_GPU_TEST_CONTEXT_H
#define PARZ_TEST_GPU_TEST_CONTEXT_H

#include <stdio.h>

#include "parz_gpu.h"

/* 0 and *ctx made, or 77 (ctest's SKIP) without a CUDA device, or 1 when a device refuses a
 * context; says which. */
static inline int gpu_test_context(parz_gpu_context** ctx) {
  parz_error e;
  if (!parz_gpu_available()) {
    printf("SKIP: no CUDA device\n");
    return 77;
  }
  if (parz_gpu_context_create(ctx, 0, &e) != PARZ_OK) {
    fprintf(stderr, "FAIL: context: %s\n", e.message);
    return 1;
  }
  return 0;
}

#endif
