/* Reading a ParZ-filtered HDF5 dataset into host memory at the decoders' speed.
 *
 * H5Dread runs the filter one chunk at a time, each into a fresh buffer, and then copies the
 * decoded values into the caller's buffer. This reads the stored (compressed) chunks itself
 * (H5Dread_chunk), decodes many of them at once on OpenMP threads (chunks across threads, large
 * chunks split among them) and writes every value straight to its place in the caller's array:
 * no chunk-sized buffer, no second copy. Needs HDF5 1.10.5 or later. Part of libparz_h5.so
 * (with parz_h5_device.h when built with the CUDA decoder) and of the plugin module, which
 * Python's parz.read calls. */
#ifndef PARZ_H5_READ_H
#define PARZ_H5_READ_H

#include <hdf5.h>

#include "parz_chunk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads the values of `dset` that `file_space` selects into dst (host memory, dst_bytes long),
 * as H5Dread(dset, native type, memory space of the selection's shape, file_space, ...) would:
 * their native values (little-endian float, double, int32 or int64), densely in C order. The
 * selection is H5S_ALL (the whole dataset), or a dataspace of the dataset's extent that selects
 * everything, nothing, or one box (a hyperslab of one block); only the chunks that meet it are
 * read. threads: 0 = PARZ_THREADS, else OpenMP's default; 1 = on the calling thread.
 * PARZ_EXEC applies as to the filter: with `auto` (the default) or `cuda` and a usable GPU,
 * large reads decode on the GPU and come down through pinned memory; `serial` and `omp` stay on
 * the CPU. The dataset must be chunked with ParZ as its only filter; chunks never written take
 * the fill value, chunks HDF5 stored without the filter are copied. Any other dataset or
 * selection, a short buffer, or a chunk that is corrupt or not of the dataset's type and chunk
 * shape (the message names it by its place: "the chunk at [64,0]") returns an error code with a
 * message in err; nothing outside dst is written, and the caller may read with H5Dread instead.
 * Calls HDF5 from the calling thread only. */
int parz_h5_read(hid_t dset, hid_t file_space, void* dst, size_t dst_bytes, int threads,
                 parz_error* err);

#ifdef __cplusplus
}
#endif

#endif
