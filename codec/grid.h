/* The grid of 4^d blocks over an array, and moving blocks between the array and a contiguous
 * 4^d buffer the way zfp 1.0 does (gather with edge replication, scatter of the valid part).
 * Internal to the codec (host side). */
#ifndef PARZ_GRID_H
#define PARZ_GRID_H

#include <stddef.h>
#include <stdint.h>

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

#endif
