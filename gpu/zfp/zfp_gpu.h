/* What zfp's entry in the GPU's codec table (zfp_decode.cu) takes from zfp's other files.
 * Internal to gpu/. */
#ifndef PARZ_GPU_ZFP_H
#define PARZ_GPU_ZFP_H

#include "gpu_codecs.h"

/* The block kernel over chunks h[0..n) (zfp_encode.cu; gpu_codecs.h, launch_blocks). */
int parz_gpu_zfp_launch_blocks(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d, size_t n,
                               cudaStream_t st, parz_error* err);

#endif
