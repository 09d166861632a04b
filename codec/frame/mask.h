/* Masks (internal to the codec): values a chunk restores from its mask section instead of the
 * payload, NaN of any bit pattern, values bit-equal to a fill value, and those bit-equal to a
 * pattern the accuracy bound's check took out (risk.h). The encoder's scan and section builder,
 * the parser's validation and the decoders' cursor; codec/FORMAT.md, "Mask", is the spec,
 * mask_block.h the record code shared with the CUDA decoder. */
#ifndef PARZ_MASK_H
#define PARZ_MASK_H

#include "exceptions.h"
#include "mask_block.h"

#define PARZ_MASK_MAX_GROUP_BLOCKS 65536u
/* Patterns (NaN, taken) a mask holds at most; one more value is kept for the fill value. */
#define PARZ_MASK_MAX_PATTERNS (PARZ_MASK_MAX_VALUES - 1u)

/* What makes a value masked under a configuration, and the values met (the palette): the fill
 * value first when the array holds it, then the patterns, NaN and those of exc's taken patterns
 * (which `taken` lets the mask hold), in order of first appearance. exc says which values are
 * exceptions, which the mask's blocks treat as holes too. */
typedef struct {
  parz_type type;
  parz_exception_set exc;
  int nan, taken, fill, fill_seen;
  uint64_t fill_bits;
  unsigned npatterns;
  uint64_t patterns[PARZ_MASK_MAX_PATTERNS];   /* in order of first appearance */
  uint64_t sorted[PARZ_MASK_MAX_PATTERNS];     /* the same, ascending, for lookups */
  unsigned char order[PARZ_MASK_MAX_PATTERNS]; /* sorted[i] is patterns[order[i]] */
} parz_mask_palette;

/* A palette for arrays of `type` and rank `dims` under cfg (PARZ_MASK_OFF masks nothing), its
 * exceptions those of parz_exception_set_of. PARZ_ERR_PARAM when the fill value has bits beyond
 * a 32-bit type's. */
int parz_mask_palette_init(parz_mask_palette* pal, parz_type type, unsigned dims,
                           const parz_params* p, const parz_chunk_config* cfg, parz_error* err);

/* Reads the (possibly strided) array in C order: counts its masked values, the exceptions left
 * beside them and the other values that put their block at risk (exc.high), and fills the
 * palette. One read of the array; a second only when it holds values that are masked,
 * exceptions or at risk. */
void parz_mask_scan(parz_mask_palette* pal, const parz_array* a, const void* data, uint64_t* masked,
                    uint64_t* exceptions, uint64_t* high);

/* The value index of a masked bit pattern, -1 for a value the mask does not take (after the
 * scan). */
int parz_mask_lookup(const parz_mask_palette* pal, uint64_t bits);
/* parz_mask_lookup(ctx, bits) >= 0, as parz_exceptions_copy asks it. */
int parz_mask_claims(void* ctx, uint64_t bits);

/* Adds a palette of a later part of the array (scanned on its own, from the same initial
 * palette) to the palette of the parts before it: its fill value and its patterns in their
 * order. 0 when the patterns no longer fit, where scanning the parts one by one gives other
 * counts than scanning the whole array. */
int parz_mask_palette_merge(parz_mask_palette* into, const parz_mask_palette* part);

/* Upper bound on the section of an array with at most `masked` masked values. */
size_t parz_mask_bound(const parz_array* a, uint64_t masked);

/* The mask section of a scanned array, built from its contiguous copy `cleaned`
 * (parz_exceptions_copy with parz_mask_claims), whose masked values and exceptions it replaces
 * by their stand-ins (FORMAT.md). *section is malloc'd (*bytes long). */
int parz_mask_build(const parz_mask_palette* pal, const parz_array* a, void* cleaned,
                    unsigned char** section, size_t* bytes, parz_error* err);

/* parz_mask_build in steps, for builders that work on runs of blocks at once: the blocks of each
 * run are collected into entries of their own (their holes filled in `cleaned`, which the runs
 * share without touching each other's values), the runs' entries appended in block order, and
 * the section written from them. */
typedef struct {
  uint64_t block; /* a block holding masked values */
  int value;      /* all of them this value (>= 0: a run candidate), or -1: a bitmap */
  size_t extra;   /* the bitmap and value indices, in the entries' bytes */
} parz_mask_entry;

typedef struct {
  parz_mask_entry* e;
  size_t n, cap;
  unsigned char* bytes;
  size_t nbytes, bytes_cap;
  unsigned dims, nvalues;
  uint64_t nblocks;
} parz_mask_entries;

void parz_mask_entries_init(parz_mask_entries* m, const parz_mask_palette* pal,
                            const parz_array* a);
void parz_mask_entries_free(parz_mask_entries* m);
/* Blocks [first, first + count) of a (C order of its block grid): PARZ_OK or PARZ_ERR_NOMEM. */
int parz_mask_collect(const parz_mask_palette* pal, const parz_array* a, void* cleaned,
                      uint64_t first, uint64_t count, parz_mask_entries* m);
int parz_mask_append(parz_mask_entries* into, const parz_mask_entries* part);
int parz_mask_finish(const parz_mask_palette* pal, const parz_mask_entries* m,
                     unsigned char** section, size_t* bytes);

/* Validates the mask section of `bytes` bytes at s against the chunk v describes (shape and
 * type) and sets v->mask. O(bytes). */
int parz_mask_parse(parz_chunk_view* v, const unsigned char* s, uint64_t bytes, parz_error* err);

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
