/* The lab's grid candidates: the values' integer images (or, for arrays whose every value is an
 * integer divided by a scale, the integers themselves), an exact integer Lorenzo predictor in
 * wrap-around arithmetic, restarted per block of 4096 values (4096, 64^2, 16^3, 8^4: each block
 * decodable alone) or run over the whole array, or a plain delta along the flattened array; then
 * one of the residual coders of coders.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"

typedef enum {
  PRED_LORENZO_BLOCK,
  PRED_LORENZO_WHOLE,
  PRED_DELTA,
  PRED_LORENZO_BIG,
  PRED_LORENZO_FVAL,
  PRED_LORENZO_3D
} grid_pred;

typedef struct {
  grid_pred pred;
  lab_coder coder;
  int intmode; /* 1: arrays of scaled integers coded as the integers */
} grid_arg;

static uint64_t wmask(int w) { return w == 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1); }

/* A neighbour's value, for the predictor run in floating point on the values (as fpzip's), and
 * the image of a prediction (0 where it is not finite). */
static double value_of(uint64_t u, int w) { return lab_value(lab_unimage(u, w), w); }
static uint64_t image_of(double v, int w) {
  uint64_t b = lab_bits(isfinite(v) ? v : 0, w);
  return lab_image(isfinite(lab_value(b, w)) ? b : lab_bits(0, w), w);
}

/* Runs the predictor over a: encoding (out == NULL) fills z with zigzagged residuals in block
 * order; decoding rebuilds the values from z into out. shape: 0 blocks of 4096 values, 1 the whole
 * array, 2 blocks of 16384 to 65536 values, 3 as 0 but a 4D array taken as a stack of 3D fields
 * (as fpzip does); fval: the prediction made from the neighbours' values in double arithmetic. */
static int lorenzo(const lab_array* a, int intmode, int shape, int fval, uint64_t* z, void* out) {
  int w = a->f64 ? 64 : 32, d = a->ndim;
  uint64_t mask = wmask(w);
  size_t n4[4] = {1, 1, 1, 1}, b4[4] = {1, 1, 1, 1}, st[4];
  static const size_t side[5] = {0, 4096, 64, 16, 8}, big[5] = {0, 65536, 128, 32, 16};
  fval = fval && !intmode;
  for (int i = 0; i < d; i++) {
    n4[4 - d + i] = a->dims[i];
    b4[4 - d + i] = shape == 1 ? a->dims[i] : shape == 2 ? big[d] : side[d];
  }
  if (shape == 3 && d == 4) {
    b4[0] = 1;
    for (int i = 1; i < 4; i++)
      b4[i] = side[3];
  }
  st[3] = 1;
  for (int i = 2; i >= 0; i--)
    st[i] = st[i + 1] * n4[i + 1];
  size_t p[4], room = 1;
  int pad[4];
  for (int i = 0; i < 4; i++) {
    pad[i] = n4[i] > 1 && b4[i] > 1;
    p[i] = (b4[i] < n4[i] ? b4[i] : n4[i]) + (size_t)pad[i];
    room *= p[i];
  }
  uint64_t* buf = malloc(room * sizeof *buf);
  if (!buf)
    return 1;
  size_t o = 0;
  for (size_t c0 = 0; c0 < n4[0]; c0 += b4[0])
    for (size_t c1 = 0; c1 < n4[1]; c1 += b4[1])
      for (size_t c2 = 0; c2 < n4[2]; c2 += b4[2])
        for (size_t c3 = 0; c3 < n4[3]; c3 += b4[3]) {
          size_t c[4] = {c0, c1, c2, c3}, e[4];
          for (int i = 0; i < 4; i++)
            e[i] = n4[i] - c[i] < b4[i] ? n4[i] - c[i] : b4[i];
          size_t q[4];
          q[3] = 1;
          for (int i = 2; i >= 0; i--)
            q[i] = q[i + 1] * (e[i + 1] + (size_t)pad[i + 1]);
          /* Terms of the predictor: each non-empty set of active dimensions. */
          ptrdiff_t off[15];
          int neg[15], nt = 0;
          for (int s = 1; s < 16; s++) {
            int ok = 1, bits = 0;
            ptrdiff_t sum = 0;
            for (int i = 0; i < 4; i++)
              if (s >> i & 1) {
                ok &= pad[i];
                bits++;
                sum += (ptrdiff_t)q[i];
              }
            if (!ok)
              continue;
            off[nt] = -sum;
            neg[nt++] = !(bits & 1);
          }
          size_t used = 1;
          for (int i = 0; i < 4; i++)
            used *= e[i] + (size_t)pad[i];
          uint64_t halo = fval ? lab_image(0, w) : 0;
          for (size_t i = 0; i < used; i++)
            buf[i] = halo;
          for (size_t x0 = 0; x0 < e[0]; x0++)
            for (size_t x1 = 0; x1 < e[1]; x1++)
              for (size_t x2 = 0; x2 < e[2]; x2++) {
                size_t base = (x0 + pad[0]) * q[0] + (x1 + pad[1]) * q[1] + (x2 + pad[2]) * q[2] +
                              (size_t)pad[3];
                size_t src = (c0 + x0) * st[0] + (c1 + x1) * st[1] + (c2 + x2) * st[2] + c3;
                for (size_t x3 = 0; x3 < e[3]; x3++) {
                  uint64_t* v = buf + base + x3;
                  uint64_t pred = 0;
                  if (fval) {
                    double sum = 0;
                    for (int t = 0; t < nt; t++)
                      sum += neg[t] ? -value_of(v[off[t]], w) : value_of(v[off[t]], w);
                    pred = image_of(sum, w);
                  } else {
                    for (int t = 0; t < nt; t++)
                      pred += neg[t] ? 0 - v[off[t]] : v[off[t]];
                  }
                  if (!out) {
                    *v = lab_load(a, src + x3, intmode);
                    z[o++] = lab_zigzag((*v - pred) & mask, w);
                  } else {
                    *v = (pred + lab_unzigzag(z[o++], w)) & mask;
                    lab_store(a, out, src + x3, *v, intmode);
                  }
                }
              }
        }
  free(buf);
  return 0;
}

static int predict(const lab_array* a, const grid_arg* g, int intmode, uint64_t* z, void* out) {
  if (g->pred == PRED_DELTA) {
    lab_array flat = *a;
    flat.ndim = 1;
    flat.dims[0] = a->n;
    return lorenzo(&flat, intmode, 1, 0, z, out);
  }
  int shape = g->pred == PRED_LORENZO_WHOLE ? 1
              : g->pred == PRED_LORENZO_BIG ? 2
              : g->pred == PRED_LORENZO_3D  ? 3
                                            : 0;
  return lorenzo(a, intmode, shape, g->pred == PRED_LORENZO_FVAL, z, out);
}

static size_t grid_encode(const lab_array* a, uint8_t* out, size_t cap, const void* arg) {
  const grid_arg* g = arg;
  uint64_t* z = malloc(a->n * sizeof *z);
  if (!z || cap < 1)
    return 0;
  int intmode = g->intmode ? lab_find_scale(a) : 0;
  out[0] = (uint8_t)intmode;
  size_t len = 0;
  if (!predict(a, g, intmode, z, NULL))
    len = lab_code(g->coder, z, a->n, a->f64 ? 64 : 32, out + 1, cap - 1);
  free(z);
  return len ? len + 1 : 0;
}

static int grid_decode(const uint8_t* in, size_t n, const lab_array* a, void* out,
                       const void* arg) {
  const grid_arg* g = arg;
  uint64_t* z = malloc(a->n * sizeof *z);
  if (!z || n < 1)
    return 1;
  int bad = lab_uncode(g->coder, in + 1, n - 1, a->n, a->f64 ? 64 : 32, z) ||
            predict(a, g, in[0], z, out);
  free(z);
  return bad;
}

static const grid_arg grid_args[] = {
    {PRED_LORENZO_BLOCK, CODER_WIDTH, 1},    {PRED_LORENZO_BLOCK, CODER_BITPLANE, 1},
    {PRED_LORENZO_BLOCK, CODER_HUFF, 1},     {PRED_LORENZO_BLOCK, CODER_HUFF_CTX, 1},
    {PRED_LORENZO_BLOCK, CODER_HUFF_CTX, 0}, {PRED_LORENZO_WHOLE, CODER_HUFF_CTX, 1},
    {PRED_DELTA, CODER_HUFF_CTX, 1},         {PRED_DELTA, CODER_WIDTH, 1},
    {PRED_LORENZO_BIG, CODER_HUFF_CTX, 1},   {PRED_LORENZO_FVAL, CODER_HUFF_CTX, 1},
    {PRED_LORENZO_BLOCK, CODER_BYTES, 1},    {PRED_LORENZO_3D, CODER_HUFF_CTX, 1},
};

size_t lab_grid_methods(lab_method* list, size_t count, size_t max) {
  static const char* preds[] = {"lorenzo-blk", "lorenzo-whole", "delta",
                                "lorenzo-big", "lorenzo-fval",  "lorenzo-3d"};
  for (size_t i = 0; i < sizeof grid_args / sizeof *grid_args && count < max; i++) {
    const grid_arg* g = &grid_args[i];
    lab_method* m = &list[count++];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s%s+%s", preds[g->pred], g->intmode ? "" : "(float)",
             lab_coder_name(g->coder));
    m->encode = grid_encode;
    m->decode = grid_decode;
    m->arg = g;
  }
  return count;
}
