/* The lossless codec's forward arithmetic per value (internal, header-only): a value's
 * transformed integer (transform.h), the scaled transform's check of a value, the zigzag of a
 * residual, and a value's Lorenzo residual inside its block computed alone (lorenzo.h), from its
 * neighbours' transformed integers. Compiled as C99 for the CPU encoder (transform.c, lorenzo.c)
 * and as CUDA C++ for the GPU's (gpu/lossless/), so that both compute the same integers:
 * block_common.h's contract. On the GPU every product and sum of the scaled transform is rounded
 * on its own (parz_mul_rn, __dadd_rn), never fused into one. */
#ifndef PARZ_LL_LOSSLESS_FORWARD_H
#define PARZ_LL_LOSSLESS_FORWARD_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "block_common.h"
#include "lorenzo.h"
#include "transform_decode.h"

/* The nearest integer of x (|x| < 2^51) by adding and taking away 1.5 * 2^52, which leaves x
 * rounded to an integer in the current rounding mode, as llrint (no call). */
PARZ_HD double parz_ll_nearest_small(double x) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(__dadd_rn(x, 6755399441055744.0), -6755399441055744.0);
#else
  const double t = x + 6755399441055744.0;
  return t - 6755399441055744.0;
#endif
}

/* The nearest integer of x, as llrint. The encoder's check and its load both go through these,
 * so they always agree. */
PARZ_HD int64_t parz_ll_nearest(double x) {
  if (fabs(x) < 2251799813685248.0)
    return (int64_t)parz_ll_nearest_small(x);
  return (int64_t)llrint(x);
}

/* Whether float32 v (bits b) is exactly i / s for an integer i of int32's range (the scaled
 * transform of scale s). */
PARZ_HD int parz_ll_fits32(float v, uint32_t b, double s) {
  const double x = parz_mul_rn((double)v, s);
  const int in = x > -2.1e9 && x < 2.1e9;
  const float back = parz_ll_scaled_float((int32_t)(int64_t)parz_ll_nearest_small(in ? x : 0.0), s);
  uint32_t b0;
  memcpy(&b0, &back, 4);
  return in & (b0 == b);
}

/* The same for float64 v (bits b), i of int64's range. */
PARZ_HD int parz_ll_fits64(double v, uint64_t b, double s) {
  const double x = parz_mul_rn(v, s);
  double back;
  uint64_t b0;
  if (!(x > -9.2e18 && x < 9.2e18))
    return 0;
  back = parz_ll_scaled_double(parz_ll_nearest(x), s);
  memcpy(&b0, &back, 8);
  return b0 == b;
}

/* The transformed integer of a float32 (v, bits b) under transform k of scale s. */
PARZ_HD uint64_t parz_ll_forward32(float v, uint32_t b, unsigned k, double s) {
  return k ? (uint32_t)(int32_t)parz_ll_nearest(parz_mul_rn((double)v, s))
           : parz_ll_image(b, (uint64_t)1 << 31, 0xffffffffu);
}

/* The transformed integer of a float64 (v, bits b) under transform k of scale s. */
PARZ_HD uint64_t parz_ll_forward64(double v, uint64_t b, unsigned k, double s) {
  return k ? (uint64_t)parz_ll_nearest(parz_mul_rn(v, s))
           : parz_ll_image(b, (uint64_t)1 << 63, ~(uint64_t)0);
}

/* parz_ll_forward32 and, into *fit, parz_ll_fits32 of a float32 (v, bits b) under transform
 * k > 0 of scale s at once, the scaled product taken once: the GPU's residual step checks each
 * value as it reads it. Scale 1 (whole numbers) in float arithmetic alone: v * 1 is v, the
 * range holds for v as for (double)v (2.1e9 is a float), v's nearest integer is rintf's (the
 * same rounding mode), i / 1 is i, and i back as a float is rintf's result but for -0.0, whose
 * 0 comes back as 0.0. A value out of the range takes parz_ll_forward32's own steps. */
PARZ_HD uint64_t parz_ll_forward_fits32(float v, uint32_t b, unsigned k, double s, int* fit) {
  int in;
  int32_t i;
  if (s == 1.0) {
    float r;
    uint32_t rb;
    in = v > -2.1e9f && v < 2.1e9f;
    r = rintf(in ? v : 0.0f);
    memcpy(&rb, &r, 4);
    i = (int32_t)r;
    *fit = in & (rb == b) & (b != 0x80000000u);
  } else {
    const double x = parz_mul_rn((double)v, s);
    float back;
    uint32_t b0;
    in = x > -2.1e9 && x < 2.1e9;
    i = (int32_t)(int64_t)parz_ll_nearest_small(in ? x : 0.0);
    back = parz_ll_scaled_float(i, s);
    memcpy(&b0, &back, 4);
    *fit = in & (b0 == b);
  }
  return in ? (uint32_t)i : parz_ll_forward32(v, b, k, s);
}

/* The same for a float64 (v, bits b): parz_ll_forward64 and parz_ll_fits64. */
PARZ_HD uint64_t parz_ll_forward_fits64(double v, uint64_t b, unsigned k, double s, int* fit) {
  const double x = parz_mul_rn(v, s);
  const int in = x > -9.2e18 && x < 9.2e18;
  const int64_t i = in ? parz_ll_nearest(x) : 0;
  const double back = parz_ll_scaled_double(i, s);
  uint64_t b0;
  memcpy(&b0, &back, 8);
  *fit = in && b0 == b;
  return in ? (uint64_t)i : parz_ll_forward64(v, b, k, s);
}

/* The value i elements from values (of type `type`) as its transformed integer (transform k,
 * scale s): integer types are their two's-complement bits. */
PARZ_HD uint64_t parz_ll_forward_at(int type, const void* values, ptrdiff_t i, unsigned k,
                                    double s) {
  if (type == PARZ_DOUBLE) {
    double v;
    uint64_t b;
    memcpy(&b, (const unsigned char*)values + 8 * i, 8);
    memcpy(&v, &b, 8);
    return parz_ll_forward64(v, b, k, s);
  }
  if (type == PARZ_FLOAT) {
    float v;
    uint32_t b;
    memcpy(&b, (const unsigned char*)values + 4 * i, 4);
    memcpy(&v, &b, 4);
    return parz_ll_forward32(v, b, k, s);
  }
  if (type == PARZ_INT64)
    return (uint64_t)((const int64_t*)values)[i];
  return (uint32_t)((const int32_t*)values)[i];
}

/* A residual r (w bits: mask = 2^w - 1, top = 2^(w-1)) zigzagged: small magnitudes of either
 * sign become small numbers. */
PARZ_HD uint64_t parz_ll_zigzag(uint64_t r, uint64_t mask, uint64_t top) {
  return ((r << 1) ^ (0 - (uint64_t)((r & top) != 0))) & mask;
}

/* Block b's first value and extents along each of g's four dimensions; its value count. */
PARZ_HD size_t parz_ll_block_box(const parz_ll_geometry* g, size_t b, size_t o[4], size_t e[4]) {
  size_t count = 1;
  int i;
  for (i = 3; i >= 0; i--) {
    const size_t c = b % g->grid[i];
    b /= g->grid[i];
    o[i] = c * g->side[i];
    e[i] = g->n[i] - o[i] < g->side[i] ? g->n[i] - o[i] : g->side[i];
    count *= e[i];
  }
  return count;
}

/* Block b's first value in block order (each block's values together, the blocks in C order of
 * g's grid); for b = g's blocks, the count of all values. A dimension at a time from the last:
 * the values before the block along it (full blocks, side[i] each) times the dimensions after
 * it whole, plus its extent along it times the values before it in those. */
PARZ_HD size_t parz_ll_block_first(const parz_ll_geometry* g, size_t b) {
  size_t first = 0, inner = 1;
  const int past = b >= g->blocks;
  int i;
  for (i = 3; i >= 0; i--) {
    const size_t o = b % g->grid[i] * g->side[i];
    const size_t e = g->n[i] - o < g->side[i] ? g->n[i] - o : g->side[i];
    b /= g->grid[i];
    first = o * inner + e * first;
    inner *= g->n[i];
  }
  return past ? inner : first;
}

/* The zigzagged Lorenzo residual (lorenzo.h) of the value at x (coordinates in g's four
 * dimensions) of block b (first value o), alone: the sum over each non-empty set S of the
 * predicted dimensions (extent and side above 1) of (-1)^(|S|+1) times the transformed neighbour
 * one step back along each dimension of S, a neighbour outside the block counting as 0, in
 * wrap-around arithmetic of g->w bits. The values lie st[d] elements apart along g's dimension d
 * (transform k, scale s). Not for Holt's predictor. */
PARZ_HD uint64_t parz_ll_residual_at(const parz_ll_geometry* g, const void* values,
                                     const ptrdiff_t st[4], unsigned k, double s, const size_t o[4],
                                     const size_t x[4]) {
  const uint64_t mask = g->w == 64 ? ~(uint64_t)0 : 0xffffffffu, top = (uint64_t)1 << (g->w - 1);
  ptrdiff_t at = 0;
  unsigned back = 0, i, set;
  uint64_t p = 0;
  for (i = 0; i < 4; i++) {
    at += (ptrdiff_t)x[i] * st[i];
    /* a dimension predicted, whose neighbour back lies inside the block */
    if (g->n[i] > 1 && g->side[i] > 1 && x[i] > o[i])
      back |= 1u << i;
  }
  for (set = 1; set < 16; set++) {
    ptrdiff_t off = 0;
    unsigned bits = 0;
    uint64_t u;
    /* a term of a predicted dimension whose neighbour lies outside the block reads 0; a
     * dimension not predicted takes no term */
    if ((set & back) != set)
      continue;
    for (i = 0; i < 4; i++)
      if (set >> i & 1) {
        off += st[i];
        bits++;
      }
    u = parz_ll_forward_at((int)g->type, values, at - off, k, s);
    p += (bits & 1) ? u : 0 - u;
  }
  return parz_ll_zigzag((parz_ll_forward_at((int)g->type, values, at, k, s) - p) & mask, mask, top);
}

#endif
