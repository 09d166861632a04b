/* The reads of the whole array that encoding begins with (internal to the codec): the scan for
 * masked values and exceptions, then, for an array that has any, its cleaned copy with the
 * exception records and the mask section. Each runs whole on the calling thread, or cut into
 * parts on the caller's threads (parz_jobs, parz_chunk.h) with the same results: values in runs
 * of C order, blocks in runs of block order. */
#ifndef PARZ_SCAN_H
#define PARZ_SCAN_H

#include "mask.h"

/* What the scan found: the palette (as parz_mask_scan leaves it) and the counts (`high`: the
 * values neither masked nor exceptions that put their block at risk). `parts` is the number of
 * parts the later steps may take (their per-part exception counts in exc_before: records written
 * before part i), 0 when they must run whole. */
typedef struct {
  parz_mask_palette pal;
  uint64_t masked, exceptions, high;
  uint64_t parts;
  uint64_t* exc_before; /* parts + 1 entries, or NULL */
} parz_scan;

/* The scan of a's values; pal must hold parz_mask_palette_init's palette. Without memory for
 * the parts' palettes it scans on the calling thread. */
void parz_scan_run(parz_scan* s, const parz_array* a, const void* data, const parz_jobs* jobs);
void parz_scan_free(parz_scan* s);

/* Into `cleaned` (the array's values, contiguous) and `records` (s->exceptions of them): the
 * copy with the exceptions recorded, then either their stand-ins (no masked value) or the mask
 * section (*section, *section_bytes) with its holes' stand-ins; no stand-ins for a scratch
 * codec (s->pal.standins), which is told the holes and never reads them. In parts when
 * s->parts says so. */
int parz_scan_clean(const parz_scan* s, const parz_array* a, const void* data,
                    const parz_array* whole, void* cleaned, unsigned char* records,
                    unsigned char** section, size_t* section_bytes, const parz_jobs* jobs,
                    parz_error* err);

/* Whether a's values lie contiguous in C order (no strides given). */
int parz_array_contiguous(const parz_array* a);

#endif
