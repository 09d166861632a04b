/* One raw array file for the GPU benchmarks (bench_gpu_kernel, bench_gpu_encode): type and shape
 * from its name (data/real_arrays.h), unit extents dropped as the filter drops them (they would
 * pad every block along them), the values read into host memory, and their range. */
#ifndef PARZ_BENCH_RAW_FILE_H
#define PARZ_BENCH_RAW_FILE_H

#include <stdio.h>
#include <string.h>

#include <vector>

#include "real_arrays.h"

struct raw_array {
  parz_array a;
  std::vector<unsigned char> data;
  double range;     /* of the values, fill values and non-finite ones left out */
  const char* name; /* the file's name, within path */
};

/* 1 when path names a raw array and its file holds it. */
static inline int raw_file_load(const char* path, raw_array* r) {
  const char* base = strrchr(path, '/');
  real_array named;
  base = base ? base + 1 : path;
  if (!real_array_parse_name(base, &named))
    return 0;
  memset(&r->a, 0, sizeof r->a);
  r->a.type = named.array.type;
  for (unsigned k = 0; k < named.array.dims; k++)
    if (named.array.shape[k] > 1)
      r->a.shape[r->a.dims++] = named.array.shape[k];
  if (!r->a.dims)
    return 0;
  FILE* f = fopen(path, "rb");
  if (!f)
    return 0;
  r->data.resize(named.bytes);
  const size_t got = fread(r->data.data(), 1, named.bytes, f);
  fclose(f);
  if (got != named.bytes)
    return 0;
  named.data = r->data.data();
  r->range = real_array_value_range(&named);
  r->name = base;
  return 1;
}

#endif
