/* The GPU chunk encoder's device API: arrays in GPU memory into ParZ chunks in GPU memory, the
 * bytes of parz_chunk_encode (encode_block.cuh says how a chunk is built).
 *
 * On the stream, for all chunks of a call together:
 *   blocks  one thread per block (encode_kernels.cuh): gather, clean, pad, encode into the
 *           block's slot, its length into lens;
 *   scan    the lengths of all chunks' blocks, one running sum (CUB): every block's bit offset;
 *   sizes   each chunk's payload bits and non-finite count, read back: the one wait of a call.
 * The host then settles each chunk's layout with the codec (parz_chunk_settle, the serial
 * encoder's choice of auto C) and writes its header (parz_chunk_header_write); then
 *   join    one thread per block writes the payload words it owns from the slots;
 *   table   one thread per segment;
 *   records the exception records, for chunks that have any;
 *   crc     the checksum of table and exceptions in pieces, combined with the header's;
 *   seal    the header into place with its checksum.
 * Slots cost ceil(parz_block_max_bits / 64) words per block.
 *
 * Variable-rate chunks need every block's length before any block's place is known. The slots
 * encode each block once and copy its bits once more; the other scheme, TWICE (a tuning, for
 * comparison: tests/test_gpu_encode.cu, examples/bench_gpu_encode.cu), runs the encoder twice,
 * first for the lengths alone, then into place, ORing the words blocks share. */
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>

#include "encode_kernels.cuh"

/* One pass of the block kernel over chunks h[0..n) (d: their device copy), in runs of one type
 * and rank, each run one launch. */
static int launch_blocks(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d, size_t n,
                         int pass, cudaStream_t st, parz_error* err)
{
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && j - i < 65535 && h[j].type == h[i].type && h[j].dims == h[i].dims;
         j++)
      ;
    const parz_gpu_enc_chunk* dr = d + i;
    const unsigned m = (unsigned)(j - i), dims = h[i].dims;
    cudaError_t e;
    switch (h[i].type) {
      case PARZ_FLOAT: e = parz_gpu_launch_encode_f32(dims, pass, h + i, dr, m, st); break;
      case PARZ_DOUBLE: e = parz_gpu_launch_encode_f64(dims, pass, h + i, dr, m, st); break;
      case PARZ_INT32: e = parz_gpu_launch_encode_i32(dims, pass, h + i, dr, m, st); break;
      default: e = parz_gpu_launch_encode_i64(dims, pass, h + i, dr, m, st); break;
    }
    if (e != cudaSuccess)
      return parz_gpu_cuda_fail(err, e, "launching the block encoder");
  }
  return PARZ_OK;
}

/* The exception records of chunk c (c.nexceptions > 0): a count per range of positions, their
 * running sum (each range's first record), the records. counts holds 2 * ranges + 1 words. */
static cudaError_t enqueue_records(parz_gpu_enc_chunk c, unsigned long long* counts,
                                   void* scan, size_t scan_bytes, cudaStream_t st)
{
  const unsigned long long ranges = (c.count + PARZ_GPU_EXC_RANGE - 1) / PARZ_GPU_EXC_RANGE;
  c.exc_first = counts + ranges;
  cudaError_t e = parz_gpu_launch_exc_count(c, ranges, counts, st);
  if (e == cudaSuccess)
    e = cub::DeviceScan::ExclusiveSum(scan, scan_bytes, counts, c.exc_first, (int64_t)ranges, st);
  if (e == cudaSuccess)
    e = parz_gpu_launch_exc_write(c, ranges, st);
  return e;
}

/* Scratch bytes CUB needs to scan n words of lengths (u32 -> u64) or of counts (u64). */
static cudaError_t scan_bytes(uint64_t blocks, uint64_t ranges, size_t* bytes)
{
  size_t a = 0, b = 0;
  cudaError_t e = cub::DeviceScan::ExclusiveScan(NULL, a, (const uint32_t*)NULL,
                                                 (unsigned long long*)NULL, cuda::std::plus<>(),
                                                 0ull, (int64_t)blocks);
  if (e == cudaSuccess && ranges)
    e = cub::DeviceScan::ExclusiveSum(NULL, b, (const unsigned long long*)NULL,
                                      (unsigned long long*)NULL, (int64_t)ranges);
  *bytes = a > b ? a : b;
  return e;
}

static size_t padded(size_t bytes) { return (bytes + 15) & ~(size_t)15; }

extern "C" int parz_gpu_encode_device_batch(parz_gpu_context* ctx, size_t n,
                                            const parz_array* arrays, const void* const* d_data,
                                            const parz_chunk_config* cfg, void* const* d_chunks,
                                            const size_t* chunk_bytes, size_t* written,
                                            void* stream, size_t* failed, parz_error* err)
{
  const cudaStream_t st = (cudaStream_t)stream;
  const int twice = ctx && ctx->tuning.encode == PARZ_GPU_ENCODE_TWICE;
  const size_t hb = PARZ_HEADER_BYTES;
  uint64_t blocks = 0, words = 0, ranges = 0;
  size_t i, scan = 0;
  cudaError_t e;
  int rc;
  if (!ctx || (n && (!arrays || !d_data || !cfg || !d_chunks || !chunk_bytes || !written)))
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_encode_device: NULL argument");
  if (n == 0)
    return PARZ_OK;
  for (i = 0; i < n; i++)
    if (!d_chunks[i] || (uintptr_t)d_chunks[i] % 8)
      return parz_fail(err, PARZ_ERR_ARG,
                       "parz_gpu_encode_device: chunk %zu is NULL or not 8-byte aligned", i);
  if ((e = cudaSetDevice(ctx->device)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");
  /* the pinned arguments and headers of the last call may still be on their way up */
  if ((e = cudaEventSynchronize(ctx->enc_uploaded)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "waiting for the last encode's uploads");
  if ((rc = parz_gpu_reserve(&ctx->h_enc_args, n * sizeof(parz_gpu_enc_chunk), 1, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_args, n * sizeof(parz_gpu_enc_chunk), 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->h_enc_heads, n * hb, 1, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_heads, n * hb, 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->h_enc_sizes, n * 16, 1, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_sizes, n * 16, 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_counts, n * 16, 0, err)))
    return rc;
  parz_gpu_enc_chunk* h = (parz_gpu_enc_chunk*)ctx->h_enc_args.ptr;
  parz_gpu_enc_chunk* d = (parz_gpu_enc_chunk*)ctx->enc_args.ptr;
  for (i = 0; i < n; i++) {
    if ((rc = parz_gpu_enc_plan(&h[i], &arrays[i], d_data[i], cfg, err)) != PARZ_OK) {
      if (failed)
        *failed = i;
      return rc;
    }
    blocks += h[i].nblocks;
    words += twice ? 0 : h[i].nblocks * h[i].slot_words;
    if (h[i].type == PARZ_FLOAT || h[i].type == PARZ_DOUBLE)
      ranges = PARZ_MAX(ranges, (h[i].count + PARZ_GPU_EXC_RANGE - 1) / PARZ_GPU_EXC_RANGE);
  }
  if ((e = scan_bytes(blocks + 1, ranges, &scan)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "sizing the scan");
  if ((rc = parz_gpu_reserve(&ctx->enc_slots, 8 * words, 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_lens, 4 * (blocks + 1), 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_offsets, 8 * (blocks + 1), 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_scan, padded(scan), 0, err)))
    return rc;
  {
    uint64_t b = 0, w = 0;
    for (i = 0; i < n; i++) {
      h[i].slots = (unsigned long long*)ctx->enc_slots.ptr + w;
      h[i].lens = (uint32_t*)ctx->enc_lens.ptr + b;
      h[i].offsets = (unsigned long long*)ctx->enc_offsets.ptr + b;
      h[i].nonfinite = (unsigned long long*)ctx->enc_counts.ptr + i;
      h[i].crc = (uint32_t*)((unsigned long long*)ctx->enc_counts.ptr + n) + i;
      b += h[i].nblocks;
      w += twice ? 0 : h[i].nblocks * h[i].slot_words;
    }
  }

  /* the blocks, their offsets and the sizes */
  e = cudaMemsetAsync(ctx->enc_counts.ptr, 0, n * 16, st);
  if (e == cudaSuccess) /* the lengths' last word: the scan's total */
    e = cudaMemsetAsync((uint32_t*)ctx->enc_lens.ptr + blocks, 0, 4, st);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(d, h, n * sizeof *h, cudaMemcpyHostToDevice, st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "preparing the encode");
  if ((rc = launch_blocks(h, d, n, twice ? PARZ_GPU_ENC_LENGTH : PARZ_GPU_ENC_SLOT, st, err)))
    return rc;
  e = cub::DeviceScan::ExclusiveScan(ctx->enc_scan.ptr, scan, (const uint32_t*)ctx->enc_lens.ptr,
                                     (unsigned long long*)ctx->enc_offsets.ptr,
                                     cuda::std::plus<>(), 0ull, (int64_t)(blocks + 1), st);
  if (e == cudaSuccess)
    e = parz_gpu_launch_sizes(h, d, (unsigned)n, (unsigned long long*)ctx->enc_sizes.ptr, st);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(ctx->h_enc_sizes.ptr, ctx->enc_sizes.ptr, n * 16, cudaMemcpyDeviceToHost,
                        st);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "encoding the blocks");

  /* each chunk's layout and header, as the serial encoder settles them */
  const unsigned long long* sizes = (const unsigned long long*)ctx->h_enc_sizes.ptr;
  unsigned char* heads = (unsigned char*)ctx->h_enc_heads.ptr;
  for (i = 0; i < n; i++) {
    size_t size = 0;
    rc = parz_gpu_enc_settle(&h[i], &arrays[i], cfg, sizes[2 * i], sizes[2 * i + 1],
                             heads + i * hb, &size, err);
    if (rc == PARZ_OK && size > chunk_bytes[i])
      rc = parz_fail(err, PARZ_ERR_BUFFER, "%schunk needs %zu bytes, buffer has %zu",
                     n > 1 ? "a " : "", size, chunk_bytes[i]);
    if (rc != PARZ_OK) {
      if (failed)
        *failed = i;
      return rc;
    }
    written[i] = size;
    h[i].chunk = (unsigned char*)d_chunks[i];
    h[i].header = (const unsigned char*)ctx->enc_heads.ptr + i * hb;
  }

  /* the payloads and heads */
  e = cudaMemcpyAsync(ctx->enc_heads.ptr, heads, n * hb, cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(d, h, n * sizeof *h, cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess)
    e = cudaEventRecord(ctx->enc_uploaded, st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "uploading the headers");
  if (twice) {
    for (i = 0; i < n && e == cudaSuccess; i++)
      e = cudaMemsetAsync(h[i].chunk + h[i].payload_at, 0, 8 * h[i].payload_words, st);
    if (e != cudaSuccess)
      return parz_gpu_cuda_fail(err, e, "clearing the payloads");
    if ((rc = launch_blocks(h, d, n, PARZ_GPU_ENC_PLACE, st, err)))
      return rc;
  } else if ((e = parz_gpu_launch_join(h, d, (unsigned)n, st)) != cudaSuccess) {
    return parz_gpu_cuda_fail(err, e, "joining the payloads");
  }
  e = parz_gpu_launch_table(h, d, (unsigned)n, st);
  if (e == cudaSuccess && ranges) {
    if ((rc = parz_gpu_reserve(&ctx->enc_exc, 8 * (2 * ranges + 1), 0, err)))
      return rc;
    for (i = 0; i < n && e == cudaSuccess; i++)
      if (h[i].nexceptions)
        e = enqueue_records(h[i], (unsigned long long*)ctx->enc_exc.ptr, ctx->enc_scan.ptr, scan,
                            st);
  }
  if (e == cudaSuccess)
    e = parz_gpu_launch_crc(h, d, (unsigned)n, st);
  if (e == cudaSuccess)
    e = parz_gpu_launch_seal(h, d, (unsigned)n, st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "writing the chunks' heads");
  return PARZ_OK;
}

extern "C" int parz_gpu_encode_device(parz_gpu_context* ctx, const parz_array* a,
                                      const void* d_data, const parz_chunk_config* cfg,
                                      void* d_chunk, size_t chunk_bytes, size_t* written,
                                      void* stream, parz_error* err)
{
  size_t size = 0;
  int rc;
  if (!a)
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_encode_device: NULL array");
  rc = parz_gpu_encode_device_batch(ctx, 1, a, &d_data, cfg, &d_chunk, &chunk_bytes, &size,
                                    stream, NULL, err);
  if (written)
    *written = size;
  return rc;
}
