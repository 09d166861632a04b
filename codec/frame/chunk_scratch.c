/* Chunks of scratch codecs, decoded in steps (chunk_scratch.h): the frame's part, the steps'
 * order and the mask over a window; the codec's part through its table entry (codecs.h). */
#include "chunk_scratch.h"

#include <stdlib.h>
#include <string.h>

#include "codecs.h"
#include "mask_cursor.h"

struct parz_chunk_scratch {
  const parz_chunk_view* v;
  const parz_codec* codec;
  struct parz_codec_scratch* state;
};

int parz_chunk_is_scratch(const parz_chunk_view* v) {
  const parz_codec* c = v ? parz_codec_find(v->codec) : NULL;
  return c && c->scratch;
}

int parz_chunk_scratch_begin(const parz_chunk_view* v, parz_chunk_scratch** out, parz_error* err) {
  parz_chunk_scratch* s;
  int rc;
  *out = NULL;
  if (!parz_chunk_is_scratch(v))
    return parz_fail(err, PARZ_ERR_ARG, "chunk of codec %u has no scratch to decode into",
                     v ? v->codec : 0u);
  if (!(s = (parz_chunk_scratch*)calloc(1, sizeof *s)))
    return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for a chunk's decoder");
  s->v = v;
  s->codec = parz_codec_find(v->codec);
  if ((rc = s->codec->scratch->begin(v, &s->state, err)) != PARZ_OK) {
    free(s);
    return rc;
  }
  *out = s;
  return PARZ_OK;
}

void parz_chunk_scratch_free(parz_chunk_scratch* s) {
  if (!s)
    return;
  s->codec->scratch->free(s->state);
  free(s);
}

struct parz_codec_scratch* parz_chunk_scratch_state(parz_chunk_scratch* s) {
  return s->state;
}

const parz_chunk_view* parz_chunk_scratch_view(const parz_chunk_scratch* s) { return s->v; }

unsigned parz_chunk_scratch_passes(const parz_chunk_scratch* s) {
  return s->codec->scratch->inverse_passes(s->state);
}

uint64_t parz_chunk_scratch_units(const parz_chunk_scratch* s, unsigned pass) {
  return s->codec->scratch->inverse_units(s->state, pass);
}

uint64_t parz_chunk_scratch_values(const parz_chunk_scratch* s, unsigned pass) {
  return s->codec->scratch->inverse_values(s->state, pass);
}

uint64_t parz_chunk_scratch_codes(const parz_chunk_scratch* s, unsigned pass) {
  return s->codec->scratch->inverse_codes(s->state, pass);
}

int parz_chunk_scratch_pass(parz_chunk_scratch* s, unsigned pass, uint64_t first, uint64_t count,
                            parz_error* err) {
  return s->codec->scratch->inverse(s->state, pass, first, count, err);
}

uint64_t parz_chunk_dest_rows(const parz_chunk_view* v, const parz_chunk_dest* d) {
  uint64_t rows = 1;
  unsigned k;
  for (k = 0; k + 1 < v->array.dims; k++)
    rows *= d->hi[k] - d->lo[k];
  return rows;
}

void parz_chunk_scratch_store(const parz_chunk_scratch* s, const parz_chunk_dest* d, uint64_t first,
                              uint64_t count) {
  s->codec->scratch->store(s->state, d, first, count);
}

/* Writes the value bits at array position x (dims coordinates) when it lies in d's window. */
static void restore_at(const parz_chunk_view* v, const parz_chunk_dest* d, const uint64_t* x,
                       uint64_t bits) {
  ptrdiff_t at = 0;
  unsigned k;
  for (k = 0; k < v->array.dims; k++) {
    if (x[k] < d->lo[k] || x[k] >= d->hi[k])
      return;
    at += (ptrdiff_t)(x[k] - d->lo[k]) * d->stride[k];
  }
  if (parz_type_size(v->array.type) == 4) {
    uint32_t u = (uint32_t)bits;
    memcpy((unsigned char*)d->data + 4 * at, &u, 4);
  } else {
    memcpy((unsigned char*)d->data + 8 * at, &bits, 8);
  }
}

/* A walk of the mask's blocks into d's window, or marking mark: the offsets of a block's 4^d
 * positions (zfp's order, FORMAT.md "Mask": x along the last dimension fastest) from its corner,
 * in the array (C order) and in the window, for blocks wholly inside both. */
typedef struct {
  const parz_chunk_view* v;
  const parz_chunk_dest* d; /* NULL when marking */
  uint8_t* mark;            /* NULL when restoring */
  unsigned n;               /* positions of a block */
  int rows;                 /* the window's last stride is 1 (or marking) */
  size_t w;                 /* bytes of a value */
  uint64_t nb[4], stride[4];
  ptrdiff_t in_array[256], in_window[256];
} mask_walker;

static void walker_init(mask_walker* k, const parz_chunk_view* v, const parz_chunk_dest* d,
                        uint8_t* mark) {
  const unsigned dims = v->array.dims;
  unsigned i, j;
  k->v = v;
  k->d = d;
  k->mark = mark;
  k->n = 1u << (2 * dims);
  k->rows = !d || d->stride[dims - 1] == 1;
  k->w = parz_type_size(v->array.type);
  for (j = dims; j-- > 0;) {
    k->nb[j] = v->array.shape[j] / 4u + (v->array.shape[j] % 4u != 0);
    k->stride[j] = j + 1 < dims ? k->stride[j + 1] * v->array.shape[j + 1] : 1;
  }
  for (i = 0; i < k->n; i++) {
    k->in_array[i] = k->in_window[i] = 0;
    for (j = 0; j < dims; j++) {
      const ptrdiff_t c = (ptrdiff_t)(i >> (2 * (dims - 1 - j)) & 3u);
      k->in_array[i] += c * (ptrdiff_t)k->stride[j];
      k->in_window[i] += d ? c * d->stride[j] : 0;
    }
  }
}

/* Position i of a block wholly inside the array and the window (its corner at base_array and
 * base_window) marked, or given bits. */
static inline void restore_one(const mask_walker* k, unsigned i, uint64_t bits,
                               ptrdiff_t base_array, ptrdiff_t base_window) {
  if (k->mark) {
    k->mark[base_array + k->in_array[i]] = 1;
    return;
  }
  unsigned char* at = (unsigned char*)k->d->data + (size_t)(base_window + k->in_window[i]) * k->w;
  if (k->w == 4) {
    uint32_t u = (uint32_t)bits;
    memcpy(at, &u, 4);
  } else {
    memcpy(at, &bits, 8);
  }
}

/* restore_block's case of a block wholly inside both: a run's positions all, each store's kind
 * chosen once for the block; a bitmap's set bits found a byte at a time. */
static void restore_whole(const mask_walker* k, const parz_mask_record* r,
                          const unsigned char** index, uint64_t bits, ptrdiff_t base_array,
                          ptrdiff_t base_window) {
  const parz_chunk_mask* m = &k->v->mask;
  unsigned i;
  if (r->kind == PARZ_MASK_RUN) {
    /* a block's rows of 4 positions along the last axis lie side by side in the array, and in
     * the window where its last stride is 1: a row at a time there */
    if (k->mark) {
      for (i = 0; i < k->n; i += 4)
        memset(k->mark + base_array + k->in_array[i], 1, 4);
    } else if (k->w == 4 && k->rows) {
      const uint32_t u = (uint32_t)bits, row[4] = {u, u, u, u};
      unsigned char* at = (unsigned char*)k->d->data + 4 * base_window;
      for (i = 0; i < k->n; i += 4)
        memcpy(at + 4 * k->in_window[i], row, sizeof row);
    } else if (k->rows) {
      const uint64_t row[4] = {bits, bits, bits, bits};
      unsigned char* at = (unsigned char*)k->d->data + 8 * base_window;
      for (i = 0; i < k->n; i += 4)
        memcpy(at + 8 * k->in_window[i], row, sizeof row);
    } else {
      for (i = 0; i < k->n; i++)
        restore_one(k, i, bits, base_array, base_window);
    }
    return;
  }
  for (unsigned g = 0; g < k->n; g += 8) {
    /* a 1-D block's byte holds 4 positions: its other bits are none of them */
    unsigned byte = r->bitmap[g / 8] & (k->n < 8 ? (1u << k->n) - 1u : 0xffu);
    for (; byte; byte &= byte - 1u) {
      i = g + parz_ctz64(byte);
      if (m->nvalues > 1)
        bits = parz_mask_value(m->values, *(*index)++);
      restore_one(k, i, bits, base_array, base_window);
    }
  }
}

/* The masked positions of block b (its record r) written into the window, or marked by their
 * C-order index. */
static void restore_block(const mask_walker* k, const parz_mask_record* r,
                          const unsigned char** index, uint64_t b) {
  const parz_chunk_view* v = k->v;
  const parz_chunk_dest* d = k->d;
  const unsigned dims = v->array.dims;
  const parz_chunk_mask* m = &v->mask;
  uint64_t origin[4], x[4], bits = parz_mask_value(m->values, m->nvalues > 1 ? **index : 0u);
  ptrdiff_t base_array = 0, base_window = 0;
  int whole = 1;
  unsigned i, j;
  for (j = dims; j-- > 0;) { /* the block's corner */
    origin[j] = 4u * (b % k->nb[j]);
    b /= k->nb[j];
    whole &= origin[j] + 4u <= v->array.shape[j] &&
             (!d || (origin[j] >= d->lo[j] && origin[j] + 4u <= d->hi[j]));
    base_array += (ptrdiff_t)(origin[j] * k->stride[j]);
    base_window += d ? (ptrdiff_t)(origin[j] - (whole ? d->lo[j] : 0)) * d->stride[j] : 0;
  }
  if (whole) {
    restore_whole(k, r, index, bits, base_array, base_window);
    return;
  }
  for (i = 0; i < k->n; i++) {
    if (r->kind == PARZ_MASK_BITMAP) {
      if (!(r->bitmap[i / 8] >> (i % 8) & 1u))
        continue;
      if (m->nvalues > 1)
        bits = parz_mask_value(m->values, *(*index)++);
    }
    uint64_t at = 0;
    for (j = 0; j < dims; j++) { /* position i's coordinate along dimension j */
      x[j] = origin[j] + (i >> (2 * (dims - 1 - j)) & 3u);
      at = at * v->array.shape[j] + x[j];
      if (x[j] >= v->array.shape[j])
        break; /* outside the array (a partial block's run) */
    }
    if (j < dims)
      continue;
    if (k->mark)
      k->mark[at] = 1;
    else
      restore_at(v, d, x, bits);
  }
}

/* Mask groups [first, first + count) into d's window, or marked in mark. */
static void mask_walk(const parz_chunk_view* v, const parz_chunk_dest* d, uint8_t* mark,
                      uint64_t first, uint64_t count) {
  const parz_chunk_mask* m = &v->mask;
  const uint64_t nblocks = parz_block_count(&v->array);
  uint64_t end, b;
  parz_mask_cursor c;
  mask_walker k;
  if (!m->nvalues || first >= m->ngroups)
    return;
  end = first + count < m->ngroups ? (first + count) * m->group_blocks : nblocks;
  if (end > nblocks)
    end = nblocks;
  walker_init(&k, v, d, mark);
  parz_mask_seek(&c, m, &v->array, first * m->group_blocks);
  while (c.first < end) {
    const unsigned char* index = c.rec.index;
    for (b = c.first; b < c.last && b < end; b++)
      restore_block(&k, &c.rec, &index, b);
    parz_mask_next(&c);
  }
}

void parz_mask_restore_to(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t first,
                          uint64_t count) {
  mask_walk(v, d, NULL, first, count);
}

void parz_mask_mark(const parz_chunk_view* v, uint8_t* mark, uint64_t first, uint64_t count) {
  mask_walk(v, NULL, mark, first, count);
}
