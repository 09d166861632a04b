/* The GPU encoder's block kernels, one thread per block, instantiated per scalar type in
 * encode_<type>.cu so that the four types compile in parallel (encode.cu runs them). Internal to
 * gpu/. */
#ifndef PARZ_GPU_ENCODE_KERNELS_CUH
#define PARZ_GPU_ENCODE_KERNELS_CUH

#include "encode_block.cuh"
#include "gpu_internal.h"

/* What a launch of the block kernel does with each block. */
enum parz_gpu_enc_pass {
  PARZ_GPU_ENC_SLOT = 0,    /* encode into the block's slot, record its length */
  PARZ_GPU_ENC_LENGTH = 1,  /* record its length only (scheme TWICE, first pass) */
  PARZ_GPU_ENC_PLACE = 2    /* encode it again into its place in the payload (TWICE, second) */
};

/* A block's words, written at bit `lo` of the payload (zeroed beforehand): words that lie wholly
 * inside the block are stored, the two it may share with its neighbours are ORed in. */
__device__ __forceinline__ void parz_gpu_place_words(unsigned char* payload, unsigned long long lo,
                                                     unsigned long long bits,
                                                     const unsigned long long* w)
{
  unsigned long long* out = (unsigned long long*)payload;
  const unsigned long long hi = lo + bits, q = lo >> 6, nw = (bits + 63) >> 6;
  const unsigned r = (unsigned)(lo & 63u);
  for (unsigned long long k = q; 64 * k < hi; k++) {
    const unsigned long long j = k - q;
    unsigned long long v = j < nw ? w[j] << r : 0;
    if (r && j > 0)
      v |= w[j - 1] >> (64 - r);
    if (64 * k >= lo && 64 * k + 64 <= hi)
      out[k] = v;
    else
      atomicOr(out + k, v);
  }
}

/* Block blockIdx.x * 128 + threadIdx.x of chunk blockIdx.y. The chunks' arguments are always
 * read from device memory, for one chunk too: one variant of each kernel, not two. */
template <parz_type T, unsigned D, int PASS>
__global__ void __launch_bounds__(128)
    parz_gpu_encode_kernel(const parz_gpu_enc_chunk* __restrict__ chunks)
{
  const parz_gpu_enc_chunk& c = chunks[blockIdx.y];
  const unsigned long long b = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= c.nblocks)
    return;
  parz_writer w;
  unsigned bad, bits;
  if (PASS == PARZ_GPU_ENC_PLACE) {
    /* the longest block any parameters give */
    unsigned long long block[PARZ_MAX_BITS / 64 + 1];
    parz_writer_init(&w, block, sizeof block);
    bits = parz_gpu_encode_block<T, D>(c, b, &w, &bad);
    parz_writer_flush(&w);
    parz_gpu_place_words(c.chunk + c.payload_at, c.offsets[b] - c.offsets[0], bits, block);
    return;
  }
  if (PASS == PARZ_GPU_ENC_LENGTH)
    parz_writer_init(&w, NULL, 0); /* every store is dropped; the writer still counts */
  else
    parz_writer_init(&w, c.slots + b * c.slot_words, 8 * (size_t)c.slot_words);
  bits = parz_gpu_encode_block<T, D>(c, b, &w, &bad);
  if (PASS == PARZ_GPU_ENC_SLOT)
    parz_writer_flush(&w);
  c.lens[b] = bits;
  if (bad)
    atomicAdd(c.nonfinite, (unsigned long long)bad);
}

/* h: the chunks' arguments on the host (for the grid), d: the same in device memory. */
template <parz_type T, unsigned D, int PASS>
cudaError_t parz_gpu_launch_encode_pass(const parz_gpu_enc_chunk* h,
                                        const parz_gpu_enc_chunk* d, unsigned n,
                                        cudaStream_t st)
{
  unsigned long long ctas = 0;
  for (unsigned i = 0; i < n; i++)
    ctas = PARZ_MAX(ctas, (h[i].nblocks + 127) / 128);
  parz_gpu_encode_kernel<T, D, PASS><<<dim3((unsigned)ctas, n), 128, 0, st>>>(d);
  return cudaGetLastError();
}

template <parz_type T, unsigned D>
cudaError_t parz_gpu_launch_encode_rank(int pass, const parz_gpu_enc_chunk* h,
                                        const parz_gpu_enc_chunk* d, unsigned n,
                                        cudaStream_t st)
{
  switch (pass) {
    case PARZ_GPU_ENC_SLOT: return parz_gpu_launch_encode_pass<T, D, PARZ_GPU_ENC_SLOT>(h, d, n, st);
    case PARZ_GPU_ENC_LENGTH:
      return parz_gpu_launch_encode_pass<T, D, PARZ_GPU_ENC_LENGTH>(h, d, n, st);
    default: return parz_gpu_launch_encode_pass<T, D, PARZ_GPU_ENC_PLACE>(h, d, n, st);
  }
}

template <parz_type T>
cudaError_t parz_gpu_launch_encode_type(unsigned dims, int pass, const parz_gpu_enc_chunk* h,
                                        const parz_gpu_enc_chunk* d, unsigned n,
                                        cudaStream_t st)
{
  switch (dims) {
    case 1: return parz_gpu_launch_encode_rank<T, 1>(pass, h, d, n, st);
    case 2: return parz_gpu_launch_encode_rank<T, 2>(pass, h, d, n, st);
    case 3: return parz_gpu_launch_encode_rank<T, 3>(pass, h, d, n, st);
    default: return parz_gpu_launch_encode_rank<T, 4>(pass, h, d, n, st);
  }
}

/* One per scalar type (encode_<type>.cu): a pass of the block kernel over n chunks of one rank,
 * their arguments h on the host and d in device memory. */
#define PARZ_GPU_DECLARE_ENCODE(name)                                                         \
  cudaError_t parz_gpu_launch_encode_##name(unsigned dims, int pass,                         \
                                            const parz_gpu_enc_chunk* h,                     \
                                            const parz_gpu_enc_chunk* d, unsigned n,         \
                                            cudaStream_t st);
PARZ_GPU_DECLARE_ENCODE(f32)
PARZ_GPU_DECLARE_ENCODE(f64)
PARZ_GPU_DECLARE_ENCODE(i32)
PARZ_GPU_DECLARE_ENCODE(i64)

/* The kernels after the blocks (encode_head.cu), over n chunks as above: each chunk's payload
 * bits and non-finite values into sizes[2 i], sizes[2 i + 1]; the payload joined from the slots;
 * the table; the exception records of one chunk (a count per range of PARZ_GPU_EXC_RANGE
 * positions, then, from c.exc_first, the records); the checksum pieces; the header. */
cudaError_t parz_gpu_launch_sizes(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                  unsigned n, unsigned long long* sizes, cudaStream_t st);
cudaError_t parz_gpu_launch_join(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                 unsigned n, cudaStream_t st);
cudaError_t parz_gpu_launch_table(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                  unsigned n, cudaStream_t st);
cudaError_t parz_gpu_launch_exc_count(const parz_gpu_enc_chunk& c, unsigned long long ranges,
                                      unsigned long long* counts, cudaStream_t st);
cudaError_t parz_gpu_launch_exc_write(const parz_gpu_enc_chunk& c, unsigned long long ranges,
                                      cudaStream_t st);
cudaError_t parz_gpu_launch_crc(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                unsigned n, cudaStream_t st);
cudaError_t parz_gpu_launch_seal(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                 unsigned n, cudaStream_t st);

#endif
