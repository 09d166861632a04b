/* zfp's block kernel of the GPU encoder, one thread per block, instantiated per scalar type in
 * encode_<type>.cu so that the four types compile in parallel (zfp_encode.cu launches it for
 * the GPU's codec table). Internal to gpu/. */
#ifndef PARZ_GPU_ENCODE_KERNELS_CUH
#define PARZ_GPU_ENCODE_KERNELS_CUH

#include <cub/block/block_scan.cuh>
#include <cuda/std/functional>

#include "encode_block.cuh"
#include "encode_launch.cuh"

/* CTAs of the block kernel an SM must hold at once, which bounds the registers the compiler may
 * give each thread. Blocks of 32-bit values in one or two dimensions encode faster at 8 (fewer
 * registers, more CTAs at once, no spill); larger blocks then spill and stay unbounded. The
 * build setting exists to measure it again. */
#ifndef PARZ_GPU_ENC_MIN_CTAS_SMALL
#define PARZ_GPU_ENC_MIN_CTAS_SMALL 8
#endif
template <parz_type T, unsigned D>
constexpr int parz_gpu_enc_min_ctas() {
  return (T == PARZ_FLOAT || T == PARZ_INT32) && D <= 2 ? PARZ_GPU_ENC_MIN_CTAS_SMALL : 1;
}

/* Adds v (a block's count, at most 4^4) to *to once for the lanes here at once: in a region of
 * special values every block would otherwise add to the one word. */
__device__ __forceinline__ void parz_gpu_warp_add(unsigned long long* to, unsigned v) {
  const unsigned lanes = __activemask(), sum = __reduce_add_sync(lanes, v);
  if (sum && (threadIdx.x & 31u) == (unsigned)__ffs(lanes) - 1)
    atomicAdd(to, (unsigned long long)sum);
}

/* Block blockIdx.x * 128 + threadIdx.x of chunk blockIdx.y: gathered and cleaned (in a chunk
 * whose configuration masks, its masked values counted and their NaN patterns put into the
 * chunk's set; in the mask pass, its stand-ins and fact), encoded into a buffer of its own
 * (local memory, L1-resident for the few words a block has), then the CTA's exclusive sum of the
 * lengths, continued from the CTAs before it, gives its bit offset; the block's words are ORed
 * into the payload scratch there (parz_gpu_place_block; minbits padding beyond the buffer is
 * left to the zeroed scratch) and its offset recorded for the table.
 * The chunks' arguments are read from device memory. */
template <parz_type T, unsigned D>
__global__ void __launch_bounds__(PARZ_GPU_ENC_THREADS, parz_gpu_enc_min_ctas<T, D>())
    parz_gpu_encode_kernel(const parz_gpu_enc_chunk* __restrict__ chunks) {
  typedef cub::BlockScan<unsigned long long, PARZ_GPU_ENC_THREADS> scan_t;
  typedef cub::TilePrefixCallbackOp<unsigned long long, cuda::std::plus<>, parz_gpu_tile_state>
      prefix_t;
  __shared__ struct { /* both in use at once: the look-back runs inside the scan */
    typename scan_t::TempStorage scan;
    typename prefix_t::TempStorage prefix;
  } tmp;
  const parz_gpu_enc_chunk& c = chunks[blockIdx.y];
  const unsigned long long nblocks = c.nblocks;
  if ((unsigned long long)blockIdx.x * PARZ_GPU_ENC_THREADS >= nblocks)
    return; /* the whole CTA: past this chunk's blocks */
  const unsigned long long b = (unsigned long long)blockIdx.x * PARZ_GPU_ENC_THREADS + threadIdx.x;
  unsigned long long words[parz_gpu_block_words<T, D>()];
  unsigned long long bits = 0, at;
  parz_gpu_block_note note = {0, 0, 0, 0, 0};
  if (b < nblocks) {
    parz_writer w;
    parz_writer_init(&w, words, sizeof words);
    bits = parz_gpu_encode_block<T, D>(c, b, &w, &note);
    parz_writer_flush(&w);
  }
  parz_gpu_tile_state tiles;
  tiles.Init(0, c.tiles, 0);
  if (blockIdx.x == 0) {
    unsigned long long sum;
    scan_t(tmp.scan).ExclusiveSum(bits, at, sum);
    if (threadIdx.x == 0)
      tiles.SetInclusive(0, sum);
  } else {
    prefix_t prefix(tiles, tmp.prefix, cuda::std::plus<>(), (int)blockIdx.x);
    scan_t(tmp.scan).ExclusiveSum(bits, at, prefix);
  }
  if (b >= nblocks)
    return;
  c.offsets[b] = at;
  if (b + 1 == nblocks)
    c.offsets[nblocks] = at + bits;
  parz_gpu_place_block(c.scratch, at, bits, words, parz_gpu_block_words<T, D>());
  parz_gpu_warp_add(c.nexc, note.exc);
  if (note.v2)
    atomicOr(c.needs2, 1u);
  if (note.risk)
    atomicOr(c.risky, 1u);
  if (c.mask.pass)
    c.mask.facts[b] = note.fact;
  else if (c.mask.set)
    parz_gpu_warp_add(&c.mask.set->masked, note.masked);
}

/* The kernel over n chunks of one type and rank: h their arguments on the host (for the grid),
 * d the same in device memory. */
template <parz_type T>
cudaError_t parz_gpu_launch_encode_type(unsigned dims, const parz_gpu_enc_chunk* h,
                                        const parz_gpu_enc_chunk* d, unsigned n, cudaStream_t st) {
  unsigned long long ctas = 0;
  for (unsigned i = 0; i < n; i++)
    ctas = PARZ_MAX(ctas, (h[i].nblocks + PARZ_GPU_ENC_THREADS - 1) / PARZ_GPU_ENC_THREADS);
  const dim3 grid((unsigned)ctas, n);
  switch (dims) {
    case 1: parz_gpu_encode_kernel<T, 1><<<grid, PARZ_GPU_ENC_THREADS, 0, st>>>(d); break;
    case 2: parz_gpu_encode_kernel<T, 2><<<grid, PARZ_GPU_ENC_THREADS, 0, st>>>(d); break;
    case 3: parz_gpu_encode_kernel<T, 3><<<grid, PARZ_GPU_ENC_THREADS, 0, st>>>(d); break;
    default: parz_gpu_encode_kernel<T, 4><<<grid, PARZ_GPU_ENC_THREADS, 0, st>>>(d); break;
  }
  return cudaGetLastError();
}

/* One per scalar type (encode_<type>.cu). */
#define PARZ_GPU_DECLARE_ENCODE(name)                                                   \
  cudaError_t parz_gpu_launch_encode_##name(unsigned dims, const parz_gpu_enc_chunk* h, \
                                            const parz_gpu_enc_chunk* d, unsigned n,    \
                                            cudaStream_t st);
PARZ_GPU_DECLARE_ENCODE(f32)
PARZ_GPU_DECLARE_ENCODE(f64)
PARZ_GPU_DECLARE_ENCODE(i32)
PARZ_GPU_DECLARE_ENCODE(i64)

#endif
