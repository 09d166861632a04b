/* Decoding a chunk of a scratch codec (codecs.h) in steps, internal to the codec library and its
 * drivers: the serial decoder runs them in order on one thread, the OpenMP decoder spreads each
 * step's units over its team, and a GPU decoder follows the same steps as launches. The steps,
 * each needing the one before it done everywhere:
 *
 *   1. the payload checksums of every partition (parz_chunk_verify) and the segments' codes
 *      into the chunk-wide scratch (parz_chunk_scratch_segments, any disjoint ranges at once);
 *   2. the codec's inverse passes, in order, the units of one pass at once;
 *   3. the values of the destination's window (parz_chunk_scratch_store, rows at once);
 *   4. the masked values (parz_mask_restore_to, groups at once);
 *   5. the exceptions (parz_chunk_patch_exceptions_to, ranges at once).
 *
 * Every value of the window depends on every segment, so a window of any size decodes the
 * whole chunk's codes. */
#ifndef PARZ_CHUNK_SCRATCH_H
#define PARZ_CHUNK_SCRATCH_H

#include "parz_chunk.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct parz_chunk_scratch parz_chunk_scratch;

/* Whether the chunk's codec is a scratch codec. */
int parz_chunk_is_scratch(const parz_chunk_view* v);

/* The state of a parsed chunk (the codec data read, the scratch allocated); the view must
 * outlive it. */
int parz_chunk_scratch_begin(const parz_chunk_view* v, parz_chunk_scratch** s, parz_error* err);
void parz_chunk_scratch_free(parz_chunk_scratch* s);

/* Step 1: segments [first, first + count) into the scratch, unverified; each must end where the
 * table says (PARZ_ERR_STREAM naming the first that does not). Thread-safe for disjoint ranges.
 * A LENGTHS table is summed from segment 0: drivers that split it expand it first
 * (parz_chunk_offsets_view). */
int parz_chunk_scratch_segments(parz_chunk_scratch* s, uint64_t first, uint64_t count,
                                parz_error* err);

/* The codec's own state, which its segments decode into. */
struct parz_codec_scratch* parz_chunk_scratch_state(parz_chunk_scratch* s);
/* The view the state was begun with. */
const parz_chunk_view* parz_chunk_scratch_view(const parz_chunk_scratch* s);

/* Step 2: the codec's passes and their units. */
unsigned parz_chunk_scratch_passes(const parz_chunk_scratch* s);
uint64_t parz_chunk_scratch_units(const parz_chunk_scratch* s, unsigned pass);
/* The values pass `pass` writes (a measure of its work). */
uint64_t parz_chunk_scratch_values(const parz_chunk_scratch* s, unsigned pass);
/* The codes (blocks) passes 0 to `pass` read come before this one, in the segments' order: those
 * passes need only the segments that hold them. */
uint64_t parz_chunk_scratch_codes(const parz_chunk_scratch* s, unsigned pass);
int parz_chunk_scratch_pass(parz_chunk_scratch* s, unsigned pass, uint64_t first, uint64_t count,
                            parz_error* err);

/* Step 3: rows of d's window (its values along the last dimension at one place of the others,
 * in C order), and rows [first, first + count) stored. */
uint64_t parz_chunk_dest_rows(const parz_chunk_view* v, const parz_chunk_dest* d);
void parz_chunk_scratch_store(const parz_chunk_scratch* s, const parz_chunk_dest* d, uint64_t first,
                              uint64_t count);

/* Step 4: the masked values of mask groups [first, first + count) (v->mask.ngroups in all) that
 * lie in d's window, written there. For the blocks of a decoder of blocks the mask comes with
 * the block (mask_cursor.h); this serves decoders that make whole arrays. */
void parz_mask_restore_to(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t first,
                          uint64_t count);

/* The masked values of mask groups [first, first + count) marked by their C-order index i,
 * mark[i] = 1 (the encoder's holes; groups mark disjoint values, so ranges may run at once). */
void parz_mask_mark(const parz_chunk_view* v, uint8_t* mark, uint64_t first, uint64_t count);

/* Steps 1 to 4 on the calling thread: the whole decode of a scratch chunk but its exceptions
 * (chunk_decode.c, with step 1). */
int parz_chunk_scratch_decode_to(const parz_chunk_view* v, const parz_chunk_dest* d,
                                 parz_error* err);

#ifdef __cplusplus
}
#endif

#endif
