/* Masks (internal to the codec): values a chunk restores from its mask section instead of the
 * payload, NaN of any bit pattern, values bit-equal to a fill value, and those bit-equal to a
 * pattern the accuracy bound's check took out (risk.h). This header: which values are masked
 * (the palette) and the encoder's scan that finds them. Beside it the section builder
 * (mask_build.h), the parser's validation (mask_parse.h) and the decoders' cursor
 * (mask_cursor.h); codec/FORMAT.md, "Mask", is the spec, mask_block.h the record code shared
 * with the CUDA decoder. */
#ifndef PARZ_MASK_H
#define PARZ_MASK_H

#include "exceptions.h"
#include "mask_block.h"

/* Patterns (NaN, taken) a mask holds at most; one more value is kept for the fill value. */
#define PARZ_MASK_MAX_PATTERNS (PARZ_MASK_MAX_VALUES - 1u)

/* What makes a value masked under a configuration, and the values met (the palette): the fill
 * value first when the array holds it, then the patterns, NaN and those of exc's taken patterns
 * (which `taken` lets the mask hold), in order of first appearance. exc says which values are
 * exceptions, which the mask's blocks treat as holes too. */
typedef struct parz_mask_palette {
  parz_type type;
  parz_exception_set exc;
  int nan, taken, fill, fill_seen;
  /* nonzero: the cleaned copy's holes get their stand-ins (the codec encodes what they hold);
   * zero for a scratch codec, which is told the holes and never reads them (codecs.h) */
  int standins;
  uint64_t fill_bits;
  unsigned npatterns;
  uint64_t patterns[PARZ_MASK_MAX_PATTERNS];   /* in order of first appearance */
  uint64_t sorted[PARZ_MASK_MAX_PATTERNS];     /* the same, ascending, for lookups */
  unsigned char order[PARZ_MASK_MAX_PATTERNS]; /* sorted[i] is patterns[order[i]] */
} parz_mask_palette;

/* A palette for arrays of `type` and rank `dims` under cfg (PARZ_MASK_OFF masks nothing), its
 * exceptions those of parz_exception_set_of under the codec. PARZ_ERR_PARAM when the fill value
 * has bits beyond a 32-bit type's. */
int parz_mask_palette_init(parz_mask_palette* pal, const struct parz_codec* codec, parz_type type,
                           unsigned dims, const parz_params* p, const parz_chunk_config* cfg,
                           parz_error* err);

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

#endif
