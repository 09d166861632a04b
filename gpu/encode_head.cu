/* The GPU encoder's kernels after the blocks: the sizes read back, the payload joined from the
 * blocks' slots, and the head (table, exception records, header and checksum). Each runs a step
 * of encode_block.cuh per thread; a call's chunks share each launch (chunk blockIdx.y, their
 * arguments in device memory), except the exception kernels, which run per chunk that has any. */
#include "encode_kernels.cuh"

__device__ __forceinline__ unsigned long long thread_index()
{
  return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}

/* Per chunk: payload bits and non-finite values, for the host to settle the layout. */
__global__ void sizes_kernel(const parz_gpu_enc_chunk* chunks, unsigned n,
                             unsigned long long* sizes)
{
  const unsigned i = (unsigned)thread_index();
  if (i >= n)
    return;
  const parz_gpu_enc_chunk& c = chunks[i];
  sizes[2 * i] = c.offsets[c.nblocks] - c.offsets[0];
  sizes[2 * i + 1] = *c.nonfinite;
}

__global__ void __launch_bounds__(128) join_kernel(const parz_gpu_enc_chunk* chunks)
{
  const parz_gpu_enc_chunk& c = chunks[blockIdx.y];
  const unsigned long long i = thread_index();
  if (i < c.nblocks)
    parz_gpu_join_block(c, i);
}

__global__ void table_kernel(const parz_gpu_enc_chunk* chunks)
{
  const parz_gpu_enc_chunk& c = chunks[blockIdx.y];
  const unsigned long long s = thread_index();
  if (c.table != PARZ_TABLE_NONE && s < c.nsegments)
    parz_gpu_table_segment(c, s);
}

template <typename U>
__global__ void exc_count_kernel(const parz_gpu_enc_chunk c, unsigned long long ranges,
                                 unsigned long long* counts)
{
  const unsigned long long r = thread_index();
  if (r < ranges)
    counts[r] = parz_gpu_exc_count<U>(c, r);
}

template <typename U>
__global__ void exc_write_kernel(const parz_gpu_enc_chunk c, unsigned long long ranges)
{
  const unsigned long long r = thread_index();
  if (r < ranges)
    parz_gpu_exc_write<U>(c, r);
}

/* The byte table in shared memory: lanes look up different entries, which the constant cache
 * would serve one at a time. */
__global__ void __launch_bounds__(256) crc_kernel(const parz_gpu_enc_chunk* chunks)
{
  __shared__ uint32_t table[256];
  const parz_gpu_enc_chunk& c = chunks[blockIdx.y];
  table[threadIdx.x] = parz_crc32c_table_dev[threadIdx.x];
  __syncthreads();
  const unsigned long long t = thread_index();
  if (t * PARZ_GPU_CRC_PIECE < c.payload_at - PARZ_HEADER_BYTES)
    atomicXor(c.crc, parz_gpu_crc_piece(c, t, table));
}

__global__ void seal_kernel(const parz_gpu_enc_chunk* chunks, unsigned n)
{
  const unsigned i = (unsigned)thread_index();
  if (i >= n)
    return;
  const parz_gpu_enc_chunk& c = chunks[i];
  parz_gpu_seal(c, *c.crc);
}

/* Chunks per launch: gridDim.y's limit. */
#define RUN_MAX 65535u

/* Launches kernel k over the n chunks (h on the host, d the same in device memory) with
 * units(c) threads for chunk c, `threads` per CTA. */
template <typename K, typename UNITS>
static cudaError_t over_chunks(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                               unsigned n, unsigned threads, cudaStream_t st, K k, UNITS units)
{
  for (unsigned i = 0; i < n; i += RUN_MAX) {
    const unsigned m = n - i < RUN_MAX ? n - i : RUN_MAX;
    unsigned long long most = 0;
    for (unsigned j = i; j < i + m; j++)
      most = PARZ_MAX(most, units(h[j]));
    if (most)
      k<<<dim3((unsigned)((most + threads - 1) / threads), m), threads, 0, st>>>(d + i);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
      return e;
  }
  return cudaSuccess;
}

cudaError_t parz_gpu_launch_sizes(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                  unsigned n, unsigned long long* sizes, cudaStream_t st)
{
  (void)h;
  sizes_kernel<<<(n + 127) / 128, 128, 0, st>>>(d, n, sizes);
  return cudaGetLastError();
}

cudaError_t parz_gpu_launch_join(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                 unsigned n, cudaStream_t st)
{
  return over_chunks(h, d, n, 128, st, join_kernel,
                     [](const parz_gpu_enc_chunk& c) { return c.nblocks; });
}

cudaError_t parz_gpu_launch_table(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                  unsigned n, cudaStream_t st)
{
  return over_chunks(h, d, n, 128, st, table_kernel, [](const parz_gpu_enc_chunk& c) {
    return c.table == PARZ_TABLE_NONE ? 0ull : c.nsegments;
  });
}

cudaError_t parz_gpu_launch_exc_count(const parz_gpu_enc_chunk& c, unsigned long long ranges,
                                      unsigned long long* counts, cudaStream_t st)
{
  const unsigned ctas = (unsigned)((ranges + 127) / 128);
  if (parz_type_size((parz_type)c.type) == 4)
    exc_count_kernel<uint32_t><<<ctas, 128, 0, st>>>(c, ranges, counts);
  else
    exc_count_kernel<uint64_t><<<ctas, 128, 0, st>>>(c, ranges, counts);
  return cudaGetLastError();
}

cudaError_t parz_gpu_launch_exc_write(const parz_gpu_enc_chunk& c, unsigned long long ranges,
                                      cudaStream_t st)
{
  const unsigned ctas = (unsigned)((ranges + 127) / 128);
  if (parz_type_size((parz_type)c.type) == 4)
    exc_write_kernel<uint32_t><<<ctas, 128, 0, st>>>(c, ranges);
  else
    exc_write_kernel<uint64_t><<<ctas, 128, 0, st>>>(c, ranges);
  return cudaGetLastError();
}

cudaError_t parz_gpu_launch_crc(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                unsigned n, cudaStream_t st)
{
  return over_chunks(h, d, n, 256, st, crc_kernel, [](const parz_gpu_enc_chunk& c) {
    return (c.payload_at - PARZ_HEADER_BYTES + PARZ_GPU_CRC_PIECE - 1) / PARZ_GPU_CRC_PIECE;
  });
}

cudaError_t parz_gpu_launch_seal(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                 unsigned n, cudaStream_t st)
{
  (void)h;
  seal_kernel<<<(n + 127) / 128, 128, 0, st>>>(d, n);
  return cudaGetLastError();
}
