/* Array-level decoder: blocks in stream order through the shared block decoder. */
#include <string.h>

#include "block_decode.h"
#include "grid.h"
#include "decode_segments.h"
#include "mask_cursor.h"
#include "parz.h"

int parz_codec_check(const parz_array* a, const parz_params* p, size_t first, size_t count,
                     parz_error* err);

/* Decodes `count` blocks of one type and rank. Forced inline (PARZ_HD) into one function per
 * type and rank (decode_run_KIND below), where both are constant, so that the block decoder
 * becomes a loop specialized for them: fixed block size, unrolled transforms and deposits (as a
 * plain static function, gcc 12 keeps one generic copy). Returns the number of blocks decoded
 * before the stream ran out.
 * With ends (parz_decode_segments), after every `seg` blocks and after the last it also stops
 * when the stream is not at ends[k] for segment k, with *bad = k. With a mask cursor (positioned
 * at block `first`) each block gets its masked values before it is stored. */
PARZ_HD size_t decode_run(parz_reader* r, const parz_grid* g, parz_block_pos* pos, parz_type type,
                          unsigned dims, const parz_params* p, void* data, size_t first,
                          size_t count, uint64_t limit, size_t seg, const uint64_t* ends,
                          parz_mask_cursor* mask, size_t* bad) {
  uint64_t block[256];
  size_t i, k = 0, left = seg;
  for (i = 0; i < count; i++) {
    parz_decode_block(r, type, dims, p, block);
    if (r->err || parz_reader_tell(r) > limit)
      return i;
    if (mask)
      parz_mask_block(mask, first + i, block);
    if (parz_grid_whole(g, pos, dims))
      parz_grid_store_rows(g, pos, dims, type == PARZ_FLOAT || type == PARZ_INT32 ? 4 : 8, block,
                           data);
    else
      parz_grid_scatter(g, pos, block, data);
    parz_grid_next(g, pos);
    if (ends && (--left == 0 || i + 1 == count)) {
      if (parz_reader_tell(r) != ends[k]) {
        *bad = k;
        return i + 1;
      }
      k++;
      left = seg;
    }
  }
  return count;
}

#if defined(__GNUC__) || defined(__clang__)
#define PARZ_NOINLINE __attribute__((noinline))
#else
#define PARZ_NOINLINE
#endif

/* decode_run for each type and rank in a function of its own: all sixteen inlined into one
 * switch leave the register allocator one huge function, and the 3D double decoder then keeps
 * its plane loop and tile transposition in stack slots. */
#define PARZ_RUN_FN(t, d)                                                                        \
  static PARZ_NOINLINE size_t decode_run_##t##_##d(                                              \
      parz_reader* r, const parz_grid* g, parz_block_pos* pos, const parz_params* p, void* data, \
      size_t first, size_t count, uint64_t limit, size_t seg, const uint64_t* ends,              \
      parz_mask_cursor* mask, size_t* bad) {                                                     \
    return decode_run(r, g, pos, t, d, p, data, first, count, limit, seg, ends, mask, bad);      \
  }
PARZ_EACH_KIND(PARZ_RUN_FN)
#undef PARZ_RUN_FN

static size_t decode_range(parz_reader* r, const parz_grid* g, parz_block_pos* pos, parz_type type,
                           unsigned dims, const parz_params* p, void* data, size_t first,
                           size_t count, uint64_t limit, size_t seg, const uint64_t* ends,
                           parz_mask_cursor* mask, size_t* bad) {
#define PARZ_RUN(t, d)  \
  case PARZ_KIND(t, d): \
    return decode_run_##t##_##d(r, g, pos, p, data, first, count, limit, seg, ends, mask, bad);
  switch (PARZ_KIND(type, dims)) {
    PARZ_EACH_KIND(PARZ_RUN)
    default: return 0; /* parz_codec_check admits nothing else */
  }
#undef PARZ_RUN
}

/* The blocks of a run (codecs.h) into run->dest's window, or with no dest into `data` (the
 * array run->array describes); with ends (parz_decode_segments) every segment's end checked. */
static int decode_blocks(const parz_segment_run* run, void* data, size_t* bad, uint64_t* end_bit,
                         parz_error* err) {
  const parz_array* a = run->array;
  const parz_chunk_mask* mask = run->mask;
  parz_grid g;
  parz_block_pos pos;
  parz_reader r;
  parz_mask_cursor cursor;
  uint64_t limit = (uint64_t)run->src_bytes * 8;
  size_t done;
  int status = parz_codec_check(a, run->params, run->first, run->count, err);
  if (status)
    return status;
  if (run->dest)
    data = run->dest->data;
  if (!data && run->count)
    return parz_fail(err, PARZ_ERR_ARG, "NULL output array");
  if (!run->src && run->src_bytes)
    return parz_fail(err, PARZ_ERR_ARG, "NULL stream");
  if (run->bit > limit)
    return parz_fail(err, PARZ_ERR_STREAM, "start bit %llu past the end of a %zu-byte stream",
                     (unsigned long long)run->bit, run->src_bytes);
  if (run->dest)
    parz_grid_init_dest(&g, a, run->dest);
  else
    parz_grid_init(&g, a);
  parz_reader_init(&r, run->src, run->src_bytes, run->bit);
  parz_grid_seek(&g, run->first, &pos);
  if (mask && mask->nvalues)
    parz_mask_seek(&cursor, mask, a, run->first);
  done =
      decode_range(&r, &g, &pos, a->type, a->dims, run->params, data, run->first, run->count, limit,
                   run->seg_blocks, run->ends, mask && mask->nvalues ? &cursor : NULL, bad);
  if (bad && *bad != SIZE_MAX) {
    *end_bit = parz_reader_tell(&r);
    return PARZ_OK;
  }
  if (done < run->count)
    return parz_fail(err, PARZ_ERR_STREAM,
                     "stream of %zu bytes ends inside block %zu (truncated or corrupt)",
                     run->src_bytes, run->first + done);
  if (end_bit)
    *end_bit = parz_reader_tell(&r);
  return PARZ_OK;
}

int parz_decode_segments(const parz_segment_run* run, size_t* bad, uint64_t* bad_end,
                         parz_error* err) {
  *bad = SIZE_MAX;
  if (!run->ends || run->seg_blocks == 0 || !run->dest)
    return parz_fail(err, PARZ_ERR_ARG, "parz_decode_segments: no segment ends or destination");
  return decode_blocks(run, NULL, bad, bad_end, err);
}

int parz_decode_blocks(const parz_array* a, void* data, const parz_params* p, const void* src,
                       size_t src_bytes, uint64_t bit, size_t first, size_t count,
                       uint64_t* end_bit, parz_error* err) {
  parz_segment_run run;
  memset(&run, 0, sizeof run);
  run.array = a;
  run.params = p;
  run.src = src;
  run.src_bytes = src_bytes;
  run.bit = bit;
  run.first = first;
  run.count = count;
  return decode_blocks(&run, data, NULL, end_bit, err);
}

int parz_decompress(const parz_array* a, void* data, const parz_params* p, const void* src,
                    size_t src_bytes, parz_error* err) {
  return parz_decode_blocks(a, data, p, src, src_bytes, 0, 0, a ? parz_block_count(a) : 0, NULL,
                            err);
}
