/* The value transform before any predictor: the values' integer images, or, for arrays whose
 * every value is exactly an integer divided by a scale, those integers. */
#include <math.h>
#include <string.h>

#include "lab.h"

/* Decimal or binary scales S: arrays whose every value v is exactly (T)i / S for an integer i
 * (T the value type, one correctly rounded IEEE division) are coded as the integers i. S = 1 is
 * whole numbers; sensor records stored as counts / gain are the others. */
static const double scales[] = {1,   2,    4,   5,    8,    10,  16,  20,  25,  32,
                                50,  64,   100, 128,  200,  250, 256, 400, 500, 512,
                                1e3, 1024, 2e3, 2048, 4096, 1e4, 1e5, 1e6};
#define NSCALES (int)(sizeof scales / sizeof *scales)

static int scale_fits(const lab_array* a, double s, size_t n) {
  if (a->f64) {
    const double* v = a->data;
    for (size_t i = 0; i < n; i++) {
      double x = v[i] * s;
      if (!(x >= -9.2e18 && x <= 9.2e18))
        return 0;
      double back = (double)(int64_t)llrint(x) / s;
      if (memcmp(&back, &v[i], 8) != 0)
        return 0;
    }
  } else {
    const float* v = a->data;
    for (size_t i = 0; i < n; i++) {
      float x = v[i] * (float)s;
      if (!(x >= -2.1e9f && x <= 2.1e9f))
        return 0;
      float back = (float)(int32_t)lrintf(x) / (float)s;
      if (memcmp(&back, &v[i], 4) != 0)
        return 0;
    }
  }
  return 1;
}

/* The index + 1 of the first scale every value fits, 0 when none does. */
int lab_find_scale(const lab_array* a) {
  for (int k = 0; k < NSCALES; k++)
    if (scale_fits(a, scales[k], a->n < 256 ? a->n : 256) && scale_fits(a, scales[k], a->n))
      return k + 1;
  return 0;
}

uint64_t lab_load(const lab_array* a, size_t i, int scale) {
  if (a->f64) {
    double v = ((const double*)a->data)[i];
    if (scale)
      return (uint64_t)(int64_t)llrint(v * scales[scale - 1]);
    uint64_t b;
    memcpy(&b, &v, 8);
    return lab_image(b, 64);
  }
  float v = ((const float*)a->data)[i];
  if (scale)
    return (uint32_t)(int32_t)lrintf(v * (float)scales[scale - 1]);
  uint32_t b;
  memcpy(&b, &v, 4);
  return lab_image(b, 32);
}
void lab_store(const lab_array* a, void* out, size_t i, uint64_t u, int scale) {
  if (a->f64) {
    double v;
    if (scale) {
      v = (double)(int64_t)u / scales[scale - 1];
    } else {
      uint64_t b = lab_unimage(u, 64);
      memcpy(&v, &b, 8);
    }
    ((double*)out)[i] = v;
  } else {
    float v;
    if (scale) {
      v = (float)(int32_t)(uint32_t)u / (float)scales[scale - 1];
    } else {
      uint32_t b = (uint32_t)lab_unimage(u, 32);
      memcpy(&v, &b, 4);
    }
    ((float*)out)[i] = v;
  }
}
