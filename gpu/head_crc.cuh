/* The GPU's part of a head's CRC-32C (head_crc.h): a CTA's span of the GPU's bytes, and the
 * header's field from the spans' shares. The zfp encoder's kernels run them over a batch's
 * chunks (encode_head.cu), the encoders of whole chunks over a call's one (whole_memory.h).
 * Internal to gpu/ (CUDA). */
#ifndef PARZ_GPU_HEAD_CRC_CUH
#define PARZ_GPU_HEAD_CRC_CUH

#include "head_crc.h"
#include "table.h" /* PARZ_HEADER_BYTES */

/* Span `span` of s's bytes by the calling CTA (PARZ_GPU_CRC_THREADS threads, all of them call
 * it): each thread's piece, joined pairwise, within a warp by shuffles and then across the warps
 * through shared memory, the span's share XORed into *s.raw. The byte table and the levels' join
 * tables sit in shared memory: lanes look up different byte entries, which the constant cache
 * would serve one at a time. */
__device__ __forceinline__ void parz_gpu_crc_cta(const parz_gpu_head_crc& s,
                                                 unsigned long long span) {
  __shared__ uint32_t table[256];
  __shared__ uint32_t joins[PARZ_GPU_CRC_JOIN_TABLES][32];
  __shared__ uint32_t warps[PARZ_GPU_CRC_THREADS / 32];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  table[threadIdx.x] = parz_crc32c_table_dev[threadIdx.x];
  for (unsigned e = threadIdx.x; e < 32 * PARZ_GPU_CRC_JOIN_TABLES; e += PARZ_GPU_CRC_THREADS)
    joins[e / 32][e % 32] = parz_gpu_crc_join_entry(e / 32, e % 32);
  __syncthreads();
  uint32_t v = parz_gpu_crc_piece(s, span * PARZ_GPU_CRC_THREADS + threadIdx.x, table);
  for (unsigned k = 0; k < 5; k++) {
    const uint32_t right = __shfl_down_sync(0xffffffffu, v, 1u << k);
    if ((lane & ((2u << k) - 1)) == 0)
      v = parz_gpu_crc_join(v, right, joins[k]);
  }
  if (lane == 0)
    warps[warp] = v;
  __syncthreads();
  if (warp)
    return;
  v = lane < PARZ_GPU_CRC_THREADS / 32 ? warps[lane] : 0;
  for (unsigned k = 5; (1u << k) < PARZ_GPU_CRC_THREADS; k++) {
    const uint32_t right = __shfl_down_sync(0xffffffffu, v, 1u << (k - 5));
    if ((lane & ((2u << (k - 5)) - 1)) == 0)
      v = parz_gpu_crc_join(v, right, joins[k]);
  }
  if (lane == 0)
    atomicXor(s.raw, parz_gpu_crc_span(s, span, v, joins));
}

/* The header's CRC-32C into its field, once every span's share is in *s.raw: one thread. */
__device__ __forceinline__ void parz_gpu_crc_field(const parz_gpu_head_crc& s) {
  *(uint32_t*)(s.chunk + PARZ_HEADER_BYTES - 4) = parz_gpu_head_crc_value(s, *s.raw);
}

#endif
