/* Error metrics and sample statistics of the benchmark suite. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static double value_at(const parz_array* a, const void* data, size_t i) {
  return a->type == PARZ_FLOAT ? (double)((const float*)data)[i] : ((const double*)data)[i];
}

double bench_range(const parz_array* a, const void* data) {
  size_t n = parz_array_count(a), i;
  double lo = INFINITY, hi = -INFINITY;
  for (i = 0; i < n; i++) {
    double v = value_at(a, data, i);
    if (isfinite(v) && fabs(v) < BENCH_FILL_MAGNITUDE) {
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
  }
  return hi > lo ? hi - lo : 1.0;
}

size_t bench_fill_values(const parz_array* a, const void* data) {
  size_t n = parz_array_count(a), i, fill = 0;
  for (i = 0; i < n; i++) {
    double v = value_at(a, data, i);
    fill += isfinite(v) && fabs(v) >= BENCH_FILL_MAGNITUDE;
  }
  return fill;
}

void bench_errors(const parz_array* a, const void* ref, const void* out, double range,
                  bench_quality* q) {
  size_t n = parz_array_count(a), i, counted = 0;
  double emax = 0, sum2 = 0;
  for (i = 0; i < n; i++) {
    double r = value_at(a, ref, i), e;
    if (!isfinite(r) || fabs(r) >= BENCH_FILL_MAGNITUDE) /* as in bench_range */
      continue;
    e = fabs(value_at(a, out, i) - r);
    if (!(e <= emax)) /* NaN output counts as an infinite error */
      emax = isnan(e) ? INFINITY : e;
    sum2 += e * e;
    counted++;
  }
  q->max_err = emax;
  q->rms_err = counted ? sqrt(sum2 / (double)counted) : 0;
  q->psnr = q->rms_err > 0 ? 20.0 * log10(range / q->rms_err) : INFINITY;
}

static int by_value(const void* x, const void* y) {
  double a = *(const double*)x, b = *(const double*)y;
  return (a > b) - (a < b);
}

void bench_throughput(const bench_probe* p, double bytes, double* med, double* lo, double* hi) {
  double s[BENCH_MAX_REPS];
  int n = p->nsamples;
  if (n <= 0 || p->failed) {
    *med = *lo = *hi = NAN;
    return;
  }
  memcpy(s, p->samples, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, by_value);
  /* throughput is bytes/time: the fastest run gives the highest value */
  *med = bytes / 1e9 / (n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]));
  *hi = bytes / 1e9 / s[0];
  *lo = bytes / 1e9 / s[n - 1];
}

void bench_touch(void* p, size_t bytes) {
  if (p)
    memset(p, 0, bytes);
}
