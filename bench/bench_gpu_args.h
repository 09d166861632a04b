/* What the GPU benchmarks share besides their arrays (bench_raw_file.h): the check of a CUDA call
 * and the comma-separated number lists of their options. */
#ifndef PARZ_BENCH_GPU_ARGS_H
#define PARZ_BENCH_GPU_ARGS_H

#include <stdio.h>
#include <stdlib.h>

#include <vector>

#include <cuda_runtime.h>

/* Exits with the file, line and CUDA's message when the call x fails. */
#define CHECK_CUDA(x)                                                             \
  do {                                                                            \
    cudaError_t e_ = (x);                                                         \
    if (e_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

/* "1e-3,1e-2,..." as numbers, up to the first item that is none. */
static inline std::vector<double> parse_list(const char* s) {
  std::vector<double> v;
  while (*s) {
    char* end;
    v.push_back(strtod(s, &end));
    if (end == s)
      break;
    s = *end == ',' ? end + 1 : end;
  }
  return v;
}

#endif
