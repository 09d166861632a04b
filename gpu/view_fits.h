/* The chunks the CUDA decoder takes. Plain C, so that host tests check the rule where no GPU is;
 * internal to gpu/. A chunk it refuses gets PARZ_ERR_UNSUPPORTED before any work, and the
 * plugin decodes it on the CPU (plugin/exec/dispatch.c, plugin/dataset/h5_read.c). */
#ifndef PARZ_GPU_VIEW_FITS_H
#define PARZ_GPU_VIEW_FITS_H

#include <stdint.h>

#include "parz_chunk.h"

/* block_kernel's block indices are 32-bit, those of its grid's last CTA (128 threads), which
 * run past the chunk's end, included. A chunk of more blocks holds at least 2^34 values (blocks
 * inside a dimension of more than one block hold 4 values along it): 64 GiB of floats, beyond
 * any HDF5 chunk (4 GiB at most), so only the device API could be given one. */
#define PARZ_GPU_BLOCKS_MAX (((uint64_t)1 << 32) - 128)

/* A mask map entry: the u32 offset of a block's record in its chunk's records, or this for a
 * block without one (mask.cuh). */
#define PARZ_GPU_MASK_NONE 0xffffffffu

/* PARZ_OK when chunk i (v) fits the decoder's indices, else PARZ_ERR_UNSUPPORTED and why. */
static inline int parz_gpu_view_fits(const parz_chunk_view* v, size_t i, parz_error* err) {
  if (v->nblocks > PARZ_GPU_BLOCKS_MAX)
    return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                     "chunk %zu: %llu blocks, more than the GPU decoder indexes (%llu)", i,
                     (unsigned long long)v->nblocks, (unsigned long long)PARZ_GPU_BLOCKS_MAX);
  if (v->mask.record_bytes >= PARZ_GPU_MASK_NONE)
    return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                     "chunk %zu: a mask of %llu bytes of records, more than the GPU decoder "
                     "indexes (4 GiB)",
                     i, (unsigned long long)v->mask.record_bytes);
  return PARZ_OK;
}

#endif
