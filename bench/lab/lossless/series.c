/* The lab's 1D series candidates, each restarted per segment of 4096 values (and per row of a 2D
 * array of series) so that segments decode on their own: the delta of the integer images; Holt's
 * double exponential smoothing in double arithmetic (the prediction's image subtracted from the
 * value's), or in integer arithmetic on the images themselves (fixed-point gains in eighths,
 * wrap-around); and the XOR of consecutive bit patterns. All of them run on the value transform
 * of transform.c (scaled integers where the array is one). The encoder picks Holt's gains per
 * array from a small set; the residuals go to a coder of coders.c.
 *
 * The double arithmetic is the same on every decoder because this file is compiled with
 * -ffp-contract=off (no fused multiply-add), each step is one IEEE operation in a fixed order,
 * and the state is reset whenever it stops being finite, so that no NaN payload (which differs
 * between CPUs and GPUs) ever reaches a prediction. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"

#define SEGMENT 4096

typedef enum { SER_DELTA, SER_HOLT_FLOAT, SER_HOLT_INT, SER_XOR } ser_pred;
typedef struct {
  ser_pred pred;
  lab_coder coder;
} ser_arg;

/* Holt's gains (alpha, beta) in eighths: alpha 8, beta 0 is the delta predictor, alpha 8,
 * beta 8 linear extrapolation. */
static const int gains[][2] = {{8, 0}, {8, 8}, {8, 4}, {8, 2}, {6, 0}, {6, 2}, {6, 4},
                               {4, 0}, {4, 2}, {4, 4}, {2, 0}, {2, 2}, {8, 1}, {7, 1}};
#define NGAINS (int)(sizeof gains / sizeof *gains)

static uint64_t wmask(int w) { return w == 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1); }

/* Value i's bit pattern, copied (a conversion through double would quiet signalling NaNs). */
static uint64_t bits_at(const void* values, int w, size_t i) {
  uint64_t b = 0;
  memcpy(&b, (const uint8_t*)values + i * (size_t)(w / 8), (size_t)(w / 8));
  return b;
}

/* Arithmetic right shift by 3 of a two's-complement 64-bit word, and e * g / 8 rounded down
 * without overflow. */
static uint64_t sar3(uint64_t x) { return (x >> 3) | ((0 - (x >> 63)) << 61); }
static uint64_t gain(uint64_t e, int g) {
  return sar3(e) * (uint64_t)g + (((e & 7) * (uint64_t)g) >> 3);
}

typedef struct {
  double l, b;     /* Holt in doubles */
  uint64_t li, bi; /* Holt on images */
  uint64_t prev;
  int first;
} ser_state;

static int64_t sext(uint64_t u, int w) {
  return w == 64 ? (int64_t)u : (int64_t)(int32_t)(uint32_t)u;
}

static uint64_t ser_predict(const ser_state* s, ser_pred p, int w, int scale) {
  switch (p) {
    case SER_DELTA: return s->prev;
    case SER_XOR: return s->prev;
    case SER_HOLT_INT: return s->li + s->bi;
    case SER_HOLT_FLOAT: {
      if (s->first)
        return scale ? 0 : lab_image(0, w);
      double f = s->l + s->b;
      if (scale)
        return f > -4.6e18 && f < 4.6e18 ? (uint64_t)(int64_t)f : 0;
      uint64_t fb = lab_bits(isfinite(f) ? f : s->l, w);
      if (!isfinite(lab_value(fb, w)))
        fb = 0;
      return lab_image(fb, w);
    }
  }
  return 0;
}

static void ser_update(ser_state* s, ser_pred p, int w, uint64_t u, uint64_t bits, int g,
                       int scale) {
  switch (p) {
    case SER_DELTA: s->prev = u; break;
    case SER_XOR: s->prev = scale ? u : bits; break;
    case SER_HOLT_INT: {
      uint64_t pred = s->li + s->bi;
      uint64_t l = s->first ? u : pred + gain(u - pred, gains[g][0]);
      s->bi = s->first ? 0 : s->bi + gain(l - s->li - s->bi, gains[g][1]);
      s->li = l;
      break;
    }
    case SER_HOLT_FLOAT: {
      double x = scale ? (double)sext(u, w) : lab_value(bits, w);
      if (s->first) {
        s->l = isfinite(x) ? x : 0.0;
        s->b = 0.0;
        break;
      }
      double pred = s->l + s->b;
      double d = x - pred;
      double t = (gains[g][0] * 0.125) * d;
      double l = pred + t;
      double dl = l - s->l;
      double db = dl - s->b;
      double tb = (gains[g][1] * 0.125) * db;
      double b = s->b + tb;
      if (isfinite(l) && isfinite(b)) {
        s->l = l;
        s->b = b;
      } else {
        s->l = isfinite(x) ? x : 0.0;
        s->b = 0.0;
      }
      break;
    }
  }
  s->first = 0;
}

/* Encoding (out == NULL) fills z; decoding rebuilds out from z. Series are the last dimension;
 * the state restarts at each row and each SEGMENT values. */
static void ser_run(const lab_array* a, ser_pred p, int g, int scale, uint64_t* z, void* out) {
  int w = a->f64 ? 64 : 32;
  uint64_t mask = wmask(w);
  size_t len = a->ndim > 1 ? a->dims[a->ndim - 1] : a->n;
  ser_state s;
  for (size_t i = 0; i < a->n; i++) {
    if (i % len % SEGMENT == 0) {
      memset(&s, 0, sizeof s);
      s.first = 1;
      s.prev = p == SER_XOR || scale ? 0 : lab_image(0, w);
    }
    uint64_t pred = ser_predict(&s, p, w, scale) & mask, bits, u;
    if (!out) {
      bits = bits_at(a->data, w, i);
      u = lab_load(a, i, scale);
      if (p == SER_XOR)
        z[i] = (scale ? u : bits) ^ pred;
      else
        z[i] = lab_zigzag((u - pred) & mask, w);
    } else {
      if (p == SER_XOR && scale) {
        u = z[i] ^ pred;
      } else if (p == SER_XOR) {
        bits = z[i] ^ pred;
        u = lab_image(bits, w);
      } else {
        u = (pred + lab_unzigzag(z[i], w)) & mask;
      }
      lab_store(a, out, i, u, scale);
      bits = bits_at(out, w, i);
    }
    ser_update(&s, p, w, u, bits, g, scale);
  }
}

static size_t cost(const uint64_t* z, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++)
    c += z[i] ? 64 - (size_t)__builtin_clzll(z[i]) : 0;
  return c;
}

static size_t ser_encode(const lab_array* a, uint8_t* out, size_t cap, const void* arg) {
  const ser_arg* sa = arg;
  uint64_t* z = malloc(a->n * sizeof *z);
  if (!z || cap < 1)
    return 0;
  int best = 0, scale = lab_find_scale(a);
  if (sa->pred == SER_HOLT_FLOAT || sa->pred == SER_HOLT_INT) {
    size_t best_cost = (size_t)-1;
    for (int g = 0; g < NGAINS; g++) {
      ser_run(a, sa->pred, g, scale, z, NULL);
      size_t c = cost(z, a->n);
      if (c < best_cost) {
        best_cost = c;
        best = g;
      }
    }
  }
  ser_run(a, sa->pred, best, scale, z, NULL);
  out[0] = (uint8_t)best;
  out[1] = (uint8_t)scale;
  size_t len = cap > 2 ? lab_code(sa->coder, z, a->n, a->f64 ? 64 : 32, out + 2, cap - 2) : 0;
  free(z);
  return len ? len + 2 : 0;
}

static int ser_decode(const uint8_t* in, size_t n, const lab_array* a, void* out, const void* arg) {
  const ser_arg* sa = arg;
  if (n < 2 || in[0] >= NGAINS)
    return 1;
  uint64_t* z = malloc(a->n * sizeof *z);
  if (!z)
    return 1;
  int bad = lab_uncode(sa->coder, in + 2, n - 2, a->n, a->f64 ? 64 : 32, z);
  if (!bad)
    ser_run(a, sa->pred, in[0], in[1], z, out);
  free(z);
  return bad;
}

static const ser_arg ser_args[] = {
    {SER_DELTA, CODER_WIDTH},         {SER_DELTA, CODER_HUFF_CTX}, {SER_HOLT_FLOAT, CODER_WIDTH},
    {SER_HOLT_FLOAT, CODER_HUFF_CTX}, {SER_HOLT_INT, CODER_WIDTH}, {SER_HOLT_INT, CODER_HUFF_CTX},
    {SER_XOR, CODER_WIDTH},           {SER_XOR, CODER_HUFF_CTX},
};

size_t lab_series_methods(lab_method* list, size_t count, size_t max) {
  static const char* preds[] = {"s-delta", "s-holt-float", "s-holt-int", "s-xor"};
  for (size_t i = 0; i < sizeof ser_args / sizeof *ser_args && count < max; i++) {
    lab_method* m = &list[count++];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s+%s", preds[ser_args[i].pred],
             lab_coder_name(ser_args[i].coder));
    m->encode = ser_encode;
    m->decode = ser_decode;
    m->arg = &ser_args[i];
    m->series_only = 1;
  }
  return count;
}
