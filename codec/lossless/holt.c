/* Holt's predictor in integer arithmetic (holt.h). */
#include "holt.h"

#include "block_common.h"

static uint64_t mask_of(unsigned w) { return w == 64 ? ~(uint64_t)0 : 0xffffffffu; }

/* floor(e * g / 8) modulo 2^w, e a w-bit two's-complement integer: e = 8q + r with r in 0..7
 * gives q * g + floor(r * g / 8), q taken by an arithmetic shift spelled out in unsigned words
 * (a right shift of a negative signed integer is the compiler's choice in C). */
static uint64_t gain(uint64_t e, unsigned g, unsigned w, uint64_t mask) {
  uint64_t s = (e >> (w - 1) & 1) ? e | ~mask : e; /* sign-extended to 64 bits */
  uint64_t q = (s >> 3) | ((0 - (s >> 63)) << 61);
  return (q * g + (((s & 7u) * g) >> 3)) & mask;
}

/* The state after value u was predicted as p. */
typedef struct {
  uint64_t l, b;
} holt_state;

static void update(holt_state* h, size_t x, uint64_t u, uint64_t p, unsigned w, unsigned alpha,
                   unsigned beta, uint64_t mask) {
  uint64_t l;
  if (x == 0) {
    h->l = u;
    h->b = 0;
    return;
  }
  l = (p + gain((u - p) & mask, alpha, w, mask)) & mask;
  h->b = (h->b + gain((l - h->l - h->b) & mask, beta, w, mask)) & mask;
  h->l = l;
}

void parz_ll_holt_row(size_t n, unsigned w, unsigned alpha, unsigned beta, uint64_t* u,
                      uint64_t* z_out, const uint64_t* z_in) {
  const uint64_t mask = mask_of(w), top = (uint64_t)1 << (w - 1);
  holt_state h = {0, 0};
  size_t x;
  for (x = 0; x < n; x++) {
    const uint64_t p = (h.l + h.b) & mask;
    if (!z_in) {
      uint64_t r = (u[x] - p) & mask;
      z_out[x] = ((r << 1) ^ (0 - ((r & top) != 0))) & mask;
    } else {
      uint64_t r = (z_in[x] >> 1) ^ (0 - (z_in[x] & 1));
      u[x] = (p + r) & mask;
    }
    update(&h, x, u[x], p, w, alpha, beta, mask);
  }
}

void parz_ll_holt_costs(const uint64_t* u, size_t n, unsigned w, const unsigned char (*gains)[2],
                        unsigned count, uint64_t* bits) {
  const uint64_t mask = mask_of(w), top = (uint64_t)1 << (w - 1);
  holt_state h[PARZ_LL_HOLT_TRIALS_MAX];
  size_t x;
  unsigned k;
  for (k = 0; k < count; k++)
    h[k].l = h[k].b = 0;
  /* the pairs side by side: their chains of dependent steps overlap */
  for (x = 0; x < n; x++)
    for (k = 0; k < count; k++) {
      const uint64_t p = (h[k].l + h[k].b) & mask, r = (u[x] - p) & mask;
      bits[k] += parz_bitlen64(((r << 1) ^ (0 - ((r & top) != 0))) & mask);
      update(&h[k], x, u[x], p, w, gains[k][0], gains[k][1], mask);
    }
}
