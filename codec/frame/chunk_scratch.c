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

/* The masked positions of block b (its record r) written into d's window, or with mark (not
 * NULL) marked there by their C-order index. Block positions are zfp's order (FORMAT.md,
 * "Mask"): x along the last dimension fastest. */
static void restore_block(const parz_chunk_view* v, const parz_chunk_dest* d, uint8_t* mark,
                          const parz_mask_record* r, const unsigned char** index, uint64_t b) {
  const unsigned dims = v->array.dims, n = 1u << (2 * dims);
  const parz_chunk_mask* m = &v->mask;
  uint64_t origin[4], x[4], bits = parz_mask_value(m->values, m->nvalues > 1 ? **index : 0u);
  unsigned i, k;
  for (k = dims; k-- > 0;) { /* the block's corner */
    const uint64_t nb = v->array.shape[k] / 4u + (v->array.shape[k] % 4u != 0);
    origin[k] = 4u * (b % nb);
    b /= nb;
  }
  for (i = 0; i < n; i++) {
    if (r->kind == PARZ_MASK_BITMAP) {
      if (!(r->bitmap[i / 8] >> (i % 8) & 1u))
        continue;
      if (m->nvalues > 1)
        bits = parz_mask_value(m->values, *(*index)++);
    }
    uint64_t at = 0;
    for (k = 0; k < dims; k++) { /* position i's coordinate along dimension k */
      x[k] = origin[k] + (i >> (2 * (dims - 1 - k)) & 3u);
      at = at * v->array.shape[k] + x[k];
      if (x[k] >= v->array.shape[k])
        break; /* outside the array (a partial block's run) */
    }
    if (k < dims)
      continue;
    if (mark)
      mark[at] = 1;
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
  if (!m->nvalues || first >= m->ngroups)
    return;
  end = first + count < m->ngroups ? (first + count) * m->group_blocks : nblocks;
  if (end > nblocks)
    end = nblocks;
  parz_mask_seek(&c, m, &v->array, first * m->group_blocks);
  while (c.first < end) {
    const unsigned char* index = c.rec.index;
    for (b = c.first; b < c.last && b < end; b++)
      restore_block(v, d, mark, &c.rec, &index, b);
    parz_mask_next(&c);
  }
}

void parz_mask_restore_to(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t first,
                          uint64_t count) {
  mask_walk(v, d, NULL, first, count);
}

void parz_mask_mark(const parz_chunk_view* v, uint8_t* mark) {
  mask_walk(v, NULL, mark, 0, v->mask.ngroups);
}
