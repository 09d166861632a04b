/* A test's array: contiguous values of one type in a box of the given shape. */
#ifndef PARZ_TEST_ARRAY_OF_H
#define PARZ_TEST_ARRAY_OF_H

#include <string.h>

#include "parz.h"

static inline parz_array parz_test_array(parz_type type, unsigned dims, const size_t* shape) {
  parz_array a;
  unsigned k;
  memset(&a, 0, sizeof a);
  a.type = type;
  a.dims = dims;
  for (k = 0; k < dims; k++)
    a.shape[k] = shape[k];
  return a;
}

#endif
