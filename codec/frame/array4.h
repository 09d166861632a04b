/* An array seen as 4-D (internal to the codec): leading unit extents added, strides in
 * elements. Blocks of a rank-d array are the same sets of values as the 4-D blocks of this view,
 * since a unit extent puts one value per block along it. The scans that run before encoding
 * (exceptions.c, mask_scan.c, mask_build.c) walk arrays through it. */
#ifndef PARZ_ARRAY4_H
#define PARZ_ARRAY4_H

#include <string.h>

#include "parz.h"

typedef struct {
  size_t n[4];
  ptrdiff_t s[4];
} parz_view4;

static inline parz_view4 parz_as_4d(const parz_array* a) {
  parz_view4 v;
  unsigned k, d = a->dims, contiguous = 1;
  for (k = 0; k < d; k++)
    if (a->stride[k])
      contiguous = 0;
  for (k = 0; k < 4; k++) {
    v.n[k] = 1;
    v.s[k] = 0;
  }
  for (k = 0; k < d; k++) {
    v.n[4 - d + k] = a->shape[k];
    v.s[4 - d + k] = a->stride[k];
  }
  if (contiguous) {
    ptrdiff_t st = 1;
    for (k = 4; k-- > 0;) {
      v.s[k] = st;
      st *= (ptrdiff_t)v.n[k];
    }
  }
  return v;
}

static inline int parz_view4_contiguous(const parz_view4* v) {
  return v->s[3] == 1 && v->s[2] == (ptrdiff_t)v->n[3] &&
         v->s[1] == (ptrdiff_t)(v->n[3] * v->n[2]) &&
         v->s[0] == (ptrdiff_t)(v->n[3] * v->n[2] * v->n[1]);
}

/* The bit pattern of the value of `size` bytes at p. */
static inline uint64_t parz_load_bits(const unsigned char* p, size_t size) {
  if (size == 4) {
    uint32_t u;
    memcpy(&u, p, 4);
    return u;
  } else {
    uint64_t u;
    memcpy(&u, p, 8);
    return u;
  }
}

static inline void parz_store_bits(unsigned char* p, size_t size, uint64_t bits) {
  if (size == 4) {
    uint32_t u = (uint32_t)bits;
    memcpy(p, &u, 4);
  } else {
    memcpy(p, &bits, 8);
  }
}

/* The values of one block of a contiguous 4-D array of extents N, the block's first value at
 * coordinates b (multiples of 4): their C-order indices (idx) and, when `local` is not NULL,
 * their positions in the block as zfp orders it, x + 4y + 16z + 64w with x along the fastest
 * dimension. Values outside the array are left out. Returns their number (1..256). */
static inline unsigned parz_block4_values(const size_t N[4], const size_t b[4], size_t* idx,
                                          unsigned char* local) {
  size_t e[4], i, j, k, x;
  unsigned n = 0, q;
  for (q = 0; q < 4; q++)
    e[q] = N[q] - b[q] < 4 ? N[q] - b[q] : 4;
  for (i = 0; i < e[0]; i++)
    for (j = 0; j < e[1]; j++)
      for (k = 0; k < e[2]; k++)
        for (x = 0; x < e[3]; x++) {
          if (local)
            local[n] = (unsigned char)(x + 4 * k + 16 * j + 64 * i);
          idx[n++] = (((b[0] + i) * N[1] + b[1] + j) * N[2] + b[2] + k) * N[3] + b[3] + x;
        }
  return n;
}

/* The index of the value at corner b of a contiguous array of extents N. */
static inline size_t parz_block4_first(const size_t N[4], const size_t b[4]) {
  return ((b[0] * N[1] + b[1]) * N[2] + b[2]) * N[3] + b[3];
}

/* The first value of row (i, j, k) of v over data (values of `size` bytes): the row runs along
 * the last axis, its values v.s[3] elements apart. */
static inline const unsigned char* parz_view4_row(const parz_view4* v, const void* data,
                                                  size_t size, size_t i, size_t j, size_t k) {
  return (const unsigned char*)data +
         (ptrdiff_t)size *
             ((ptrdiff_t)i * v->s[0] + (ptrdiff_t)j * v->s[1] + (ptrdiff_t)k * v->s[2]);
}

/* The corner (first value along each axis) of block `block` of v's block grid, C order. */
static inline void parz_block4_corner(const parz_view4* v, uint64_t block, size_t b[4]) {
  unsigned k;
  for (k = 4; k-- > 0;) {
    const size_t nb = (v->n[k] + 3) / 4;
    b[k] = 4 * (size_t)(block % nb);
    block /= nb;
  }
}

/* From one block's corner to the next block's in C order of the grid (past the last: b[0] at or
 * beyond the first extent). */
static inline void parz_block4_next(const parz_view4* v, size_t b[4]) {
  unsigned k;
  for (k = 4; k-- > 0;) {
    b[k] += 4;
    if (b[k] < v->n[k] || k == 0)
      return;
    b[k] = 0;
  }
}

#endif
