/* What the GPU encoders' cases (gpu_bounded_encode_cases.h, gpu_lossless_encode_cases.h) share: a
 * case with what the encoder must answer, and the arrays of their shapes. C++ (tests only). */
#ifndef PARZ_TEST_GPU_ENCODE_CASE_H
#define PARZ_TEST_GPU_ENCODE_CASE_H

#include <string.h>

#include <string>
#include <vector>

#include "array_of.h"
#include "parz_chunk.h"

struct gpu_encode_case {
  std::string name;
  parz_array a;
  std::vector<unsigned char> data;
  parz_chunk_config cfg;
  int refused; /* the GPU encoder answers PARZ_ERR_UNSUPPORTED */
};

/* a's values. */
static inline size_t gpu_case_count(const parz_array& a) {
  size_t n = 1;
  for (unsigned k = 0; k < a.dims; k++)
    n *= a.shape[k];
  return n;
}

/* The element of a's buffer that holds value i (C order), through a's strides. */
static inline size_t gpu_case_offset(const parz_array& a, size_t i) {
  size_t off = 0, run = 1;
  for (unsigned k = a.dims; k-- > 0;) {
    off += (i % a.shape[k]) * (size_t)(a.stride[k] ? a.stride[k] : (ptrdiff_t)run);
    run *= a.shape[k];
    i /= a.shape[k];
  }
  return off;
}

#endif
