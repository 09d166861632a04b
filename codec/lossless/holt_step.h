/* One step of Holt's predictor in w-bit integers (internal, header-only; holt.h describes the
 * predictor): the gain and the state's update, compiled as C99 for the CPU (holt.c) and as CUDA
 * C++ for the GPU's decoder (gpu/lossless/), so that both run this very code: block_common.h's
 * contract. */
#ifndef PARZ_LL_HOLT_STEP_H
#define PARZ_LL_HOLT_STEP_H

#include <stddef.h>
#include <stdint.h>

#include "block_common.h"

PARZ_HD uint64_t parz_ll_holt_mask(unsigned w) { return w == 64 ? ~(uint64_t)0 : 0xffffffffu; }

/* floor(e * g / 8) modulo 2^w, e a w-bit two's-complement integer: e = 8q + r with r in 0..7
 * gives q * g + floor(r * g / 8), q taken by an arithmetic shift spelled out in unsigned words
 * (a right shift of a negative signed integer is the compiler's choice in C). */
PARZ_HD uint64_t parz_ll_holt_gain(uint64_t e, unsigned g, unsigned w, uint64_t mask) {
  uint64_t s = (e >> (w - 1) & 1) ? e | ~mask : e; /* sign-extended to 64 bits */
  uint64_t q = (s >> 3) | ((0 - (s >> 63)) << 61);
  return (q * g + (((s & 7u) * g) >> 3)) & mask;
}

/* The state: level l and trend b; the next value's prediction is l + b. */
typedef struct {
  uint64_t l, b;
} parz_ll_holt_state;

/* The state after value x of the block (u) was predicted as p. */
PARZ_HD void parz_ll_holt_update(parz_ll_holt_state* h, size_t x, uint64_t u, uint64_t p,
                                 unsigned w, unsigned alpha, unsigned beta, uint64_t mask) {
  uint64_t l;
  if (x == 0) {
    h->l = u;
    h->b = 0;
    return;
  }
  l = (p + parz_ll_holt_gain((u - p) & mask, alpha, w, mask)) & mask;
  h->b = (h->b + parz_ll_holt_gain((l - h->l - h->b) & mask, beta, w, mask)) & mask;
  h->l = l;
}

/* Value x of the block from its zigzagged residual z, the state updated. */
PARZ_HD uint64_t parz_ll_holt_decode(parz_ll_holt_state* h, size_t x, uint64_t z, unsigned w,
                                     unsigned alpha, unsigned beta, uint64_t mask) {
  const uint64_t p = (h->l + h->b) & mask, u = (p + ((z >> 1) ^ (0 - (z & 1)))) & mask;
  parz_ll_holt_update(h, x, u, p, w, alpha, beta, mask);
  return u;
}

#endif
