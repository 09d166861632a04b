/* What the lossless codec's GPU files share: its encoder (lossless_encode.cu) as its entry in the
 * GPU's codec table (lossless_decode.cu) names it. Internal to gpu/ (C++/CUDA). */
#ifndef PARZ_GPU_LOSSLESS_GPU_H
#define PARZ_GPU_LOSSLESS_GPU_H

#include "gpu_internal.h"

/* gpu_codecs.h's encode_chunks for lossless chunks (lossless_encode.cuh says how). */
int parz_gpu_lossless_encode_chunks(parz_gpu_context* ctx, size_t n, const parz_array* arrays,
                                    const void* const* d_data, const parz_chunk_config* cfg,
                                    parz_gpu_enc_place place, void* place_arg, size_t* written,
                                    cudaStream_t st, size_t* failed, parz_error* err);

#endif
