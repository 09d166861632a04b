/* HDF5's chunk index as the dataset readers and the parz tool use it (internal to plugin/ and
 * tools/): where one chunk is stored, how to read its stored bytes, and every stored chunk of a
 * dataset listed in one pass. Every HDF5 call goes through the function table of h5_api.h.
 *
 * HDF5 answers "which bytes are chunk X" in two ways. H5Dread_chunk and
 * H5Dget_chunk_storage_size look the chunk up (a B-tree search, an array slot); H5Dchunk_iter,
 * H5Dget_chunk_info and H5Dget_chunk_info_by_coord walk the index's records. In a sound file the
 * answers agree; in a damaged or crafted one (two records for one chunk) they do not, and a
 * buffer sized by one answer and filled by the other overflows. So a buffer is always sized by
 * the lookup that fills it, and records read from a walk are checked against that lookup. */
#ifndef PARZ_H5_INDEX_H
#define PARZ_H5_INDEX_H

#include <hdf5.h>
#include <stdint.h>

#include "parz_chunked.h"

/* The stored size of the chunk whose first value is at `origin` (rank coordinates), by HDF5's
 * lookup, the one H5Dread_chunk makes: *bytes = 0 when the chunk was never written. A failure of
 * HDF5 that is not a missing chunk gives PARZ_ERR_ARG with a message starting with `who`. */
int parz_h5_chunk_bytes(hid_t dset, unsigned rank, const uint64_t* origin, uint64_t* bytes,
                        const char* who, parz_error* err);

/* Reads the stored bytes of the chunk at `origin` into buf, which holds `bytes` bytes: HDF5 is
 * asked for the chunk's size again first (or, where H5Dread_chunk takes the buffer's size, told
 * it), and the read is refused with PARZ_ERR_FORMAT unless the chunk is exactly `bytes` long.
 * *filter_mask receives HDF5's filter mask of the chunk (bit k: filter k was skipped). */
int parz_h5_chunk_read(hid_t dset, unsigned rank, const uint64_t* origin, uint64_t bytes, void* buf,
                       uint32_t* filter_mask, const char* who, parz_error* err);

/* "[0,16]": a chunk's origin (rank coordinates) for messages, cut to fit `size`. */
void parz_h5_origin_text(unsigned rank, const uint64_t* origin, char* out, size_t size);

/* Chunks in the grid, stored or not, saturating at UINT64_MAX (a count beyond 2^64 is as good as
 * infinite to the walks here). */
uint64_t parz_h5_grid_chunks(const parz_chunk_grid* g);

/* One stored chunk of a dataset. */
typedef struct {
  uint64_t origin[PARZ_MAX_RANK]; /* element coordinates of its first value */
  uint64_t bytes;                 /* its stored size */
} parz_h5_stored_chunk;

/* Every stored chunk of the dataset of grid g (rank, dims and chunk_dims used), each once, in C
 * order of the chunk grid, into *chunks (malloc'ed, n of them; the caller frees it). The cost is
 * one walk over the index where HDF5 has H5Dchunk_iter (1.14 and later); on older HDF5 it is the
 * cheaper of one lookup per place of the grid and one H5Dget_chunk_info per record (each of which
 * walks the index up to that record). A record for a place outside the grid, two records for one
 * chunk, or records that lookups do not find are refused with PARZ_ERR_FORMAT, naming the chunk:
 * the index is damaged. */
int parz_h5_stored_chunks(hid_t dset, const parz_chunk_grid* g, const char* who,
                          parz_h5_stored_chunk** chunks, size_t* n, parz_error* err);

#endif
