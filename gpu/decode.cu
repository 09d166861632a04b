/* Segment decode scheme choice and the device API; the kernels are in decode_kernels.cuh.
 *
 * Why not one thread per segment (THREAD, Noordsij 2019's decoder): its parallelism is
 * nsegments, so it starves the GPU as soon as C is large enough for a small table, and a warp's
 * 32 lanes write 32 blocks C blocks apart (uncoalesced). Two schemes decouple the two:
 * - BLOCK (the default): kernel 1 parses block lengths only, G segments per warp, one lane each
 *   (block_skip.cuh), and writes every block's bit offset within its segment to a u32 array;
 *   kernel 2 decodes one block per thread, neighbouring threads taking neighbouring blocks, so
 *   the stores of a warp land in the same rows. C then only sets the length of kernel 1's
 *   serial walk, which costs a fraction of decoding.
 * - WARP: a warp takes G consecutive segments and works in rounds of K blocks per segment: lane
 *   l < G walks K blocks of segment l, writing offsets to shared memory; then all 32 lanes decode
 *   the G*K blocks. Kept for chunks of more than 2^32 blocks and for comparison.
 * Fixed-rate chunks parse nothing (every block is maxbits). Values are decoded by
 * parz_decode_block's width functions from codec/block_decode.h, the code the CPU runs, except
 * 1D/2D blocks in modes without a budget limit, which BLOCK decodes with the window decoder of
 * block_small.cuh (same transform and cast code); the output is bit-identical either way. */
#include <stdlib.h>
#include <string.h>

#include "decode_kernels.cuh"

/* BLOCK unless tuned otherwise, or WARP where block indices would not fit in 32 bits. */
static int choose_scheme(const parz_gpu_context* ctx, const parz_chunk_view* v)
{
  const int scheme = ctx->tuning.scheme ? ctx->tuning.scheme : PARZ_GPU_SCHEME_BLOCK;
  return scheme == PARZ_GPU_SCHEME_BLOCK && v->nblocks > UINT32_MAX ? PARZ_GPU_SCHEME_WARP
                                                                     : scheme;
}

int parz_gpu_parse_offsets(const parz_gpu_context* ctx, const parz_chunk_view* v)
{
  return choose_scheme(ctx, v) == PARZ_GPU_SCHEME_BLOCK && v->segment_blocks > 1 &&
         v->params.minbits != v->params.maxbits && v->table == PARZ_TABLE_HYBRID;
}

/* The scheme, G and K for a chunk (tuning fields override), given BLOCK's length parser. The
 * rules come from sweeps of G with bench/bench_gpu_kernel on an H100 (132 SMs; bench_gpu_g.md,
 * a run listed in bench/README.md):
 * - BLOCK everywhere: one thread per block in the decode kernel, so C only matters to the
 *   length parse. Its G (segments per warp in the parse) starts at 32 and is halved while
 *   fewer than W parse warps per SM would run:
 *   - the 1D/2D lockstep parser, lossy modes: W = 4 (one warp per scheduler), G >= 8. Its
 *     lanes stay in step, so more of them per warp cost little, and a smaller G only spreads
 *     the same chains over more warps. On etopo5 (accuracy 1e-2) that gives G = 32, 32, 32, 16
 *     at C = 8, 16, 32, 64, and on the 4 MB arrays egm96 and hst (accuracy 1e-3, C = 16 and 32)
 *     G = 8: each the best measured or within 1%. With it those two arrays decode 1.4x to 1.9x
 *     as fast as with the rule below (accuracy 1e-3 and precision 16);
 *   - the lockstep parser in reversible mode, whose reloads after long raw runs diverge:
 *     W = 8, G >= 8 (etopo5 at C = 32: G = 16, 216 against 190 GiB/s with G = 32);
 *   - the other parsers (3D, 4D), whose lanes diverge at every plane: W = 8, G >= 1. On vasp,
 *     levitus and ccsm (accuracy 1e-3 and reversible, C = 16 and 32) the best G was 1, which is
 *     what this gives but for vasp at C = 16 (G = 2: 118 against 133 GiB/s).
 * - WARP (G from 32 down to 4 keeping 12 warps per SM) only where block indices would not fit
 *   in 32 bits (over 2^32 blocks, far beyond any HDF5 chunk). */
static void plan(const parz_gpu_context* ctx, const parz_chunk_view* v, uint64_t nsegments,
                 int parser, int* scheme, unsigned* G, unsigned* K)
{
  const parz_gpu_tuning* t = &ctx->tuning;
  const unsigned long long sms = (unsigned long long)ctx->sm_count;
  *scheme = choose_scheme(ctx, v);
  *K = t->round_blocks ? (unsigned)t->round_blocks : PARZ_MIN(v->segment_blocks, MAX_ROUND);
  if (*K > v->segment_blocks)
    *K = v->segment_blocks;
  if (t->group) {
    *G = (unsigned)t->group;
  } else if (*scheme == PARZ_GPU_SCHEME_BLOCK) {
    const int lockstep = parser == PARZ_GPU_SKIP_SMALL;
    const int lossy = v->params.minexp >= PARZ_MIN_EXP;
    const unsigned gmin = lockstep ? 8 : 1, warps = lockstep && lossy ? 4 : 8;
    *G = 32;
    while (*G > gmin && nsegments / *G < warps * sms)
      *G /= 2;
  } else {
    *G = 32;
    while (*G > 4 && nsegments / *G < 12 * sms)
      *G /= 2;
  }
}

/* A chunk's segments [first, first + count) as kernel arguments, with `busy` segments decoded
 * in the same launch (plan's G rule counts them all). */
static void seg_setup(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                      void* d_dst, uint64_t first, uint64_t count, uint64_t busy,
                      const parz_gpu_scratch* s, seg_args* a, int* scheme)
{
  unsigned k;
  memset(a, 0, sizeof *a);
  a->payload = (const unsigned char*)d_chunk + parz_gpu_payload_offset(v);
  a->payload_bytes = v->payload_bytes;
  a->offsets = s->offsets;
  if (parz_gpu_parse_offsets(ctx, v)) {
    a->table = (const unsigned char*)d_chunk + parz_gpu_table_offset(v);
    a->table_P = v->partition_segments;
    a->record_bytes = parz_gpu_record_bytes(v);
    a->width = v->length_bytes;
  }
  a->nblocks = v->nblocks;
  a->first = first;
  a->end = first + count;
  for (k = 0; k < v->array.dims; k++) {
    a->shape[k] = v->array.shape[k];
    a->bgrid[k] = (v->array.shape[k] + 3) / 4;
  }
  a->params = v->params;
  a->C = v->segment_blocks;
  a->fixed = v->params.minbits == v->params.maxbits;
  if (ctx->tuning.skip == PARZ_GPU_SKIP_AUTO &&
      parz_skip_small_ok(v->array.type, v->array.dims, &v->params))
    a->parser = PARZ_GPU_SKIP_SMALL;
  else if (ctx->tuning.skip != PARZ_GPU_SKIP_BLOCK &&
           parz_skip_segment_ok(v->array.type, v->array.dims, &v->params))
    a->parser = PARZ_GPU_SKIP_SEGMENT;
  else
    a->parser = PARZ_GPU_SKIP_BLOCK;
  plan(ctx, v, busy, a->parser, scheme, &a->G, &a->K);
  a->vec = ((uintptr_t)d_dst % 16 == 0) && v->array.shape[v->array.dims - 1] % 4 == 0;
  a->dst = d_dst;
  a->fault = s->fault;
  a->pdl = ctx->cc_major >= 9;
  a->block_end = PARZ_MIN(a->end * a->C, v->nblocks);
  if (*scheme == PARZ_GPU_SCHEME_BLOCK && block_parses(*a)) {
    a->rel = s->rel; /* parz_gpu_scratch_reserve gave the chunk its share */
    a->parse_ctas = (unsigned)lengths_ctas(*a);
  }
  a->decode_ctas = (unsigned)block_ctas(*a);
  if (v->mask.nvalues) { /* the groups holding blocks [first * C, block_end) */
    parz_gpu_mask* m = &a->mask;
    m->values = (const unsigned char*)d_chunk + parz_gpu_section_offset(v, v->mask.values);
    m->starts = (const unsigned char*)d_chunk + parz_gpu_section_offset(v, v->mask.starts);
    m->records = (const unsigned char*)d_chunk + parz_gpu_section_offset(v, v->mask.records);
    m->record_bytes = v->mask.record_bytes;
    m->ngroups = v->mask.ngroups;
    m->nblocks = v->nblocks;
    m->map = s->mask;
    m->G = v->mask.group_blocks;
    m->V = v->mask.nvalues;
    m->dims = v->array.dims;
    m->group_first = first * a->C / m->G;
    m->group_end = a->block_end > first * a->C ? (a->block_end - 1) / m->G + 1 : m->group_first;
    a->mask_ctas = (unsigned)parz_gpu_mask_ctas(*m, WARPS_PER_CTA);
  }
  if (v->nchecksums) { /* the partitions whose first segment is in [first, end) */
    const unsigned long long P = v->checksum_segments;
    a->sums.sums = (const unsigned char*)d_chunk + parz_gpu_checksums_offset(v);
    a->sums.table = v->table == PARZ_TABLE_HYBRID
                        ? (const unsigned char*)d_chunk + parz_gpu_table_offset(v)
                        : NULL;
    a->sums.offsets = s->offsets;
    a->sums.record_bytes = parz_gpu_record_bytes(v);
    a->sums.P = P;
    a->sums.count = v->nchecksums;
    a->sums.payload_end = 8ull * v->payload_bytes;
    a->sum_first = (first + P - 1) / P;
    a->sum_end = PARZ_MIN((first + count + P - 1) / P, (unsigned long long)v->nchecksums);
    a->sum_ctas = (unsigned)((a->sum_end - a->sum_first + WARPS_PER_CTA - 1) / WARPS_PER_CTA);
  }
}

__global__ void __launch_bounds__(32 * WARPS_PER_CTA) checksum_kernel(const seg_args a)
{
  verify_body(a, (unsigned long long)blockIdx.x * WARPS_PER_CTA + (threadIdx.x >> 5));
}

cudaError_t parz_gpu_launch_checksums(const seg_args& a, cudaStream_t stream)
{
  checksum_kernel<<<a.sum_ctas, 32 * WARPS_PER_CTA, 0, stream>>>(a);
  return cudaGetLastError();
}

__global__ void __launch_bounds__(32 * WARPS_PER_CTA) mask_kernel(const seg_args a)
{
  parz_gpu_mask_expand(a.mask, (unsigned long long)blockIdx.x * WARPS_PER_CTA + (threadIdx.x >> 5));
}

cudaError_t parz_gpu_launch_mask(const seg_args& a, cudaStream_t stream)
{
  mask_kernel<<<a.mask_ctas, 32 * WARPS_PER_CTA, 0, stream>>>(a);
  return cudaGetLastError();
}

static int bad_type(parz_error* err, int type)
{
  return parz_fail(err, PARZ_ERR_TYPE, "unknown scalar type %d", type);
}

int parz_gpu_enqueue_segments(parz_gpu_context* ctx, const parz_chunk_view* v,
                              const void* d_chunk, void* d_dst, uint64_t first, uint64_t count,
                              const parz_gpu_scratch* s, cudaStream_t stream, parz_error* err)
{
  seg_args a;
  int scheme;
  if (count == 0)
    return PARZ_OK;
  seg_setup(ctx, v, d_chunk, d_dst, first, count, count, s, &a, &scheme);
  cudaError_t e;
  switch (v->array.type) {
    case PARZ_FLOAT: e = parz_gpu_launch_f32(v->array.dims, scheme, a, stream); break;
    case PARZ_DOUBLE: e = parz_gpu_launch_f64(v->array.dims, scheme, a, stream); break;
    case PARZ_INT32: e = parz_gpu_launch_i32(v->array.dims, scheme, a, stream); break;
    case PARZ_INT64: e = parz_gpu_launch_i64(v->array.dims, scheme, a, stream); break;
    default: return bad_type(err, (int)v->array.type);
  }
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "segment decode launch");
}

/* One chunk alone: its own launches, arguments by value. */
static int enqueue_one(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                       void* d_dst, const parz_gpu_scratch* s, cudaStream_t st, parz_error* err)
{
  int rc;
  if ((rc = parz_gpu_enqueue_offsets(ctx, v, d_chunk, s, st, err)) != PARZ_OK ||
      (rc = parz_gpu_enqueue_segments(ctx, v, d_chunk, d_dst, 0, v->nsegments, s, st, err)) !=
          PARZ_OK)
    return rc;
  return parz_gpu_enqueue_exceptions(ctx, v, d_chunk, d_dst, st, err);
}

/* Chunks [0, n) of one type and rank, all BLOCK, in one launch per kernel: their arguments go
 * to the device in one copy from `h_args` (pinned, this run's own part of it). */
static int enqueue_run(parz_gpu_context* ctx, const parz_chunk_view* v, const void* const* d_chunks,
                       void* const* d_dsts, size_t n, const parz_gpu_scratch* s,
                       unsigned char* h_args, unsigned char* d_args, cudaStream_t st,
                       parz_error* err)
{
  seg_args* hs = (seg_args*)h_args;
  parz_gpu_table_args* ht = (parz_gpu_table_args*)(hs + n);
  uint64_t busy = 0;
  size_t i, m = 0;
  int scheme, rc;
  cudaError_t e;
  for (i = 0; i < n; i++)
    busy += v[i].nsegments;
  for (i = 0; i < n; i++) {
    seg_setup(ctx, &v[i], d_chunks[i], d_dsts[i], 0, v[i].nsegments, busy, &s[i], &hs[i],
              &scheme);
    m += parz_gpu_table_args_init(ctx, &v[i], d_chunks[i], &s[i], &ht[m]);
  }
  e = cudaMemcpyAsync(d_args, h_args, n * sizeof *hs + m * sizeof *ht, cudaMemcpyHostToDevice,
                      st);
  if (e == cudaSuccess)
    e = cudaEventRecord(ctx->args_copied, st);
  if (e == cudaSuccess && m)
    e = parz_gpu_launch_offsets(ht, (const parz_gpu_table_args*)((seg_args*)d_args + n),
                                (unsigned)m, st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "segment offsets launch");
  const seg_args* ds = (const seg_args*)d_args;
  const unsigned dims = v[0].array.dims, count = (unsigned)n;
  switch (v[0].array.type) {
    case PARZ_FLOAT: e = parz_gpu_launch_batch_f32(dims, hs, ds, count, st); break;
    case PARZ_DOUBLE: e = parz_gpu_launch_batch_f64(dims, hs, ds, count, st); break;
    case PARZ_INT32: e = parz_gpu_launch_batch_i32(dims, hs, ds, count, st); break;
    case PARZ_INT64: e = parz_gpu_launch_batch_i64(dims, hs, ds, count, st); break;
    default: return bad_type(err, (int)v[0].array.type);
  }
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "segment decode launch");
  for (i = 0; i < n; i++)
    if ((rc = parz_gpu_enqueue_exceptions(ctx, &v[i], d_chunks[i], d_dsts[i], st, err)) !=
        PARZ_OK)
      return rc;
  return PARZ_OK;
}

/* Chunks per run: gridDim.y's limit. */
#define RUN_MAX 65535

int parz_gpu_enqueue_chunks(parz_gpu_context* ctx, const parz_chunk_view* views,
                            const void* const* d_chunks, void* const* d_dsts, size_t n,
                            const parz_gpu_scratch* s, cudaStream_t st, parz_error* err)
{
  const size_t per = sizeof(seg_args) + sizeof(parz_gpu_table_args);
  size_t i = 0, j;
  int rc;
  if (n > 1) {
    /* the last call's arguments may still be on their way up from h_args */
    cudaError_t e = cudaEventSynchronize(ctx->args_copied);
    if (e != cudaSuccess)
      return parz_gpu_cuda_fail(err, e, "waiting for the last batch's arguments");
    if ((rc = parz_gpu_reserve(&ctx->h_args, n * per, 1, err)) != PARZ_OK ||
        (rc = parz_gpu_reserve(&ctx->d_args, n * per, 0, err)) != PARZ_OK)
      return rc;
  }
  while (i < n) {
    const parz_chunk_view* v = &views[i];
    j = i + 1;
    if (choose_scheme(ctx, v) == PARZ_GPU_SCHEME_BLOCK)
      while (j < n && j - i < RUN_MAX && choose_scheme(ctx, &views[j]) == PARZ_GPU_SCHEME_BLOCK &&
             views[j].array.type == v->array.type && views[j].array.dims == v->array.dims)
        j++;
    if (j - i == 1)
      rc = enqueue_one(ctx, v, d_chunks[i], d_dsts[i], &s[i], st, err);
    else
      rc = enqueue_run(ctx, v, d_chunks + i, d_dsts + i, j - i, s + i,
                       (unsigned char*)ctx->h_args.ptr + i * per,
                       (unsigned char*)ctx->d_args.ptr + i * per, st, err);
    if (rc != PARZ_OK)
      return rc;
    i = j;
  }
  return PARZ_OK;
}

/* Checks the arguments of the device API. */
static int check_device_args(size_t n, const parz_chunk_view* views, const void* const* d_chunks,
                             void* const* d_dsts, parz_error* err)
{
  size_t i;
  if (n && (!views || !d_chunks || !d_dsts))
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_decode_device: NULL argument");
  for (i = 0; i < n; i++) {
    if (!d_chunks[i] || !d_dsts[i])
      return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_decode_device: NULL pointer for chunk %zu",
                       i);
    if ((uintptr_t)d_chunks[i] % 8)
      return parz_fail(err, PARZ_ERR_ARG,
                       "parz_gpu_decode_device: chunk %zu does not start at an 8-byte aligned "
                       "address",
                       i);
    const size_t size = parz_type_size(views[i].array.type);
    if (!size)
      return parz_fail(err, PARZ_ERR_TYPE, "parz_gpu_decode_device: chunk %zu has type %d", i,
                       (int)views[i].array.type);
    if ((uintptr_t)d_dsts[i] % size)
      return parz_fail(err, PARZ_ERR_ARG,
                       "parz_gpu_decode_device: the destination of chunk %zu is not aligned to "
                       "its %zu-byte values",
                       i, size);
  }
  return PARZ_OK;
}

extern "C" int parz_gpu_decode_device_batch(parz_gpu_context* ctx, size_t n,
                                            const parz_chunk_view* views,
                                            const void* const* d_chunks, void* const* d_dsts,
                                            void* stream, size_t* failed, parz_error* err)
{
  cudaStream_t st = (cudaStream_t)stream;
  parz_gpu_scratch one, *s = &one;
  cudaError_t e;
  int rc;
  if (!ctx)
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_decode_device: NULL context");
  if ((rc = check_device_args(n, views, d_chunks, d_dsts, err)) != PARZ_OK || n == 0)
    return rc;
  if ((e = cudaSetDevice(ctx->device)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");
  if (n > 1 && !(s = (parz_gpu_scratch*)malloc(n * sizeof *s)))
    return parz_fail(err, PARZ_ERR_NOMEM, "no memory for %zu chunks' scratch", n);
  if ((rc = parz_gpu_scratch_reserve(ctx, views, n, s, err)) == PARZ_OK &&
      (rc = parz_gpu_fault_clear(ctx, n, st, err)) == PARZ_OK &&
      (rc = parz_gpu_enqueue_chunks(ctx, views, d_chunks, d_dsts, n, s, st, err)) == PARZ_OK)
    rc = parz_gpu_fault_check(ctx, views, n, st, failed, err);
  if (s != &one)
    free(s);
  return rc;
}

extern "C" int parz_gpu_decode_device(parz_gpu_context* ctx, const parz_chunk_view* view,
                                      const void* d_chunk, void* d_dst, void* stream,
                                      parz_error* err)
{
  return parz_gpu_decode_device_batch(ctx, 1, view, &d_chunk, &d_dst, stream, NULL, err);
}
