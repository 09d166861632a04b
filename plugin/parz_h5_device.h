/* Reading a ParZ-filtered HDF5 dataset straight into GPU memory.
 *
 * H5Dread runs the filter once per chunk on the host and copies every decoded value into a host
 * buffer, so a read is bound by host memory copies however fast the decoder is. This reads the
 * stored (compressed) chunks with H5Dread_chunk, uploads them in one copy, and decodes and
 * places them on the GPU (parz_gpu_assemble): only compressed bytes cross PCIe. Needs HDF5
 * 1.10.5 or later and the CUDA decoder; part of libparz_h5.so (parz_h5_read.h reads into host
 * memory), installed with this header, parz_gpu.h, parz_chunked.h, parz_chunk.h and parz.h in
 * <prefix>/include/parz/, and of the plugin module, which Python's parz.read calls. */
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

#ifdef __cplusplus
}
#endif

#endif
