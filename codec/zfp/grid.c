/* Block grid, gather and scatter (see grid.h). */
#include "grid.h"

#include "block_encode.h" /* parz_pad_block32/64 */

void parz_grid_init(parz_grid* g, const parz_array* a) {
  unsigned i, d = a->dims;
  ptrdiff_t run = 1;
  g->dims = d;
  g->esize = parz_type_size(a->type);
  g->windowed = 0;
  g->nblocks = 1;
  for (i = 0; i < 4; i++) {
    g->n[i] = 1;
    g->nb[i] = 1;
    g->s[i] = 0;
    g->lo[i] = 0;
    g->hi[i] = 1;
  }
  for (i = 0; i < d; i++) {
    g->n[i] = a->shape[d - 1 - i];
    g->nb[i] = (g->n[i] + 3) / 4;
    g->hi[i] = g->n[i];
    g->nblocks *= g->nb[i];
  }
  /* a zero stride means "contiguous along this axis", as zfp_field treats it */
  for (i = 0; i < d; i++) {
    ptrdiff_t s = a->stride[d - 1 - i];
    g->s[i] = s ? s : run;
    run *= (ptrdiff_t)g->n[i];
  }
  for (i = 0; i < 4; i++)
    g->nwhole[i] = g->n[i] / 4;
  g->rows = g->s[0] == 1;
}

void parz_grid_init_dest(parz_grid* g, const parz_array* a, const parz_chunk_dest* d) {
  unsigned i, k = a->dims;
  parz_array whole = *a;
  for (i = 0; i < k; i++)
    whole.stride[i] = 0;
  parz_grid_init(g, &whole);
  for (i = 0; i < k; i++) {
    g->s[i] = d->stride[k - 1 - i];
    g->lo[i] = d->lo[k - 1 - i];
    g->hi[i] = d->hi[k - 1 - i];
    if (g->lo[i] > 0 || g->hi[i] < g->n[i])
      g->windowed = 1;
  }
  g->rows = g->s[0] == 1 && !g->windowed;
}

void parz_grid_seek(const parz_grid* g, size_t block, parz_block_pos* pos) {
  unsigned i;
  pos->offset = 0;
  for (i = 0; i < 4; i++) {
    pos->b[i] = block % g->nb[i];
    block /= g->nb[i];
    pos->offset += ((ptrdiff_t)(4 * pos->b[i]) - (ptrdiff_t)g->lo[i]) * g->s[i];
  }
}

void parz_grid_next(const parz_grid* g, parz_block_pos* pos) {
  unsigned i;
  for (i = 0; i < g->dims; i++) {
    pos->b[i]++;
    pos->offset += 4 * g->s[i];
    if (pos->b[i] < g->nb[i])
      return;
    pos->offset -= (ptrdiff_t)(4 * g->nb[i]) * g->s[i];
    pos->b[i] = 0;
  }
}

/* Valid extent of the block along each axis (1..4); 1 for unused axes (gather: encoders read
 * whole arrays, their window is everything). */
static int block_extent(const parz_grid* g, const parz_block_pos* pos, size_t m[4]) {
  unsigned i;
  int full = 1;
  for (i = 0; i < 4; i++) {
    size_t left = g->n[i] - 4 * pos->b[i];
    m[i] = i < g->dims ? (left < 4 ? left : 4) : 1;
    if (i < g->dims && m[i] < 4)
      full = 0;
  }
  return full;
}

/* The part of the block inside the array and the window along each axis, [a[i], e[i]) of 0..4;
 * 0 when the block has no value there. */
static int window_extent(const parz_grid* g, const parz_block_pos* pos, size_t a[4], size_t e[4]) {
  unsigned i;
  for (i = 0; i < 4; i++) {
    size_t x = 4 * pos->b[i], from = g->lo[i] > x ? g->lo[i] : x, to = x + 4;
    to = to < g->hi[i] ? to : g->hi[i]; /* hi[i] <= n[i]: inside the array too */
    if (from >= to)
      return 0;
    a[i] = from - x;
    e[i] = to - x;
  }
  return 1;
}

#define PARZ_GRID_T uint32_t
#define PARZ_GRID_FN(name) name##32
#include "grid_w.h"
#undef PARZ_GRID_T
#undef PARZ_GRID_FN
#define PARZ_GRID_T uint64_t
#define PARZ_GRID_FN(name) name##64
#include "grid_w.h"
#undef PARZ_GRID_T
#undef PARZ_GRID_FN

void parz_grid_gather(const parz_grid* g, const parz_block_pos* pos, const void* data, void* buf) {
  if (g->esize == 4)
    gather32(g, pos, (const uint32_t*)data, (uint32_t*)buf);
  else
    gather64(g, pos, (const uint64_t*)data, (uint64_t*)buf);
}

void parz_grid_scatter(const parz_grid* g, const parz_block_pos* pos, const void* buf, void* data) {
  if (g->esize == 4)
    scatter32(g, pos, (const uint32_t*)buf, (uint32_t*)data);
  else
    scatter64(g, pos, (const uint64_t*)buf, (uint64_t*)data);
}
