/* Array-level decoder: blocks in stream order through the shared block decoder. */
#include <string.h>

#include "block_decode.h"
#include "grid.h"
#include "decode_segments.h"
#include "mask_cursor.h"
#include "parz.h"

int parz_codec_check(const parz_array* a, const parz_params* p, size_t first, size_t count,
                     parz_error* err);

/* A run of blocks to decode: the stream, where its blocks go and what each gets before it is
 * stored. */
typedef struct {
  parz_reader r;
  parz_grid g;
  parz_block_pos pos; /* the next block's place in the grid */
  const parz_params* p;
  void* data;             /* the array g describes */
  size_t first, count;    /* blocks [first, first + count) of the array */
  uint64_t limit;         /* the stream's end, in bits */
  size_t seg;             /* blocks per segment, with ends */
  const uint64_t* ends;   /* where segment k must end (NULL: unchecked) */
  parz_mask_cursor* mask; /* positioned at block `first`; NULL: no mask */
  size_t bad;             /* the first segment that did not end at ends[bad]; SIZE_MAX: none */
} decode_job;

/* Decodes the job's blocks of one type and rank. Forced inline (PARZ_HD) into one function per
 * type and rank (decode_run_KIND below), where both are constant, so that the block decoder
 * becomes a loop specialized for them: fixed block size, unrolled transforms and deposits (as a
 * plain static function, gcc 12 keeps one generic copy). The job's fixed fields are read once
 * into locals, which the stores into the array cannot alias. Returns the number of blocks
 * decoded before the stream ran out.
 * With ends (parz_decode_segments), after every `seg` blocks and after the last it also stops
 * when the stream is not at ends[k] for segment k, with j->bad = k. With a mask cursor each
 * block gets its masked values before it is stored. */
PARZ_HD size_t decode_run(decode_job* j, parz_type type, unsigned dims) {
  parz_reader* r = &j->r;
  const parz_grid* g = &j->g;
  parz_block_pos* pos = &j->pos;
  const parz_params* p = j->p;
  void* data = j->data;
  const size_t first = j->first, count = j->count, seg = j->seg;
  const uint64_t limit = j->limit;
  const uint64_t* ends = j->ends;
  parz_mask_cursor* mask = j->mask;
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
        j->bad = k;
        return i + 1;
      }
      k++;
      left = seg;
    }
  }
  return count;
}

/* decode_run for each type and rank in a function of its own: all sixteen inlined into one
 * switch leave the register allocator one huge function, and the 3D double decoder then keeps
 * its plane loop and tile transposition in stack slots. */
#define PARZ_RUN_FN(t, d) \
  static PARZ_NOINLINE size_t decode_run_##t##_##d(decode_job* j) { return decode_run(j, t, d); }
PARZ_EACH_KIND(PARZ_RUN_FN)
#undef PARZ_RUN_FN

static size_t decode_range(decode_job* j, parz_type type, unsigned dims) {
#define PARZ_RUN(t, d) \
  case PARZ_KIND(t, d): return decode_run_##t##_##d(j);
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
  decode_job j;
  parz_mask_cursor cursor;
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
  j.limit = (uint64_t)run->src_bytes * 8;
  if (run->bit > j.limit)
    return parz_fail(err, PARZ_ERR_STREAM, "start bit %llu past the end of a %zu-byte stream",
                     (unsigned long long)run->bit, run->src_bytes);
  if (run->dest)
    parz_grid_init_dest(&j.g, a, run->dest);
  else
    parz_grid_init(&j.g, a);
  parz_reader_init(&j.r, run->src, run->src_bytes, run->bit);
  parz_grid_seek(&j.g, run->first, &j.pos);
  j.mask = NULL;
  if (mask && mask->nvalues) {
    parz_mask_seek(&cursor, mask, a, run->first);
    j.mask = &cursor;
  }
  j.p = run->params;
  j.data = data;
  j.first = run->first;
  j.count = run->count;
  j.seg = run->seg_blocks;
  j.ends = run->ends;
  j.bad = SIZE_MAX;
  done = decode_range(&j, a->type, a->dims);
  if (bad)
    *bad = j.bad;
  if (bad && *bad != SIZE_MAX) {
    *end_bit = parz_reader_tell(&j.r);
    return PARZ_OK;
  }
  if (done < run->count)
    return parz_fail(err, PARZ_ERR_STREAM,
                     "stream of %zu bytes ends inside block %zu (truncated or corrupt)",
                     run->src_bytes, run->first + done);
  if (end_bit)
    *end_bit = parz_reader_tell(&j.r);
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
