/* Decode kernels for one scalar type (see decode_kernels.cuh). */
#include "decode_kernels.cuh"

cudaError_t parz_gpu_launch_f64(unsigned dims, int scheme, const seg_args& a, cudaStream_t st)
{
  return launch_dims<PARZ_DOUBLE>(dims, scheme, a, st);
}
