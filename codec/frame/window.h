/* A destination's window over a chunk's blocks, and the runs of segments that meet it: internal
 * to the frame (chunk_dest.c), for the decoders and checksum walks of chunk_decode.c. */
#ifndef PARZ_FRAME_WINDOW_H
#define PARZ_FRAME_WINDOW_H

#include "parz_chunk.h"

/* A destination's window in blocks: the blocks (C order, nb per dimension) holding a value of
 * it are those with lo[k] <= b[k] < hi[k]. cut: the fastest dimension the window does not span
 * (-1 when it spans them all): runs of consecutive blocks inside the window end there. */
typedef struct {
  unsigned dims;
  uint64_t nb[4], lo[4], hi[4], nblocks;
  int cut;
} parz_window_blocks;

/* The runs of consecutive segments among [first, first + count) that hold blocks of a
 * destination's window, in increasing order (runs found in O(1) each). */
typedef struct {
  parz_window_blocks w;
  uint64_t block, end_block, end_segment;
} parz_run_walk;

/* The walk of the runs among segments [first, first + count) of v, whose blocks have
 * v->block_side values along each dimension (the codec's geometry): PARZ_ERR_ARG for a NULL
 * argument or segments outside the chunk. */
int parz_run_walk_init(parz_run_walk* r, const parz_chunk_view* v, const parz_chunk_dest* d,
                       uint64_t first, uint64_t count, parz_error* err);

/* The next run [*s0, *s1); 0 when there is none. */
int parz_run_walk_next(parz_run_walk* r, uint64_t C, uint64_t* s0, uint64_t* s1);

#endif
