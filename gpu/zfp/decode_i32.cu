/* Decode kernels for one scalar type (see decode_kernels.cuh). */
#include "decode_kernels.cuh"

cudaError_t parz_gpu_launch_i32(unsigned dims, const seg_args* h, const seg_args* d, unsigned n,
                                cudaStream_t st) {
  return launch_dims<PARZ_INT32>(dims, h, d, n, st);
}
