/* Holt's predictor in integer arithmetic (holt.h). */
#include "holt.h"

#include "block_common.h"
#include "holt_step.h"

void parz_ll_holt_row(size_t n, unsigned w, unsigned alpha, unsigned beta, uint64_t* u,
                      uint64_t* z_out, const uint64_t* z_in) {
  const uint64_t mask = parz_ll_holt_mask(w), top = (uint64_t)1 << (w - 1);
  parz_ll_holt_state h = {0, 0};
  size_t x;
  for (x = 0; x < n; x++) {
    if (!z_in) {
      const uint64_t p = (h.l + h.b) & mask, r = (u[x] - p) & mask;
      z_out[x] = ((r << 1) ^ (0 - ((r & top) != 0))) & mask;
      parz_ll_holt_update(&h, x, u[x], p, w, alpha, beta, mask);
    } else {
      u[x] = parz_ll_holt_decode(&h, x, z_in[x], w, alpha, beta, mask);
    }
  }
}

void parz_ll_holt_costs(const uint64_t* u, size_t n, unsigned w, const unsigned char (*gains)[2],
                        unsigned count, uint64_t* bits) {
  const uint64_t mask = parz_ll_holt_mask(w), top = (uint64_t)1 << (w - 1);
  parz_ll_holt_state h[PARZ_LL_HOLT_TRIALS_MAX];
  size_t x;
  unsigned k;
  for (k = 0; k < count; k++)
    h[k].l = h[k].b = 0;
  /* the pairs side by side: their chains of dependent steps overlap */
  for (x = 0; x < n; x++)
    for (k = 0; k < count; k++) {
      const uint64_t p = (h[k].l + h[k].b) & mask, r = (u[x] - p) & mask;
      bits[k] += parz_bitlen64(((r << 1) ^ (0 - ((r & top) != 0))) & mask);
      parz_ll_holt_update(&h[k], x, u[x], p, w, gains[k][0], gains[k][1], mask);
    }
}
