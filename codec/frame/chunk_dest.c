/* Destination windows: the whole array, a window checked against the chunk, and the walk of the
 * blocks and segments that meet a window (window.h). */
#include <string.h>

#include "header.h"
#include "window.h"

void parz_chunk_dest_whole(const parz_chunk_view* v, void* dst, parz_chunk_dest* d) {
  ptrdiff_t run = 1;
  unsigned k;
  memset(d, 0, sizeof *d);
  d->data = dst;
  for (k = v->array.dims; k-- > 0;) {
    d->stride[k] = run;
    d->hi[k] = v->array.shape[k];
    run *= (ptrdiff_t)v->array.shape[k];
  }
}

int parz_chunk_dest_check(const parz_chunk_view* v, const parz_chunk_dest* d, parz_error* err) {
  unsigned k;
  if (!v || !d || !d->data)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_dest_check: NULL argument");
  for (k = 0; k < v->array.dims; k++)
    if (d->lo[k] >= d->hi[k] || d->hi[k] > v->array.shape[k] || d->stride[k] < 0)
      return parz_fail(err, PARZ_ERR_ARG,
                       "destination window [%zu, %zu) stride %td in dimension %u of a chunk of "
                       "extent %zu",
                       d->lo[k], d->hi[k], d->stride[k], k, v->array.shape[k]);
  return PARZ_OK;
}

static void window_blocks_init(const parz_chunk_view* v, const parz_chunk_dest* d,
                               parz_window_blocks* w) {
  unsigned k;
  w->dims = v->array.dims;
  w->nblocks = v->nblocks;
  w->cut = -1;
  for (k = 0; k < w->dims; k++) {
    const unsigned side = v->block_side[k];
    w->nb[k] = parz_blocks_along(v->array.shape[k], side);
    w->lo[k] = d->lo[k] / side;
    w->hi[k] = parz_blocks_along(d->hi[k], side);
    if (w->lo[k] > 0 || w->hi[k] < w->nb[k])
      w->cut = (int)k;
  }
}

static uint64_t window_linear(const parz_window_blocks* w, const uint64_t* x) {
  uint64_t b = 0;
  unsigned k;
  for (k = 0; k < w->dims; k++)
    b = b * w->nb[k] + x[k];
  return b;
}

/* The first block at or after block b that is inside the window; nblocks when none is. */
static uint64_t window_next(const parz_window_blocks* w, uint64_t b) {
  uint64_t x[4];
  unsigned k, j;
  if (b >= w->nblocks)
    return w->nblocks;
  for (k = w->dims; k-- > 0;) {
    x[k] = b % w->nb[k];
    b /= w->nb[k];
  }
  for (k = 0; k < w->dims; k++) {
    int m;
    if (x[k] >= w->lo[k] && x[k] < w->hi[k])
      continue;
    if (x[k] < w->lo[k]) { /* the window's first block with this prefix */
      for (j = k; j < w->dims; j++)
        x[j] = w->lo[j];
      return window_linear(w, x);
    }
    /* past the window along k: the next prefix inside it */
    for (j = k; j < w->dims; j++)
      x[j] = w->lo[j];
    for (m = (int)k - 1; m >= 0; m--) {
      if (++x[m] < w->hi[m])
        break;
      x[m] = w->lo[m];
    }
    return m < 0 ? w->nblocks : window_linear(w, x);
  }
  return window_linear(w, x);
}

/* For a block b inside the window, the first block after it that is not (nblocks at most). */
static uint64_t window_run_end(const parz_window_blocks* w, uint64_t b) {
  uint64_t x[4];
  unsigned k;
  if (w->cut < 0)
    return w->nblocks;
  for (k = w->dims; k-- > 0;) {
    x[k] = b % w->nb[k];
    b /= w->nb[k];
  }
  x[w->cut] = w->hi[w->cut];
  for (k = (unsigned)w->cut + 1; k < w->dims; k++)
    x[k] = 0;
  return window_linear(w, x);
}

int parz_run_walk_init(parz_run_walk* r, const parz_chunk_view* v, const parz_chunk_dest* d,
                       uint64_t first, uint64_t count, parz_error* err) {
  const uint64_t C = v ? v->segment_blocks : 0;
  if (!v || !d || !d->data)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_decode_segments: NULL argument");
  if (first > v->nsegments || count > v->nsegments - first)
    return parz_fail(err, PARZ_ERR_ARG, "segments [%llu, +%llu) outside the chunk's %llu",
                     (unsigned long long)first, (unsigned long long)count,
                     (unsigned long long)v->nsegments);
  window_blocks_init(v, d, &r->w);
  r->block = first * C;
  r->end_segment = first + count;
  r->end_block = r->end_segment * C < v->nblocks ? r->end_segment * C : v->nblocks;
  return PARZ_OK;
}

int parz_run_walk_next(parz_run_walk* r, uint64_t C, uint64_t* s0, uint64_t* s1) {
  uint64_t run_end;
  if (r->block >= r->end_block || (r->block = window_next(&r->w, r->block)) >= r->end_block)
    return 0;
  run_end = window_run_end(&r->w, r->block);
  *s0 = r->block / C;
  *s1 = run_end / C + (run_end % C != 0);
  if (*s1 > r->end_segment)
    *s1 = r->end_segment;
  r->block = *s1 * C;
  return 1;
}
