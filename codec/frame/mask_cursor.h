/* The decoders' cursor over a validated mask's records (internal to the codec): a decoder that
 * writes blocks in increasing order applies each block's masked values with it before storing the
 * block (mask_block.h, parz_mask_apply). */
#ifndef PARZ_MASK_CURSOR_H
#define PARZ_MASK_CURSOR_H

#include "mask_block.h"
#include "parz_chunk.h"

/* Walks a validated mask's records in block order alongside a decoder. */
typedef struct {
  const parz_chunk_mask* m;
  unsigned dims;
  int wide;                 /* 64-bit values */
  const unsigned char* at;  /* the next record */
  const unsigned char* end; /* the end of the records */
  uint64_t group;           /* the group of the next record */
  uint64_t cursor;          /* the block after the previous record of that group */
  parz_mask_record rec;     /* the current record, blocks [first, last) */
  uint64_t first, last;     /* UINT64_MAX both when no record is left */
} parz_mask_cursor;

/* A cursor at the first record that covers `block` or follows it; m may have no values. */
void parz_mask_seek(parz_mask_cursor* c, const parz_chunk_mask* m, const parz_array* a,
                    uint64_t block);
void parz_mask_next(parz_mask_cursor* c);

/* Applies the mask to decoded block b (4^d raw values); blocks come in increasing order. */
static inline void parz_mask_block(parz_mask_cursor* c, uint64_t b, void* buf) {
  while (b >= c->last)
    parz_mask_next(c);
  if (b >= c->first)
    parz_mask_apply(&c->rec, c->m->values, c->m->nvalues, c->dims, c->wide, buf);
}

#endif
