/* The GPU chunk encoder's device API: arrays in GPU memory into ParZ chunks in GPU memory, the
 * bytes of parz_chunk_encode (encode_chunk.cuh says how a chunk is built).
 * The blocks' encoding is the codec's, reached through the GPU's codec table (gpu_codecs.h).
 *
 * On the stream, for all chunks of a call together:
 *   tiles   the look-back state of every chunk's block kernel;
 *   blocks  one thread per block (zfp/encode_kernels.cuh): gather, clean, pad, encode into a buffer
 *           of its own; the CTA's running sum of the lengths, continued across CTAs, gives its
 *           offset, where it ORs its bits into the payload scratch;
 *   sizes   each chunk's payload bits, exception count, version-2 flag and masked values,
 *           read back: the one wait of a call whose chunks hold no masked value;
 *   mask    for the chunks that hold some (NaN, the fill value): their palette ranked, their
 *           blocks encoded again with the mask's stand-ins and a fact per block, the records'
 *           bytes of every candidate G, read back (the second wait; encode_mask.cuh).
 * The host then settles each chunk's layout with the codec (parz_chunk_settle, the serial
 * encoder's choice of auto C and format version) and writes the fixed parts of its head
 * (parz_chunk_head_fixed); then
 *   payload the scratch into place after the head, the scratch left zero;
 *   table   one thread per segment;
 *   records the exception records, for chunks that have any; the mask section's values, group
 *           starts and records;
 *   sums    the section directory, and a CTA per partition's payload checksum (version 2);
 *   crc     the CRC-32C of all behind the header, combined with the header's;
 *   seal    the header into place with its checksum.
 *
 * Variable-rate chunks need every block's length before any block's place is known. The
 * kernel above encodes each block once into its thread's own buffer, scans the lengths and
 * copies the bits into place, the scan and the join folded in: each block is encoded once, its
 * bits copied once, and no slot goes through device memory. The other scheme, a length-only
 * pass of the encoder, the scan, then a second encode into place, pays for most of an encode
 * twice (bench/results/h100/bench_gpu_encode_schemes.md compares the two). */
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <cub/device/device_scan.cuh>

#include "codecs.h"
#include "encode_launch.cuh"
#include "gpu_codecs.h"
#include "stored.h"

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

/* The payload scratch share of chunk c. */
static size_t scratch_share(const parz_gpu_enc_chunk& c) {
  return padded(
      parz_codec_zfp.stream_bound((parz_type)c.type, c.dims, &c.params, (size_t)c.nblocks));
}

/* Whether chunk c's configuration masks values (it then has a set). */
static bool masks(const parz_gpu_enc_chunk& c) { return c.mask.nan || c.mask.fill; }

/* The mask pass over the chunks h[i] whose first pass met masked values (which[0..m)): their
 * set ranked, their blocks encoded again with the mask's stand-ins and facts, the records'
 * bytes counted for every candidate G, and their sizes read back into sizes (the call's second
 * wait). Their entries in h get the pass's fields. */
static int mask_pass(parz_gpu_context* ctx, const parz_gpu_codec* codec, parz_gpu_enc_chunk* h,
                     const size_t* which, size_t m, parz_gpu_enc_chunk* h_sub,
                     parz_gpu_enc_chunk* d_sub, parz_gpu_enc_sizes* d_sizes,
                     parz_gpu_enc_sizes* sizes, cudaStream_t st, parz_error* err) {
  size_t facts = 0, j;
  cudaError_t e = cudaSuccess;
  int rc;
  for (j = 0; j < m; j++) {
    const parz_gpu_enc_chunk& c = h[which[j]];
    facts += padded(4 * (size_t)c.nblocks) +
             padded(8 * (size_t)parz_gpu_mask_groups_before(c.nblocks, PARZ_GPU_MASK_GROUP_SIZES));
  }
  if ((rc = parz_gpu_reserve(&ctx->enc_facts, facts, 0, err)) != PARZ_OK)
    return rc;
  facts = 0;
  for (j = 0; j < m && e == cudaSuccess; j++) {
    parz_gpu_enc_chunk& c = h[which[j]];
    c.mask.pass = 1;
    c.mask.facts = (unsigned*)((char*)ctx->enc_facts.ptr + facts);
    facts += padded(4 * (size_t)c.nblocks);
    c.mask.group_bytes = (unsigned long long*)((char*)ctx->enc_facts.ptr + facts);
    facts += padded(8 * (size_t)parz_gpu_mask_groups_before(c.nblocks, PARZ_GPU_MASK_GROUP_SIZES));
    h_sub[j] = c;
    /* the first pass's bits out of the scratch: the mask pass ORs in its own */
    e = cudaMemsetAsync(c.scratch, 0, scratch_share(c), st);
  }
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(d_sub, h_sub, m * sizeof *h_sub, cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess)
    e = parz_gpu_launch_tiles(h_sub, d_sub, (unsigned)m, st);
  if (e == cudaSuccess)
    e = parz_gpu_launch_mask_rank(h_sub, d_sub, (unsigned)m, st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "preparing the mask pass");
  if ((rc = codec->launch_blocks(h_sub, d_sub, m, st, err)) != PARZ_OK)
    return rc;
  e = parz_gpu_launch_mask_lengths(h_sub, d_sub, (unsigned)m, st);
  if (e == cudaSuccess)
    e = parz_gpu_launch_sizes(d_sub, (unsigned)m, d_sizes, st);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(sizes, d_sizes, m * sizeof *sizes, cudaMemcpyDeviceToHost, st);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "encoding the blocks with their mask");
  return PARZ_OK;
}

/* The mask section of chunk c (its values are in place): the groups' starts, a scan of their
 * bytes into the section, then their records. */
static cudaError_t enqueue_mask(const parz_gpu_enc_chunk& c, void* scan, size_t scan_bytes,
                                cudaStream_t st) {
  const unsigned long long* bytes =
      c.mask.group_bytes + parz_gpu_mask_groups_before(c.nblocks, c.mask.k);
  cudaError_t e = cub::DeviceScan::ExclusiveSum(
      scan, scan_bytes, bytes,
      (unsigned long long*)(c.chunk + c.mask.at + PARZ_MASK_HEAD_BYTES + 8 * c.mask.nvalues),
      (int64_t)c.mask.ngroups, st);
  if (e == cudaSuccess)
    e = parz_gpu_launch_mask_records(c, st);
  return e;
}

/* Buffers given before the encode, each checked against its chunk's size: the caller's, or
 * (`again`) the places an earlier encode of the same chunks found, which they must fill exactly. */
struct given_places {
  void* const* d_chunks;
  const size_t* chunk_bytes;
  bool again;
};

static int place_given(void* arg, size_t n, const size_t* sizes, void** d_chunks, size_t* failed,
                       parz_error* err) {
  const given_places* g = (const given_places*)arg;
  for (size_t i = 0; i < n; i++) {
    if (g->again ? sizes[i] != g->chunk_bytes[i] : sizes[i] > g->chunk_bytes[i]) {
      if (failed)
        *failed = i;
      return g->again ? parz_fail(err, PARZ_ERR_STREAM,
                                  "a chunk encoded again came to %zu bytes, not %zu", sizes[i],
                                  g->chunk_bytes[i])
                      : parz_fail(err, PARZ_ERR_BUFFER, "%schunk needs %zu bytes, buffer has %zu",
                                  n > 1 ? "a " : "", sizes[i], g->chunk_bytes[i]);
    }
    d_chunks[i] = g->d_chunks[i];
  }
  return PARZ_OK;
}

/* The rare call that holds chunks to store: those are written through host memory, and the
 * others encoded again, alone, into the places they were given. */
static int store_and_encode_rest(parz_gpu_context* ctx, size_t n, const parz_array* arrays,
                                 const void* const* d_data, const parz_chunk_config* cfg,
                                 const char* stored, void* const* d_chunks, size_t* written,
                                 cudaStream_t st, size_t* failed, parz_error* err) {
  std::vector<parz_array> a;
  std::vector<const void*> data;
  std::vector<void*> places;
  std::vector<size_t> index, sizes, again;
  size_t i, sub_failed = 0;
  int rc;
  for (i = 0; i < n; i++) {
    if (stored[i]) {
      if ((rc = parz_gpu_store_chunk(&arrays[i], d_data[i], cfg, d_chunks[i], st, err)) !=
          PARZ_OK) {
        if (failed)
          *failed = i;
        return rc;
      }
      continue;
    }
    a.push_back(arrays[i]);
    data.push_back(d_data[i]);
    places.push_back(d_chunks[i]);
    index.push_back(i);
    sizes.push_back(written[i]);
  }
  if (index.empty())
    return PARZ_OK;
  again.resize(index.size());
  given_places g = {places.data(), sizes.data(), true};
  rc = parz_gpu_encode_placed(ctx, index.size(), a.data(), data.data(), cfg, place_given, &g,
                              again.data(), st, &sub_failed, err);
  if (rc != PARZ_OK && failed)
    *failed = index[sub_failed];
  return rc;
}

int parz_gpu_encode_placed(parz_gpu_context* ctx, size_t n, const parz_array* arrays,
                           const void* const* d_data, const parz_chunk_config* cfg,
                           parz_gpu_enc_place place, void* place_arg, size_t* written,
                           cudaStream_t st, size_t* failed, parz_error* err) {
  const size_t hb = PARZ_GPU_HEAD;
  const size_t sizes_bytes = n * sizeof(parz_gpu_enc_sizes);
  size_t i, scan = 0, scratch = 0, offsets = 0, tiles = 0, sets = 0;
  uint64_t ranges = 0;
  const parz_gpu_codec* codec;
  parz_chunk_view layout;
  cudaError_t e;
  int rc;
  if (!ctx || (n && (!arrays || !d_data || !cfg || !written)))
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_encode_device: NULL argument");
  if (n == 0)
    return PARZ_OK;
  /* the codec the configuration writes, once the layout has checked it (PARZ_ERR_PARAM for a
   * codec no encoder writes); one without a GPU encoder is refused before any work */
  if ((rc = parz_gpu_codec_encoder(&arrays[0], cfg, &layout, &codec, err)) != PARZ_OK) {
    if (failed)
      *failed = 0;
    return rc;
  }
  if (codec->encode_chunks) /* a scratch codec encodes its chunks whole */
    return codec->encode_chunks(ctx, n, arrays, d_data, cfg, place, place_arg, written, st, failed,
                                err);
  if ((e = cudaSetDevice(ctx->device)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");
  /* the pinned arguments and headers of the last call may still be on their way up */
  if ((e = cudaEventSynchronize(ctx->enc_uploaded)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "waiting for the last encode's uploads");
  /* the kernels' arguments, then the headers: one upload for both; then the arguments of the
   * mask pass */
  const size_t args = padded(n * sizeof(parz_gpu_enc_chunk)), up = args + n * hb;
  if ((rc = parz_gpu_reserve(&ctx->h_enc_args, up + args, 1, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_args, up + args, 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->h_enc_sizes, 2 * sizes_bytes, 1, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_sizes, 2 * sizes_bytes, 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_counts, n * 20, 0, err)))
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
    scratch += scratch_share(h[i]);
    offsets += padded(8 * (size_t)(h[i].nblocks + 1));
    tiles += parz_gpu_tile_bytes(h[i].nblocks);
    /* integers have exceptions too (lossy modes, magnitudes zfp cannot hold) */
    if (h[i].rule.mask)
      ranges = PARZ_MAX(ranges, (h[i].count + PARZ_GPU_EXC_RANGE - 1) / PARZ_GPU_EXC_RANGE);
    if (masks(h[i])) { /* the mask's group starts share the scan */
      ranges = PARZ_MAX(ranges, parz_gpu_mask_groups(h[i].nblocks, 0));
      sets += padded(sizeof(parz_gpu_mask_set));
    }
  }
  if (ranges && (e = cub::DeviceScan::ExclusiveSum(NULL, scan, (const unsigned long long*)NULL,
                                                   (unsigned long long*)NULL, (int64_t)ranges)))
    return parz_gpu_cuda_fail(err, e, "sizing the scan");
  if ((rc = parz_gpu_reserve(&ctx->enc_offsets, offsets, 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_tiles, tiles, 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_scan, padded(scan), 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_exc, 16 * ranges, 0, err)) ||
      (rc = parz_gpu_reserve(&ctx->enc_mask, sets, 0, err)) ||
      (rc = scratch_reserve(ctx, scratch, st, err)))
    return rc;
  scratch = offsets = tiles = sets = 0;
  for (i = 0; i < n; i++) {
    h[i].scratch = (unsigned long long*)((char*)ctx->enc_scratch.ptr + scratch);
    h[i].offsets = (unsigned long long*)((char*)ctx->enc_offsets.ptr + offsets);
    h[i].tiles = (char*)ctx->enc_tiles.ptr + tiles;
    /* counters: n exception counts, then n CRC registers, n version-2 flags, n risk flags */
    h[i].nexc = (unsigned long long*)ctx->enc_counts.ptr + i;
    h[i].crc = (uint32_t*)((unsigned long long*)ctx->enc_counts.ptr + n) + i;
    h[i].needs2 = (unsigned*)((unsigned long long*)ctx->enc_counts.ptr + n) + n + i;
    h[i].risky = (unsigned*)((unsigned long long*)ctx->enc_counts.ptr + n) + 2 * n + i;
    if (masks(h[i])) {
      h[i].mask.set = (parz_gpu_mask_set*)((char*)ctx->enc_mask.ptr + sets);
      sets += padded(sizeof(parz_gpu_mask_set));
    }
    scratch += scratch_share(h[i]);
    offsets += padded(8 * (size_t)(h[i].nblocks + 1));
    tiles += parz_gpu_tile_bytes(h[i].nblocks);
  }

  /* the blocks and the sizes */
  e = cudaMemcpyAsync(d, h, n * sizeof *h, cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess && sets)
    e = cudaMemsetAsync(ctx->enc_mask.ptr, 0, sets, st);
  if (e == cudaSuccess)
    e = parz_gpu_launch_tiles(h, d, (unsigned)n, st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "preparing the encode");
  if ((rc = codec->launch_blocks(h, d, n, st, err)))
    return rc;
  e = parz_gpu_launch_sizes(d, (unsigned)n, (parz_gpu_enc_sizes*)ctx->enc_sizes.ptr, st);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(ctx->h_enc_sizes.ptr, ctx->enc_sizes.ptr, sizes_bytes,
                        cudaMemcpyDeviceToHost, st);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "encoding the blocks");

  /* chunks holding masked values: the mask pass, its sizes in place of the first pass's */
  parz_gpu_enc_sizes* sizes = (parz_gpu_enc_sizes*)ctx->h_enc_sizes.ptr;
  std::vector<size_t> which, mask_bytes(n, 0);
  for (i = 0; i < n; i++) {
    const parz_gpu_enc_sizes* s = sizes + i;
    if (s->risky) {
      if (failed)
        *failed = i;
      return parz_gpu_enc_risk_refuse(err);
    }
    if (!s->masked)
      continue;
    if (s->overflow) {
      if (failed)
        *failed = i;
      return parz_gpu_enc_mask_refuse(err);
    }
    which.push_back(i);
  }
  if (!which.empty()) {
    parz_gpu_enc_sizes* again = sizes + n;
    rc = mask_pass(ctx, codec, h, which.data(), which.size(), (parz_gpu_enc_chunk*)((char*)h + up),
                   (parz_gpu_enc_chunk*)((char*)d + up),
                   (parz_gpu_enc_sizes*)ctx->enc_sizes.ptr + n, again, st, err);
    if (rc != PARZ_OK)
      return rc;
    for (size_t j = 0; j < which.size(); j++) {
      parz_gpu_enc_sizes* s = sizes + which[j];
      const parz_gpu_enc_sizes* t = again + j;
      s->payload_bits = t->payload_bits;
      s->nexceptions = t->nexceptions;
      s->needs2 = t->needs2;
      mask_bytes[which[j]] =
          parz_gpu_enc_mask_layout(&h[which[j]], (unsigned)t->nvalues, t->record_bytes);
    }
  }

  /* each chunk's layout and header, as the serial encoder settles them, then its place */
  for (i = 0; i < n; i++) {
    const parz_gpu_enc_sizes* s = sizes + i;
    rc = parz_gpu_enc_settle(&h[i], &arrays[i], cfg, s->payload_bits, s->nexceptions,
                             (unsigned)s->needs2, mask_bytes[i], heads + i * hb, &written[i], err);
    if (rc != PARZ_OK) {
      if (failed)
        *failed = i;
      return rc;
    }
  }
  /* a chunk its encoding makes larger than its values is stored (codec/stored/stored.h) */
  std::vector<char> stored(n, 0);
  size_t nstored = 0;
  if (cfg->stored == PARZ_STORED_WHEN_SMALLER)
    for (i = 0; i < n; i++) {
      const size_t bytes = parz_stored_bytes(&arrays[i], cfg);
      if (written[i] > bytes) {
        stored[i] = 1;
        written[i] = bytes;
        nstored++;
      }
    }
  std::vector<void*> d_chunks(n);
  if ((rc = place(place_arg, n, written, d_chunks.data(), failed, err)) != PARZ_OK)
    return rc;
  if (nstored)
    return store_and_encode_rest(ctx, n, arrays, d_data, cfg, stored.data(), d_chunks.data(),
                                 written, st, failed, err);
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
  if (e == cudaSuccess && !which.empty())
    e = parz_gpu_launch_mask_values(h, d, (unsigned)n, st);
  for (i = 0; i < which.size() && e == cudaSuccess; i++)
    e = enqueue_mask(h[which[i]], ctx->enc_scan.ptr, scan, st);
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
  given_places g = {d_chunks, chunk_bytes, false};
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
