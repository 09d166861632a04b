/* A codec compiled only into a test (test_codec_raw.c): blocks of 4^d values copied as they are,
 * little-endian, whole blocks (values outside a partial block are zero). It shows what a codec
 * is: this folder and one parz_codec entry in a codec table (codecs.h; codec_table.c here); the
 * frame (table, payload checksums, exceptions, masks, destination windows) and the drivers do
 * the rest. */
#include "raw_codec.h"

#include <string.h>

#include "codec_modes.h"
#include "mask_cursor.h"

/* Bytes of one block: 4^d values of the type. */
static size_t block_bytes(parz_type type, unsigned dims) {
  return ((size_t)1 << (2 * dims)) * parz_type_size(type);
}

/* The codec parameters are zfp's four: the frame's exceptions and masks read zfp's parameters,
 * and any valid set of them serves. */
static int set_params(parz_params* p, const parz_params* from, parz_error* err) {
  return parz_params_expert(p, from->minbits, from->maxbits, from->maxprec, from->minexp, err);
}

static int read_params(parz_chunk_view* v, parz_error* err) {
  parz_params p;
  parz_codec_params_get4(v->codec_params, &p);
  return set_params(&v->params, &p, err);
}

static int configure(const parz_chunk_config* cfg, parz_chunk_view* v, parz_error* err) {
  int rc = set_params(&v->params, &cfg->params, err);
  parz_codec_params_put4(v->codec_params, &v->params);
  return rc;
}

static void block_sides(const parz_chunk_view* v, uint32_t side[4]) {
  parz_block_sides_cube(v, 4, side);
}

static int fixed_length(const parz_params* p) {
  (void)p;
  return 1;
}

static unsigned block_bits_bound(parz_type type, unsigned dims, const parz_params* p) {
  (void)p;
  return (unsigned)(8u * block_bytes(type, dims));
}

static size_t stream_bound(parz_type type, unsigned dims, const parz_params* p, size_t blocks) {
  const size_t b = block_bytes(type, dims);
  (void)p;
  return blocks > (SIZE_MAX - 8u) / b ? 0 : (blocks * b + 7u) / 8u * 8u;
}

static int check_encode(const parz_params* p, parz_type type, unsigned dims, parz_error* err) {
  (void)p;
  (void)type;
  (void)dims;
  (void)err;
  return PARZ_OK;
}

/* The coordinates (C order) of value j of block b of an array of shape n[0..dims). */
static int value_at(const size_t* n, unsigned dims, uint64_t b, unsigned j, size_t* x) {
  unsigned k;
  for (k = dims; k-- > 0;) {
    const uint64_t nb = (n[k] + 3u) / 4u;
    x[k] = (size_t)(b % nb) * 4u + (j & 3u);
    b /= nb;
    j >>= 2;
    if (x[k] >= n[k])
      return 0;
  }
  return 1;
}

/* Where the value at x lies in an array of shape n and element strides s (0: contiguous). */
static ptrdiff_t array_offset(const parz_array* a, const size_t* x) {
  ptrdiff_t at = 0, run = 1;
  unsigned k;
  for (k = a->dims; k-- > 0;) {
    at += (ptrdiff_t)x[k] * (a->stride[k] ? a->stride[k] : run);
    run *= (ptrdiff_t)a->shape[k];
  }
  return at;
}

static int encode_segments(const parz_array* a, const void* data, const parz_chunk_view* v,
                           size_t first, size_t count, size_t seg_blocks, void* dst,
                           size_t dst_bytes, uint64_t* bits, uint32_t* seg_bits, parz_error* err) {
  const size_t size = parz_type_size(a->type), bb = block_bytes(a->type, a->dims);
  const unsigned n = 1u << (2 * a->dims);
  unsigned char* out = (unsigned char*)dst;
  size_t i, x[4];
  unsigned j;
  (void)v;
  if (count > dst_bytes / bb)
    return parz_fail(err, PARZ_ERR_BUFFER, "raw codec: %zu blocks in %zu bytes", count, dst_bytes);
  memset(dst, 0, count * bb); /* whole 64-bit words: a block is 16 bytes or more */
  for (i = 0; i < count; i++)
    for (j = 0; j < n; j++)
      if (value_at(a->shape, a->dims, first + i, j, x))
        memcpy(out + i * bb + j * size,
               (const unsigned char*)data + array_offset(a, x) * (ptrdiff_t)size, size);
  if (seg_bits)
    for (i = 0; i < count; i += seg_blocks)
      seg_bits[i / seg_blocks] =
          (uint32_t)(8u * bb * (count - i < seg_blocks ? count - i : seg_blocks));
  if (bits)
    *bits = 8u * (uint64_t)(count * bb);
  return PARZ_OK;
}

static int decode_segments(const parz_segment_run* run, size_t* bad, uint64_t* bad_end,
                           parz_error* err) {
  const parz_array* a = run->array;
  const size_t size = parz_type_size(a->type), bb = block_bytes(a->type, a->dims);
  const unsigned n = 1u << (2 * a->dims);
  const unsigned char* src = (const unsigned char*)run->src;
  uint64_t block[256], at = run->bit;
  parz_mask_cursor cursor;
  size_t i, x[4];
  unsigned j, k;
  *bad = SIZE_MAX;
  if (run->bit % 8u || at / 8u + run->count * bb > run->src_bytes)
    return parz_fail(err, PARZ_ERR_STREAM, "raw codec: %zu blocks from bit %llu of %zu bytes",
                     run->count, (unsigned long long)run->bit, run->src_bytes);
  if (run->mask->nvalues)
    parz_mask_seek(&cursor, run->mask, a, run->first);
  for (i = 0; i < run->count; i++, at += 8u * bb) {
    memcpy(block, src + at / 8u, bb);
    if (run->mask->nvalues)
      parz_mask_block(&cursor, run->first + i, block);
    for (j = 0; j < n; j++) {
      unsigned char* to = (unsigned char*)run->dest->data;
      int inside = value_at(a->shape, a->dims, run->first + i, j, x);
      for (k = 0; inside && k < a->dims; k++) {
        inside = x[k] >= run->dest->lo[k] && x[k] < run->dest->hi[k];
        to += (ptrdiff_t)(x[k] - run->dest->lo[k]) * run->dest->stride[k] * (ptrdiff_t)size;
      }
      if (inside)
        memcpy(to, (const unsigned char*)block + j * size, size);
    }
    if ((i + 1) % run->seg_blocks == 0 || i + 1 == run->count) {
      const size_t s = i / run->seg_blocks;
      if (at + 8u * bb != run->ends[s]) {
        *bad = s;
        *bad_end = at + 8u * bb;
        return PARZ_OK;
      }
    }
  }
  return PARZ_OK;
}

/* Its one mode, "copy": the values as they are. Every block takes its bits, which the header's
 * parameters say as a fixed rate (minbits = maxbits), so a table of kind NONE serves; minexp
 * below zfp's least, as in zfp's reversible mode, for the frame's exceptions and masks. */
static int copy_params(parz_chunk_config* c, const uint32_t* words, parz_type type, unsigned dims,
                       parz_error* err) {
  const unsigned bits = block_bits_bound(type, dims, NULL);
  (void)words;
  return parz_params_expert(&c->params, bits, bits, PARZ_MAX_PREC, PARZ_MIN_EXP - 1, err);
}

static int stored_params(parz_chunk_config* c, const uint32_t words[4], parz_error* err) {
  return parz_params_expert(&c->params, words[0], words[1], words[2], (int32_t)words[3], err);
}

static void keep(const parz_chunk_config* c, uint32_t words[4]) {
  parz_mode_params_words(&c->params, words);
}

static const parz_codec_mode raw_mode[] = {
    {1, "copy", "", "", "the values as they are", 1, copy_params}};
static const parz_codec_modes raw_modes = {raw_mode, 1, stored_params, keep, NULL, NULL};

const parz_codec parz_codec_raw = {
    PARZ_CODEC_RAW,   /* id */
    1,                /* version */
    "raw",            /* name */
    0,                /* exact: the frame's exceptions and masks serve it */
    0,                /* contiguous: reads strided arrays */
    0,                /* segment_blocks: auto C */
    block_sides,      /* block_sides: 4^d values */
    read_params,      /* read_params */
    configure,        /* configure */
    NULL,             /* prepare */
    fixed_length,     /* fixed_length */
    NULL,             /* check */
    block_bits_bound, /* block_bits_bound */
    stream_bound,     /* stream_bound */
    check_encode,     /* check_encode */
    encode_segments,  /* encode_segments */
    decode_segments,  /* decode_segments */
    NULL,             /* decode_to: a stream codec */
    NULL,             /* meets */
    &raw_modes,       /* modes */
    NULL,             /* exception_rules: NaN and the infinities alone */
    NULL,             /* check_bound: values come back as they are */
    1,                /* min_block_bits */
    NULL              /* scratch: a stream codec */
};
