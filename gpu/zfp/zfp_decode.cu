/* zfp's decode on the GPU: the shape of a chunk's launch, and zfp's entry in the GPU's codec
 * table (gpu_codecs.h); the kernels are in decode_kernels.cuh, the encoder's in
 * encode_kernels.cuh.
 *
 * One thread per segment would make the parallelism nsegments, starving the GPU as soon as C is
 * large enough for a small table, and a warp's 32 lanes would write 32 blocks C blocks apart
 * (uncoalesced). So the parse and the decode are decoupled: kernel 1 (lengths_kernel) parses
 * block lengths only, G segments per warp, one lane each (block_skip.cuh), and writes every
 * block's bit offset within its segment to a u32 array; kernel 2 (block_kernel) decodes one
 * block per thread, neighbouring threads taking neighbouring blocks, so the stores of a warp
 * land in the same rows. C then only sets the length of kernel 1's serial walk, which costs a
 * fraction of decoding. Fixed-rate chunks and C = 1 parse nothing (every block's start is
 * known). kernel 2 is launched while kernel 1 runs (programmatic dependent launch); in large
 * chunks each of its threads waits only for its own segment's parse (a token per segment,
 * seg_args.ready, wait_segment), so the blocks of the segments parsed first decode beside the
 * parse of the others. Values are decoded by parz_decode_block's width functions from codec/zfp/block_decode.h,
 * the code the CPU runs, except 1D/2D blocks in modes without a budget limit, which take the
 * window decoder of block_small.cuh (same transform and cast code); the output is bit-identical
 * either way. */
#include <string.h>

#include "decode_kernels.cuh"
#include "gpu_codecs.h"
#include "zfp_gpu.h"

int parz_gpu_parse_offsets(const parz_gpu_context* ctx, const parz_chunk_view* v) {
  (void)ctx;
  return v->segment_blocks > 1 && v->params.minbits != v->params.maxbits &&
         v->table == PARZ_TABLE_HYBRID;
}

/* The fastest length parser that applies to the chunk, or the one `forced` asks for
 * (PARZ_GPU_SKIP_SEGMENT: never the 1D/2D one; PARZ_GPU_SKIP_BLOCK: the general one). */
static int seg_parser(const parz_chunk_view* v, int forced) {
  if (forced == PARZ_GPU_SKIP_AUTO && parz_skip_small_ok(v->array.type, v->array.dims, &v->params))
    return PARZ_GPU_SKIP_SMALL;
  if (forced != PARZ_GPU_SKIP_BLOCK &&
      parz_skip_segment_ok(v->array.type, v->array.dims, &v->params))
    return PARZ_GPU_SKIP_SEGMENT;
  return PARZ_GPU_SKIP_BLOCK;
}

/* G, the segments per warp of the parse, for nsegments segments in one launch given the length
 * parser. The rule comes from sweeps of G with bench/bench_gpu_kernel (bench/README.md lists
 * the run, bench/results/h100/notes-from-code.md what it found). One thread per block in the
 * decode kernel, so C only matters to the length parse. G starts at 32 and is halved while
 * fewer than W parse warps per SM would run:
 * - the 1D/2D lockstep parser, lossy modes: W = 4 (one warp per scheduler), G >= 8. Its lanes
 *   stay in step, so more of them per warp cost little, and a smaller G only spreads the same
 *   chains over more warps;
 * - the lockstep parser in reversible mode, whose reloads after long raw runs diverge: W = 8,
 *   G >= 8;
 * - the other parsers (3D, 4D), whose lanes diverge at every plane: W = 8, G >= 1, since lanes
 *   that diverge gain little from sharing a warp. */
static unsigned plan(const parz_gpu_context* ctx, const parz_chunk_view* v, uint64_t nsegments,
                     int parser) {
  const unsigned long long sms = (unsigned long long)ctx->sm_count;
  const int lockstep = parser == PARZ_GPU_SKIP_SMALL;
  const int lossy = v->params.minexp >= PARZ_MIN_EXP;
  const unsigned gmin = lockstep ? 8 : 1, warps = lockstep && lossy ? 4 : 8;
  unsigned G = 32;
  while (G > gmin && nsegments / G < warps * sms)
    G /= 2;
  return G;
}

/* A launch's token for seg_args.ready: growing and never 0 in the context whose d_ready it is
 * written to, so no entry left by an earlier launch matches it. */
static unsigned long long next_token(parz_gpu_context* ctx) {
  return ++ctx->parse_token;
}

/* Whether a decoding thread waits for its own segment's parse (where the chunk is parsed) and
 * its mask group's expansion (where it has a mask) rather than for the whole grid of
 * lengths_kernel, with about `blocks` blocks decoded in the same launch; never without
 * programmatic dependent launch (the caller's test). Then the decode of the segments parsed
 * first runs beside the parse of the others -- which gains only where some CTAs of the decode
 * would otherwise wait for a slot until the parse ends: where the decode has more CTAs than fit
 * on the GPU at once (8 an SM here; block_kernel fits 10 of 128 threads at 48 registers, less
 * beside the parse). With fewer, every CTA is resident from the start, and the segment parsed
 * last still decodes after the parse either way. A masked chunk that parses nothing (C = 1,
 * fixed rate) decodes beside its mask's expansion, which only a block's last step needs; one
 * that parses keeps the grid wait, its expansion hidden under the parse, since the decode's
 * polling beside the parse slows it (bench/results/h200/gpu_decode_time.md). Reversible 1D/2D
 * chunks (`rev_small`: the lockstep parser in reversible mode) wait per segment at any size:
 * their segments decode sooner that way than behind the grid wait, while lossy 1D/2D chunks
 * of that size gain nothing (bench/results/h200/bench_gpu_kernel.md). */
static int wait_segment(const parz_gpu_context* ctx, uint64_t blocks, int parsed, int masked,
                        int rev_small, int wait) {
  if (wait != PARZ_GPU_WAIT_AUTO)
    return wait == PARZ_GPU_WAIT_SEGMENT;
  if (masked)
    return !parsed;
  if (parsed && rev_small)
    return 1;
  return blocks / 128 > 8ull * (unsigned long long)ctx->sm_count;
}

/* A chunk's segments [first, first + count) as kernel arguments, with `busy` segments decoded
 * in the same launch (plan's G rule counts them all). */
static void seg_setup(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                      void* d_dst, uint64_t first, uint64_t count, uint64_t busy,
                      const parz_gpu_scratch* s, const parz_gpu_shape* shape, seg_args* a) {
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
    /* below 2^32 wherever the decoder takes the chunk (parz_gpu_view_fits); 0 in an empty one */
    a->bdiv[k] = parz_fast_div_make((uint32_t)PARZ_MAX(1, PARZ_MIN(a->bgrid[k], 0xffffffffull)));
  }
  a->params = v->params;
  a->C = v->segment_blocks;
  a->fixed = v->params.minbits == v->params.maxbits;
  a->parser = seg_parser(v, shape ? shape->parser : PARZ_GPU_SKIP_AUTO);
  a->G = shape && shape->group ? PARZ_MIN(shape->group, 32u) : plan(ctx, v, busy, a->parser);
  a->vec = ((uintptr_t)d_dst % 16 == 0) && v->array.shape[v->array.dims - 1] % 4 == 0;
  a->dst = d_dst;
  a->fault = s->fault;
  a->pdl = ctx->cc_major >= 9;
  a->block_end = PARZ_MIN(a->end * a->C, v->nblocks);
  if (block_parses(*a)) {
    a->rel = s->rel; /* parz_gpu_scratch_reserve gave the chunk its share */
    a->ready = s->ready;
    a->parse_ctas = (unsigned)lengths_ctas(*a);
  }
  /* a token where lengths_kernel runs (a parse or a mask's expansion) */
  if (a->pdl && (block_parses(*a) || v->mask.nvalues) &&
      wait_segment(ctx, busy * a->C, block_parses(*a), v->mask.nvalues != 0,
                   a->parser == PARZ_GPU_SKIP_SMALL && v->params.minexp < PARZ_MIN_EXP,
                   shape ? shape->wait : PARZ_GPU_WAIT_AUTO))
    a->token = next_token(ctx);
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
    a->mask_ready = s->ready + parz_gpu_ready_groups(v);
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

static int bad_type(parz_error* err, int type) {
  return parz_fail(err, PARZ_ERR_TYPE, "unknown scalar type %d", type);
}

/* Enqueues the kernels of n chunks (seg_args h[0..n), the same at d in device memory; n = 1
 * and d = NULL: one chunk, arguments by value). */
static int launch(const parz_chunk_view* v, const seg_args* h, const seg_args* d, unsigned n,
                  cudaStream_t st, parz_error* err) {
  const unsigned dims = v->array.dims;
  cudaError_t e;
  switch (v->array.type) {
    case PARZ_FLOAT: e = parz_gpu_launch_f32(dims, h, d, n, st); break;
    case PARZ_DOUBLE: e = parz_gpu_launch_f64(dims, h, d, n, st); break;
    case PARZ_INT32: e = parz_gpu_launch_i32(dims, h, d, n, st); break;
    case PARZ_INT64: e = parz_gpu_launch_i64(dims, h, d, n, st); break;
    default: return bad_type(err, (int)v->array.type);
  }
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "segment decode launch");
}

static int enqueue_segments(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                            void* d_dst, uint64_t first, uint64_t count, const parz_gpu_scratch* s,
                            const parz_gpu_shape* shape, cudaStream_t stream, parz_error* err) {
  seg_args a;
  if (count == 0)
    return PARZ_OK;
  seg_setup(ctx, v, d_chunk, d_dst, first, count, count, s, shape, &a);
  return launch(v, &a, NULL, 1, stream, err);
}

static int enqueue_slice(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                         void* d_dst, uint64_t first, uint64_t count, const parz_gpu_scratch* s,
                         cudaStream_t stream, parz_error* err) {
  return enqueue_segments(ctx, v, d_chunk, d_dst, first, count, s, NULL, stream, err);
}

static int enqueue_chunk(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                         void* d_dst, const parz_gpu_scratch* s, const parz_gpu_shape* shape,
                         cudaStream_t st, parz_error* err) {
  int rc;
  if ((rc = parz_gpu_enqueue_offsets(ctx, v, d_chunk, s, st, err)) != PARZ_OK ||
      (rc = enqueue_segments(ctx, v, d_chunk, d_dst, 0, v->nsegments, s, shape, st, err)) !=
          PARZ_OK)
    return rc;
  return parz_gpu_enqueue_exceptions(ctx, v, d_chunk, d_dst, st, err);
}

/* Chunks [0, n) of one type and rank in one launch per kernel: their arguments go
 * to the device in one copy from `h_args` (pinned, this run's own part of it). */
static int enqueue_run(parz_gpu_context* ctx, const parz_chunk_view* v, const void* const* d_chunks,
                       void* const* d_dsts, size_t n, const parz_gpu_scratch* s,
                       unsigned char* h_args, unsigned char* d_args, cudaStream_t st,
                       parz_error* err) {
  seg_args* hs = (seg_args*)h_args;
  parz_gpu_table_args* ht = (parz_gpu_table_args*)(hs + n);
  uint64_t busy = 0;
  size_t i, m = 0;
  int rc;
  cudaError_t e;
  for (i = 0; i < n; i++)
    busy += v[i].nsegments;
  for (i = 0; i < n; i++) {
    seg_setup(ctx, &v[i], d_chunks[i], d_dsts[i], 0, v[i].nsegments, busy, &s[i], NULL, &hs[i]);
    m += parz_gpu_table_args_init(ctx, &v[i], d_chunks[i], &s[i], &ht[m]);
  }
  e = cudaMemcpyAsync(d_args, h_args, n * sizeof *hs + m * sizeof *ht, cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess)
    e = cudaEventRecord(ctx->args_copied, st);
  if (e == cudaSuccess && m)
    e = parz_gpu_launch_offsets(ht, (const parz_gpu_table_args*)((seg_args*)d_args + n),
                                (unsigned)m, st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "segment offsets launch");
  if ((rc = launch(v, hs, (const seg_args*)d_args, (unsigned)n, st, err)) != PARZ_OK)
    return rc;
  for (i = 0; i < n; i++)
    if ((rc = parz_gpu_enqueue_exceptions(ctx, &v[i], d_chunks[i], d_dsts[i], st, err)) != PARZ_OK)
      return rc;
  return PARZ_OK;
}

extern const parz_gpu_codec parz_gpu_codec_zfp = {
    PARZ_CODEC_ZFP,
    enqueue_chunk,
    enqueue_run,
    sizeof(seg_args) + sizeof(parz_gpu_table_args), /* a run's arguments (enqueue_run) */
    enqueue_slice,
    parz_gpu_zfp_launch_blocks,
    NULL, /* no scratch beyond the frame's */
    0,    /* the filter path decodes it in slices */
    NULL, /* every mode */
};
