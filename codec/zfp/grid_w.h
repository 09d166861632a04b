/* Gather and scatter for one element size; included twice by grid.c. */

static void PARZ_GRID_FN(gather)(const parz_grid* g, const parz_block_pos* pos,
                                 const PARZ_GRID_T* data, PARZ_GRID_T* q) {
  size_t m[4];
  int full = block_extent(g, pos, m);
  const PARZ_GRID_T* p = data + pos->offset;
  const ptrdiff_t s0 = g->s[0], s1 = g->s[1], s2 = g->s[2], s3 = g->s[3];
  size_t i, j, k, l;
  for (l = 0; l < m[3]; l++)
    for (k = 0; k < m[2]; k++)
      for (j = 0; j < m[1]; j++) {
        const PARZ_GRID_T* r = p + (ptrdiff_t)l * s3 + (ptrdiff_t)k * s2 + (ptrdiff_t)j * s1;
        PARZ_GRID_T* o = q + 64 * l + 16 * k + 4 * j;
        for (i = 0; i < m[0]; i++)
          o[i] = r[(ptrdiff_t)i * s0];
      }
  if (!full) {
    unsigned mz[4];
    for (i = 0; i < 4; i++)
      mz[i] = (unsigned)m[i];
    PARZ_GRID_FN(parz_pad_block)(q, mz, g->dims);
  }
}

/* The part of the block inside the window; the first value stored may not be the block's. */
static void PARZ_GRID_FN(scatter_window)(const parz_grid* g, const parz_block_pos* pos,
                                         const PARZ_GRID_T* q, PARZ_GRID_T* data) {
  size_t a[4], e[4];
  const ptrdiff_t s0 = g->s[0], s1 = g->s[1], s2 = g->s[2], s3 = g->s[3];
  size_t i, j, k, l;
  PARZ_GRID_T* p;
  if (!window_extent(g, pos, a, e))
    return;
  /* offsets before the window's first value may lie outside the data */
  p = data + (pos->offset + (ptrdiff_t)a[0] * s0 + (ptrdiff_t)a[1] * s1 + (ptrdiff_t)a[2] * s2 +
              (ptrdiff_t)a[3] * s3);
  for (l = a[3]; l < e[3]; l++)
    for (k = a[2]; k < e[2]; k++)
      for (j = a[1]; j < e[1]; j++) {
        PARZ_GRID_T* r = p + (ptrdiff_t)(l - a[3]) * s3 + (ptrdiff_t)(k - a[2]) * s2 +
                         (ptrdiff_t)(j - a[1]) * s1;
        const PARZ_GRID_T* o = q + 64 * l + 16 * k + 4 * j + a[0];
        for (i = 0; i < e[0] - a[0]; i++)
          r[(ptrdiff_t)i * s0] = o[i];
      }
}

static void PARZ_GRID_FN(scatter)(const parz_grid* g, const parz_block_pos* pos,
                                  const PARZ_GRID_T* q, PARZ_GRID_T* data) {
  size_t m[4];
  PARZ_GRID_T* p;
  const ptrdiff_t s0 = g->s[0], s1 = g->s[1], s2 = g->s[2], s3 = g->s[3];
  size_t i, j, k, l;
  if (g->windowed) {
    PARZ_GRID_FN(scatter_window)(g, pos, q, data);
    return;
  }
  p = data + pos->offset;
  block_extent(g, pos, m);
  for (l = 0; l < m[3]; l++)
    for (k = 0; k < m[2]; k++)
      for (j = 0; j < m[1]; j++) {
        PARZ_GRID_T* r = p + (ptrdiff_t)l * s3 + (ptrdiff_t)k * s2 + (ptrdiff_t)j * s1;
        const PARZ_GRID_T* o = q + 64 * l + 16 * k + 4 * j;
        for (i = 0; i < m[0]; i++)
          r[(ptrdiff_t)i * s0] = o[i];
      }
}
