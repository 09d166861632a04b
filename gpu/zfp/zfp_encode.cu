/* zfp's part of the GPU encoder reached through the GPU's codec table (gpu_codecs.h): the launch
 * of its block kernel (encode_kernels.cuh). */
#include "encode_kernels.cuh"
#include "zfp_gpu.h"

/* The encoder's block kernel over chunks h[0..n) (d: their device copy), in runs of one type and
 * rank, each run one launch. */
int parz_gpu_zfp_launch_blocks(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d, size_t n,
                               cudaStream_t st, parz_error* err) {
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && j - i < 65535 && h[j].type == h[i].type && h[j].dims == h[i].dims; j++)
      ;
    const unsigned m = (unsigned)(j - i), dims = h[i].dims;
    cudaError_t e;
    switch (h[i].type) {
      case PARZ_FLOAT: e = parz_gpu_launch_encode_f32(dims, h + i, d + i, m, st); break;
      case PARZ_DOUBLE: e = parz_gpu_launch_encode_f64(dims, h + i, d + i, m, st); break;
      case PARZ_INT32: e = parz_gpu_launch_encode_i32(dims, h + i, d + i, m, st); break;
      default: e = parz_gpu_launch_encode_i64(dims, h + i, d + i, m, st); break;
    }
    if (e != cudaSuccess)
      return parz_gpu_cuda_fail(err, e, "launching the block encoder");
  }
  return PARZ_OK;
}
