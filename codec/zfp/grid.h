/* The grid of 4^d blocks over an array, and moving blocks between the array and a contiguous
 * 4^d buffer the way zfp 1.0 does (gather with edge replication, scatter of the valid part).
 * Internal to the codec (host side). */
#ifndef PARZ_GRID_H
#define PARZ_GRID_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "parz_chunk.h"

/* Axes in zfp order: axis 0 is x (fastest), i.e. C dimension dims-1. Decoded values are stored
 * only inside the window lo[i] <= x[i] < hi[i]; the value at x lives at element offset
 * sum_i (x[i] - lo[i]) * s[i] from the data pointer (a window of the whole array and a zero lo
 * unless a destination says otherwise, parz_grid_init_dest). */
typedef struct {
  unsigned dims;
  size_t esize;   /* 4 or 8 bytes */
  size_t n[4];    /* extents */
  size_t nb[4];   /* blocks along each axis */
  ptrdiff_t s[4]; /* strides in elements */
  size_t lo[4], hi[4];
  int windowed; /* the window is not the whole array */
  size_t nblocks;
  /* a block with b[i] < nwhole[i] on every axis lies wholly inside the window, and with
   * rows set the window's x stride is 1: parz_grid_store_rows stores such blocks */
  size_t nwhole[4];
  int rows;
} parz_grid;

/* A cursor over blocks in stream order (x fastest). */
typedef struct {
  size_t b[4];      /* block coordinates */
  ptrdiff_t offset; /* element offset of the block's first value (negative before the window) */
} parz_block_pos;

/* Fills g from a checked array, its window the whole array. */
void parz_grid_init(parz_grid* g, const parz_array* a);
/* The grid of a chunk's contiguous array (shape from `a`, strides ignored) decoded into a
 * destination (parz_chunk_dest, checked by the caller against the shape). */
void parz_grid_init_dest(parz_grid* g, const parz_array* a, const parz_chunk_dest* d);
void parz_grid_seek(const parz_grid* g, size_t block, parz_block_pos* pos);
void parz_grid_next(const parz_grid* g, parz_block_pos* pos);

/* Copies a block into buf (4^dims raw values, zfp's padding for partial blocks). */
void parz_grid_gather(const parz_grid* g, const parz_block_pos* pos, const void* data, void* buf);
/* Copies the part of a decoded block inside the array and the window back into the array. */
void parz_grid_scatter(const parz_grid* g, const parz_block_pos* pos, const void* buf, void* data);

/* The block at pos can go to the array as whole rows of four values (parz_grid_store_rows);
 * dims is g->dims, passed so that a caller specialized on the rank checks a constant number of
 * axes. */
static inline int parz_grid_whole(const parz_grid* g, const parz_block_pos* pos, unsigned dims) {
  unsigned i;
  if (!g->rows)
    return 0;
  for (i = 0; i < dims; i++)
    if (pos->b[i] >= g->nwhole[i])
      return 0;
  return 1;
}

/* parz_grid_scatter of a block for which parz_grid_whole holds, elements of esize bytes: with
 * constant dims and esize every row is one fixed-size copy, a couple of vector moves. */
static inline void parz_grid_store_rows(const parz_grid* g, const parz_block_pos* pos,
                                        unsigned dims, size_t esize, const void* buf, void* data) {
  const unsigned char* q = (const unsigned char*)buf;
  unsigned char* p = (unsigned char*)data + pos->offset * (ptrdiff_t)esize;
  const ptrdiff_t s1 = g->s[1] * (ptrdiff_t)esize, s2 = g->s[2] * (ptrdiff_t)esize,
                  s3 = g->s[3] * (ptrdiff_t)esize;
  unsigned j, k, l;
  for (l = 0; l < (dims > 3 ? 4u : 1u); l++)
    for (k = 0; k < (dims > 2 ? 4u : 1u); k++)
      for (j = 0; j < (dims > 1 ? 4u : 1u); j++)
        memcpy(p + l * s3 + k * s2 + j * s1, q + (64 * l + 16 * k + 4 * j) * esize, 4 * esize);
}

#endif
