/* The grid of 4^d blocks over an array, and moving blocks between the array and a contiguous
 * 4^d buffer the way zfp 1.0 does (gather with edge replication, scatter of the valid part).
 * Internal to the codec (host side). */
#ifndef PARZ_GRID_H
#define PARZ_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "parz.h"

/* Axes in zfp order: axis 0 is x (fastest), i.e. C dimension dims-1. */
typedef struct {
  unsigned dims;
  size_t esize;     /* 4 or 8 bytes */
  size_t n[4];      /* extents */
  size_t nb[4];     /* blocks along each axis */
  ptrdiff_t s[4];   /* strides in elements */
  size_t nblocks;
} parz_grid;

/* A cursor over blocks in stream order (x fastest). */
typedef struct {
  size_t b[4];      /* block coordinates */
  ptrdiff_t offset; /* element offset of the block's first value */
} parz_block_pos;

/* Fills g from a checked array. */
void parz_grid_init(parz_grid* g, const parz_array* a);
void parz_grid_seek(const parz_grid* g, size_t block, parz_block_pos* pos);
void parz_grid_next(const parz_grid* g, parz_block_pos* pos);

/* Copies a block into buf (4^dims raw values, zfp's padding for partial blocks). */
void parz_grid_gather(const parz_grid* g, const parz_block_pos* pos, const void* data, void* buf);
/* Copies the valid part of a decoded block back into the array. */
void parz_grid_scatter(const parz_grid* g, const parz_block_pos* pos, const void* buf, void* data);

#endif
