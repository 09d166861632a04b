/* The mask section's builder (internal to the codec): the section of a scanned array (mask.h)
 * and the stand-ins of the blocks it covers. */
#ifndef PARZ_MASK_BUILD_H
#define PARZ_MASK_BUILD_H

#include "mask.h"

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

#endif
