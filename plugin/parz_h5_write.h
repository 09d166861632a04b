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
 * anything is written; a failure while chunks are being stored leaves those stored so far.
 * Calls HDF5 from the calling thread only. */
int parz_h5_write(hid_t dset, hid_t file_space, const void* src, size_t src_bytes, int threads,
                  parz_error* err);

#ifdef __cplusplus
}
#endif

#endif
