/* Writing whole chunks of a ParZ-filtered HDF5 dataset at the encoders' speed.
 *
 * H5Dwrite copies each chunk out of the caller's array and runs the filter on it, one chunk at a
 * time. This encodes the chunks of a box itself, from the caller's array in place, and stores
 * them with H5Dwrite_chunk: on the GPU in batches where the execution policy says so, else on
 * OpenMP threads. The chunks are the bytes H5Dwrite through the filter stores for the same
 * values, edge chunks padded as HDF5 pads them. Needs HDF5 1.10.5 or later. Part of
 * libparz_h5.so (with parz_h5_device.h, whose parz_h5_write_device writes from GPU memory) and of
 * the plugin module, which Python's parz.write calls. */
#ifndef PARZ_H5_WRITE_H
#define PARZ_H5_WRITE_H

#include <hdf5.h>

#include "parz_chunk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the values src holds (host memory, src_bytes long: native little-endian values of the
 * dataset's type, float, double, int32 or int64, densely in C order) into the part of `dset` that
 * `file_space` selects, as H5Dwrite(dset, native type, memory space of the selection's shape,
 * file_space, ...) through the filter would. The selection is H5S_ALL (the whole dataset), or a
 * dataspace of the dataset's extent that selects everything, nothing, or one box (a hyperslab of
 * one block) made of whole chunks: it starts at chunk boundaries and ends at one or at the
 * dataset's extent. A chunk at the extent is stored at full chunk size, its places past the
 * extent holding the fill value (zero where the fill time is never or no fill value is
 * defined), as HDF5 pads a new edge chunk. threads: 0 = PARZ_THREADS, else OpenMP's default;
 * 1 = on the calling thread. PARZ_EXEC applies as to the filter: with `auto` (the default) or
 * `cuda` and a usable GPU, large writes go up to the GPU and are encoded there; `serial` and
 * `omp` stay on the CPU. The dataset must be chunked with ParZ as its only filter, without
 * H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS where the box holds partial chunks. Any other dataset or
 * selection, or a short buffer, returns an error code with a message in err before
 * anything is written. Calls HDF5 from the calling thread only.
 *
 * Memory: besides src, one compressed chunk (a buffer kept from chunk to chunk, grown to the
 * largest; on one thread the bound of the chunk's values, parz_chunk_bound_data), the encoder's
 * scratch, and one padded chunk where the box reaches the dataset's edge: no more than H5Dwrite
 * through the filter takes.
 *
 * Failure once chunks are being stored (memory, HDF5, the file system, the encoder): the chunks
 * are stored one after another in the box's C order (from the GPU in rounds, in that order), and
 * the first failure stops the write, so that the box's first K chunks hold the new values and
 * every other chunk of the dataset keeps its bytes. The error code is the failure's, and err
 * says K and where: "parz_h5_write: 3 of the selection's 4 chunks written (C order, through
 * [2048,0]), the chunk at [3072,0] and the 0 after it not: <why>", or "parz_h5_write: no chunk
 * written, the dataset is as it was: <why>". One chunk may be neither: where H5Dwrite_chunk
 * itself fails (a full file system), HDF5 (1.10 to 2.x) has already released the old bytes'
 * place, and while the dataset stays open it looks the chunk up at its new, unwritten place
 * (ParZ refuses what it reads there as damaged); err names it "the chunk at [3072,0] (as HDF5
 * left it)". Calling again with the same values finishes the write (the chunks stored are stored
 * again, the same bytes). Leaving the dataset as it was on every failure would need all the
 * box's compressed chunks in memory before the first is stored, or every chunk encoded twice;
 * naming the chunks stored costs nothing. */
int parz_h5_write(hid_t dset, hid_t file_space, const void* src, size_t src_bytes, int threads,
                  parz_error* err);

#ifdef __cplusplus
}
#endif

#endif
