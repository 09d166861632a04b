/* Block grid, gather and scatter (see grid.h). */
#include "grid.h"

#include "block_encode.h" /* parz_pad_block32/64 */

void parz_grid_init(parz_grid* g, const parz_array* a)
{
  unsigned i, d = a->dims;
  ptrdiff_t run = 1;
  g->dims = d;
  g->esize = parz_type_size(a->type);
  g->nblocks = 1;
  for (i = 0; i < 4; i++) {
    g->n[i] = 1;
    g->nb[i] = 1;
    g->s[i] = 0;
  }
  for (i = 0; i < d; i++) {
    g->n[i] = a->shape[d - 1 - i];
    g->nb[i] = (g->n[i] + 3) / 4;
    g->nblocks *= g->nb[i];
  }
  /* a zero stride means "contiguous along this axis", as zfp_field treats it */
  for (i = 0; i < d; i++) {
    ptrdiff_t s = a->stride[d - 1 - i];
    g->s[i] = s ? s : run;
    run *= (ptrdiff_t)g->n[i];
  }
}

void parz_grid_seek(const parz_grid* g, size_t block, parz_block_pos* pos)
{
  unsigned i;
  pos->offset = 0;
  for (i = 0; i < 4; i++) {
    pos->b[i] = block % g->nb[i];
    block /= g->nb[i];
    pos->offset += (ptrdiff_t)(4 * pos->b[i]) * g->s[i];
  }
}

void parz_grid_next(const parz_grid* g, parz_block_pos* pos)
{
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

/* Valid extent of the block along each axis (1..4); 1 for unused axes. */
static int block_extent(const parz_grid* g, const parz_block_pos* pos, size_t m[4])
{
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

void parz_grid_gather(const parz_grid* g, const parz_block_pos* pos, const void* data, void* buf)
{
  if (g->esize == 4)
    gather32(g, pos, (const uint32_t*)data, (uint32_t*)buf);
  else
    gather64(g, pos, (const uint64_t*)data, (uint64_t*)buf);
}

void parz_grid_scatter(const parz_grid* g, const parz_block_pos* pos, const void* buf, void* data)
{
  if (g->esize == 4)
    scatter32(g, pos, (const uint32_t*)buf, (uint32_t*)data);
  else
    scatter64(g, pos, (const uint64_t*)buf, (uint64_t*)data);
}
