/* Array descriptions: checks, sizes and block counts. */
#include <stdint.h>

#include "parz.h"

size_t parz_type_size(parz_type type) {
  switch (type) {
    case PARZ_INT32:
    case PARZ_FLOAT: return 4;
    case PARZ_INT64:
    case PARZ_DOUBLE: return 8;
    default: return 0;
  }
}

const char* parz_type_name(parz_type type) {
  switch (type) {
    case PARZ_INT32: return "int32";
    case PARZ_INT64: return "int64";
    case PARZ_FLOAT: return "float";
    case PARZ_DOUBLE: return "double";
    default: return "unknown";
  }
}

int parz_array_check(const parz_array* a, parz_error* err) {
  unsigned i;
  size_t count = 1;
  if (!a)
    return parz_fail(err, PARZ_ERR_ARG, "NULL array description");
  if (!parz_type_size(a->type))
    return parz_fail(err, PARZ_ERR_TYPE,
                     "unknown scalar type %d (expected 1 int32, 2 int64, "
                     "3 float, 4 double)",
                     (int)a->type);
  if (a->dims < 1 || a->dims > 4)
    return parz_fail(err, PARZ_ERR_DIMS, "rank %u outside 1..4", a->dims);
  for (i = 0; i < a->dims; i++) {
    if (!a->shape[i])
      return parz_fail(err, PARZ_ERR_DIMS, "extent %u of the array is zero", i);
    /* shape[i] + 3 must not wrap, and the element count must fit in bytes */
    if (a->shape[i] > SIZE_MAX / 8 || count > SIZE_MAX / 8 / a->shape[i])
      return parz_fail(err, PARZ_ERR_DIMS, "array of more than SIZE_MAX bytes");
    count *= a->shape[i];
  }
  return PARZ_OK;
}

size_t parz_array_count(const parz_array* a) {
  unsigned i;
  size_t count = 1;
  if (!a || a->dims < 1 || a->dims > 4)
    return 0;
  for (i = 0; i < a->dims; i++)
    count *= a->shape[i];
  return count;
}

size_t parz_block_count(const parz_array* a) {
  unsigned i;
  size_t count = 1;
  if (!a || a->dims < 1 || a->dims > 4)
    return 0;
  for (i = 0; i < a->dims; i++)
    count *= (a->shape[i] + 3) / 4;
  return count;
}
