/* Chunked arrays: grid and box checks, stored chunks against their grid, and where a chunk's
 * values land in a box (parz_chunked.h). */
#include <stdio.h>
#include <string.h>

#include "parz_chunked.h"

int parz_grid_check(const parz_chunk_grid* g, const parz_box* box, uint64_t* box_values,
                    uint64_t* chunk_values, const char* who, parz_error* err) {
  size_t elem;
  unsigned k;
  uint64_t total = 1, chunk = 1;
  if (!g)
    return parz_fail(err, PARZ_ERR_ARG, "%s: NULL grid", who);
  if (g->rank < 1 || g->rank > PARZ_MAX_RANK)
    return parz_fail(err, PARZ_ERR_DIMS, "%s: rank %u outside 1..%d", who, g->rank, PARZ_MAX_RANK);
  elem = parz_type_size(g->type);
  if (elem == 0)
    return parz_fail(err, PARZ_ERR_TYPE, "%s: unknown scalar type %d", who, (int)g->type);
  for (k = 0; k < g->rank; k++) {
    if (!g->dims[k] || !g->chunk_dims[k])
      return parz_fail(err, PARZ_ERR_DIMS, "%s: zero extent in dimension %u", who, k);
    if (total > UINT64_MAX / g->dims[k] || chunk > UINT64_MAX / g->chunk_dims[k])
      return parz_fail(err, PARZ_ERR_NOMEM, "%s: array too large", who);
    total *= g->dims[k];
    chunk *= g->chunk_dims[k];
  }
  if (box) {
    total = 1;
    for (k = 0; k < g->rank; k++) {
      if (box->start[k] > g->dims[k] || box->count[k] > g->dims[k] - box->start[k])
        return parz_fail(err, PARZ_ERR_DIMS,
                         "%s: the box's %llu values from %llu in dimension %u leave the array's "
                         "%llu",
                         who, (unsigned long long)box->count[k], (unsigned long long)box->start[k],
                         k, (unsigned long long)g->dims[k]);
      total *= box->count[k]; /* no overflow: at most the array's count */
    }
  }
  if (total > SIZE_MAX / elem || chunk > SIZE_MAX / elem)
    return parz_fail(err, PARZ_ERR_NOMEM, "%s: array too large", who);
  if (box_values)
    *box_values = total;
  if (chunk_values)
    *chunk_values = chunk;
  return PARZ_OK;
}

int parz_grid_chunk_array(const parz_chunk_grid* g, parz_array* a, parz_error* err) {
  unsigned k;
  memset(a, 0, sizeof *a);
  a->type = g->type;
  for (k = 0; k < g->rank; k++) {
    if (g->chunk_dims[k] == 1)
      continue;
    if (a->dims == 4)
      return parz_fail(err, PARZ_ERR_DIMS,
                       "chunks of more than 4 extents larger than 1 (ParZ stores at most 4)");
    a->shape[a->dims++] = (size_t)g->chunk_dims[k];
  }
  if (a->dims == 0) { /* a chunk of one value */
    a->dims = 1;
    a->shape[0] = 1;
  }
  return PARZ_OK;
}

/* "AxBxC" into buf. */
static void shape_text(char* buf, size_t size, unsigned n, const uint64_t* shape) {
  size_t len = 0;
  unsigned k;
  buf[0] = 0;
  for (k = 0; k < n && len + 24 < size; k++)
    len += (size_t)snprintf(buf + len, size - len, "%s%llu", k ? "x" : "",
                            (unsigned long long)shape[k]);
}

int parz_chunk_ref_check(const parz_chunk_grid* g, const void* packed, size_t packed_bytes,
                         size_t i, const parz_chunk_ref* c, parz_chunk_view* v, const char* who,
                         parz_error* err) {
  const unsigned char* p = (const unsigned char*)packed;
  parz_array want;
  uint64_t chunk = 1, have[4], want_shape[4];
  unsigned k;
  int rc, same;
  if (c->at % 8 || c->at > packed_bytes || c->bytes > packed_bytes - c->at)
    return parz_fail(err, PARZ_ERR_ARG,
                     "%s: chunk %zu (%zu bytes at %zu) is not inside the %zu packed bytes at a "
                     "multiple of 8",
                     who, i, c->bytes, c->at, packed_bytes);
  for (k = 0; k < g->rank; k++) {
    if (c->origin[k] % g->chunk_dims[k] || c->origin[k] >= g->dims[k])
      return parz_fail(err, PARZ_ERR_ARG,
                       "%s: chunk %zu starts at %llu in dimension %u, not at a chunk boundary "
                       "inside the array",
                       who, i, (unsigned long long)c->origin[k], k);
    chunk *= g->chunk_dims[k]; /* no overflow: parz_grid_check */
  }
  if (c->raw != PARZ_STORED_PARZ) {
    const uint64_t chunk_bytes = chunk * parz_type_size(g->type);
    if (c->raw != PARZ_STORED_RAW && c->raw != PARZ_STORED_RAW_SWAPPED)
      return parz_fail(err, PARZ_ERR_ARG, "%s: chunk %zu: unknown kind %d", who, i, c->raw);
    return c->bytes == chunk_bytes ? PARZ_OK
                                   : parz_fail(err, PARZ_ERR_FORMAT,
                                               "%s: unfiltered chunk %zu holds %zu bytes, not %llu",
                                               who, i, c->bytes, (unsigned long long)chunk_bytes);
  }
  if ((rc = parz_grid_chunk_array(g, &want, err)) != PARZ_OK)
    return rc;
  if ((rc = parz_chunk_parse(p + c->at, c->bytes, v, err)) != PARZ_OK)
    return rc;
  /* a chunk of another type or shape would decode into the wrong places */
  same = v->array.type == want.type && v->array.dims == want.dims;
  for (k = 0; k < want.dims && same; k++)
    same = v->array.shape[k] == want.shape[k];
  if (same)
    return PARZ_OK;
  {
    char a[96], b[96];
    for (k = 0; k < 4; k++) {
      have[k] = v->array.shape[k];
      want_shape[k] = want.shape[k];
    }
    shape_text(a, sizeof a, v->array.dims, have);
    shape_text(b, sizeof b, want.dims, want_shape);
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "%s: chunk %zu is a %s chunk of type %s; the array's chunks are %s of type "
                     "%s (unit extents dropped)",
                     who, i, a, parz_type_name(v->array.type), b, parz_type_name(want.type));
  }
}

void parz_box_first_chunk(const parz_chunk_grid* g, const parz_box* box, uint64_t* origin) {
  unsigned k;
  for (k = 0; k < g->rank; k++)
    origin[k] = box->start[k] - box->start[k] % g->chunk_dims[k];
}

int parz_box_next_chunk(const parz_chunk_grid* g, const parz_box* box, uint64_t* origin) {
  int k;
  for (k = (int)g->rank - 1; k >= 0; k--) {
    origin[k] += g->chunk_dims[k];
    if (origin[k] < box->start[k] + box->count[k])
      return 1;
    origin[k] = box->start[k] - box->start[k] % g->chunk_dims[k];
  }
  return 0;
}

int parz_box_meets_chunk(const parz_chunk_grid* g, const parz_box* box, const uint64_t* origin) {
  unsigned k;
  for (k = 0; k < g->rank; k++)
    if ((origin[k] <= box->start[k] && box->start[k] - origin[k] >= g->chunk_dims[k]) ||
        (origin[k] >= box->start[k] && origin[k] - box->start[k] >= box->count[k]))
      return 0; /* written without sums, which could wrap */
  return 1;
}

void parz_box_chunk_dest(const parz_chunk_grid* g, const parz_box* box, const uint64_t* origin,
                         void* box_data, parz_chunk_dest* d) {
  uint64_t run = 1, first = 0;
  int k;
  unsigned q = 0;
  memset(d, 0, sizeof *d);
  for (k = 0; k < (int)g->rank; k++)
    if (g->chunk_dims[k] != 1)
      q++;
  if (q > 4)
    return; /* not a ParZ chunk shape (parz_grid_chunk_array): data stays NULL */
  /* the squeezed dimensions from the fastest; a chunk of one value is one dimension */
  d->hi[0] = 1;
  d->stride[0] = 1;
  for (k = (int)g->rank - 1; k >= 0; k--) {
    const uint64_t box_end = box->start[k] + box->count[k];
    uint64_t from = origin[k] > box->start[k] ? origin[k] : box->start[k];
    uint64_t to = origin[k] + g->chunk_dims[k];
    to = to < box_end ? to : box_end; /* box_end <= dims: inside the array too */
    first += (from - box->start[k]) * run;
    if (g->chunk_dims[k] != 1) {
      q--;
      d->lo[q] = (size_t)(from - origin[k]);
      d->hi[q] = (size_t)(to - origin[k]);
      d->stride[q] = (ptrdiff_t)run;
    }
    run *= box->count[k];
  }
  d->data = (unsigned char*)box_data + first * parz_type_size(g->type);
}

/* Calls row(ctx, src_offset, dst_offset, n) for every row of d's window along the chunk's last
 * dimension: n values from element src_offset of the chunk's contiguous array (shape a) to
 * element dst_offset from d->data along d->stride[last]. */
static void window_rows(const parz_array* a, const parz_chunk_dest* d,
                        void (*row)(void* ctx, size_t src, ptrdiff_t dst, size_t n), void* ctx) {
  const unsigned last = a->dims - 1;
  size_t x[4] = {0, 0, 0, 0}, src_stride[4], run = 1;
  int k;
  for (k = (int)last; k >= 0; k--) {
    src_stride[k] = run;
    run *= a->shape[k];
    x[k] = d->lo[k];
  }
  for (;;) {
    size_t src = 0;
    ptrdiff_t dst = 0;
    for (k = 0; k <= (int)last; k++) {
      src += x[k] * src_stride[k];
      dst += (ptrdiff_t)(x[k] - d->lo[k]) * d->stride[k];
    }
    row(ctx, src, dst, d->hi[last] - d->lo[last]);
    /* the next row: odometer over the dimensions before the last */
    for (k = (int)last - 1; k >= 0; k--) {
      if (++x[k] < d->hi[k])
        break;
      x[k] = d->lo[k];
    }
    if (k < 0)
      return;
  }
}

struct copy_ctx {
  const unsigned char* values;
  unsigned char* data;
  size_t elem;
  ptrdiff_t step; /* d->stride[last] */
  int swapped;
};

static void copy_row(void* p, size_t src, ptrdiff_t dst, size_t n) {
  const struct copy_ctx* c = (const struct copy_ctx*)p;
  const unsigned char* from = c->values + src * c->elem;
  unsigned char* to = c->data + dst * (ptrdiff_t)c->elem;
  size_t i, b;
  if (c->step == 1 && !c->swapped) {
    memcpy(to, from, n * c->elem);
    return;
  }
  for (i = 0; i < n; i++, from += c->elem, to += c->step * (ptrdiff_t)c->elem)
    for (b = 0; b < c->elem; b++)
      to[b] = from[c->swapped ? c->elem - 1 - b : b];
}

void parz_chunk_dest_copy(const parz_array* a, const void* values, int swapped,
                          const parz_chunk_dest* d) {
  struct copy_ctx c;
  c.values = (const unsigned char*)values;
  c.data = (unsigned char*)d->data;
  c.elem = parz_type_size(a->type);
  c.step = d->stride[a->dims - 1];
  c.swapped = swapped;
  window_rows(a, d, copy_row, &c);
}

static void fill_row(void* p, size_t src, ptrdiff_t dst, size_t n) {
  const struct copy_ctx* c = (const struct copy_ctx*)p;
  unsigned char* to = c->data + dst * (ptrdiff_t)c->elem;
  size_t i;
  (void)src;
  for (i = 0; i < n; i++, to += c->step * (ptrdiff_t)c->elem)
    memcpy(to, c->values, c->elem);
}

void parz_chunk_dest_fill(const parz_array* a, const parz_chunk_dest* d, const void* value) {
  struct copy_ctx c;
  c.values = (const unsigned char*)value;
  c.data = (unsigned char*)d->data;
  c.elem = parz_type_size(a->type);
  c.step = d->stride[a->dims - 1];
  c.swapped = 0;
  window_rows(a, d, fill_row, &c);
}

static void gather_row(void* p, size_t src, ptrdiff_t dst, size_t n) {
  const struct copy_ctx* c = (const struct copy_ctx*)p;
  unsigned char* to = (unsigned char*)c->values + src * c->elem; /* the chunk's values */
  const unsigned char* from = c->data + dst * (ptrdiff_t)c->elem;
  size_t i;
  if (c->step == 1) {
    memcpy(to, from, n * c->elem);
    return;
  }
  for (i = 0; i < n; i++, to += c->elem, from += c->step * (ptrdiff_t)c->elem)
    memcpy(to, from, c->elem);
}

void parz_chunk_dest_gather(const parz_array* a, const parz_chunk_dest* d, const void* fill,
                            void* values) {
  struct copy_ctx c;
  const size_t elem = parz_type_size(a->type), count = parz_array_count(a);
  unsigned char* v = (unsigned char*)values;
  size_t i;
  if (!fill)
    memset(v, 0, count * elem);
  else
    for (i = 0; i < count; i++)
      memcpy(v + i * elem, fill, elem);
  c.values = v;
  c.data = (unsigned char*)d->data;
  c.elem = elem;
  c.step = d->stride[a->dims - 1];
  c.swapped = 0;
  window_rows(a, d, gather_row, &c);
}
