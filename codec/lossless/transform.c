/* The value transform: integer images and scaled integers (transform.h). */
#include "transform.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "lossless_forward.h"

/* A scale needs i / S rounded as the format says: a wider evaluation, or -ffast-math (a division
 * by a reciprocal's product, the rounding of nearest() folded away), would round otherwise. */
int parz_ll_transform_valid(unsigned k, parz_type type) {
  if (k == 0)
    return 1;
#if FLT_EVAL_METHOD != 0 || defined(__FAST_MATH__)
  (void)type;
  return 0;
#else
  return k <= PARZ_LL_SCALES && (type == PARZ_FLOAT || type == PARZ_DOUBLE);
#endif
}

/* Values a float32 check takes between its looks at the outcome. */
#define FITS_GROUP 64u

/* parz_ll_fits32 at scale 1 in float arithmetic, without a branch, which runs four values to a
 * vector: v is in range, not -0.0 (whose 0 comes back as 0.0), and whole: |v| of 2^23 or more is
 * (a float's spacing there is 1 or more), and below it |v| + 2^23 rounds to an integer and back
 * to |v| only where |v| is one. NaN fails the range. */
static unsigned whole32(float v, uint32_t b) {
  const float a = fabsf(v);
  const unsigned in = (unsigned)(v > -2.1e9f) & (unsigned)(v < 2.1e9f); /* 2.1e9 is a float */
  return in & ((unsigned)(a >= 8388608.0f) | (unsigned)((a + 8388608.0f) - 8388608.0f == a)) &
         (unsigned)(b != 0x80000000u);
}

int parz_ll_scale_fits(parz_type type, const void* values, size_t n, unsigned k) {
  if (k == 0 || !parz_ll_transform_valid(k, type))
    return 0;
  double s = parz_ll_scale_of(k);
  size_t i;
  if (type == PARZ_DOUBLE) {
    const double* v = (const double*)values;
    for (i = 0; i < n; i++) {
      uint64_t b; /* bit patterns: -0.0 is not 0.0 */
      memcpy(&b, &v[i], 8);
      if (!parz_ll_fits64(v[i], b, s))
        return 0;
    }
    return 1;
  }
  /* float32: |x| < 2.1e9 is far below 2^51, where the nearest integer is an addition and a
   * subtraction; each group of values checked without a branch, so that the loop runs on vectors */
  const float* v = (const float*)values;
  for (i = 0; i < n; i += FITS_GROUP) {
    const size_t end = n - i < FITS_GROUP ? n : i + FITS_GROUP;
    unsigned bad = 0;
    size_t j;
    if (s == 1.0) {
      for (j = i; j < end; j++) {
        uint32_t b;
        memcpy(&b, &v[j], 4);
        bad |= ~whole32(v[j], b) & 1u;
      }
    } else {
      for (j = i; j < end; j++) {
        uint32_t b;
        memcpy(&b, &v[j], 4);
        bad |= !parz_ll_fits32(v[j], b, s);
      }
    }
    if (bad)
      return 0;
  }
  return 1;
}

void parz_ll_load_row(parz_type type, const void* values, size_t at, size_t n, unsigned k,
                      uint64_t* u) {
  size_t i;
  double s = parz_ll_scale_of(k);
  switch (type) {
    case PARZ_DOUBLE: {
      const double* v = (const double*)values + at;
      for (i = 0; i < n; i++) {
        uint64_t b;
        memcpy(&b, &v[i], 8);
        u[i] = parz_ll_forward64(v[i], b, k, s);
      }
      break;
    }
    case PARZ_FLOAT: {
      const float* v = (const float*)values + at;
      for (i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, &v[i], 4);
        u[i] = parz_ll_forward32(v[i], b, k, s);
      }
      break;
    }
    case PARZ_INT64:
      for (i = 0; i < n; i++)
        u[i] = (uint64_t)((const int64_t*)values)[at + i];
      break;
    default:
      for (i = 0; i < n; i++)
        u[i] = (uint32_t)((const int32_t*)values)[at + i];
      break;
  }
}

void parz_ll_store_row(parz_type type, void* values, size_t at, size_t n, unsigned k,
                       const uint64_t* u) {
  size_t i;
  double s = parz_ll_scale_of(k);
  switch (type) {
    case PARZ_DOUBLE:
      if (!k) /* integer images alone: a loop on vectors */
        for (i = 0; i < n; i++) {
          uint64_t b = parz_ll_float_bits(1, 0, s, u[i]);
          memcpy((double*)values + at + i, &b, 8);
        }
      else
        for (i = 0; i < n; i++) {
          uint64_t b = parz_ll_float_bits(1, k, s, u[i]);
          memcpy((double*)values + at + i, &b, 8);
        }
      break;
    case PARZ_FLOAT:
      if (!k)
        for (i = 0; i < n; i++) {
          uint32_t b = (uint32_t)parz_ll_float_bits(0, 0, s, u[i]);
          memcpy((float*)values + at + i, &b, 4);
        }
      else
        for (i = 0; i < n; i++) {
          uint32_t b = (uint32_t)parz_ll_float_bits(0, k, s, u[i]);
          memcpy((float*)values + at + i, &b, 4);
        }
      break;
    case PARZ_INT64:
      for (i = 0; i < n; i++)
        ((int64_t*)values)[at + i] = (int64_t)u[i];
      break;
    default:
      for (i = 0; i < n; i++)
        ((int32_t*)values)[at + i] = (int32_t)(uint32_t)u[i];
      break;
  }
}
