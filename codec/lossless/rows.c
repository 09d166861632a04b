/* The row predictor's measure (lossless.h): the encoder's estimate of it against the Lorenzo
 * predictor, and the comparison of their segments' bytes. */
#include <stdint.h>
#include <stdlib.h>

#include "block_common.h"
#include "lorenzo.h"
#include "lossless.h"
#include "lossless_forward.h"
#include "transform.h"

int parz_ll_rows_measure(const parz_array* a, const void* values, unsigned transform,
                         uint64_t bits[2]) {
  return parz_ll_rows_measure_blocks(a, values, transform, 0, SIZE_MAX, bits);
}

int parz_ll_rows_measure_blocks(const parz_array* a, const void* values, unsigned transform,
                                size_t first, size_t end, uint64_t bits[2]) {
  parz_ll_geometry g;
  uint64_t *z = NULL, *scratch = NULL, *u = NULL, mask, top;
  size_t b;
  bits[0] = bits[1] = 0;
  if (!values || parz_ll_geometry_init(&g, a, PARZ_LL_PREDICT_ALL, NULL) != PARZ_OK || g.d < 2 ||
      !parz_ll_transform_valid(transform, a->type) ||
      !(z = (uint64_t*)malloc(PARZ_LL_BLOCK_VALUES * sizeof *z)) ||
      !(scratch = (uint64_t*)malloc(PARZ_LL_SCRATCH * sizeof *scratch)) ||
      !(u = (uint64_t*)malloc((PARZ_LL_BLOCK_VALUES + 1) * sizeof *u))) {
    free(z);
    free(scratch);
    return 1;
  }
  mask = g.w == 64 ? ~(uint64_t)0 : 0xffffffffu;
  top = (uint64_t)1 << (g.w - 1);
  for (b = first; b < end && b < g.blocks; b++) {
    size_t o[4], e[4], x0, x1, x2, i, count;
    if (!PARZ_LL_ROWS_SAMPLED(b, g.blocks))
      continue;
    count = parz_ll_predict_block(&g, transform, values, b, scratch, z);
    for (i = 0; i < count; i++)
      bits[0] += parz_bitlen64(z[i]);
    /* the same values' residuals along their rows, which restart every 4096 values: the value
     * before a row of the block is read where the row does not start there */
    parz_ll_block_box(&g, b, o, e);
    for (x0 = 0; x0 < e[0]; x0++)
      for (x1 = 0; x1 < e[1]; x1++)
        for (x2 = 0; x2 < e[2]; x2++) {
          const size_t back = o[3] % PARZ_LL_BLOCK_VALUES != 0;
          const size_t at =
              (((o[0] + x0) * g.n[1] + o[1] + x1) * g.n[2] + o[2] + x2) * g.n[3] + o[3];
          uint64_t prev;
          parz_ll_load_row(a->type, values, at - back, e[3] + back, transform, u);
          prev = back ? u[0] : 0;
          for (i = back; i < e[3] + back; i++) {
            bits[1] += parz_bitlen64(parz_ll_zigzag((u[i] - prev) & mask, mask, top));
            prev = u[i];
          }
        }
  }
  free(z);
  free(scratch);
  free(u);
  return 0;
}

int parz_ll_rows_smaller(size_t all, size_t nseg_all, size_t rows, size_t nseg_rows) {
  const size_t more = nseg_rows > nseg_all ? nseg_rows - nseg_all : 0;
  return rows && all && rows + more * PARZ_LL_SEGMENT_HEAD_MAX < all;
}
