/* The lossless codec's entry in the codec registry (codecs.h): every bit pattern of every value
 * comes back exactly, so the frame keeps nothing apart from the payload (no exception, no mask).
 * Its blocks and segments are the core's (lossless.h): blocks of 4096 values whose sides depend
 * on the dimensions of extent above 1 and on the predictor, and per segment of C blocks a byte
 * string that stands alone, its length (whole bytes) in the chunk's table. Codec parameters
 * (FORMAT.md, "Lossless chunks"): byte 0 the value transform (transform.h), byte 1 the
 * predictor, bytes 2..15 zero. */
#include <stdlib.h>
#include <string.h>

#include "codecs.h"
#include "dictionary.h"
#include "holt.h"
#include "lossless_codec.h"
#include "lorenzo.h"
#include "lossless.h"
#include "lossless_forward.h"
#include "residual_coder.h"
#include "transform.h"

/* Blocks per segment when the configuration leaves C to the codec: 64 KiB of float32 per
 * segment pays for its code's tables (bench/results/build-vm/lossless_design.md). */
#define LOSSLESS_SEGMENT_BLOCKS 4u

static unsigned transform_of(const parz_chunk_view* v) {
  return v->codec_params[PARZ_LL_PARAM_TRANSFORM];
}
/* The core's predictor argument: the predictor byte, with Holt's gains. */
static unsigned predictor_of(const parz_chunk_view* v) {
  const unsigned char* b = v->codec_params;
  return b[PARZ_LL_PARAM_PREDICTOR] == PARZ_LL_PREDICT_HOLT
             ? PARZ_LL_HOLT(b[PARZ_LL_PARAM_ALPHA], b[PARZ_LL_PARAM_BETA])
             : b[PARZ_LL_PARAM_PREDICTOR];
}

/* The array the core codes for a: a itself, or under the dictionary its ranks, integers of the
 * values' width. */
static parz_array coded_array(const parz_array* a, unsigned transform) {
  parz_array r = *a;
  if (transform == PARZ_LL_DICTIONARY)
    r.type = parz_type_size(a->type) == 8 ? PARZ_INT64 : PARZ_INT32;
  return r;
}

/* The core's geometry of v's array (contiguous) under v's predictor. */
static int geometry(const parz_chunk_view* v, parz_ll_geometry* g, parz_error* err) {
  const parz_array a = coded_array(&v->array, transform_of(v));
  return parz_ll_geometry_init(g, &a, predictor_of(v), err);
}

/* Whether a has at most one dimension of extent above 1: a series. */
static int series(const parz_array* a) {
  unsigned k, used = 0;
  for (k = 0; k < a->dims; k++)
    used += a->shape[k] > 1;
  return used <= 1;
}

/* The core drops dimensions of extent 1 and cuts the others into sides that follow from how many
 * remain (lorenzo.h): the same blocks, numbered in the same C order, in the array's own
 * dimensions, where those of extent 1 have side 1. */
static void block_sides(const parz_chunk_view* v, uint32_t side[4]) {
  parz_ll_geometry g;
  unsigned k, used = 0, j;
  for (k = 0; k < 4; k++)
    side[k] = 1;
  if (geometry(v, &g, NULL) != PARZ_OK) /* refused by read_params and configure before */
    return;
  for (k = 0; k < v->array.dims; k++)
    used += v->array.shape[k] > 1;
  for (k = 0, j = 4 - used; k < v->array.dims; k++)
    if (v->array.shape[k] > 1)
      side[k] = (uint32_t)g.side[j++];
}

static int read_params(parz_chunk_view* v, parz_error* err) {
  const unsigned char* b = v->codec_params;
  parz_ll_geometry g;
  unsigned k;
  memset(&v->params, 0, sizeof v->params);
  for (k = PARZ_LL_PARAM_RESERVED; k < PARZ_CODEC_PARAM_BYTES; k++)
    if (b[k])
      return parz_fail(err, PARZ_ERR_FORMAT, "lossless codec parameter byte %u is %u, not 0", k,
                       b[k]);
  if (b[PARZ_LL_PARAM_PREDICTOR] > PARZ_LL_PREDICT_ROWS)
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "lossless predictor %u unknown (0 lorenzo, 1 stack, 2 holt, 3 rows)",
                     b[PARZ_LL_PARAM_PREDICTOR]);
  if (b[PARZ_LL_PARAM_PREDICTOR] != PARZ_LL_PREDICT_HOLT &&
      (b[PARZ_LL_PARAM_ALPHA] || b[PARZ_LL_PARAM_BETA]))
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "lossless predictor %u with gains %u and %u: only Holt's (2) has gains",
                     b[PARZ_LL_PARAM_PREDICTOR], b[PARZ_LL_PARAM_ALPHA], b[PARZ_LL_PARAM_BETA]);
  if (b[PARZ_LL_PARAM_ALPHA] > PARZ_LL_GAIN_MAX || b[PARZ_LL_PARAM_BETA] > PARZ_LL_GAIN_MAX)
    return parz_fail(err, PARZ_ERR_FORMAT, "lossless Holt gains %u/8 and %u/8: at most 8/8",
                     b[PARZ_LL_PARAM_ALPHA], b[PARZ_LL_PARAM_BETA]);
  if (b[PARZ_LL_PARAM_PREDICTOR] == PARZ_LL_PREDICT_HOLT && geometry(v, &g, NULL) != PARZ_OK)
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "lossless Holt predictor for an array of more than one dimension of extent "
                     "above 1");
  if (b[PARZ_LL_PARAM_TRANSFORM] == PARZ_LL_DICTIONARY
          ? !series(&v->array)
          : !parz_ll_transform_valid(b[PARZ_LL_PARAM_TRANSFORM], v->array.type))
    return parz_fail(err, PARZ_ERR_FORMAT, "lossless transform %u for %s values",
                     b[PARZ_LL_PARAM_TRANSFORM], parz_type_name(v->array.type));
  return PARZ_OK;
}

static int configure(const parz_chunk_config* cfg, parz_chunk_view* v, parz_error* err) {
  memset(v->codec_params, 0, PARZ_CODEC_PARAM_BYTES);
  memset(&v->params, 0, sizeof v->params);
  /* Holt's predictor takes its gains from the values: the encoder's choice, never asked */
  if (cfg->settings.predictor > PARZ_LL_PREDICT_ROWS ||
      cfg->settings.predictor == PARZ_LL_PREDICT_HOLT)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "lossless codec: predictor %u unknown (0 lorenzo, 1 stack, 3 rows)",
                     cfg->settings.predictor);
  if (cfg->settings.error_bound != 0)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "lossless codec: an error bound (%g) makes no sense: every value is exact",
                     cfg->settings.error_bound);
  if (cfg->settings.run_q &&
      (cfg->settings.run_q < PARZ_LL_RUN_QMIN || cfg->settings.run_q > PARZ_LL_RUN_QMAX))
    return parz_fail(err, PARZ_ERR_PARAM,
                     "lossless codec: runs of 2^%u residuals: run_q must be 0 (the writers' %u) "
                     "or %u..%u",
                     cfg->settings.run_q, PARZ_LL_RUN_Q, PARZ_LL_RUN_QMIN, PARZ_LL_RUN_QMAX);
  v->codec_params[PARZ_LL_PARAM_PREDICTOR] = (unsigned char)cfg->settings.predictor;
  return PARZ_OK;
}

/* The transform is the values' choice: scaled integers where every value is one; and so are
 * Holt's predictor for a series, where it stores less than the delta, and the row predictor for
 * more dimensions, where it stores less than the Lorenzo predictor. */
static void set_choice(parz_chunk_view* v, unsigned transform, unsigned p) {
  v->codec_params[PARZ_LL_PARAM_TRANSFORM] = (unsigned char)transform;
  v->codec_params[PARZ_LL_PARAM_PREDICTOR] = (unsigned char)PARZ_LL_PREDICTOR_KIND(p);
  v->codec_params[PARZ_LL_PARAM_ALPHA] = (unsigned char)PARZ_LL_HOLT_ALPHA(p);
  v->codec_params[PARZ_LL_PARAM_BETA] = (unsigned char)PARZ_LL_HOLT_BETA(p);
}

/* For a series asked for predictor 0 whose values repeat (at most half of them distinct): the
 * dictionary, its ranks' predictor chosen as the values' are, where its segments and its codec
 * data take fewer bytes than the values' segments (kept: the values' segments, which become
 * the ranks' where the dictionary wins and keep is not NULL). */
static int try_dictionary(parz_chunk_view* v, const parz_array* a, const void* values, size_t c,
                          const parz_jobs* jobs, size_t plain_bytes, unsigned char** data,
                          parz_ll_segments* keep, parz_error* err) {
  const size_t n = parz_array_count(a), w = 8 * parz_type_size(a->type);
  const parz_array ranked = coded_array(a, PARZ_LL_DICTIONARY);
  parz_ll_segments by_ranks = {NULL, NULL, 0};
  uint64_t* sorted = NULL;
  unsigned char *ranks = NULL, *dict = NULL;
  size_t count = 0, dict_bytes, coded;
  unsigned p;
  int rc = parz_ll_dict_build(a->type, values, n, &sorted, &count, err);
  if (rc != PARZ_OK || count > n / 2) {
    free(sorted);
    return rc;
  }
  ranks = (unsigned char*)malloc(n * (w / 8));
  dict = (unsigned char*)malloc(parz_ll_dict_write(sorted, count, (unsigned)w, NULL));
  if (!ranks || !dict) {
    rc = parz_fail(err, PARZ_ERR_NOMEM, "lossless: no room for the ranks of %zu values", n);
  } else if ((dict_bytes = parz_ll_dict_write(sorted, count, (unsigned)w, dict)) != 0) {
    parz_ll_dict_ranks(a->type, values, 0, n, sorted, count, ranks);
    p = parz_ll_choose_predictor_bytes(&ranked, ranks, 0, PARZ_LL_PREDICT_ALL, c, jobs, &coded,
                                       keep ? &by_ranks : NULL);
    if (coded && coded + dict_bytes < plain_bytes) {
      set_choice(v, PARZ_LL_DICTIONARY, p);
      v->codec_data = dict; /* read back by encode_segments */
      v->codec_data_bytes = dict_bytes;
      *data = dict;
      dict = NULL;
      if (keep) {
        parz_ll_segments_free(keep);
        *keep = by_ranks;
        by_ranks.bytes = NULL;
        by_ranks.ends = NULL;
      }
    }
  }
  parz_ll_segments_free(&by_ranks);
  free(sorted);
  free(ranks);
  free(dict);
  return rc;
}

/* The choices, and the segments they coded handed to the frame (kept) where they are the
 * encoder's: coded with the writers' runs, which the chunk's settings may replace. Their reads
 * and codings are cut into parts on jobs. */
static int prepare(parz_chunk_view* v, const parz_array* a, const void* values,
                   const parz_jobs* jobs, unsigned char** data, parz_kept_segments* kept,
                   parz_error* err) {
  const unsigned transform = parz_ll_choose_transform(a, values, jobs), asked = predictor_of(v);
  const size_t c = v->segment_blocks ? v->segment_blocks : LOSSLESS_SEGMENT_BLOCKS;
  const int dictionary = asked == PARZ_LL_PREDICT_ALL && series(a) && parz_array_count(a) > 1;
  const int keeps = v->settings.run_q == 0 || v->settings.run_q == PARZ_LL_RUN_Q;
  parz_ll_segments segs = {NULL, NULL, 0};
  size_t bytes = 0;
  const unsigned p = parz_ll_choose_predictor_bytes(
      a, values, transform, asked, c, jobs, dictionary ? &bytes : NULL, keeps ? &segs : NULL);
  int rc = PARZ_OK;
  *data = NULL;
  set_choice(v, transform, p);
  if (dictionary)
    rc = try_dictionary(v, a, values, c, jobs, bytes, data, keeps ? &segs : NULL, err);
  if (rc == PARZ_OK && segs.count) {
    kept->bytes = segs.bytes;
    kept->ends = segs.ends;
    kept->count = segs.count;
    kept->seg_blocks = (uint32_t)c;
  } else {
    parz_ll_segments_free(&segs);
  }
  return rc;
}

static int check(parz_chunk_view* v, parz_error* err) {
  const size_t values = v->raw_bytes / parz_type_size(v->array.type);
  size_t words;
  if (v->table == PARZ_TABLE_NONE)
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "lossless chunk with table kind NONE: its segments' lengths vary");
  if (v->codec_data && transform_of(v) != PARZ_LL_DICTIONARY)
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "lossless chunk with %llu bytes of codec data: only the dictionary has some",
                     (unsigned long long)v->codec_data_bytes);
  if (!v->codec_data && transform_of(v) == PARZ_LL_DICTIONARY)
    return parz_fail(err, PARZ_ERR_FORMAT, "lossless dictionary chunk without its dictionary");
  if (v->payload_bits % 8u)
    return parz_fail(err, PARZ_ERR_FORMAT, "lossless payload of %llu bits, not whole bytes",
                     (unsigned long long)v->payload_bits);
  /* every value takes a bit or more (a code word, or its raw bits), but in coder 4's empty runs,
   * where each run of at most 4096 zeros but a segment's last takes its u16 length, and a
   * segment its head (20 bytes or more): a bit for 256 values, which bounds the array a small
   * chunk may claim */
  if (v->payload_bits < values / PARZ_LL_VALUES_PER_BIT)
    return parz_fail(err, PARZ_ERR_FORMAT, "lossless payload of %llu bits for %zu values",
                     (unsigned long long)v->payload_bits, values);
  return v->codec_data ? parz_ll_dict_read(v->codec_data, (size_t)v->codec_data_bytes,
                                           (unsigned)(8 * parz_type_size(v->array.type)), values,
                                           NULL, &words, err)
                       : PARZ_OK;
}

static int fixed_length(const parz_params* p) {
  (void)p;
  return 0;
}

/* A block's raw residuals, and one byte for its segment's coder (a segment has a block or
 * more). */
static unsigned block_bits_bound(parz_type type, unsigned dims, const parz_params* p) {
  (void)dims;
  (void)p;
  return (unsigned)(8u * parz_ll_residual_bound(PARZ_LL_BLOCK_VALUES, 8u * parz_type_size(type)));
}

static size_t stream_bound(parz_type type, unsigned dims, const parz_params* p, size_t blocks) {
  const size_t b = block_bits_bound(type, dims, p) / 8u;
  return blocks > (SIZE_MAX - 8u) / b ? 0 : (blocks * b + 7u) / 8u * 8u;
}

static int check_encode(const parz_params* p, parz_type type, unsigned dims, parz_error* err) {
  (void)p;
  (void)dims;
  if (type != PARZ_FLOAT && type != PARZ_DOUBLE && type != PARZ_INT32 && type != PARZ_INT64)
    return parz_fail(err, PARZ_ERR_TYPE, "lossless codec: unknown value type %d", (int)type);
  return PARZ_OK;
}

/* Under the dictionary, the ranks of the values of blocks [first, first + count) of the series a
 * into a new array of a's count (*ranks, free it; its other values unset). */
static int rank_blocks(const parz_chunk_view* v, const parz_array* a, const void* data,
                       size_t first, size_t count, unsigned char** ranks, parz_error* err) {
  const size_t n = parz_array_count(a), size = parz_type_size(a->type);
  const size_t at = first * PARZ_LL_BLOCK_VALUES;
  const size_t end = n - at < count * PARZ_LL_BLOCK_VALUES ? n : at + count * PARZ_LL_BLOCK_VALUES;
  uint64_t* sorted;
  size_t words;
  int rc = parz_ll_dict_read(v->codec_data, (size_t)v->codec_data_bytes, (unsigned)(8 * size), n,
                             &sorted, &words, err);
  *ranks = NULL;
  if (rc != PARZ_OK)
    return rc;
  if (!(*ranks = (unsigned char*)malloc(n * size)))
    rc = parz_fail(err, PARZ_ERR_NOMEM, "lossless: no room for the ranks of %zu values", n);
  else if (at < end)
    parz_ll_dict_ranks(a->type, data, at, end - at, sorted, words, *ranks + at * size);
  free(sorted);
  return rc;
}

static int encode_segments(const parz_array* values_array, const void* values,
                           const parz_chunk_view* v, size_t first, size_t count, size_t seg_blocks,
                           void* dst, size_t dst_bytes, uint64_t* bits, uint32_t* seg_bits,
                           parz_error* err) {
  const int dictionary = transform_of(v) == PARZ_LL_DICTIONARY;
  const unsigned transform = dictionary ? 0u : transform_of(v), predictor = predictor_of(v);
  const parz_array ranked = coded_array(values_array, transform_of(v));
  const parz_array* a = &ranked;
  unsigned char* ranks = NULL;
  const void* data = values;
  const unsigned q = v->settings.run_q ? v->settings.run_q : PARZ_LL_RUN_Q;
  const size_t bound = parz_ll_segment_bound(a, predictor, seg_blocks);
  unsigned char *out = (unsigned char*)dst, *spare = NULL;
  size_t at = 0, i, nseg = count / seg_blocks + (count % seg_blocks != 0), pad;
  int rc = PARZ_OK;
  if (!bound || first % seg_blocks)
    return parz_fail(err, PARZ_ERR_ARG, "lossless codec: segments of %zu blocks from block %zu",
                     seg_blocks, first);
  if (dictionary &&
      (rc = rank_blocks(v, values_array, values, first, count, &ranks, err)) != PARZ_OK)
    return rc;
  if (dictionary)
    data = ranks;
  for (i = 0; i < nseg && rc == PARZ_OK; i++) {
    const size_t s = first / seg_blocks + i;
    size_t n = 0;
    /* the core writes a segment where its bound fits; near the end of a tight destination,
     * into a spare buffer first */
    if (dst_bytes - at >= bound) {
      rc = parz_ll_encode_segment_q(a, data, transform, predictor, seg_blocks, s, q, out + at,
                                    dst_bytes - at, &n, err);
    } else {
      if (!spare && !(spare = (unsigned char*)malloc(bound)))
        rc = parz_fail(err, PARZ_ERR_NOMEM, "lossless codec: no room for segment %zu", s);
      if (rc == PARZ_OK)
        rc = parz_ll_encode_segment_q(a, data, transform, predictor, seg_blocks, s, q, spare, bound,
                                      &n, err);
      if (rc == PARZ_OK && n > dst_bytes - at)
        rc = parz_fail(err, PARZ_ERR_BUFFER, "lossless codec: segment %zu past %zu bytes", s,
                       dst_bytes);
      if (rc == PARZ_OK)
        memcpy(out + at, spare, n);
    }
    if (rc == PARZ_OK && seg_bits)
      seg_bits[i] = (uint32_t)(8u * n);
    at += n;
  }
  free(spare);
  free(ranks);
  if (rc != PARZ_OK)
    return rc;
  /* the stream ends on a whole 64-bit word, zero bits after the last segment */
  pad = (8u - at % 8u) % 8u;
  if (pad > dst_bytes - at)
    return parz_fail(err, PARZ_ERR_BUFFER, "lossless codec: %zu bytes of stream in %zu", at + pad,
                     dst_bytes);
  memset(out + at, 0, pad);
  if (bits)
    *bits = 8u * (uint64_t)at;
  return PARZ_OK;
}

/* Whether d is v's whole array in C order, where blocks are rebuilt in place. */
static int dest_whole(const parz_chunk_view* v, const parz_chunk_dest* d) {
  ptrdiff_t run = 1;
  unsigned k;
  for (k = v->array.dims; k-- > 0;) {
    if (d->lo[k] || d->hi[k] != v->array.shape[k] || d->stride[k] != run)
      return 0;
    run *= (ptrdiff_t)v->array.shape[k];
  }
  return 1;
}

/* Block b's place in v's array: its first value o[k] and extents e[k] along each dimension. */
static void block_place(const parz_chunk_view* v, uint64_t b, size_t o[4], size_t e[4]) {
  unsigned k;
  for (k = 4; k-- > 0;) {
    const size_t n = k < v->array.dims ? v->array.shape[k] : 1, side = v->block_side[k];
    const size_t nb = n / side + (n % side != 0);
    o[k] = (size_t)(b % nb) * side;
    e[k] = n - o[k] < side ? n - o[k] : side;
    b /= nb;
  }
}

/* Block b rebuilt from its residuals z into the window of d: the block alone, as the only block
 * of an array of its extents (its prediction reads nothing outside it), then its values inside
 * the window stored at their places. */
/* Under the dictionary (words of it, count), the n ranks of box become their values in place;
 * PARZ_ERR_STREAM for a rank past the dictionary. */
static int unrank(const parz_chunk_view* v, unsigned char* box, size_t n, const uint64_t* words,
                  size_t count, uint64_t b, parz_error* err) {
  const int wide = parz_type_size(v->array.type) == 8;
  uint64_t u[256];
  size_t i, j, k;
  for (i = 0; i < n; i += k) {
    k = n - i < 256 ? n - i : 256;
    for (j = 0; j < k; j++) {
      const uint64_t r = wide ? ((const uint64_t*)box)[i + j] : ((const uint32_t*)box)[i + j];
      if (r >= count)
        return parz_fail(err, PARZ_ERR_STREAM,
                         "lossless block %llu: rank %llu past the dictionary's %zu values",
                         (unsigned long long)b, (unsigned long long)r, count);
      u[j] = words[r];
    }
    parz_ll_store_row(v->array.type, box, i, k, 0, u);
  }
  return PARZ_OK;
}

/* Block b's values into the window of d (transform's ranks through the dictionary words, count
 * of them, where words is not NULL); PARZ_OK or the error of a rank past the dictionary. */
static int rebuild_to(const parz_chunk_view* v, const parz_ll_geometry* g, const uint64_t* z,
                      uint64_t b, uint64_t* scratch, unsigned char* box, const parz_chunk_dest* d,
                      const uint64_t* words, size_t count, parz_error* err) {
  const size_t size = parz_type_size(v->array.type);
  parz_ll_geometry one = *g;
  size_t o[4], e[4], lo[4], hi[4], x[4];
  unsigned k, j, used = 0;
  block_place(v, b, o, e);
  for (k = 0; k < v->array.dims; k++) {
    lo[k] = d->lo[k] > o[k] ? d->lo[k] : o[k];
    hi[k] = d->hi[k] < o[k] + e[k] ? d->hi[k] : o[k] + e[k];
    if (lo[k] >= hi[k])
      return PARZ_OK; /* no value of the window */
    used += v->array.shape[k] > 1;
  }
  for (k = 0; k < 4; k++) {
    one.n[k] = 1;
    one.grid[k] = 1;
  }
  for (k = 0, j = 4 - used; k < v->array.dims; k++)
    if (v->array.shape[k] > 1)
      one.n[j++] = e[k];
  one.blocks = 1;
  parz_ll_rebuild_block(&one, words ? 0u : transform_of(v), z, 0, scratch, box);
  if (words) {
    const int rc = unrank(v, box, e[0] * e[1] * e[2] * e[3], words, count, b, err);
    if (rc != PARZ_OK)
      return rc;
  }
  /* rows of the last dimension, the block's C order */
  for (k = 0; k < 4; k++)
    x[k] = k < v->array.dims ? lo[k] : 0;
  for (;;) {
    const unsigned last = v->array.dims - 1;
    size_t in = 0;
    ptrdiff_t to = 0;
    for (k = 0; k < v->array.dims; k++) {
      in = in * e[k] + (x[k] - o[k]);
      to += (ptrdiff_t)(x[k] - d->lo[k]) * d->stride[k];
    }
    if (d->stride[last] == 1) {
      memcpy((unsigned char*)d->data + to * (ptrdiff_t)size, box + in * size,
             (hi[last] - lo[last]) * size);
    } else {
      size_t i;
      for (i = 0; i < hi[last] - lo[last]; i++)
        memcpy((unsigned char*)d->data + (to + (ptrdiff_t)i * d->stride[last]) * (ptrdiff_t)size,
               box + (in + i) * size, size);
    }
    for (k = last; k-- > 0;) {
      if (++x[k] < hi[k])
        break;
      x[k] = lo[k];
    }
    if (k == (unsigned)-1)
      return PARZ_OK;
  }
}

/* Segment i of the run: its number, blocks [*b0, *b1), values *n, bytes at payload bit *begin
 * to *end; PARZ_OK or the error of a span that is not whole bytes of the payload. */
static int run_segment(const parz_segment_run* run, const parz_ll_geometry* g, size_t i,
                       uint64_t begin, size_t* b0, size_t* b1, size_t* n, parz_error* err) {
  const size_t C = run->seg_blocks, s = run->first / C + i;
  const uint64_t end = run->ends[i];
  *b0 = run->first + i * C;
  *b1 = *b0 + C < run->first + run->count ? *b0 + C : run->first + run->count;
  if (begin % 8u || end % 8u || end < begin || end / 8u > run->src_bytes)
    return parz_fail(err, PARZ_ERR_STREAM,
                     "lossless segment %zu spans payload bits %llu to %llu: not whole bytes of "
                     "the payload",
                     s, (unsigned long long)begin, (unsigned long long)end);
  *n = parz_ll_block_first(g, *b1) - parz_ll_block_first(g, *b0);
  return PARZ_OK;
}

static int decode_segments(const parz_segment_run* run, size_t* bad, uint64_t* bad_end,
                           parz_error* err) {
  const parz_chunk_view* v = run->view;
  const size_t C = run->seg_blocks, nseg = run->count / C + (run->count % C != 0);
  const int dictionary = transform_of(v) == PARZ_LL_DICTIONARY;
  const int whole = dest_whole(v, run->dest) && !dictionary;
  const unsigned char* payload = (const unsigned char*)run->src;
  /* the working memory of the whole run in one allocation: two segments' residuals (decoded
   * side by side), the predictor's padded block, a block's values for a window, the codes'
   * tables */
  const size_t z_words = C * PARZ_LL_BLOCK_VALUES, box_words = whole ? 0 : PARZ_LL_BLOCK_VALUES;
  const size_t words = 2 * z_words + PARZ_LL_SCRATCH + box_words + PARZ_LL_UNCODE_WORDS;
  parz_ll_geometry g;
  uint64_t *z = NULL, *scratch, begin = run->bit;
  unsigned char* box;
  uint32_t* tables;
  uint64_t* dict = NULL;
  size_t i, dict_words = 0;
  int rc = geometry(v, &g, err);
  *bad = SIZE_MAX;
  *bad_end = 0;
  if (rc == PARZ_OK && dictionary) /* checked by the parse: read again, not checked again */
    rc = parz_ll_dict_read(v->codec_data, (size_t)v->codec_data_bytes, g.w,
                           v->raw_bytes / parz_type_size(v->array.type), &dict, &dict_words, err);
  if (rc != PARZ_OK)
    return rc;
  z = (uint64_t*)malloc(words * sizeof *z);
  if (!z) {
    free(dict);
    return parz_fail(err, PARZ_ERR_NOMEM, "lossless codec: no room for segments of %zu blocks", C);
  }
  scratch = z + 2 * z_words;
  box = (unsigned char*)(scratch + PARZ_LL_SCRATCH);
  tables = (uint32_t*)(scratch + PARZ_LL_SCRATCH + box_words);
  for (i = 0; i < nseg && rc == PARZ_OK; i += 2) {
    /* segments i and i + 1 (where the run has it) */
    const unsigned pair = i + 1 < nseg ? 2u : 1u;
    const uint8_t* src[2] = {NULL, NULL};
    size_t b0[2] = {0, 0}, b1[2] = {0, 0}, n[2] = {0, 0}, bytes[2] = {0, 0}, b, at;
    uint64_t* zk[2] = {z, z + z_words};
    unsigned k, good = 0;
    for (k = 0; k < pair && rc == PARZ_OK; k++) {
      rc = run_segment(run, &g, i + k, begin, &b0[k], &b1[k], &n[k], err);
      src[k] = payload + begin / 8u;
      bytes[k] = (size_t)((run->ends[i + k] - begin) / 8u);
      begin = run->ends[i + k];
    }
    if (rc != PARZ_OK && k == 2) {
      /* the second's span is refused: the first decodes alone, its refusal first */
      parz_error second = err ? *err : (parz_error){0};
      rc =
          parz_ll_uncode_residuals(src[0], bytes[0], n[0], g.w, z, tables, run->first / C + i, err);
      good = rc == PARZ_OK;
      if (rc == PARZ_OK) {
        rc = PARZ_ERR_STREAM;
        if (err)
          *err = second;
      }
    } else if (rc == PARZ_OK && pair == 2) {
      rc = parz_ll_uncode_pair(src, bytes, n, g.w, zk, tables, run->first / C + i, &good, err);
    } else if (rc == PARZ_OK) {
      rc =
          parz_ll_uncode_residuals(src[0], bytes[0], n[0], g.w, z, tables, run->first / C + i, err);
      good = rc == PARZ_OK;
    }
    /* the segments that decoded, whatever a later one holds */
    for (k = 0; k < good; k++) {
      int r = PARZ_OK;
      for (b = b0[k], at = 0; b < b1[k] && r == PARZ_OK; b++) {
        if (whole)
          parz_ll_rebuild_block(&g, transform_of(v), zk[k] + at, b, scratch, run->dest->data);
        else
          r = rebuild_to(v, &g, zk[k] + at, b, scratch, box, run->dest, dict, dict_words, err);
        at += parz_ll_block_values(&g, b);
      }
      if (r != PARZ_OK) {
        rc = r;
        break;
      }
    }
  }
  free(z);
  free(dict);
  return rc;
}

const parz_codec parz_codec_lossless = {
    .id = PARZ_CODEC_LOSSLESS,
    .version = 1,
    .name = "lossless",
    .exact = 1,                                /* every bit pattern */
    .contiguous = 1,                           /* the core reads rows of contiguous arrays */
    .segment_blocks = LOSSLESS_SEGMENT_BLOCKS, /* each segment coded as a whole */
    .block_sides = block_sides,                /* 4096 values */
    .read_params = read_params,
    .configure = configure,
    .prepare = prepare, /* the transform */
    .fixed_length = fixed_length,
    .check = check,
    .block_bits_bound = block_bits_bound,
    .stream_bound = stream_bound,
    .check_encode = check_encode,
    .encode_segments = encode_segments,
    .decode_segments = decode_segments,
    .modes = &parz_lossless_modes,
    .min_block_bits = 1, /* every value takes a bit or more */
};
