/* Device discovery, the reusable context (streams, events, grow-only buffers), CUDA errors. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <thread>

#include "gpu_codecs.h"
#include "view_fits.h"

int parz_gpu_cuda_fail(parz_error* err, cudaError_t e, const char* what) {
  cudaGetLastError(); /* clear a non-sticky error so that a later call may succeed */
  return parz_fail(err, PARZ_ERR_DEVICE, "CUDA error while %s: %s (%s)", what,
                   cudaGetErrorString(e), cudaGetErrorName(e));
}

extern "C" int parz_gpu_available(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n > 0;
}

int parz_gpu_reserve(parz_gpu_buffer* b, size_t bytes, int pinned, parz_error* err) {
  cudaError_t e;
  if (bytes <= b->bytes)
    return PARZ_OK;
  if (b->ptr) {
    e = pinned ? cudaFreeHost(b->ptr) : cudaFree(b->ptr);
    b->ptr = NULL;
    b->bytes = 0;
    if (e != cudaSuccess)
      return parz_gpu_cuda_fail(err, e, "freeing a buffer");
  }
  e = pinned ? cudaMallocHost(&b->ptr, bytes) : cudaMalloc(&b->ptr, bytes);
  if (e != cudaSuccess) {
    b->ptr = NULL;
    return parz_gpu_cuda_fail(
        err, e, pinned ? "allocating pinned host memory" : "allocating device memory");
  }
  b->bytes = bytes;
  return PARZ_OK;
}

int parz_gpu_reserve_slack(parz_gpu_buffer* b, size_t bytes, int pinned, parz_error* err) {
  return bytes <= b->bytes ? PARZ_OK : parz_gpu_reserve(b, bytes + bytes / 2, pinned, err);
}

int parz_gpu_enc_pool(parz_gpu_context* ctx, cudaMemPool_t* pool, parz_error* err) {
  if (!ctx->enc_pool) {
    cudaMemPoolProps props;
    cudaMemPool_t made;
    uint64_t keep = UINT64_MAX; /* the bytes held before a synchronization releases any */
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = ctx->device;
    cudaError_t e = cudaMemPoolCreate(&made, &props);
    if (e != cudaSuccess)
      return parz_gpu_cuda_fail(err, e, "creating the encoders' memory pool");
    e = cudaMemPoolSetAttribute(made, cudaMemPoolAttrReleaseThreshold, &keep);
    if (e != cudaSuccess) {
      cudaMemPoolDestroy(made);
      return parz_gpu_cuda_fail(err, e, "setting the encoders' memory pool");
    }
    ctx->enc_pool = made;
  }
  *pool = ctx->enc_pool;
  return PARZ_OK;
}

static void release(parz_gpu_buffer* b, int pinned) {
  if (b->ptr) {
    if (pinned)
      cudaFreeHost(b->ptr);
    else
      cudaFree(b->ptr);
  }
  b->ptr = NULL;
  b->bytes = 0;
}

extern "C" void parz_gpu_context_free(parz_gpu_context* ctx) {
  int i;
  if (!ctx)
    return;
  cudaSetDevice(ctx->device);
  if (ctx->stream)
    cudaStreamSynchronize(ctx->stream);
  if (ctx->copy_stream)
    cudaStreamSynchronize(ctx->copy_stream);
  if (ctx->args_copied)
    cudaEventSynchronize(ctx->args_copied); /* a batch's upload from h_args */
  if (ctx->enc_uploaded)
    cudaEventSynchronize(ctx->enc_uploaded); /* an encode's upload from h_enc_args */
  if (ctx->codec_copied)
    cudaEventSynchronize(ctx->codec_copied); /* a codec's upload from h_codec */
  release(&ctx->d_offsets, 0);
  release(&ctx->d_rel, 0);
  release(&ctx->d_ready, 0);
  release(&ctx->d_mask, 0);
  release(&ctx->d_fault, 0);
  release(&ctx->h_fault, 1);
  release(&ctx->d_codec, 0);
  release(&ctx->h_codec, 1);
  release(&ctx->h_args, 1);
  release(&ctx->d_args, 0);
  release(&ctx->d_run_sums, 0);
  release(&ctx->d_places, 0);
  release(&ctx->d_chunk, 0);
  release(&ctx->d_out, 0);
  release(&ctx->h_in, 1);
  release(&ctx->h_out, 1);
  release(&ctx->enc_scratch, 0);
  release(&ctx->bnd_scratch, 0);
  if (ctx->enc_pool)
    cudaMemPoolDestroy(ctx->enc_pool);
  release(&ctx->enc_offsets, 0);
  release(&ctx->enc_tiles, 0);
  release(&ctx->enc_scan, 0);
  release(&ctx->enc_counts, 0);
  release(&ctx->enc_exc, 0);
  release(&ctx->enc_sizes, 0);
  release(&ctx->enc_mask, 0);
  release(&ctx->enc_facts, 0);
  release(&ctx->h_enc_sizes, 1);
  release(&ctx->enc_args, 0);
  release(&ctx->h_enc_args, 1);
  release(&ctx->d_result, 0);
  for (i = 0; i < PARZ_GPU_PIECES_MAX; i++)
    if (ctx->piece_done[i])
      cudaEventDestroy(ctx->piece_done[i]);
  if (ctx->args_copied)
    cudaEventDestroy(ctx->args_copied);
  if (ctx->enc_uploaded)
    cudaEventDestroy(ctx->enc_uploaded);
  if (ctx->codec_copied)
    cudaEventDestroy(ctx->codec_copied);
  if (ctx->stream)
    cudaStreamDestroy(ctx->stream);
  if (ctx->copy_stream)
    cudaStreamDestroy(ctx->copy_stream);
  cudaGetLastError();
  parz_host_pool_free(ctx->host_pool);
  free(ctx);
}

extern "C" int parz_gpu_context_create(parz_gpu_context** out, int device, parz_error* err) {
  parz_gpu_context* ctx;
  cudaError_t e;
  int i, rc, n = 0;
  unsigned hw;
  if (!out)
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_context_create: NULL argument");
  *out = NULL;
  e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "looking for a CUDA device");
  if (device < 0 || device >= n)
    return parz_fail(err, PARZ_ERR_DEVICE, "CUDA device %d requested, %d present", device, n);
  ctx = (parz_gpu_context*)calloc(1, sizeof *ctx);
  if (!ctx)
    return parz_fail(err, PARZ_ERR_NOMEM, "no memory for a GPU context");
  ctx->device = device;
  ctx->refused = SIZE_MAX;
  hw = std::thread::hardware_concurrency();
  ctx->host_pool =
      parz_host_pool_create(hw ? (int)(hw < 8 ? hw : 8) : 4, parz_host_pool_spin_from_env());
  ctx->upload_piece = (size_t)1 << 20;
  e = cudaSetDevice(device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&ctx->sm_count, cudaDevAttrMultiProcessorCount, device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&ctx->cc_major, cudaDevAttrComputeCapabilityMajor, device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&ctx->smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                               device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&ctx->smem_per_cta, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&ctx->smem_reserved, cudaDevAttrReservedSharedMemoryPerBlock,
                               device);
  if (e == cudaSuccess)
    e = cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking);
  if (e == cudaSuccess)
    e = cudaStreamCreateWithFlags(&ctx->copy_stream, cudaStreamNonBlocking);
  for (i = 0; e == cudaSuccess && i < PARZ_GPU_PIECES_MAX; i++)
    e = cudaEventCreateWithFlags(&ctx->piece_done[i], cudaEventDisableTiming);
  if (e == cudaSuccess)
    e = cudaEventCreateWithFlags(&ctx->args_copied, cudaEventDisableTiming);
  if (e == cudaSuccess)
    e = cudaEventCreateWithFlags(&ctx->enc_uploaded, cudaEventDisableTiming);
  if (e == cudaSuccess)
    e = cudaEventCreateWithFlags(&ctx->codec_copied, cudaEventDisableTiming);
  if (e != cudaSuccess) {
    rc = parz_gpu_cuda_fail(err, e, "creating the GPU context");
    parz_gpu_context_free(ctx);
    return rc;
  }
  *out = ctx;
  return PARZ_OK;
}

/* Rounds a share up to 16 bytes, so that every chunk's offsets start aligned. */
static size_t share(size_t bytes) { return (bytes + 15) & ~(size_t)15; }

/* Block offsets are kept only where segments of several blocks are parsed. */
static size_t rel_bytes(const parz_chunk_view* v) {
  const int parsed = v->segment_blocks > 1 && v->params.minbits != v->params.maxbits;
  return parsed ? share(4 * (size_t)v->nblocks) : 0;
}

/* The launches' tokens (decode_kernels.cuh): one per segment where segments are parsed, then
 * one per mask group where the chunk has a mask. */
static size_t segment_tokens_bytes(const parz_chunk_view* v) {
  return rel_bytes(v) ? share(8 * (size_t)v->nsegments) : 0;
}

size_t parz_gpu_ready_groups(const parz_chunk_view* v) { return segment_tokens_bytes(v) / 8; }

static size_t ready_bytes(const parz_chunk_view* v) {
  return segment_tokens_bytes(v) + (v->mask.nvalues ? share(8 * (size_t)v->mask.ngroups) : 0);
}

/* parz_gpu_reserve, zeroing what it allocates: the ready tokens must never equal a launch's
 * token before that launch writes it. The context's streams do not wait for the null stream's
 * memset, so this waits for it (only when the buffer grows). */
static int reserve_zeroed(parz_gpu_buffer* b, size_t bytes, parz_error* err) {
  cudaError_t e;
  int rc;
  if (bytes <= b->bytes)
    return PARZ_OK;
  if ((rc = parz_gpu_reserve(b, bytes, 0, err)) != PARZ_OK)
    return rc;
  if ((e = cudaMemset(b->ptr, 0, bytes)) != cudaSuccess || (e = cudaDeviceSynchronize()) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "clearing the parse tokens");
  return PARZ_OK;
}

/* A mask map for chunks with a mask (mask.cuh). */
static size_t mask_bytes(const parz_chunk_view* v) {
  return v->mask.nvalues ? share(4 * (size_t)v->nblocks) : 0;
}

/* What the chunk's GPU codec asks for beyond the frame's scratch (gpu_codecs.h). */
static size_t codec_bytes(const parz_chunk_view* v, size_t* pinned) {
  const parz_gpu_codec* c = parz_gpu_codec_find(v->codec);
  *pinned = 0;
  return c && c->scratch_bytes ? c->scratch_bytes(v, pinned) : 0;
}

/* A chunk's segment offsets (one per segment and the payload's end), then its partitions'
 * checksum sums. */
static size_t offsets_bytes(const parz_chunk_view* v) {
  return 8 * ((size_t)v->nsegments + 1 + (size_t)v->nchecksums);
}

int parz_gpu_scratch_reserve(parz_gpu_context* ctx, const parz_chunk_view* views, size_t n,
                             parz_gpu_scratch* s, parz_error* err) {
  size_t offsets = 0, rel = 0, ready = 0, mask = 0, codec = 0, pinned = 0, i;
  int rc;
  cudaError_t e;
  for (i = 0; i < n; i++) {
    size_t p;
    if ((rc = parz_gpu_view_fits(&views[i], i, err)) != PARZ_OK)
      return rc;
    offsets += share(offsets_bytes(&views[i]));
    rel += rel_bytes(&views[i]);
    ready += ready_bytes(&views[i]);
    mask += mask_bytes(&views[i]);
    codec += share(codec_bytes(&views[i], &p));
    pinned += share(p);
  }
  /* the last call's codecs may still be uploading from h_codec */
  if (pinned && (e = cudaEventSynchronize(ctx->codec_copied)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "waiting for the last call's codec uploads");
  /* new fault records hold garbage until cleared */
  if (n * sizeof(parz_gpu_fault) > ctx->d_fault.bytes)
    ctx->fault_clean = 0;
  if ((rc = parz_gpu_reserve(&ctx->d_offsets, offsets, 0, err)) != PARZ_OK ||
      (rc = parz_gpu_reserve(&ctx->d_rel, rel, 0, err)) != PARZ_OK ||
      (rc = reserve_zeroed(&ctx->d_ready, ready, err)) != PARZ_OK ||
      (rc = parz_gpu_reserve(&ctx->d_mask, mask, 0, err)) != PARZ_OK ||
      (rc = parz_gpu_reserve(&ctx->d_codec, codec, 0, err)) != PARZ_OK ||
      (rc = parz_gpu_reserve(&ctx->h_codec, pinned, 1, err)) != PARZ_OK ||
      (rc = parz_gpu_reserve(&ctx->d_fault, n * sizeof(parz_gpu_fault), 0, err)) != PARZ_OK ||
      (rc = parz_gpu_reserve(&ctx->h_fault, n * sizeof(parz_gpu_fault), 1, err)) != PARZ_OK)
    return rc;
  offsets = rel = ready = mask = codec = pinned = 0;
  for (i = 0; i < n; i++) {
    size_t p;
    const size_t c = codec_bytes(&views[i], &p);
    s[i].offsets = (unsigned long long*)((char*)ctx->d_offsets.ptr + offsets);
    s[i].sums = s[i].offsets + views[i].nsegments + 1;
    s[i].rel = (uint32_t*)((char*)ctx->d_rel.ptr + rel);
    s[i].ready = (unsigned long long*)((char*)ctx->d_ready.ptr + ready);
    s[i].mask = mask_bytes(&views[i]) ? (uint32_t*)((char*)ctx->d_mask.ptr + mask) : NULL;
    s[i].fault = (parz_gpu_fault*)ctx->d_fault.ptr + i;
    s[i].codec = c ? (char*)ctx->d_codec.ptr + codec : NULL;
    s[i].h_codec = p ? (unsigned char*)ctx->h_codec.ptr + pinned : NULL;
    offsets += share(offsets_bytes(&views[i]));
    rel += rel_bytes(&views[i]);
    ready += ready_bytes(&views[i]);
    mask += mask_bytes(&views[i]);
    codec += share(c);
    pinned += share(p);
  }
  return PARZ_OK;
}
