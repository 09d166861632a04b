/* The lossless codec's blocks and predictor (internal). Dimensions of extent 1 are dropped; the
 * d that remain (1..4) are cut into blocks of side 4096, 64, 16 or 8 (4096 values at most;
 * under the stack predictor 1 x 16^3 for d = 4, under the row predictor 1 x ... x 4096),
 * numbered in C order of the block grid. Inside a block, each value is predicted from its
 * already-coded neighbours by the Lorenzo predictor (the sum over every non-empty set S of the
 * dimensions of block side above 1 of (-1)^(|S|+1) times the neighbour one step back along each
 * dimension of S),
 * neighbours outside the block counting as 0, in wrap-around arithmetic of the values' width:
 * exact, with no floating point. The residual (value - prediction) is zigzagged, so that small
 * magnitudes of either sign are small numbers. */
#ifndef PARZ_LL_LORENZO_H
#define PARZ_LL_LORENZO_H

#include <stddef.h>
#include <stdint.h>

#include "parz.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values of the largest padded block (9^4) a predictor's scratch must hold. */
#define PARZ_LL_SCRATCH 6561u
#define PARZ_LL_BLOCK_VALUES 4096u

typedef struct {
  parz_type type;
  unsigned w;     /* bits per value: 32 or 64 */
  unsigned d;     /* dimensions of extent > 1 (1 for a single value) */
  size_t n[4];    /* their extents, slowest first, leading unused ones 1 */
  size_t side[4]; /* block side per dimension (1 where unused) */
  size_t grid[4]; /* blocks per dimension */
  size_t blocks;
  unsigned holt, alpha, beta; /* Holt's predictor (holt.h) and its gains */
} parz_ll_geometry;

/* PARZ_OK, or the error of an invalid array or predictor (lossless.h). */
int parz_ll_geometry_init(parz_ll_geometry* g, const parz_array* a, unsigned predictor,
                          parz_error* err);

/* Encodes block b: its zigzagged residuals, in C order inside the block, into z; returns their
 * count. scratch holds PARZ_LL_SCRATCH values. */
size_t parz_ll_predict_block(const parz_ll_geometry* g, unsigned transform, const void* values,
                             size_t b, uint64_t* scratch, uint64_t* z);

/* Decodes block b from its residuals z into values. */
void parz_ll_rebuild_block(const parz_ll_geometry* g, unsigned transform, const uint64_t* z,
                           size_t b, uint64_t* scratch, void* values);

/* Number of values of block b. */
size_t parz_ll_block_values(const parz_ll_geometry* g, size_t b);

#ifdef __cplusplus
}
#endif

#endif
