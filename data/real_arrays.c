#define _POSIX_C_SOURCE 200809L
#include "real_arrays.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int real_array_parse_name(const char* file, real_array* out) {
  const char *suffix = strstr(file, ".bin"), *p;
  const char* tag = NULL;
  size_t len, k;
  unsigned dims = 0;
  memset(out, 0, sizeof *out);
  if (!suffix || suffix[4] != '\0')
    return 0;
  /* the type tag is the last "_f32le_" or "_f64le_" */
  for (p = file; (p = strstr(p, "le_")) != NULL; p++)
    if (p - file >= 4 && p[-4] == '_' && p[-3] == 'f')
      tag = p - 4;
  if (!tag)
    return 0;
  if (!strncmp(tag, "_f32le_", 7))
    out->array.type = PARZ_FLOAT;
  else if (!strncmp(tag, "_f64le_", 7))
    out->array.type = PARZ_DOUBLE;
  else
    return 0;
  len = (size_t)(tag - file);
  if (len >= sizeof out->name)
    len = sizeof out->name - 1;
  memcpy(out->name, file, len);
  out->name[len] = '\0';
  for (p = tag + 7; p < suffix;) {
    char* end;
    unsigned long long n = strtoull(p, &end, 10);
    if (end == p || n == 0 || dims == 4)
      return 0;
    out->array.shape[dims++] = (size_t)n;
    p = end;
    if (*p == 'x')
      p++;
    else if (p != suffix)
      return 0;
  }
  out->array.dims = dims;
  out->bytes = parz_type_size(out->array.type);
  for (k = 0; k < dims; k++)
    out->bytes *= out->array.shape[k];
  return dims > 0;
}

static int by_name(const void* a, const void* b) {
  return strcmp(((const real_array*)a)->name, ((const real_array*)b)->name);
}

real_array* real_arrays_load(const char* dir, size_t max_bytes, size_t* n) {
  DIR* d = dir ? opendir(dir) : NULL;
  struct dirent* e;
  real_array* list = NULL;
  size_t count = 0;
  *n = 0;
  if (!d)
    return NULL;
  while ((e = readdir(d)) != NULL) {
    real_array r;
    char path[4096];
    FILE* f;
    size_t slice, k;
    real_array* grown;
    if (!real_array_parse_name(e->d_name, &r))
      continue;
    /* keep whole leading-dimension slices up to max_bytes */
    slice = r.bytes / r.array.shape[0];
    if (max_bytes && r.bytes > max_bytes && max_bytes >= slice) {
      r.array.shape[0] = max_bytes / slice;
      r.bytes = r.array.shape[0] * slice;
    }
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    f = fopen(path, "rb");
    r.data = f ? malloc(r.bytes) : NULL;
    k = r.data ? fread(r.data, 1, r.bytes, f) : 0;
    if (f)
      fclose(f);
    if (k != r.bytes || !(grown = (real_array*)realloc(list, (count + 1) * sizeof *list))) {
      free(r.data);
      continue;
    }
    list = grown;
    list[count++] = r;
  }
  closedir(d);
  if (count)
    qsort(list, count, sizeof *list, by_name);
  *n = count;
  return list;
}

void real_arrays_free(real_array* list, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    free(list[i].data);
  free(list);
}

double real_array_value_range(const real_array* r) {
  size_t n = r->bytes / parz_type_size(r->array.type), i;
  double lo = INFINITY, hi = -INFINITY;
  for (i = 0; i < n; i++) {
    double v =
        r->array.type == PARZ_FLOAT ? ((const float*)r->data)[i] : ((const double*)r->data)[i];
    if (isfinite(v) && fabs(v) < 1e9) {
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
  }
  return hi > lo ? hi - lo : 1.0;
}

int real_array_holds_nan(const real_array* r) {
  size_t n = r->bytes / parz_type_size(r->array.type), i;
  for (i = 0; i < n; i++) {
    double v =
        r->array.type == PARZ_FLOAT ? ((const float*)r->data)[i] : ((const double*)r->data)[i];
    if (isnan(v))
      return 1;
  }
  return 0;
}
