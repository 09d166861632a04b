/* The lossless decoder's code set-up by the 32 lanes of one warp (lossless_decode.cu calls it a
 * warp per context), written over the warp's collective operations W, so that the same code runs
 * on the GPU (parz_gpu_ll_cuda_warp: the warp's vote, shuffle and match instructions) and, in
 * tests/test_gpu_lossless_host.cpp, on the CPU over 32 threads that exchange each collective's
 * values, where its fields are compared with parz_gpu_ll_code_setup's (huffman_decode.h's
 * set-up). W provides lane(), any(p), ballot(p), shfl(v, lane) and match_any(v), each the
 * CUDA intrinsic's value over all 32 lanes, and popc(x), the set bits of x. */
#ifndef PARZ_GPU_LOSSLESS_WARP_CODE_CUH
#define PARZ_GPU_LOSSLESS_WARP_CODE_CUH

#include <stdint.h>

#include "huffman_decode.h"
#include "residual_decode.h"

#if defined(__CUDACC__)
#define PARZ_GPU_LL_WARP __device__
#else
#define PARZ_GPU_LL_WARP
#endif

#if defined(__CUDACC__)
/* The collectives of the calling warp, all 32 lanes taking part. */
struct parz_gpu_ll_cuda_warp {
  __device__ __forceinline__ unsigned lane() const { return threadIdx.x & 31u; }
  __device__ __forceinline__ bool any(bool p) const { return __any_sync(0xffffffffu, p); }
  __device__ __forceinline__ unsigned ballot(bool p) const { return __ballot_sync(0xffffffffu, p); }
  __device__ __forceinline__ unsigned shfl(unsigned v, unsigned from) const {
    return __shfl_sync(0xffffffffu, v, from);
  }
  __device__ __forceinline__ unsigned match_any(unsigned v) const {
    return __match_any_sync(0xffffffffu, v);
  }
  __device__ __forceinline__ unsigned popc(unsigned x) const { return (unsigned)__popc(x); }
};
#endif

/* Lane l in 1..PARZ_LL_CODE_MAX: the lanes of warp W whose length len is l (others: 0). */
template <typename W>
PARZ_GPU_LL_WARP unsigned parz_gpu_ll_warp_lengths(const W& warp, unsigned len) {
  unsigned mine = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (unsigned l = 1; l <= PARZ_LL_CODE_MAX; l++) {
    const unsigned n = warp.popc(warp.ballot(len == l));
    mine += warp.lane() == l ? n : 0u;
  }
  return mine;
}

/* parz_gpu_ll_code_setup's decoder of context c by the 32 lanes of warp W, a lane per symbol
 * (ns = w + 1 of them, 4 bits of length each at bit 4 * ns * c of lengths, which the caller has
 * checked lie inside the bytes): the lengths' counts by a ballot per length, the canonical
 * limits from them, each symbol's place among those of its length by the lanes before it of
 * its length. Whether the lengths make a prefix code of at most PARZ_LL_CODE_MAX bits, as
 * parz_huff_decoder_setup refuses them. Every lane of the warp calls it. */
template <typename W>
PARZ_GPU_LL_WARP bool parz_gpu_ll_warp_code_setup(const W& warp, const uint8_t* lengths, unsigned w,
                                                  unsigned c, parz_huff_decoder* d, uint32_t* mem) {
  const unsigned lane = warp.lane(), ns = w + 1, lt = (1u << lane) - 1u;
  unsigned count = 0; /* lane l in 1..PARZ_LL_CODE_MAX: the symbols of length l */
  bool bad = false;
  for (unsigned k0 = 0; k0 < ns; k0 += 32) {
    const unsigned k = k0 + lane;
    const unsigned long long bit = 4ull * ((unsigned long long)ns * c + k);
    const unsigned len = k < ns ? (lengths[bit >> 3] >> (bit & 4u)) & 15u : 0u;
    bad |= warp.any(len > PARZ_LL_CODE_MAX);
    count += parz_gpu_ll_warp_lengths(warp, len);
  }
  /* the limits, every lane stepping through the lengths; lane l keeps index[l] */
  unsigned code = 0, at = 0, used = 0, index = 0;
  unsigned long long kraft = 0;
  for (unsigned l = 1; l <= PARZ_LL_CODE_MAX; l++) {
    const unsigned n = warp.shfl(count, l), before = warp.shfl(count, l - 1);
    if (l > 1)
      code = (code + before) << 1;
    if (lane == 0) {
      d->first[l] = code;
      d->count[l] = n;
      d->index[l] = at;
    }
    index = lane == l ? at : index;
    at += n;
    used += n;
    kraft += (unsigned long long)n << (PARZ_LL_CODE_MAX - l);
  }
  bad |= kraft > (1ull << PARZ_LL_CODE_MAX);
  if (lane == 0) {
    d->first[0] = 0;
    d->count[0] = ns - used;
    d->max_len = PARZ_LL_CODE_MAX;
    d->table_bits = 0;
    d->table = mem;
    d->sorted = mem + 1;
    mem[0] = 0;
  }
  if (bad)
    return false;
  /* each symbol at its place: its length's index, the symbols of its length in earlier rounds
   * (lane l's `index` moves past them) and the lanes before it of its length */
  for (unsigned k0 = 0; k0 < ns; k0 += 32) {
    const unsigned k = k0 + lane;
    const unsigned long long bit = 4ull * ((unsigned long long)ns * c + k);
    const unsigned len = k < ns ? (lengths[bit >> 3] >> (bit & 4u)) & 15u : 0u;
    const unsigned same = warp.match_any(len);
    const unsigned place = warp.shfl(index, len) + warp.popc(same & lt);
    if (len && k < ns)
      mem[1 + place] = k;
    index += parz_gpu_ll_warp_lengths(warp, len);
  }
  return true;
}

#endif
