/* Dual quantization: each value to the nearest point of the 2*eb grid, checked against eb with
 * exactly the arithmetic the decoder uses, so the bound holds for every value the codes carry. */
#include <math.h>
#include <string.h>

#include "bounded.h"
#include "bounded_forward.h"
#include "bounded_jobs.h"

size_t parz_bounded_count(const parz_bounded_shape* s) {
  size_t n = 1;
  for (unsigned i = 0; i < s->dims; i++)
    n *= s->shape[i];
  return n;
}

int parz_bounded_check(const parz_bounded_shape* s, double eb, parz_error* err) {
  if (!s)
    return parz_fail(err, PARZ_ERR_ARG, "bounded: no shape");
  if (s->type != PARZ_FLOAT && s->type != PARZ_DOUBLE)
    return parz_fail(err, PARZ_ERR_TYPE, "bounded: type %d is not float or double", (int)s->type);
  if (s->dims < 1 || s->dims > 4)
    return parz_fail(err, PARZ_ERR_DIMS, "bounded: rank %u outside 1..4", s->dims);
  size_t n = 1;
  for (unsigned i = 0; i < s->dims; i++) {
    if (s->shape[i] == 0)
      return parz_fail(err, PARZ_ERR_DIMS, "bounded: extent %u is 0", i);
    if (n > SIZE_MAX / 8 / s->shape[i])
      return parz_fail(err, PARZ_ERR_DIMS, "bounded: extent %u (%zu) overflows", i, s->shape[i]);
    n *= s->shape[i];
  }
  if (!(eb > 0) || !isfinite(2 * eb))
    return parz_fail(err, PARZ_ERR_PARAM, "bounded: error bound %g is not finite and > 0", eb);
  return PARZ_OK;
}

/* The value at p, of w bytes (4: float), as a double. */
static double load_value(const unsigned char* p, size_t w) {
  if (w == 4) {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  double x;
  memcpy(&x, p, 8);
  return x;
}

/* The holes of values [first, first + count) alone (parz_bounded_quantize without q): the
 * caller's become MASKED, the values not finite EXCEPTION. Returns the exceptions. */
static size_t holes_run(parz_type type, const void* src, size_t first, size_t count,
                        uint8_t* hole) {
  size_t nexc = 0;
  for (size_t i = first; i < first + count; i++) {
    const int finite =
        type == PARZ_FLOAT ? isfinite(((const float*)src)[i]) : isfinite(((const double*)src)[i]);
    const uint8_t h = hole[i]  ? PARZ_BOUNDED_MASKED
                      : finite ? PARZ_BOUNDED_KNOWN
                               : PARZ_BOUNDED_EXCEPTION;
    nexc += h == PARZ_BOUNDED_EXCEPTION;
    hole[i] = h;
  }
  return nexc;
}

/* Values [first, first + count) quantized, of one type: inlined once per type, so that each loop
 * reads and checks its values without a test of the type. Returns the exceptions. */
static inline size_t quantize_values(parz_type type, const void* src, size_t first, size_t count,
                                     double eb, double step, int32_t* q, uint8_t* hole) {
  const double inv_step = 1 / step; /* the check, not this quotient, decides */
  size_t nexc = 0;
  for (size_t i = first; i < first + count; i++) {
    double x = type == PARZ_FLOAT ? ((const float*)src)[i] : ((const double*)src)[i];
    int32_t v = 0;
    if (hole[i]) {
      hole[i] = PARZ_BOUNDED_MASKED;
    } else if (parz_bounded_quantize_one(type, x, eb, step, inv_step, &v)) {
      hole[i] = PARZ_BOUNDED_KNOWN;
    } else {
      v = 0;
      hole[i] = PARZ_BOUNDED_EXCEPTION;
      nexc++;
    }
    q[i] = v;
  }
  return nexc;
}

/* Values [first, first + count) of parz_bounded_quantize; returns their exceptions. */
static size_t quantize_run(parz_type type, const void* src, size_t first, size_t count, double eb,
                           double step, int32_t* q, uint8_t* hole) {
  if (!q)
    return holes_run(type, src, first, count, hole);
  if (type == PARZ_FLOAT)
    return quantize_values(PARZ_FLOAT, src, first, count, eb, step, q, hole);
  return quantize_values(PARZ_DOUBLE, src, first, count, eb, step, q, hole);
}

/* One pass over the values in parts: quantization, or the grid's largest magnitude. */
typedef struct {
  const parz_bounded_shape* s;
  const void* src;
  double eb, step;
  int32_t* q;
  uint8_t* hole;
  const uint8_t* given; /* the step's holes */
  uint64_t n, parts;
  size_t nexc[PARZ_BOUNDED_PARTS_MAX];
  double top[PARZ_BOUNDED_PARTS_MAX];
} value_pass;

static void quantize_part(void* arg, uint64_t i) {
  value_pass* j = (value_pass*)arg;
  size_t first, count;
  parz_bounded_part(j->n, j->parts, i, &first, &count);
  j->nexc[i] = quantize_run(j->s->type, j->src, first, count, j->eb, j->step, j->q, j->hole);
}

/* job over the values of s, src, in parts on the jobs (j's other fields set by the caller). */
static void value_pass_run(value_pass* j, const parz_bounded_shape* s, const void* src,
                           const parz_jobs* jobs, void (*job)(void* arg, uint64_t i)) {
  j->s = s;
  j->src = src;
  j->n = parz_bounded_count(s);
  j->parts = parz_bounded_parts(jobs, j->n, j->n);
  parz_bounded_run(jobs, j->parts, job, j);
}

size_t parz_bounded_quantize(const parz_bounded_shape* s, const void* src, double eb, double step,
                             int32_t* q, uint8_t* hole, const parz_jobs* jobs) {
  value_pass j;
  size_t nexc = 0;
  j.eb = eb;
  j.step = step;
  j.q = q;
  j.hole = hole;
  value_pass_run(&j, s, src, jobs, quantize_part);
  for (uint64_t i = 0; i < j.parts; i++)
    nexc += j.nexc[i];
  return nexc;
}

void parz_bounded_dequantize(const parz_bounded_shape* s, const int32_t* q, double unit,
                             void* dst) {
  parz_bounded_dequantize_run(s->type, q, parz_bounded_count(s), unit, dst, 1);
}

void parz_bounded_dequantize_run(parz_type type, const int32_t* q, size_t n, double unit, void* dst,
                                 ptrdiff_t stride) {
  if (type == PARZ_FLOAT) {
    float* f = (float*)dst;
    for (size_t i = 0; i < n; i++)
      f[(ptrdiff_t)i * stride] = parz_bounded_value_f32(q[i], unit);
  } else {
    double* d = (double*)dst;
    for (size_t i = 0; i < n; i++)
      d[(ptrdiff_t)i * stride] = parz_bounded_value_f64(q[i], unit);
  }
}

/* The largest finite magnitude among float values [first, first + count) not in given (or
 * NULL), 0 when none: as the magnitudes' bits, which order finite non-negative floats as their
 * values do, so that the loop has no branch and vectorizes. */
static double top_floats(const float* src, const uint8_t* given, size_t first, size_t count) {
  uint32_t top = 0;
  if (given) {
    for (size_t k = first; k < first + count; k++) {
      uint32_t m;
      memcpy(&m, src + k, 4);
      m &= 0x7fffffffu;
      /* a mask of the two tests, not a choice: the loop's form that vectorizes */
      m &= 0u - (uint32_t)((m < 0x7f800000u) & (given[k] == 0));
      top = m > top ? m : top;
    }
  } else {
    for (size_t k = first; k < first + count; k++) {
      uint32_t m;
      memcpy(&m, src + k, 4);
      m &= 0x7fffffffu;
      m = m < 0x7f800000u ? m : 0u;
      top = m > top ? m : top;
    }
  }
  float f;
  memcpy(&f, &top, 4);
  return f;
}

static void top_part(void* arg, uint64_t i) {
  value_pass* j = (value_pass*)arg;
  const size_t w = j->s->type == PARZ_FLOAT ? 4 : 8;
  size_t first, count;
  double top = 0;
  parz_bounded_part(j->n, j->parts, i, &first, &count);
  if (w == 4) {
    j->top[i] = top_floats((const float*)j->src, j->given, first, count);
    return;
  }
  for (size_t k = first; k < first + count; k++) {
    double x = load_value((const unsigned char*)j->src + k * w, w);
    if (isfinite(x) && !(j->given && j->given[k]) && fabs(x) > top)
      top = fabs(x);
  }
  j->top[i] = top;
}

double parz_bounded_step(const parz_bounded_shape* s, const void* src, double eb,
                         const uint8_t* hole, const parz_jobs* jobs) {
  value_pass j;
  double top = 0;
  j.given = hole;
  value_pass_run(&j, s, src, jobs, top_part);
  for (uint64_t i = 0; i < j.parts; i++)
    if (j.top[i] > top)
      top = j.top[i];
  return parz_bounded_step_of(s->type, top, eb);
}

double parz_bounded_step_of(parz_type type, double top, double eb) {
  return parz_bounded_grid_step(type, top, eb);
}
