/* The GPU chunk encoder's device API: arrays in GPU memory into ParZ chunks in GPU memory, the
 * bytes of parz_chunk_encode (encode_block.cuh says how a chunk is built).
 *
 * On the stream, for all chunks of a call together:
 *   tiles   the look-back state of every chunk's block kernel;
 *   blocks  one thread per block (encode_kernels.cuh): gather, clean, pad, encode into a buffer
 *           of its own; the CTA's running sum of the lengths, continued across CTAs, gives its
 *           offset, where it ORs its bits into the payload scratch;
 *   sizes   each chunk's payload bits, exception count and version-2 flag, read back: the one
 *           wait of a call.
 * The host then settles each chunk's layout with the codec (parz_chunk_settle, the serial
 * encoder's choice of auto C and format version) and writes the fixed parts of its head
 * (parz_chunk_head_fixed); then
 *   payload the scratch into place after the head, the scratch left zero;
 *   table   one thread per segment;
 *   records the exception records, for chunks that have any;
 *   sums    the section directory, and a warp per partition's payload checksum (version 2);
 *   crc     the CRC-32C of all behind the header, combined with the header's;
 *   seal    the header into place with its checksum.
 *
 * Variable-rate chunks need every block's length before any block's place is known. Two
 * schemes were measured on the H100 (bench/results/h100/bench_gpu_encode_schemes.md):
 * blocks encoded into per-block slots, then a scan and a join kernel copying their bits into
 * place; and a length-only pass of the encoder, the scan, then a second encode into place.
 * The second lost (the length pass costs 80% of an encode, more than the join), and encoding
 * into a thread's own buffer cost no more than into a slot, so the kernel above keeps the
 * first with its scan and join folded in: each block is encoded once, its bits copied once, and
 * no slot goes through device memory. */
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <cub/device/device_scan.cuh>

#include "encode_kernels.cuh"

/* The block kernel over chunks h[0..n) (d: their device copy), in runs of one type and rank,
 * each run one launch. */
static int launch_blocks(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d, size_t n,
                         cudaStream_t st, parz_error* err) {
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && j - i < 65535 && h[j].type == h[i].type && h[j].dims == h[i].dims; j++)
      ;
    const unsigned m = (unsigned)(j - i), dims = h[i].dims;
    cudaError_t e;
    switch (h[i].type) {
      case PARZ_FLOAT: e = parz_gpu_launch_encode_f32(dims, h + i, d + i, m, st); break;
      case PARZ_DOUBLE: e = parz_gpu_launch_encode_f64(dims, h + i, d + i, m, st); break;
      case PARZ_INT32: e = parz_gpu_launch_encode_i32(dims, h + i, d + i, m, st); break;
      default: e = parz_gpu_launch_encode_i64(dims, h + i, d + i, m, st); break;
    }
    if (e != cudaSuccess)
      return parz_gpu_cuda_fail(err, e, "launching the block encoder");
  }
  return PARZ_OK;
}

/* The exception records of chunk c (c.nexceptions > 0): a count per range of positions, their
 * running sum (each range's first record), the records. counts holds 2 * ranges words. */
static cudaError_t enqueue_records(parz_gpu_enc_chunk c, unsigned long long* counts, void* scan,
                                   size_t scan_bytes, cudaStream_t st) {
  const unsigned long long ranges = (c.count + PARZ_GPU_EXC_RANGE - 1) / PARZ_GPU_EXC_RANGE;
  c.exc_first = counts + ranges;
  cudaError_t e = parz_gpu_launch_exc_count(c, ranges, counts, st);
  if (e == cudaSuccess)
    e = cub::DeviceScan::ExclusiveSum(scan, scan_bytes, counts, c.exc_first, (int64_t)ranges, st);
  if (e == cudaSuccess)
    e = parz_gpu_launch_exc_write(c, ranges, st);
  return e;
}

/* Shares of the scratch rounded to 16 bytes. */
static size_t padded(size_t bytes) { return (bytes + 15) & ~(size_t)15; }

/* The payload scratch, grown to `bytes` and zero: the block kernel ORs into it, and the
 * payload kernel leaves it zero after a call that completes. A call that stops on the way
 * leaves it as it is (enc_dirty), and the next one clears it all. */
static int scratch_reserve(parz_gpu_context* ctx, size_t bytes, cudaStream_t st, parz_error* err) {
  const size_t had = ctx->enc_scratch.bytes;
  int rc = parz_gpu_reserve(&ctx->enc_scratch, bytes, 0, err);
  if (rc != PARZ_OK)
    return rc;
  if (ctx->enc_dirty || ctx->enc_scratch.bytes != had) {
    cudaError_t e = cudaMemsetAsync(ctx->enc_scratch.ptr, 0, ctx->enc_scratch.bytes, st);
    if (e != cudaSuccess)
      return parz_gpu_cuda_fail(err, e, "clearing the payload scratch");
  }
  ctx->enc_dirty = 1;
  return PARZ_OK;
}

int parz_gpu_encode_placed(parz_gpu_context* ctx, size_t n, const parz_array* arrays,
                           const void* const* d_data, const parz_chunk_config* cfg,
                           parz_gpu_enc_place place, void* place_arg, size_t* written,
                           cudaStream_t st, size_t* failed, parz_error* err) {
  const size_t hb = PARZ_GPU_HEAD;
  size_t i, scan = 0, scratch = 0, offsets = 0, tiles = 0;
  uint64_t ranges = 0;
  cudaError_t e;
  int rc;
  if (!ctx || (n && (!arrays || !d_data || !cfg || !written)))
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_encode_device: NULL argument");
  if (n == 0)
    return PARZ_OK;
  if ((e = cudaSetDevice(ctx->device)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");
  /* the pinned arguments and headers of the last call may still be on their way up */
  if ((e = cudaEventSynchronize(ctx->enc_uploaded)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "waiting for the last encode's uploads");
  /* the kernels' arguments, then the headers: one upload for both */
  const size_t args = padded(n * sizeof(parz_gpu_enc_chunk)), up = args + n * hb;
  if ((rc = parz_gpu_reserve(&ctx->h_enc_args, up, 1, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_args, up, 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->h_enc_sizes, n * 24, 1, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_sizes, n * 24, 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_counts, n * 16, 0, err)))
    return rc;
  parz_gpu_enc_chunk* h = (parz_gpu_enc_chunk*)ctx->h_enc_args.ptr;
  parz_gpu_enc_chunk* d = (parz_gpu_enc_chunk*)ctx->enc_args.ptr;
  unsigned char* heads = (unsigned char*)ctx->h_enc_args.ptr + args;
  for (i = 0; i < n; i++) {
    if ((rc = parz_gpu_enc_plan(&h[i], &arrays[i], d_data[i], cfg, err)) != PARZ_OK) {
      if (failed)
        *failed = i;
      return rc;
    }
    scratch += padded(
        parz_stream_bound(arrays[i].type, arrays[i].dims, &h[i].params, (size_t)h[i].nblocks));
    offsets += padded(8 * (size_t)(h[i].nblocks + 1));
    tiles += parz_gpu_tile_bytes(h[i].nblocks);
    /* integers have exceptions too (lossy modes, magnitudes zfp cannot hold) */
    if (h[i].rule.mask)
      ranges = PARZ_MAX(ranges, (h[i].count + PARZ_GPU_EXC_RANGE - 1) / PARZ_GPU_EXC_RANGE);
  }
  if (ranges && (e = cub::DeviceScan::ExclusiveSum(NULL, scan, (const unsigned long long*)NULL,
                                                   (unsigned long long*)NULL, (int64_t)ranges)))
    return parz_gpu_cuda_fail(err, e, "sizing the scan");
  if ((rc = parz_gpu_reserve(&ctx->enc_offsets, offsets, 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_tiles, tiles, 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_scan, padded(scan), 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_exc, 16 * ranges, 0, err)) ||
      (rc = scratch_reserve(ctx, scratch, st, err)))
    return rc;
  scratch = offsets = tiles = 0;
  for (i = 0; i < n; i++) {
    h[i].scratch = (unsigned long long*)((char*)ctx->enc_scratch.ptr + scratch);
    h[i].offsets = (unsigned long long*)((char*)ctx->enc_offsets.ptr + offsets);
    h[i].tiles = (char*)ctx->enc_tiles.ptr + tiles;
    /* counters: n exception counts, then n CRC registers, then n version-2 flags */
    h[i].nexc = (unsigned long long*)ctx->enc_counts.ptr + i;
    h[i].crc = (uint32_t*)((unsigned long long*)ctx->enc_counts.ptr + n) + i;
    h[i].needs2 = (unsigned*)((unsigned long long*)ctx->enc_counts.ptr + n) + n + i;
    scratch += padded(
        parz_stream_bound((parz_type)h[i].type, h[i].dims, &h[i].params, (size_t)h[i].nblocks));
    offsets += padded(8 * (size_t)(h[i].nblocks + 1));
    tiles += parz_gpu_tile_bytes(h[i].nblocks);
  }

  /* the blocks and the sizes */
  e = cudaMemcpyAsync(d, h, n * sizeof *h, cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess)
    e = parz_gpu_launch_tiles(h, d, (unsigned)n, st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "preparing the encode");
  if ((rc = launch_blocks(h, d, n, st, err)))
    return rc;
  e = parz_gpu_launch_sizes(d, (unsigned)n, (unsigned long long*)ctx->enc_sizes.ptr, st);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(ctx->h_enc_sizes.ptr, ctx->enc_sizes.ptr, n * 24, cudaMemcpyDeviceToHost,
                        st);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "encoding the blocks");

  /* each chunk's layout and header, as the serial encoder settles them, then its place */
  const unsigned long long* sizes = (const unsigned long long*)ctx->h_enc_sizes.ptr;
  for (i = 0; i < n; i++) {
    rc = parz_gpu_enc_settle(&h[i], &arrays[i], cfg, sizes[3 * i], sizes[3 * i + 1],
                             (unsigned)sizes[3 * i + 2], heads + i * hb, &written[i], err);
    if (rc != PARZ_OK) {
      if (failed)
        *failed = i;
      return rc;
    }
  }
  std::vector<void*> d_chunks(n);
  if ((rc = place(place_arg, n, written, d_chunks.data(), failed, err)) != PARZ_OK)
    return rc;
  for (i = 0; i < n; i++) {
    h[i].chunk = (unsigned char*)d_chunks[i];
    h[i].header = (const unsigned char*)ctx->enc_args.ptr + args + i * hb;
  }

  /* the payloads and heads */
  e = cudaMemcpyAsync(d, h, up, cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess)
    e = cudaEventRecord(ctx->enc_uploaded, st);
  if (e == cudaSuccess)
    e = parz_gpu_launch_payload(h, d, (unsigned)n, st);
  if (e == cudaSuccess)
    e = parz_gpu_launch_table(h, d, (unsigned)n, st);
  for (i = 0; i < n && e == cudaSuccess; i++)
    if (h[i].nexceptions)
      e = enqueue_records(h[i], (unsigned long long*)ctx->enc_exc.ptr, ctx->enc_scan.ptr, scan, st);
  if (e == cudaSuccess)
    e = parz_gpu_launch_sums(h, d, (unsigned)n, st);
  if (e == cudaSuccess)
    e = parz_gpu_launch_crc(h, d, (unsigned)n, st);
  if (e == cudaSuccess)
    e = parz_gpu_launch_seal(d, (unsigned)n, st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "writing the chunks");
  ctx->enc_dirty = 0;
  return PARZ_OK;
}

/* The caller's buffers, each checked against its chunk's size. */
struct given_places {
  void* const* d_chunks;
  const size_t* chunk_bytes;
};

static int place_given(void* arg, size_t n, const size_t* sizes, void** d_chunks, size_t* failed,
                       parz_error* err) {
  const given_places* g = (const given_places*)arg;
  for (size_t i = 0; i < n; i++) {
    if (sizes[i] > g->chunk_bytes[i]) {
      if (failed)
        *failed = i;
      return parz_fail(err, PARZ_ERR_BUFFER, "%schunk needs %zu bytes, buffer has %zu",
                       n > 1 ? "a " : "", sizes[i], g->chunk_bytes[i]);
    }
    d_chunks[i] = g->d_chunks[i];
  }
  return PARZ_OK;
}

extern "C" int parz_gpu_encode_device_batch(parz_gpu_context* ctx, size_t n,
                                            const parz_array* arrays, const void* const* d_data,
                                            const parz_chunk_config* cfg, void* const* d_chunks,
                                            const size_t* chunk_bytes, size_t* written,
                                            void* stream, size_t* failed, parz_error* err) {
  if (n && (!d_chunks || !chunk_bytes))
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_encode_device: NULL argument");
  for (size_t i = 0; i < n; i++)
    if (!d_chunks[i] || (uintptr_t)d_chunks[i] % 8)
      return parz_fail(err, PARZ_ERR_ARG,
                       "parz_gpu_encode_device: chunk %zu is NULL or not 8-byte aligned", i);
  given_places g = {d_chunks, chunk_bytes};
  return parz_gpu_encode_placed(ctx, n, arrays, d_data, cfg, place_given, &g, written,
                                (cudaStream_t)stream, failed, err);
}

extern "C" int parz_gpu_encode_device(parz_gpu_context* ctx, const parz_array* a,
                                      const void* d_data, const parz_chunk_config* cfg,
                                      void* d_chunk, size_t chunk_bytes, size_t* written,
                                      void* stream, parz_error* err) {
  size_t size = 0;
  int rc;
  if (!a)
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_encode_device: NULL array");
  rc = parz_gpu_encode_device_batch(ctx, 1, a, &d_data, cfg, &d_chunk, &chunk_bytes, &size, stream,
                                    NULL, err);
  if (written)
    *written = size;
  return rc;
}
