/* The raw type of a block's values on the GPU: the 32- or 64-bit pattern of each value, as the
 * codec's block coders take them (block_decode.h, block_encode.h). Internal to gpu/. */
#ifndef PARZ_GPU_BLOCK_TYPE_CUH
#define PARZ_GPU_BLOCK_TYPE_CUH

#include <stdint.h>

#include "parz.h"

template <parz_type T>
struct raw_of {
  typedef uint32_t type;
};
template <>
struct raw_of<PARZ_DOUBLE> {
  typedef uint64_t type;
};
template <>
struct raw_of<PARZ_INT64> {
  typedef uint64_t type;
};

#endif
