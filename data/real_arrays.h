/* Raw arrays named like the ones in data/ and ${PARZ_SHARED_DATA} (little-endian, C order,
 * type and shape in the file name, e.g. name_f32le_20x180x360.bin), read by the tests and the
 * benchmarks alike. Needs only the codec library. */
#ifndef PARZ_REAL_ARRAYS_H
#define PARZ_REAL_ARRAYS_H

#include <stddef.h>

#include "parz.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  char name[64];    /* file name without the type/shape suffix, e.g. "levitus_temp" */
  parz_array array; /* type and shape from the file name, contiguous */
  void* data;       /* malloc'd, array's values */
  size_t bytes;
} real_array;

/* Loads every *.bin of dir whose name parses (sorted by name) into a malloc'd list; count in *n.
 * At most max_bytes of each file: a slab of leading-dimension slices (0 = whole file). Returns
 * NULL with *n = 0 when the directory is missing or holds none. */
real_array* real_arrays_load(const char* dir, size_t max_bytes, size_t* n);
void real_arrays_free(real_array* list, size_t n);

/* Parses "<name>_<f32|f64>le_<d0>x<d1>...bin"; 0 when the name does not follow the pattern. */
int real_array_parse_name(const char* file, real_array* out);

/* The values' range (max - min), leaving out non-finite values and fill values (|v| >= 1e9, e.g.
 * levitus' -1e10): what the benchmarks' relative tolerances are relative to. 1 when empty. */
double real_array_value_range(const real_array* r);

/* 1 when some value is NaN (which a default configuration masks), else 0. */
int real_array_holds_nan(const real_array* r);

#ifdef __cplusplus
}
#endif

#endif
