/* Prediction on the quantized integers. Since the decoder knows every quantized value exactly,
 * prediction has no error feedback: Lorenzo's residuals are the n-D finite difference and its
 * inverse an n-D prefix sum; the interpolation's residuals come level by level (coarse grid to
 * fine), and every value of one level and axis is predicted from earlier ones only, so each such
 * pass of the inverse is parallel over its values. */
#include <math.h>
#include <string.h>

#include "bounded.h"

/* The shape as four extents (leading 1s) and C-order strides. */
static void shape4(const parz_bounded_shape* s, size_t n[4], size_t st[4]) {
  unsigned pad = 4 - s->dims;
  for (unsigned k = 0; k < 4; k++)
    n[k] = k < pad ? 1 : s->shape[k - pad];
  st[3] = 1;
  for (int k = 2; k >= 0; k--)
    st[k] = st[k + 1] * n[k + 1];
}

static int32_t clamp_q(int64_t v) {
  if (v > PARZ_BOUNDED_QMAX)
    return PARZ_BOUNDED_QMAX;
  if (v < -PARZ_BOUNDED_QMAX)
    return -PARZ_BOUNDED_QMAX;
  return (int32_t)v;
}

/* floor(v / 2^sh) without relying on the sign behaviour of >> */
static int64_t floor_shift(int64_t v, unsigned sh) {
  int64_t m = (int64_t)1 << sh;
  return v >= 0 ? v / m : -((-v + m - 1) / m);
}

/* ---------------- Lorenzo ---------------- */

static int64_t lorenzo_pred(const int32_t* q, const size_t n[4], const size_t st[4], size_t idx) {
  size_t c[4], r = idx;
  for (int k = 3; k >= 0; k--) {
    c[k] = r % n[k];
    r /= n[k];
  }
  int64_t p = 0;
  for (unsigned m = 1; m < 16; m++) {
    size_t off = 0;
    int bits = 0, ok = 1;
    for (unsigned k = 0; k < 4; k++)
      if (m & (1u << k)) {
        if (c[k] == 0)
          ok = 0;
        off += st[k];
        bits++;
      }
    if (ok)
      p += (bits & 1) ? q[idx - off] : -(int64_t)q[idx - off];
  }
  return p;
}

static void lorenzo_forward(const size_t n[4], const size_t st[4], int32_t* q, const uint8_t* hole,
                            int32_t* codes) {
  size_t total = n[0] * n[1] * n[2] * n[3];
  if (hole)
    for (size_t i = 0; i < total; i++)
      if (hole[i] != PARZ_BOUNDED_KNOWN)
        q[i] = clamp_q(lorenzo_pred(q, n, st, i));
  memcpy(codes, q, total * sizeof *codes);
  /* difference along each axis, last element first so that each reads undifferenced values */
  for (unsigned k = 0; k < 4; k++) {
    if (n[k] < 2)
      continue;
    size_t span = n[k] * st[k];
    for (size_t base = 0; base < total; base += span)
      for (size_t i = base + span; i-- > base + st[k];)
        codes[i] -= codes[i - st[k]];
  }
}

static int lorenzo_inverse(const size_t n[4], const size_t st[4], const int32_t* codes, int32_t* q,
                           parz_error* err) {
  size_t total = n[0] * n[1] * n[2] * n[3];
  uint32_t* u = (uint32_t*)q; /* wrapping sums: hostile codes cannot overflow a signed type */
  for (size_t i = 0; i < total; i++)
    u[i] = (uint32_t)codes[i];
  for (unsigned k = 0; k < 4; k++) {
    if (n[k] < 2)
      continue;
    size_t span = n[k] * st[k];
    for (size_t base = 0; base < total; base += span)
      for (size_t i = base + st[k]; i < base + span; i++)
        u[i] += u[i - st[k]];
  }
  for (size_t i = 0; i < total; i++) {
    int64_t v = u[i] >= 0x80000000u ? (int64_t)u[i] - 0x100000000LL : (int64_t)u[i];
    if (v > PARZ_BOUNDED_QMAX || v < -PARZ_BOUNDED_QMAX)
      return parz_fail(err, PARZ_ERR_STREAM, "bounded: quantized value %lld at %zu outside +-%ld",
                       (long long)v, i, (long)PARZ_BOUNDED_QMAX);
    q[i] = (int32_t)v;
  }
  return PARZ_OK;
}

/* ---------------- interpolation ---------------- */

/* Prediction of the value at idx from its neighbours along one axis, s apart (stride sk in
 * memory): b before it always exists, a = 3s before, c = s after, d = 3s after where inside. */
static int64_t interp_pred(const int32_t* q, size_t idx, size_t pk, size_t nk, size_t sk, size_t s,
                           int cubic) {
  int64_t b = q[idx - sk];
  if (pk + s >= nk) /* past the last known value: extend the line through the two before */
    return pk >= 3 * s ? floor_shift(3 * b - q[idx - 3 * sk] + 1, 1) : b;
  int64_t c = q[idx + sk];
  if (!cubic)
    return floor_shift(b + c + 1, 1);
  int has_a = pk >= 3 * s, has_d = pk + 3 * s < nk;
  if (has_a && has_d) {
    int64_t a = q[idx - 3 * sk], d = q[idx + 3 * sk];
    return floor_shift(-a + 9 * b + 9 * c - d + 8, 4);
  }
  if (has_a)
    return floor_shift(-q[idx - 3 * sk] + 6 * b + 3 * c + 4, 3);
  if (has_d)
    return floor_shift(3 * b + 6 * c - q[idx + 3 * sk] + 4, 3);
  return floor_shift(b + c + 1, 1);
}

/* Encoding's inputs for the interpolation: the values, read as doubles, and the bound. */
typedef struct {
  const void* src;
  parz_type type;
  double eb, step, inv_unit; /* inv_unit only guesses the code: the check decides */
  uint8_t* hole;
} interp_source;

static double read_value(const interp_source* in, size_t i) {
  if (in->type == PARZ_FLOAT)
    return ((const float*)in->src)[i];
  return ((const double*)in->src)[i];
}

/* The code of a known value with error feedback: the residual from the prediction p (fine
 * units) in steps of 2 eb, the reconstruction checked with the decoder's arithmetic. Returns 0
 * when the value must be an exception. */
static int interp_encode_one(const interp_source* in, size_t idx, int64_t p, int32_t* qv,
                             int32_t* code) {
  double unit = parz_bounded_unit(PARZ_BOUNDED_LINEAR, in->step);
  double x = read_value(in, idx);
  double t = (x * in->inv_unit - (double)p) * (1.0 / PARZ_BOUNDED_FINE), c = nearbyint(t);
  double other = c + (t > c ? 1 : -1); /* tried when the nearer step misses by rounding */
  for (int k = 0; k < 2; k++, c = other) {
    if (!(fabs(c) <= (double)PARZ_BOUNDED_QMAX))
      continue;
    int64_t v = p + (int64_t)c * PARZ_BOUNDED_FINE;
    if (v > PARZ_BOUNDED_QMAX_FINE || v < -PARZ_BOUNDED_QMAX_FINE)
      continue;
    if (fabs(parz_bounded_dequant_one(in->type, (int32_t)v, unit) - x) <= in->eb) {
      *qv = (int32_t)v;
      *code = (int32_t)c;
      return 1;
    }
  }
  return 0;
}

/* Visits every value once in code order; encodes (in != NULL: codes and q from the values,
 * holes set to their prediction, misses turned into exceptions) or decodes (q from codes).
 * Returns the number of values visited, or (size_t)-1 when a decoded value leaves
 * +-QMAX_FINE (*bad = its index). */
static size_t interp_walk(const size_t n[4], const size_t st[4], int predictor, int32_t* q,
                          const interp_source* in, int32_t* codes, size_t* bad) {
  int cubic = predictor == PARZ_BOUNDED_CUBIC || predictor == PARZ_BOUNDED_CUBIC_FAST;
  int fast_first = predictor >= PARZ_BOUNDED_LINEAR_FAST;
  size_t maxn = 1, top = 1, pos = 0;
  for (unsigned k = 0; k < 4; k++)
    if (n[k] > maxn)
      maxn = n[k];
  while (top < maxn)
    top <<= 1;
  for (size_t s = top; s > 0; s >>= 1) {
    for (unsigned pass = 0; pass < 4; pass++) {
      unsigned k = fast_first ? 3 - pass : pass;
      if (s == top && pass > 0)
        break; /* the first pass is the origin alone */
      if (s < top && n[k] <= s)
        continue;
      /* the axes this level has passed are on the grid of stride s, the others of 2s */
      size_t start[4], step[4];
      for (unsigned j = 0; j < 4; j++) {
        start[j] = j == k && s < top ? s : 0;
        step[j] = (fast_first ? j > k : j < k) ? s : 2 * s;
      }
      size_t sk = s * st[k];
      for (size_t i0 = start[0]; i0 < n[0]; i0 += step[0])
        for (size_t i1 = start[1]; i1 < n[1]; i1 += step[1])
          for (size_t i2 = start[2]; i2 < n[2]; i2 += step[2]) {
            size_t base = i0 * st[0] + i1 * st[1] + i2 * st[2];
            size_t c3[3] = {i0, i1, i2};
            for (size_t i3 = start[3]; i3 < n[3]; i3 += step[3]) {
              size_t idx = base + i3;
              size_t pk = k == 3 ? i3 : c3[k];
              int64_t p = s == top ? 0 : interp_pred(q, idx, pk, n[k], sk, s, cubic);
              if (!in) {
                int64_t v = p + (int64_t)codes[pos] * PARZ_BOUNDED_FINE;
                if (v > PARZ_BOUNDED_QMAX_FINE || v < -PARZ_BOUNDED_QMAX_FINE) {
                  *bad = idx;
                  return (size_t)-1;
                }
                q[idx] = (int32_t)v;
              } else if (in->hole[idx] != PARZ_BOUNDED_KNOWN ||
                         !interp_encode_one(in, idx, p, &q[idx], &codes[pos])) {
                if (in->hole[idx] == PARZ_BOUNDED_KNOWN)
                  in->hole[idx] = PARZ_BOUNDED_EXCEPTION;
                q[idx] = p > PARZ_BOUNDED_QMAX_FINE    ? PARZ_BOUNDED_QMAX_FINE
                         : p < -PARZ_BOUNDED_QMAX_FINE ? -PARZ_BOUNDED_QMAX_FINE
                                                       : (int32_t)p;
                codes[pos] = 0;
              }
              pos++;
            }
          }
    }
  }
  return pos;
}

double parz_bounded_unit(int predictor, double step) {
  return predictor == PARZ_BOUNDED_LORENZO ? step : step / PARZ_BOUNDED_FINE;
}

void parz_bounded_predict(const parz_bounded_shape* s, int predictor, const void* src, double eb,
                          double step, int32_t* q, uint8_t* hole, int32_t* codes) {
  size_t n[4], st[4];
  shape4(s, n, st);
  if (predictor == PARZ_BOUNDED_LORENZO) {
    lorenzo_forward(n, st, q, hole, codes);
  } else {
    size_t bad = 0;
    interp_source in = {src, s->type, eb, step, 1 / parz_bounded_unit(PARZ_BOUNDED_LINEAR, step),
                        hole};
    interp_walk(n, st, predictor, q, &in, codes, &bad);
  }
}

int parz_bounded_unpredict(const parz_bounded_shape* s, int predictor, const int32_t* codes,
                           int32_t* q, parz_error* err) {
  size_t n[4], st[4];
  shape4(s, n, st);
  if (predictor == PARZ_BOUNDED_LORENZO)
    return lorenzo_inverse(n, st, codes, q, err);
  if (predictor < PARZ_BOUNDED_LINEAR || predictor > PARZ_BOUNDED_CUBIC_FAST)
    return parz_fail(err, PARZ_ERR_FORMAT, "bounded: predictor %d unknown", predictor);
  size_t bad = 0;
  if (interp_walk(n, st, predictor, q, NULL, (int32_t*)codes, &bad) == (size_t)-1)
    return parz_fail(err, PARZ_ERR_STREAM, "bounded: quantized value at %zu outside +-%ld", bad,
                     (long)PARZ_BOUNDED_QMAX_FINE);
  return PARZ_OK;
}
