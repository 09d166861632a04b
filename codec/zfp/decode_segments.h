/* zfp's decoder of a run of segments with every segment's end checked, in one pass: its
 * decode_segments in the codec registry (codecs.h), called by the frame's chunk decoder. */
#ifndef PARZ_DECODE_SEGMENTS_H
#define PARZ_DECODE_SEGMENTS_H

#include "codecs.h"

/* parz_decode_blocks over the run's blocks of the contiguous array run->array (its strides
 * unused), their values stored into run->dest's window: parz_codec's decode_segments (codecs.h).
 * One reader and grid walk serve the whole run: a call of parz_decode_blocks per segment would
 * pay their set-up per segment, a large part of a small block's decode at one block per
 * segment. */
int parz_decode_segments(const parz_segment_run* run, size_t* bad, uint64_t* bad_end,
                         parz_error* err);

#endif
