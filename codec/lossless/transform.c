/* The value transform: integer images and scaled integers (transform.h). */
#include "transform.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "lossless_forward.h"

/* The float32 scaled load takes two values a step on SSE2 (every x86-64 CPU has it). */
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#define LOAD_PAIRS 1
#else
#define LOAD_PAIRS 0
#endif

/* Whether the scales' roundings are IEEE's in this build (parz_ll_transform_valid). */
#if FLT_EVAL_METHOD != 0 || defined(__FAST_MATH__)
#define IEEE_SCALES 0
#else
#define IEEE_SCALES 1
#endif

/* A scale needs i / S rounded as the format says: a wider evaluation, or -ffast-math (a division
 * by a reciprocal's product, the rounding of nearest() folded away), would round otherwise. */
int parz_ll_transform_valid(unsigned k, parz_type type) {
  if (k == 0)
    return 1;
  return IEEE_SCALES && k <= PARZ_LL_SCALES && (type == PARZ_FLOAT || type == PARZ_DOUBLE);
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

/* A float32 row's integer images (transform 0): parz_ll_image's two cases as one xor (b with its
 * sign set becomes ~b, else b | 2^31), with no branch, so that the loop runs on vectors. */
static void load_images32(const float* v, size_t n, uint64_t* u) {
  size_t i;
  for (i = 0; i < n; i++) {
    uint32_t b;
    memcpy(&b, &v[i], 4);
    u[i] = b ^ ((0u - (b >> 31)) | 0x80000000u);
  }
}

/* The same for a float64 row (transform 0). */
static void load_images64(const double* v, size_t n, uint64_t* u) {
  size_t i;
  for (i = 0; i < n; i++) {
    uint64_t b;
    memcpy(&b, &v[i], 8);
    u[i] = b ^ ((0 - (b >> 63)) | (uint64_t)1 << 63);
  }
}

/* A float32 row's scaled integers (transform k > 0 of scale s) as parz_ll_forward32 computes
 * them, where every product x = v * s is below 2^51 in magnitude: x + 1.5 * 2^52 is x rounded to
 * its integer i as parz_ll_nearest_small rounds it, held in the low bits of the mantissa as
 * 2^51 + i, whose low 32 bits are i's as an int32. No branch per value: two values a step on
 * SSE2 (gcc does not convert floats to doubles on vectors by itself). Returns 0 where a product
 * is out of that range (or NaN), and the caller loads the row value by value. */
static int load_scaled32(const float* v, size_t n, double s, uint64_t* u) {
  size_t i = 0;
  unsigned in = 1;
#if LOAD_PAIRS
  {
    const __m128d scale = _mm_set1_pd(s), round = _mm_set1_pd(6755399441055744.0),
                  range = _mm_set1_pd(2251799813685248.0),
                  magnitude = _mm_castsi128_pd(_mm_set1_epi64x(INT64_MAX));
    const __m128i low = _mm_set1_epi64x(0xffffffff);
    __m128d inside = _mm_cmpeq_pd(scale, scale); /* all ones: scales are numbers */
    for (; i + 2 <= n; i += 2) {
      const __m128 pair = _mm_castsi128_ps(_mm_loadl_epi64((const __m128i*)(const void*)(v + i)));
      const __m128d x = _mm_mul_pd(_mm_cvtps_pd(pair), scale);
      _mm_storeu_si128((__m128i*)(void*)(u + i),
                       _mm_and_si128(_mm_castpd_si128(_mm_add_pd(x, round)), low));
      inside = _mm_and_pd(inside, _mm_cmplt_pd(_mm_and_pd(x, magnitude), range));
    }
    in = _mm_movemask_pd(inside) == 3;
  }
#endif
  for (; i < n; i++) {
    const double x = parz_mul_rn((double)v[i], s), t = x + 6755399441055744.0;
    uint64_t b;
    memcpy(&b, &t, 8);
    u[i] = b & 0xffffffffu;
    in &= (unsigned)(fabs(x) < 2251799813685248.0);
  }
  return (int)in;
}

void parz_ll_load_row(parz_type type, const void* values, size_t at, size_t n, unsigned k,
                      uint64_t* u) {
  size_t i;
  double s = parz_ll_scale_of(k);
  switch (type) {
    case PARZ_DOUBLE: {
      const double* v = (const double*)values + at;
      if (!k) {
        load_images64(v, n, u);
        break;
      }
      for (i = 0; i < n; i++) {
        uint64_t b;
        memcpy(&b, &v[i], 8);
        u[i] = parz_ll_forward64(v[i], b, k, s);
      }
      break;
    }
    case PARZ_FLOAT: {
      const float* v = (const float*)values + at;
      if (!k) {
        load_images32(v, n, u);
        break;
      }
      if (IEEE_SCALES && load_scaled32(v, n, s, u))
        break;
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
