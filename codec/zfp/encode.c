/* Array-level encoder: blocks in stream order through the shared block encoder. */
#include "block_encode.h"
#include "encode_segments.h"
#include "grid.h"
#include "parz.h"

/* Checks what encode and decode have in common. */
int parz_codec_check(const parz_array* a, const parz_params* p, size_t first, size_t count,
                     parz_error* err);

int parz_codec_check(const parz_array* a, const parz_params* p, size_t first, size_t count,
                     parz_error* err) {
  int status = parz_array_check(a, err);
  size_t nblocks;
  if (status)
    return status;
  if (!p)
    return parz_fail(err, PARZ_ERR_ARG, "NULL codec parameters");
  if (p->minbits > p->maxbits)
    return parz_fail(err, PARZ_ERR_PARAM, "minbits %u above maxbits %u", p->minbits, p->maxbits);
  if (p->maxprec < 1 || p->maxprec > PARZ_MAX_PREC)
    return parz_fail(err, PARZ_ERR_PARAM, "maxprec %u outside 1..%u", p->maxprec, PARZ_MAX_PREC);
  nblocks = parz_block_count(a);
  if (first > nblocks || count > nblocks - first)
    return parz_fail(err, PARZ_ERR_ARG, "blocks %zu..%zu+%zu outside the %zu blocks of the array",
                     first, first, count, nblocks);
  return PARZ_OK;
}

/* Encodes `count` blocks of one type and rank, both constant in each caller (see
 * encode_range) so that the block encoder is specialized for them. With seg_bits, entry k
 * receives the bits of blocks [k * seg, (k + 1) * seg) (the last run may be shorter), capped at
 * UINT32_MAX. Returns the number of blocks encoded before the output ran out (count when all
 * fit). */
PARZ_HD size_t encode_run(parz_writer* w, const parz_grid* g, parz_block_pos* pos, parz_type type,
                          unsigned dims, const parz_params* p, const void* data, size_t count,
                          uint32_t* seg_bits, size_t seg) {
  uint64_t block[256], work[256], sum = 0;
  size_t i, left = seg;
  for (i = 0; i < count; i++) {
    parz_grid_gather(g, pos, data, block);
    sum += parz_encode_block(w, type, dims, p, block, work);
    if (w->err)
      return i;
    parz_grid_next(g, pos);
    if (--left == 0 || i + 1 == count) {
      if (seg_bits)
        *seg_bits++ = sum < UINT32_MAX ? (uint32_t)sum : UINT32_MAX;
      sum = 0;
      left = seg;
    }
  }
  return count;
}

static size_t encode_range(parz_writer* w, const parz_grid* g, parz_block_pos* pos, parz_type type,
                           unsigned dims, const parz_params* p, const void* data, size_t count,
                           uint32_t* seg_bits, size_t seg) {
#define PARZ_RUN(t, d) \
  case PARZ_KIND(t, d): return encode_run(w, g, pos, t, d, p, data, count, seg_bits, seg);
  switch (PARZ_KIND(type, dims)) {
    PARZ_EACH_KIND(PARZ_RUN)
    default: w->err = 1; return 0; /* parz_codec_check admits nothing else */
  }
#undef PARZ_RUN
}

int parz_encode_segments(const parz_array* a, const void* data, const parz_params* p, size_t first,
                         size_t count, size_t seg_blocks, void* dst, size_t dst_bytes,
                         uint64_t* bits, uint32_t* seg_bits, parz_error* err) {
  parz_grid g;
  parz_block_pos pos;
  parz_writer w;
  int status = parz_codec_check(a, p, first, count, err);
  if (status)
    return status;
  if (!data && count)
    return parz_fail(err, PARZ_ERR_ARG, "NULL input array");
  if (!dst && dst_bytes)
    return parz_fail(err, PARZ_ERR_ARG, "NULL output buffer");
  if (seg_blocks == 0)
    return parz_fail(err, PARZ_ERR_ARG, "segments of 0 blocks");
  parz_grid_init(&g, a);
  parz_writer_init(&w, dst, dst_bytes);
  parz_grid_seek(&g, first, &pos);
  encode_range(&w, &g, &pos, a->type, a->dims, p, data, count, seg_bits, seg_blocks);
  if (bits)
    *bits = parz_writer_tell(&w);
  parz_writer_flush(&w);
  if (w.err)
    return parz_fail(err, PARZ_ERR_BUFFER,
                     "output buffer of %zu bytes too small for %zu blocks (bound %zu bytes)",
                     dst_bytes, count, parz_stream_bound(a->type, a->dims, p, count));
  return PARZ_OK;
}

int parz_encode_blocks(const parz_array* a, const void* data, const parz_params* p, size_t first,
                       size_t count, void* dst, size_t dst_bytes, uint64_t* bits,
                       uint32_t* block_bits, parz_error* err) {
  return parz_encode_segments(a, data, p, first, count, 1, dst, dst_bytes, bits, block_bits, err);
}

int parz_compress(const parz_array* a, const void* data, const parz_params* p, void* dst,
                  size_t dst_bytes, size_t* written, parz_error* err) {
  uint64_t bits = 0;
  int status = parz_encode_blocks(a, data, p, 0, a ? parz_block_count(a) : 0, dst, dst_bytes, &bits,
                                  NULL, err);
  if (written)
    *written = status ? 0 : (size_t)((bits + 63) / 64 * 8);
  return status;
}
