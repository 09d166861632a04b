/* The lossless codec's predictor for series (internal): Holt's double exponential smoothing in
 * integer arithmetic on the transformed values of a block's one row (lossless.h, predictor 2).
 *
 * The state is a level l and a trend b, both w-bit integers; the prediction of the next value is
 * l + b. The first value of a block is predicted as 0 and sets l to it and b to 0; each later
 * value u, predicted as p = l + b, sets l' = p + G(u - p, alpha) and b' = b + G(l' - l - b, beta),
 * where G(e, g) = floor(e * g / 8) with e read as a signed w-bit integer and the gains alpha and
 * beta are in eighths (0..8). Everything is modulo 2^w, so the decoder's state is the encoder's
 * bit for bit on every machine: no floating point, no rounding mode, no fused operation.
 * Gains 8 and 0 make the prediction the previous value, the Lorenzo predictor of one dimension. */
#ifndef PARZ_LL_HOLT_H
#define PARZ_LL_HOLT_H

#include <stddef.h>
#include <stdint.h>

#include "parz.h"

/* The largest gain, eight eighths. */
#define PARZ_LL_GAIN_MAX 8u

/* Residuals of n values u (w bits in each word, w = 32 or 64) into z, zigzagged as the Lorenzo
 * predictor's; or, with z_in, the values back into u from the residuals z_in. */
void parz_ll_holt_row(size_t n, unsigned w, unsigned alpha, unsigned beta, uint64_t* u,
                      uint64_t* z_out, const uint64_t* z_in);

/* The most gain pairs parz_ll_holt_costs takes at once. */
#define PARZ_LL_HOLT_TRIALS_MAX 16u

/* For each of count (at most PARZ_LL_HOLT_TRIALS_MAX) gain pairs (alpha, beta), the bits of the
 * n values' residuals above their leading zeros, added to bits[k]: the encoder's measure of how
 * well gains fit a row. */
void parz_ll_holt_costs(const uint64_t* u, size_t n, unsigned w, const unsigned char (*gains)[2],
                        unsigned count, uint64_t* bits);

#endif
