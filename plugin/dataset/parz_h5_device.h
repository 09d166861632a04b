/* Reading a ParZ-filtered HDF5 dataset straight into GPU memory, and writing one from it.
 *
 * H5Dread runs the filter once per chunk on the host and copies every decoded value into a host
 * buffer, so a read is bound by host memory copies however fast the decoder is. This reads the
 * stored (compressed) chunks with H5Dread_chunk, uploads them in one copy, and decodes and
 * places them on the GPU (parz_gpu_assemble): only compressed bytes cross PCIe. Writing is the
 * reverse: chunks encoded on the GPU, only their compressed bytes brought down. Needs HDF5
 * 1.10.5 or later and the CUDA codec; part of libparz_h5.so (parz_h5_read.h and parz_h5_write.h
 * work from host memory), installed with this header, parz_gpu.h, parz_chunked.h, parz_chunk.h
 * and parz.h in <prefix>/include/parz/, and of the plugin module, which Python's parz.read and
 * parz.write call. */
#ifndef PARZ_H5_DEVICE_H
#define PARZ_H5_DEVICE_H

#include <hdf5.h>

#include "parz_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads the values of `dset` that `file_space` selects into d_dst (GPU memory, dst_bytes long),
 * as H5Dread(dset, native type, memory space of the selection's shape, file_space, ...) would:
 * their native values (little-endian float, double, int32 or int64), densely in C order. The
 * selection is H5S_ALL (the whole dataset), or a dataspace of the dataset's extent that selects
 * everything, nothing, or one box: a hyperslab of one block, such as each rank of an MPI job
 * reads of a checkpoint (only the chunks that meet it are read). Runs on `stream` (a
 * cudaStream_t; NULL for the default stream) and waits for it. The dataset must be chunked with
 * ParZ as its only filter; chunks never written take the fill value. Any other dataset or
 * selection, a dataset whose chunks were stored without the filter in big-endian order, a
 * corrupt chunk (the message names it) or a CUDA failure returns an error code with a message in
 * err, and the caller may read with H5Dread instead. */
int parz_h5_read_device(parz_gpu_context* ctx, hid_t dset, hid_t file_space, void* d_dst,
                        size_t dst_bytes, void* stream, parz_error* err);

/* The same with the library's own context on GPU 0 (the one the filter path uses, shared under a
 * lock): for callers that keep no context, such as Python's parz.read(device="cuda"). */
int parz_h5_read_cuda(hid_t dset, hid_t file_space, void* d_dst, size_t dst_bytes, void* stream,
                      parz_error* err);

/* Writes the values d_src holds (GPU memory, at least src_bytes long, ready on `stream`: native
 * values of the dataset's type, densely in C order) into the part of `dset` that `file_space`
 * selects, as parz_h5_write (parz_h5_write.h) does from host memory, with the same selections,
 * padding of edge chunks and refusals: the chunks are encoded on the GPU in batches
 * (parz_gpu_encode_box) and only their compressed bytes come down, through pinned memory, to be
 * stored with H5Dwrite_chunk; the file holds the bytes H5Dwrite through the filter stores. Runs
 * on `stream` (a cudaStream_t; NULL for the default stream) and waits for it. d_src must be
 * memory of the context's GPU (device or managed memory; host memory is refused). A failure
 * once chunks are being stored stops the write and says which chunks are stored, as
 * parz_h5_write's does: the box's first ones in C order. A chunk the GPU encoder refuses (NaN of
 * too many bit patterns, a value at risk of the accuracy bound: gpu/README.md) brings the
 * selection down to host memory, where the CPU encodes it from its first chunk. Not for parallel
 * HDF5's collective writes: ranks that store different chunks this way change the file's chunk
 * index each on its own. */
int parz_h5_write_device(parz_gpu_context* ctx, hid_t dset, hid_t file_space, const void* d_src,
                         size_t src_bytes, void* stream, parz_error* err);

/* The same with the library's own context on GPU 0 (as parz_h5_read_cuda): for Python's
 * parz.write. */
int parz_h5_write_cuda(hid_t dset, hid_t file_space, const void* d_src, size_t src_bytes,
                       void* stream, parz_error* err);

#ifdef __cplusplus
}
#endif

#endif
