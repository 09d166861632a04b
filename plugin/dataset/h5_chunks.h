/* The stored chunks of a ParZ dataset, as the dataset readers and writers see them (internal to
 * plugin/): the dataset described as a chunk grid, a file selection as a box of it, the stored
 * chunks that meet the box (where they are, how long), their bytes read unfiltered, and encoded
 * chunks written. Shared by parz_h5_read and parz_h5_write (host memory) and their device
 * variants (GPU memory); every HDF5 call goes through the function table of h5_api.h, so they
 * work on whatever HDF5 the plugin is bound to. */
#ifndef PARZ_H5_CHUNKS_H
#define PARZ_H5_CHUNKS_H

#include <hdf5.h>

#include "filter_config.h"
#include "parz_chunked.h"

/* What a read or a write needs from the dataset's creation properties and type. */
typedef struct {
  parz_chunk_grid grid;
  parz_filter_config filter; /* its stored cd_values: the chunk array and the codec settings */
  int big_endian;            /* values stored big-endian (ParZ chunks hold them natively) */
  /* Chunks never written take `fill` (native order), as H5Dread gives them, unless the fill
   * time is `never` or the fill value undefined: H5Dread then leaves their places alone. A new
   * edge chunk is padded past the extent with `fill` as H5Dwrite pads it, else with zeros. */
  int fills;
  unsigned char fill[8];
} parz_h5_dataset;

/* Describes a chunked dataset whose only filter is ParZ, of a type ParZ stores, whose stored
 * cd_values describe it as its datatype and layout do (as the filter requires for H5Dread, so a
 * file that passes here is one H5Dread reads too); anything else is refused with a message
 * starting with `who` (PARZ_ERR_UNSUPPORTED, _TYPE, _DIMS, _ARG, _PARAM). */
int parz_h5_describe(hid_t dset, const char* who, parz_h5_dataset* d, parz_error* err);

/* The box `file_space` selects: H5S_ALL, or a dataspace of the dataset's extent selecting
 * everything, nothing (a box of no values) or one box (a hyperslab of one block). Any other
 * selection is refused (PARZ_ERR_UNSUPPORTED). */
int parz_h5_selected_box(hid_t file_space, const parz_chunk_grid* g, const char* who, parz_box* box,
                         parz_error* err);

/* The values of the box (at most the dataset's, which HDF5 holds). */
uint64_t parz_h5_box_values(const parz_chunk_grid* g, const parz_box* box);

/* The stored chunks that meet a box, in the grid's C order: refs[i].at is chunk i's place in a
 * buffer of packed_bytes (each chunk at a multiple of 8); `missing` counts the chunks of the box
 * never written (they take the fill value). The whole dataset's are listed by one walk of HDF5's
 * chunk index (parz_h5_stored_chunks, which refuses a damaged index), a part's by one lookup per
 * place of the box; either way each size is the one HDF5's lookup gives (h5_index.h). */
typedef struct {
  parz_chunk_ref* refs;
  size_t n, cap;
  size_t packed_bytes;
  size_t missing;
} parz_h5_chunk_list;

int parz_h5_list_chunks(hid_t dset, const parz_h5_dataset* d, const parz_box* box, const char* who,
                        parz_h5_chunk_list* list, parz_error* err);
void parz_h5_chunk_list_free(parz_h5_chunk_list* list);

/* Reads the listed chunks unfiltered (H5Dread_chunk) into packed (list->packed_bytes long) and
 * marks those HDF5 stored without the filter (raw, swapped in a big-endian dataset), a failure
 * naming its chunk; _chunk reads chunk i alone (its message does not name it). */
int parz_h5_read_chunks(hid_t dset, const parz_h5_dataset* d, parz_h5_chunk_list* list,
                        void* packed, const char* who, parz_error* err);
int parz_h5_read_chunk(hid_t dset, const parz_h5_dataset* d, parz_h5_chunk_list* list, size_t i,
                       void* packed, const char* who, parz_error* err);

/* What a read does before it touches chunk bytes: the HDF5 table made ready, the dataset
 * described, the selection's box found and checked against a buffer of dst_bytes, and the
 * stored chunks that meet it listed (none for an empty box). */
int parz_h5_prepare(hid_t dset, hid_t file_space, size_t dst_bytes, const char* who,
                    parz_h5_dataset* d, parz_box* box, parz_h5_chunk_list* list, parz_error* err);

/* What a write does before it encodes (h5_write.c): the HDF5 table made ready, the dataset
 * described, the selection's box found and checked: whole chunks (PARZ_ERR_UNSUPPORTED where it
 * cuts one), at most src_bytes of values, and partial edge chunks filtered (not so under
 * H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS, which is refused). `who` starts the messages. */
int parz_h5_prepare_write(hid_t dset, hid_t file_space, size_t src_bytes, const char* who,
                          parz_h5_dataset* d, parz_box* box, parz_error* err);

/* Stores encoded chunks with H5Dwrite_chunk: n chunks, chunk i's bytes at packed + refs[i].at,
 * refs[i].bytes long, at refs[i].origin of the dataset `writer` (a parz_h5_chunk_writer) names.
 * The signature of parz_gpu_chunk_sink, so that the GPU encoder hands its chunks straight here.
 * Chunks come in the box's C order, each pass over the box from its first chunk (a pass that
 * stores again what an earlier one stored writes the same bytes); the writer counts the chunks
 * stored, which are always the box's first `stored`, and refuses a chunk that would leave a gap
 * before it is stored. */
typedef struct {
  hid_t dset;
  unsigned rank;
  const char* who; /* starts the messages */
  const parz_chunk_grid* grid;
  const parz_box* box;
  uint64_t stored;
  int torn; /* H5Dwrite_chunk failed on chunk `stored`: HDF5 may have freed its old bytes */
} parz_h5_chunk_writer;

void parz_h5_chunk_writer_init(parz_h5_chunk_writer* w, hid_t dset, const parz_chunk_grid* g,
                               const parz_box* box, const char* who);
int parz_h5_write_chunks(void* writer, size_t n, const parz_chunk_ref* refs, const void* packed,
                         parz_error* err);
/* Encodes the chunks of w's box, whose values src holds in host memory (densely in C order), on
 * the CPU (`threads` OpenMP threads, 0: the policy's) and stores them through w: the CPU half of
 * parz_h5_write, and where the GPU encoder refuses a chunk, of parz_h5_write_device. */
int parz_h5_write_on_cpu(parz_h5_chunk_writer* w, const parz_h5_dataset* d, const void* src,
                         int threads, parz_error* err);

/* After a write that failed with rc (returned): err's message rewritten to say which chunks are
 * stored, "<who>: 3 of the selection's 4 chunks written (C order, through [2048,0]), the chunk at
 * [3072,0] and the 0 after it not: <why>", or that none is and the dataset is as it was. Where
 * HDF5 failed to store a chunk, that chunk is named as left by HDF5 (parz_h5_write.h). */
int parz_h5_write_failed(const parz_h5_chunk_writer* w, int rc, parz_error* err);

/* Rewrites err's message to name chunk `failed` of the list by its place in the dataset:
 * "... (the chunk at [64,0])". Returns rc. */
int parz_h5_name_chunk(const parz_h5_chunk_list* list, unsigned rank, size_t failed, int rc,
                       parz_error* err);

#endif
