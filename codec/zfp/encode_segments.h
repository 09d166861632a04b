/* Encoding a run of segments with each segment's length recorded (internal to the codec: the
 * chunk encoder's loop, chunk_encode.c). */
#ifndef PARZ_ENCODE_SEGMENTS_H
#define PARZ_ENCODE_SEGMENTS_H

#include "parz.h"

/* parz_encode_blocks over blocks [first, first + count), except that seg_bits (may be NULL)
 * receives one entry per run of seg_blocks blocks (the last may be shorter): the run's bits,
 * capped at UINT32_MAX. One entry per segment instead of one per block keeps the chunk
 * encoder's bookkeeping at 4 bytes per segment. */
int parz_encode_segments(const parz_array* a, const void* data, const parz_params* p, size_t first,
                         size_t count, size_t seg_blocks, void* dst, size_t dst_bytes,
                         uint64_t* bits, uint32_t* seg_bits, parz_error* err);

#endif
