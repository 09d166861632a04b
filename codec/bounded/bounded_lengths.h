/* The code lengths of a chunk's codebook over a range of its symbols, and the choice between its
 * two codes (with zero runs and without), the two codes' lengths built on a caller's threads: the
 * CPU encoder's codebook (bounded_chunk.c) and the GPU encoder's host codebook
 * (gpu/bounded/bounded_encode.cuh) are built by this one function. */
#ifndef PARZ_BOUNDED_LENGTHS_H
#define PARZ_BOUNDED_LENGTHS_H

#include "bounded.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The code lengths parz_bounded_coded_book (bounded_chunk.h) builds, over the range r alone: into
 * len (2 r->m bytes), *kept pointing at the r->m lengths of the code it keeps, *use_runs set when
 * that code has zero runs (kept where its coded bits are fewer). With runs_opt 2 the other half
 * of len holds the other code's lengths or, where Huffman's code without the length limit
 * already rules that code out, those unlimited lengths. The two codes' parts that take long
 * (a wide range's, both codes' package-merges where neither is ruled out) run on jobs (NULL:
 * the calling thread). */
int parz_bounded_range_lengths(const parz_bounded_range* r, const uint64_t* plain,
                               const uint64_t* runs, int runs_opt, uint8_t* len,
                               const uint8_t** kept, int* use_runs, const parz_jobs* jobs,
                               parz_error* err);

#ifdef __cplusplus
}
#endif

#endif
