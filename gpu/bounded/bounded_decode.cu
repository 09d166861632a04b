/* The error-bounded codec's decode on the GPU (codec/FORMAT.md, "Error-bounded chunks (codec 4)")
 * and its entry in the GPU's codec table (gpu_codecs.h). A scratch codec: the chunk decodes in
 * the steps of codec/frame/chunk_scratch.h, one or more launches each, on one stream:
 *
 *   0. the codebook, read on the host with the serial decoder's checks (parz_bounded_chunk_decoder)
 *      and its table decoder uploaded from pinned memory; the segment offsets (offsets.cu); the
 *      payload checksums, a warp per partition (checksum.cuh);
 *   1. segments: one thread per segment, found through the offsets, decodes its codes into the
 *      chunk's scratch with the codec's own loop (parz_bounded_segment_codes), the table decoder's
 *      table in shared memory; a segment the CPU refuses sets the fault record;
 *   2. the inverse passes: Lorenzo's prefix sums, a warp per row along the last axis and a thread
 *      per column along the others; the interpolation's passes, a thread per value each;
 *   3. the values: a thread per value (Lorenzo's range check on the way);
 *   4. the masked values: the groups' records expanded into a map (mask.cuh), then a thread per
 *      4^d block of the mask writes its masked values;
 *   5. the exceptions (offsets.cu).
 *
 * Every step runs the codec's arithmetic from codec/bounded/bounded_inverse.h, the code the CPU
 * runs, so the values are the serial decoder's bit for bit. Indices are 32-bit where they divide:
 * a chunk holds fewer than 2^32 values (parz_gpu_view_fits). */
#include <stdlib.h>
#include <string.h>

#include "bounded_codec.h"
#include "bounded_inverse.h"
#include "checksum.cuh"
#include "gpu_codecs.h"
#include "mask.cuh"

#define THREADS 256u
#define SEGMENT_THREADS 64u

/* The chunk's device scratch: the codes (interpolation only: Lorenzo sums its codes in place),
 * the quantized values and the table decoder's words. */
struct layout {
  size_t codes, q, dec, bytes;
};

static size_t round16(size_t b) { return (b + 15) & ~(size_t)15; }

static size_t values_of(const parz_chunk_view* v) {
  return v->raw_bytes / parz_type_size(v->array.type);
}

static layout layout_of(const parz_chunk_view* v) {
  const size_t n = values_of(v);
  layout l;
  l.codes = 0;
  l.q = round16(4 * n);
  l.dec = l.q + round16(4 * n);
  l.bytes = l.dec + round16(4 * parz_bounded_decoder_words_bound(v));
  return l;
}

static size_t scratch_bytes(const parz_chunk_view* v, size_t* pinned) {
  *pinned = 4 * parz_bounded_decoder_words_bound(v);
  return layout_of(v).bytes;
}

__device__ __forceinline__ void fault_at(parz_gpu_fault* f, unsigned long long at, unsigned code) {
  atomicMin(&f->segment, at);
  atomicOr(&f->code, code);
}

/* ---------------- step 0: the payload checksums ---------------- */

__global__ void verify_kernel(const parz_gpu_sums s, const unsigned char* __restrict__ payload,
                              parz_gpu_fault* fault) {
  const unsigned long long p = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / 32u;
  const unsigned lane = threadIdx.x & 31u;
  if (p >= s.count)
    return; /* the whole warp */
  unsigned long long sum = parz_gpu_checksum_share(s, payload, p, lane);
#pragma unroll
  for (unsigned d = 16; d > 0; d >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, d);
  if (lane == 0 && !parz_gpu_checksum_ok(s, p, sum)) {
    atomicMin(&fault->partition, p);
    atomicOr(&fault->code, (unsigned)PARZ_GPU_FAULT_CHECKSUM);
  }
}

/* ---------------- step 1: the segments ---------------- */

struct segment_args {
  parz_huff_decoder huff; /* table and sorted in device memory */
  const unsigned char* payload;
  unsigned long long payload_bytes;
  const unsigned long long* offsets;
  unsigned long long nsegments, n, C;
  int32_t* codes;
  parz_gpu_fault* fault;
};

#define TABLE_WORDS_MAX 4096u /* bounded_huff.c's table of 12 bits */

__global__ void __launch_bounds__(SEGMENT_THREADS) segments_kernel(const segment_args a) {
  /* the decoder in shared memory, its table too: the long words' limits are indexed by length */
  __shared__ uint32_t table[TABLE_WORDS_MAX];
  __shared__ parz_huff_decoder d;
  const unsigned words = 1u << a.huff.table_bits;
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x)
    table[i] = a.huff.table[i];
  if (threadIdx.x == 0) {
    d = a.huff;
    d.table = table;
  }
  __syncthreads();
  const unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= a.nsegments)
    return;
  const unsigned long long bit0 = a.offsets[g], end = a.offsets[g + 1];
  const unsigned long long c0 = g * a.C, count = a.n - c0 < a.C ? a.n - c0 : a.C;
  if (end < bit0 || end > 8 * a.payload_bytes) {
    fault_at(a.fault, g, PARZ_GPU_FAULT_OVERRUN);
    return;
  }
  parz_bitr r;
  size_t at, run;
  parz_bitr_init(&r, a.payload, (size_t)a.payload_bytes, bit0, end - bit0);
  if (parz_bounded_segment_codes(&d, &r, a.codes + c0, (size_t)count, &at, &run) !=
      PARZ_BOUNDED_SEGMENT_OK)
    fault_at(a.fault, g, PARZ_GPU_FAULT_END);
}

/* ---------------- step 2: the inverse passes ---------------- */

/* Lorenzo along the last axis: a warp per row of n3 values, 32 at a time, carrying the sum.
 * Wrapping unsigned sums, as on the CPU: any order of the additions gives the same bits. */
__global__ void lorenzo_rows_kernel(uint32_t* u, unsigned rows, unsigned n3) {
  const unsigned row = (blockIdx.x * blockDim.x + threadIdx.x) / 32u, lane = threadIdx.x & 31u;
  if (row >= rows)
    return; /* the whole warp */
  uint32_t* r = u + (size_t)row * n3;
  uint32_t carry = 0;
  for (unsigned j0 = 0; j0 < n3; j0 += 32) {
    const unsigned j = j0 + lane;
    uint32_t v = j < n3 ? r[j] : 0;
#pragma unroll
    for (unsigned d = 1; d < 32; d <<= 1) {
      const uint32_t t = __shfl_up_sync(0xffffffffu, v, d);
      if (lane >= d)
        v += t;
    }
    v += carry;
    if (j < n3)
      r[j] = v;
    carry = __shfl_sync(0xffffffffu, v, 31);
  }
}

/* Lorenzo along axis k (not the last): a thread per column, one of `inner` (the stride of the
 * axis) in each of `outer` slabs, summing n_k values `inner` apart; neighbouring threads take
 * neighbouring columns. */
__global__ void lorenzo_columns_kernel(uint32_t* u, unsigned outer, unsigned nk, unsigned inner) {
  const unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (unsigned long long)outer * inner)
    return;
  const unsigned o = (unsigned)(t / inner), j = (unsigned)(t % inner);
  uint32_t* c = u + (size_t)o * nk * inner + j;
  uint32_t sum = c[0];
  for (unsigned i = 1; i < nk; i++) {
    sum += c[(size_t)i * inner];
    c[(size_t)i * inner] = sum;
  }
}

/* One interpolation pass, a thread per value, in code order (codes from p.pos on). */
struct pass_args {
  unsigned long long n[4], st[4];
  unsigned start[4], step[4], cnt[4];
  unsigned long long pos, count, s, sk;
  unsigned k;
  int cubic, origin;
  const int32_t* codes;
  int32_t* q;
  parz_gpu_fault* fault;
};

__global__ void interp_kernel(const pass_args a) {
  const unsigned long long u = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= a.count)
    return;
  /* the value's place: its line (c0, c1, c2) and t along the last axis */
  const unsigned x = (unsigned)u, line = x / a.cnt[3], t = x - line * a.cnt[3];
  const unsigned l2 = line / a.cnt[2], c2 = line - l2 * a.cnt[2];
  const unsigned c0 = l2 / a.cnt[1], c1 = l2 - c0 * a.cnt[1];
  const unsigned long long i0 = a.start[0] + (unsigned long long)c0 * a.step[0];
  const unsigned long long i1 = a.start[1] + (unsigned long long)c1 * a.step[1];
  const unsigned long long i2 = a.start[2] + (unsigned long long)c2 * a.step[2];
  const unsigned long long i3 = a.start[3] + (unsigned long long)t * a.step[3];
  const unsigned long long idx = i0 * a.st[0] + i1 * a.st[1] + i2 * a.st[2] + i3;
  const unsigned long long pk = a.k == 0 ? i0 : a.k == 1 ? i1 : a.k == 2 ? i2 : i3;
  if (parz_bounded_interp_undo(a.q, (size_t)idx, (size_t)pk, (size_t)a.n[a.k], (size_t)a.sk,
                               (size_t)a.s, a.cubic, a.origin, a.codes[a.pos + u]))
    fault_at(a.fault, idx, PARZ_GPU_FAULT_VALUE);
}

/* ---------------- step 3: the values ---------------- */

/* dst[i] = the reconstruction of q[i]; Lorenzo's sums checked first (parz_bounded_lorenzo_value),
 * a value out of range written as 0 and recorded. */
template <typename T, bool LORENZO>
__global__ void store_kernel(const int32_t* __restrict__ q, T* __restrict__ dst,
                             unsigned long long n, double unit, parz_gpu_fault* fault) {
  const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int32_t v = q[i];
  if (LORENZO && !parz_bounded_lorenzo_value((uint32_t)v, &v)) {
    fault_at(fault, i, PARZ_GPU_FAULT_VALUE);
    v = 0;
  }
  if (sizeof(T) == 4)
    dst[i] = (T)parz_bounded_value_f32(v, unit);
  else
    dst[i] = (T)parz_bounded_value_f64(v, unit);
}

/* ---------------- step 4: the masked values ---------------- */

__global__ void mask_expand_kernel(const parz_gpu_mask m) {
  parz_gpu_mask_expand(m, ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / 32u);
}

/* The masked values of 4^d block b of the mask (FORMAT.md, "Mask": positions in zfp's order, x
 * along the last dimension fastest) written at their places in the chunk's C-order values, those
 * past the array's edge skipped. */
struct mask_args {
  parz_gpu_mask m;
  unsigned long long shape[4], bgrid[4];
  unsigned dims, size;
  void* dst;
};

__global__ void mask_apply_kernel(const mask_args a) {
  const unsigned long long b = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= a.m.nblocks)
    return;
  const uint32_t at = a.m.map[b];
  parz_mask_record r;
  if (at == PARZ_GPU_MASK_NONE ||
      !parz_mask_read(a.m.records + at, a.m.records + a.m.record_bytes, a.dims, a.m.V, &r))
    return;
  unsigned long long origin[4], rest = b;
  for (int k = (int)a.dims - 1; k >= 0; k--) {
    origin[k] = 4 * (rest % a.bgrid[k]);
    rest /= a.bgrid[k];
  }
  const unsigned char* index = r.index;
  uint64_t bits = parz_mask_value(a.m.values, a.m.V > 1 ? index[0] : 0u);
  const unsigned n = 1u << (2 * a.dims);
  for (unsigned i = 0; i < n; i++) {
    if (r.kind != PARZ_MASK_RUN) {
      if (!((r.bitmap[i >> 3] >> (i & 7u)) & 1u))
        continue;
      if (a.m.V > 1)
        bits = parz_mask_value(a.m.values, *index++);
    }
    unsigned long long pos = 0;
    unsigned k;
    for (k = 0; k < a.dims; k++) {
      const unsigned long long x = origin[k] + (i >> (2 * (a.dims - 1 - k)) & 3u);
      if (x >= a.shape[k])
        break;
      pos = pos * a.shape[k] + x;
    }
    if (k < a.dims)
      continue;
    if (a.size == 4)
      ((uint32_t*)a.dst)[pos] = (uint32_t)bits;
    else
      ((uint64_t*)a.dst)[pos] = bits;
  }
}

/* ---------------- the chunk ---------------- */

static unsigned grid_of(unsigned long long units, unsigned threads) {
  return (unsigned)((units + threads - 1) / threads);
}

/* Steps 0 to 4 of chunk v (all its segments) into d_dst on st: the exceptions are the caller's. */
static int enqueue_all(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                       void* d_dst, uint64_t first, uint64_t count, const parz_gpu_scratch* s,
                       cudaStream_t st, parz_error* err) {
  const unsigned char* chunk = (const unsigned char*)d_chunk;
  const layout l = layout_of(v);
  const unsigned long long n = values_of(v);
  unsigned char* scratch = (unsigned char*)s->codec;
  parz_bounded_chunk_info info;
  cudaError_t e;
  int rc;
  (void)ctx;
  if (first != 0 || count != v->nsegments)
    return parz_fail(err, PARZ_ERR_ARG,
                     "bounded: segments %llu to %llu of %llu decoded alone: the GPU decodes a "
                     "bounded chunk whole",
                     (unsigned long long)first, (unsigned long long)(first + count),
                     (unsigned long long)v->nsegments);
  if (n == 0)
    return PARZ_OK;
  if ((rc = parz_bounded_chunk_decoder(v, &info, err)) != PARZ_OK)
    return rc;
  const parz_huff_decoder* h = parz_bounded_decoder_huff(info.dec);
  const size_t words = parz_bounded_decoder_words(info.dec);
  if (words > parz_bounded_decoder_words_bound(v) || h->table_bits > 12) {
    parz_bounded_decoder_free(info.dec);
    return parz_fail(err, PARZ_ERR_STREAM,
                     "bounded: a codebook decoder of %zu words where its codec data allows %zu",
                     words, parz_bounded_decoder_words_bound(v));
  }
  /* the table decoder, its pointers moved to its device copy */
  segment_args sa;
  memset(&sa, 0, sizeof sa);
  sa.huff = *h;
  uint32_t* d_words = (uint32_t*)(scratch + l.dec);
  sa.huff.table = d_words;
  sa.huff.sorted = d_words + (h->sorted - h->table);
  memcpy(s->h_codec, h->table, words * 4);
  parz_bounded_decoder_free(info.dec);
  e = cudaMemcpyAsync(d_words, s->h_codec, words * 4, cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess)
    e = cudaEventRecord(ctx->codec_copied, st);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "uploading a bounded chunk's codebook");

  const unsigned char* payload = chunk + parz_gpu_payload_offset(v);
  if (v->nchecksums) {
    parz_gpu_sums sums;
    memset(&sums, 0, sizeof sums);
    sums.sums = chunk + parz_gpu_checksums_offset(v);
    sums.table = v->table == PARZ_TABLE_HYBRID ? chunk + parz_gpu_table_offset(v) : NULL;
    sums.offsets = s->offsets;
    sums.record_bytes = parz_gpu_record_bytes(v);
    sums.P = v->checksum_segments;
    sums.count = v->nchecksums;
    sums.payload_end = 8ull * v->payload_bytes;
    verify_kernel<<<grid_of(32ull * sums.count, THREADS), THREADS, 0, st>>>(sums, payload,
                                                                            s->fault);
  }

  const int lorenzo = info.predictor == PARZ_BOUNDED_LORENZO;
  int32_t* codes = (int32_t*)(scratch + (lorenzo ? l.q : l.codes));
  int32_t* q = (int32_t*)(scratch + l.q);
  sa.payload = payload;
  sa.payload_bytes = v->payload_bytes;
  sa.offsets = s->offsets;
  sa.nsegments = v->nsegments;
  sa.n = n;
  sa.C = v->segment_blocks;
  sa.codes = codes;
  sa.fault = s->fault;
  segments_kernel<<<grid_of(v->nsegments, SEGMENT_THREADS), SEGMENT_THREADS, 0, st>>>(sa);

  parz_bounded_shape shape;
  size_t n4[4], st4[4];
  memset(&shape, 0, sizeof shape);
  shape.type = v->array.type;
  shape.dims = v->array.dims;
  for (unsigned k = 0; k < v->array.dims; k++)
    shape.shape[k] = v->array.shape[k];
  parz_bounded_shape4(&shape, n4, st4);
  if (lorenzo) {
    for (unsigned k = 0; k < 4; k++) {
      if (n4[k] < 2)
        continue;
      if (k == 3) {
        const unsigned rows = (unsigned)(n / n4[3]);
        lorenzo_rows_kernel<<<grid_of(32ull * rows, THREADS), THREADS, 0, st>>>((uint32_t*)q, rows,
                                                                                (unsigned)n4[3]);
      } else {
        const unsigned outer = (unsigned)(n / (n4[k] * st4[k]));
        lorenzo_columns_kernel<<<grid_of((unsigned long long)outer * st4[k], THREADS), THREADS, 0,
                                 st>>>((uint32_t*)q, outer, (unsigned)n4[k], (unsigned)st4[k]);
      }
    }
  } else {
    parz_bounded_pass* passes =
        (parz_bounded_pass*)malloc(PARZ_BOUNDED_PASSES_MAX * sizeof *passes);
    if (!passes)
      return parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory for the interpolation's passes");
    const unsigned np = parz_bounded_interp_passes(n4, info.predictor, passes);
    for (unsigned p = 0; p < np; p++) {
      const parz_bounded_pass* ps = &passes[p];
      pass_args a;
      memset(&a, 0, sizeof a);
      a.count = 1;
      for (unsigned k = 0; k < 4; k++) {
        a.n[k] = n4[k];
        a.st[k] = st4[k];
        a.start[k] = (unsigned)ps->start[k];
        a.step[k] = (unsigned)ps->step[k];
        a.cnt[k] = (unsigned)ps->cnt[k];
        a.count *= ps->cnt[k];
      }
      a.pos = ps->pos;
      a.s = ps->s;
      a.k = ps->k;
      a.sk = ps->s * st4[ps->k];
      a.cubic = info.predictor == PARZ_BOUNDED_CUBIC || info.predictor == PARZ_BOUNDED_CUBIC_FAST;
      a.origin = ps->pos == 0;
      a.codes = codes;
      a.q = q;
      a.fault = s->fault;
      if (a.count)
        interp_kernel<<<grid_of(a.count, THREADS), THREADS, 0, st>>>(a);
    }
    free(passes);
  }

  const double unit = parz_bounded_unit(info.predictor, info.step);
  if (v->array.type == PARZ_FLOAT)
    lorenzo ? store_kernel<float, true>
        <<<grid_of(n, THREADS), THREADS, 0, st>>>(q, (float*)d_dst, n, unit, s->fault)
            : store_kernel<float, false>
        <<<grid_of(n, THREADS), THREADS, 0, st>>>(q, (float*)d_dst, n, unit, s->fault);
  else
    lorenzo ? store_kernel<double, true>
        <<<grid_of(n, THREADS), THREADS, 0, st>>>(q, (double*)d_dst, n, unit, s->fault)
            : store_kernel<double, false>
        <<<grid_of(n, THREADS), THREADS, 0, st>>>(q, (double*)d_dst, n, unit, s->fault);

  if (v->mask.nvalues) {
    mask_args ma;
    memset(&ma, 0, sizeof ma);
    parz_gpu_mask* m = &ma.m;
    m->values = chunk + parz_gpu_section_offset(v, v->mask.values);
    m->starts = chunk + parz_gpu_section_offset(v, v->mask.starts);
    m->records = chunk + parz_gpu_section_offset(v, v->mask.records);
    m->record_bytes = v->mask.record_bytes;
    m->ngroups = v->mask.ngroups;
    m->nblocks = parz_block_count(&v->array);
    m->map = s->mask;
    m->G = v->mask.group_blocks;
    m->V = v->mask.nvalues;
    m->dims = v->array.dims;
    m->group_first = 0;
    m->group_end = v->mask.ngroups;
    for (unsigned k = 0; k < v->array.dims; k++) {
      ma.shape[k] = v->array.shape[k];
      ma.bgrid[k] = (v->array.shape[k] + 3) / 4;
    }
    ma.dims = v->array.dims;
    ma.size = (unsigned)parz_type_size(v->array.type);
    ma.dst = d_dst;
    mask_expand_kernel<<<grid_of(32ull * m->ngroups, THREADS), THREADS, 0, st>>>(*m);
    mask_apply_kernel<<<grid_of(m->nblocks, THREADS), THREADS, 0, st>>>(ma);
  }
  e = cudaGetLastError();
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "bounded decode launch");
}

static int enqueue_chunk(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                         void* d_dst, const parz_gpu_scratch* s, const parz_gpu_shape* shape,
                         cudaStream_t st, parz_error* err) {
  int rc;
  (void)shape;
  if ((rc = parz_gpu_enqueue_offsets(ctx, v, d_chunk, s, st, err)) != PARZ_OK ||
      (rc = enqueue_all(ctx, v, d_chunk, d_dst, 0, v->nsegments, s, st, err)) != PARZ_OK)
    return rc;
  return parz_gpu_enqueue_exceptions(ctx, v, d_chunk, d_dst, st, err);
}

extern const parz_gpu_codec parz_gpu_codec_bounded = {
    PARZ_CODEC_BOUNDED,
    enqueue_chunk,
    NULL, /* each chunk its own launches */
    0,
    enqueue_all, /* the filter path: the chunk whole (`whole`), its exceptions on the host */
    NULL,        /* no GPU encoder: the CPU encodes bounded chunks */
    scratch_bytes,
    1,
};
