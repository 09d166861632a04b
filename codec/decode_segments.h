/* Decoding a run of segments with every segment's end checked, in one pass (internal to the
 * codec: the chunk decoder's loop, chunk.c). */
#ifndef PARZ_DECODE_SEGMENTS_H
#define PARZ_DECODE_SEGMENTS_H

#include "parz_chunk.h"

/* parz_decode_blocks over blocks [first, first + count) of the contiguous array a (its strides
 * unused), its values stored into dest's window, cut into segments of seg_blocks blocks (the
 * last may be shorter): after segment k the stream must be at bit ends[k]. Each block gets its
 * masked values (mask: a validated section; NULL, or nvalues 0, for none) before it is stored.
 * The first segment that is not sets *bad = k and *bad_end = where it ended, and decoding stops
 * there (PARZ_OK; *bad = SIZE_MAX when all are). One reader and grid walk serve the whole run: a
 * call of parz_decode_blocks per segment would pay their set-up per segment, a large part of a
 * small block's decode at one block per segment. */
int parz_decode_segments(const parz_array* a, const parz_chunk_dest* dest, const parz_params* p,
                         const void* src, size_t src_bytes, uint64_t bit, size_t first,
                         size_t count, size_t seg_blocks, const uint64_t* ends,
                         const parz_chunk_mask* mask, size_t* bad, uint64_t* bad_end,
                         parz_error* err);

#endif
