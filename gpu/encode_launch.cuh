/* The GPU encoder's kernels of the frame (encode_head.cu), as encode.cu launches them around a
 * codec's block kernel (gpu_codecs.h, launch_blocks), and what they share with it: its CTA size
 * and the look-back state of its running sum of block lengths. Internal to gpu/. */
#ifndef PARZ_GPU_ENCODE_LAUNCH_CUH
#define PARZ_GPU_ENCODE_LAUNCH_CUH

#include <cub/agent/single_pass_scan_operators.cuh>

#include "encode_chunk.cuh"
#include "gpu_internal.h"

/* Threads of a CTA of the block kernel: one block each. */
#define PARZ_GPU_ENC_THREADS 128

/* The running sum of block lengths across a chunk's CTAs (decoupled look-back: each CTA
 * publishes its sum, then its prefix once its predecessors' are known). */
typedef cub::ScanTileState<unsigned long long> parz_gpu_tile_state;

/* What the sizes kernel reads back per chunk, all 64-bit words so that an array of them comes
 * down in one copy. */
typedef struct {
  unsigned long long payload_bits, nexceptions;
  unsigned long long needs2;   /* the exceptions need format version 2 */
  unsigned long long masked;   /* masked values met */
  unsigned long long overflow; /* the mask's set overflowed */
  unsigned long long nvalues;  /* V, the mask's values */
  unsigned long long record_bytes[PARZ_GPU_MASK_GROUP_SIZES]; /* R for each candidate G */
  unsigned long long risky; /* a block holds a value at risk of missing the accuracy bound */
} parz_gpu_enc_sizes;

/* The other kernels (encode_head.cu), over n chunks as above: the look-back's tile states and
 * the chunk's counters;
 * each chunk's sizes into sizes[i]; the mask pass's rank (the palette's
 * value indices) and records' bytes of every candidate G, and, once placed, the mask section's
 * values and (one chunk) its records; the
 * payload from the scratch (left zero) into the chunk; the table;
 * the exception records of one chunk (a count per range of PARZ_GPU_EXC_RANGE positions, then,
 * from c.exc_first, the records); the section directory and the payload checksums; the CRC;
 * the header. */
cudaError_t parz_gpu_launch_tiles(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                  unsigned n, cudaStream_t st);
cudaError_t parz_gpu_launch_sizes(const parz_gpu_enc_chunk* d, unsigned n,
                                  parz_gpu_enc_sizes* sizes, cudaStream_t st);
cudaError_t parz_gpu_launch_mask_rank(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                      unsigned n, cudaStream_t st);
cudaError_t parz_gpu_launch_mask_lengths(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                         unsigned n, cudaStream_t st);
cudaError_t parz_gpu_launch_mask_values(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                        unsigned n, cudaStream_t st);
cudaError_t parz_gpu_launch_mask_records(const parz_gpu_enc_chunk& c, cudaStream_t st);
cudaError_t parz_gpu_launch_payload(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                    unsigned n, cudaStream_t st);
cudaError_t parz_gpu_launch_table(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                  unsigned n, cudaStream_t st);
cudaError_t parz_gpu_launch_exc_count(const parz_gpu_enc_chunk& c, unsigned long long ranges,
                                      unsigned long long* counts, cudaStream_t st);
cudaError_t parz_gpu_launch_exc_write(const parz_gpu_enc_chunk& c, unsigned long long ranges,
                                      cudaStream_t st);
cudaError_t parz_gpu_launch_sums(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                 unsigned n, cudaStream_t st);
cudaError_t parz_gpu_launch_crc(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                unsigned n, cudaStream_t st);
cudaError_t parz_gpu_launch_seal(const parz_gpu_enc_chunk* d, unsigned n, cudaStream_t st);

/* Tiles (CTAs) of a chunk of nblocks blocks, and the bytes of their look-back state. */
__host__ __device__ inline unsigned long long parz_gpu_tiles(unsigned long long nblocks) {
  return (nblocks + PARZ_GPU_ENC_THREADS - 1) / PARZ_GPU_ENC_THREADS;
}
size_t parz_gpu_tile_bytes(unsigned long long nblocks);

#endif
