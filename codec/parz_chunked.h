/* Arrays stored as chunks of one shape (HDF5's chunked layout): the grid of chunks, a box of the
 * array, where each stored chunk lies in a buffer of chunks, and where its values land in a box
 * stored densely. What the dataset readers (plugin/) and the assemblers that build a box from
 * chunks (parz_omp_assemble, parz_gpu_assemble) share. */
#ifndef PARZ_CHUNKED_H
#define PARZ_CHUNKED_H

#include "parz_chunk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* HDF5's limit on a dataset's rank. */
#define PARZ_MAX_RANK 32

/* An array stored as chunks of one shape, C order: chunks at the edges are full size, their
 * values past the array's extent unused. */
typedef struct parz_chunk_grid {
  unsigned rank;                      /* 1..PARZ_MAX_RANK */
  uint64_t dims[PARZ_MAX_RANK];       /* the array's extent */
  uint64_t chunk_dims[PARZ_MAX_RANK]; /* every chunk's extent */
  parz_type type;                     /* of every value and every chunk */
} parz_chunk_grid;

/* A box of the array: the values at start[k] .. start[k] + count[k] - 1 in every dimension k of
 * the grid's rank, stored densely in C order (the shape an MPI rank reads of a checkpoint). */
typedef struct parz_box {
  uint64_t start[PARZ_MAX_RANK];
  uint64_t count[PARZ_MAX_RANK];
} parz_box;

/* What a stored chunk's bytes are. */
typedef enum {
  PARZ_STORED_PARZ = 0,       /* a ParZ chunk */
  PARZ_STORED_RAW = 1,        /* the chunk's values themselves, native byte order (HDF5 stored the
                              chunk without the filter) */
  PARZ_STORED_RAW_SWAPPED = 2 /* the same in the other byte order (a big-endian dataset) */
} parz_stored;

/* One stored chunk inside a buffer of chunks (`packed`): `bytes` bytes at `at` (a multiple of
 * 8), its first value at element coordinates `origin`; raw: a parz_stored. */
typedef struct parz_chunk_ref {
  size_t at, bytes;
  uint64_t origin[PARZ_MAX_RANK];
  int raw;
} parz_chunk_ref;

/* Checks a grid and a box of it (NULL: the whole array): *box_values receives the box's count
 * of values, *chunk_values a chunk's; PARZ_ERR_* when either is unusable or too large to
 * address. `who` names the caller in messages. */
int parz_grid_check(const parz_chunk_grid* g, const parz_box* box, uint64_t* box_values,
                    uint64_t* chunk_values, const char* who, parz_error* err);

/* The grid's chunk as the codec stores it: the grid's type, its unit extents dropped (as the
 * filter drops them; a chunk of unit extents only is one value), C order kept. PARZ_ERR_DIMS
 * when more than 4 extents larger than 1 remain (no ParZ chunk has that shape). */
int parz_grid_chunk_array(const parz_chunk_grid* g, parz_array* a, parz_error* err);

/* Checks stored chunk i against the grid and the buffer that holds it: inside the buffer at a
 * multiple of 8, at a chunk boundary inside the array, and, for a ParZ chunk, a valid chunk
 * (parsed into *v) of the grid's type and chunk shape; a raw chunk holds exactly one chunk's
 * values. Anything else would decode into the wrong places: PARZ_ERR_FORMAT (PARZ_ERR_ARG for a
 * place outside the buffer or the grid), the message naming chunk i. */
int parz_chunk_ref_check(const parz_chunk_grid* g, const void* packed, size_t packed_bytes,
                         size_t i, const parz_chunk_ref* c, parz_chunk_view* v, const char* who,
                         parz_error* err);

/* The chunks that meet a box, in C order: origin becomes the first one's first element, then each
 * call of parz_box_next_chunk moves it to the next and returns 1, or returns 0 after the last.
 * The box must hold values. */
void parz_box_first_chunk(const parz_chunk_grid* g, const parz_box* box, uint64_t* origin);
int parz_box_next_chunk(const parz_chunk_grid* g, const parz_box* box, uint64_t* origin);

/* Whether the chunk whose first value is at `origin` has values inside the box. */
int parz_box_meets_chunk(const parz_chunk_grid* g, const parz_box* box, const uint64_t* origin);

/* Where the values of the chunk at `origin` that lie inside the box go when the box is stored
 * densely in C order at box_data: a destination (codec/parz_chunk.h) over the chunk array of
 * parz_grid_chunk_array, its window the part of the chunk inside the box and the array. The
 * chunk must meet the box; d->data is NULL when the grid's chunk is no ParZ chunk shape. */
void parz_box_chunk_dest(const parz_chunk_grid* g, const parz_box* box, const uint64_t* origin,
                         void* box_data, parz_chunk_dest* d);

/* Copies the window of a chunk whose values lie contiguously in C order (`values`, the array a,
 * each value byte-swapped when `swapped`) to its places in d: a chunk stored without the filter.
 * Sets every place of d's window to *value (one value of a's type): a chunk never written. */
void parz_chunk_dest_copy(const parz_array* a, const void* values, int swapped,
                          const parz_chunk_dest* d);
void parz_chunk_dest_fill(const parz_array* a, const parz_chunk_dest* d, const void* value);

/* The reverse of parz_chunk_dest_copy, for writing a chunk: fills the chunk's values (`values`,
 * the array a, contiguous in C order) with *fill (one value of a's type; NULL: zero bytes), then
 * reads the window's values from their places in d: a chunk at the edge of an array, padded past
 * the array's extent as HDF5 pads it. */
void parz_chunk_dest_gather(const parz_array* a, const parz_chunk_dest* d, const void* fill,
                            void* values);

#ifdef __cplusplus
}
#endif

#endif
