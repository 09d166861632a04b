/* The encode kernel for one scalar type (see encode_kernels.cuh). */
#include "encode_kernels.cuh"

cudaError_t parz_gpu_launch_encode_f32(unsigned dims, const parz_gpu_enc_chunk* h,
                                       const parz_gpu_enc_chunk* d, unsigned n, cudaStream_t st) {
  return parz_gpu_launch_encode_type<PARZ_FLOAT>(dims, h, d, n, st);
}
