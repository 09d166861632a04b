/* Stored chunks (stored.h). */
#include "stored.h"

#include <string.h>

#include "codecs.h"
#include "header.h"
#include "payload_checksum.h"
#include "table.h"
#include "table_endian.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LITTLE_ENDIAN 1
#else
#define HOST_LITTLE_ENDIAN 0
#endif

/* n values of `size` bytes from src to dst, turned between little-endian and the host's order
 * (a copy on little-endian hosts); dst_step is the destination's stride in values. */
static void copy_values(unsigned char* dst, ptrdiff_t dst_step, const unsigned char* src,
                        size_t size, size_t n) {
  size_t i, b;
  if (HOST_LITTLE_ENDIAN && dst_step == 1) {
    memcpy(dst, src, n * size);
    return;
  }
  for (i = 0; i < n; i++, src += size, dst += dst_step * (ptrdiff_t)size) {
    if (HOST_LITTLE_ENDIAN)
      memcpy(dst, src, size);
    else
      for (b = 0; b < size; b++)
        dst[b] = src[size - 1 - b];
  }
}

int parz_stored_layout(parz_chunk_view* v, const parz_array* a, const parz_chunk_config* cfg,
                       parz_error* err) {
  size_t size, count = 1;
  unsigned k;
  int rc;
  memset(v, 0, sizeof *v);
  if (!a || !cfg)
    return parz_fail(err, PARZ_ERR_ARG, "NULL array or chunk configuration");
  if ((rc = parz_array_check(a, err)) != PARZ_OK)
    return rc;
  if (cfg->checksum != PARZ_CHECKSUM_DEFAULT && cfg->checksum != PARZ_CHECKSUM_ON &&
      cfg->checksum != PARZ_CHECKSUM_OFF)
    return parz_fail(err, PARZ_ERR_PARAM, "unknown checksum setting %d", (int)cfg->checksum);
  size = parz_type_size(a->type);
  for (k = 0; k < a->dims; k++) {
    if (count > (SIZE_MAX - 8) / size / a->shape[k] - PARZ_HEADER_BYTES)
      return parz_fail(err, PARZ_ERR_DIMS, "array of more than SIZE_MAX bytes");
    count *= a->shape[k];
  }
  v->version = 2;
  v->codec = PARZ_CODEC_STORED;
  v->array.type = a->type;
  v->array.dims = a->dims;
  for (k = 0; k < a->dims; k++)
    v->array.shape[k] = a->shape[k];
  v->params.minbits = v->params.maxbits = (unsigned)(8 * size);
  parz_codec_params_put4(v->codec_params, &v->params);
  parz_block_sides_cube(v, 1, v->block_side);
  v->table = PARZ_TABLE_NONE;
  v->segment_blocks = PARZ_STORED_SEGMENT_VALUES;
  v->nblocks = count;
  v->nsegments = count / v->segment_blocks + (count % v->segment_blocks != 0);
  v->raw_bytes = count * size;
  v->payload_bits = (uint64_t)v->raw_bytes * 8u;
  v->payload_bytes = (v->raw_bytes + 7u) & ~(size_t)7u;
  if (cfg->checksum != PARZ_CHECKSUM_OFF) {
    v->checksum_segments = PARZ_DEFAULT_PARTITION_SEGMENTS;
    v->nchecksums = parz_checksum_count(v->nsegments, v->checksum_segments);
  }
  v->chunk_bytes = PARZ_HEADER_BYTES + v->payload_bytes;
  if (v->nchecksums)
    v->chunk_bytes += PARZ_SECTION_ENTRY_BYTES + PARZ_CHECKSUM_HEAD_BYTES + 8u * v->nchecksums;
  return PARZ_OK;
}

size_t parz_stored_bytes(const parz_array* a, const parz_chunk_config* cfg) {
  parz_chunk_view v;
  return parz_stored_layout(&v, a, cfg, NULL) == PARZ_OK ? v.chunk_bytes : 0;
}

/* The values of a (strided or not) in C order, little-endian, at dst. */
static void gather(const parz_array* a, const unsigned char* data, unsigned char* dst) {
  const size_t size = parz_type_size(a->type);
  const unsigned last = a->dims - 1;
  ptrdiff_t stride[4];
  size_t x[4] = {0, 0, 0, 0}, k;
  int strided = 0;
  for (k = 0; k < a->dims; k++)
    strided |= a->stride[k] != 0;
  /* the elements' strides of C order where none are given */
  stride[last] = 1;
  for (k = last; k-- > 0;)
    stride[k] = stride[k + 1] * (ptrdiff_t)a->shape[k + 1];
  if (strided)
    for (k = 0; k < a->dims; k++)
      stride[k] = a->stride[k];
  for (;;) { /* a row of the last dimension at a time */
    ptrdiff_t at = 0;
    for (k = 0; k < last; k++)
      at += (ptrdiff_t)x[k] * stride[k];
    if (stride[last] == 1) {
      copy_values(dst, 1, data + at * (ptrdiff_t)size, size, a->shape[last]);
    } else {
      size_t i;
      for (i = 0; i < a->shape[last]; i++)
        copy_values(dst + i * size, 1, data + (at + (ptrdiff_t)i * stride[last]) * (ptrdiff_t)size,
                    size, 1);
    }
    dst += a->shape[last] * size;
    for (k = last; k-- > 0;) {
      if (++x[k] < a->shape[k])
        break;
      x[k] = 0;
    }
    if (k == (size_t)-1)
      return;
  }
}

int parz_stored_encode(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                       void* dst, size_t dst_bytes, size_t* written, parz_error* err) {
  parz_chunk_view v;
  parz_chunk_offsets o;
  unsigned char* out = (unsigned char*)dst;
  uint64_t p;
  int rc;
  if (written)
    *written = 0;
  if ((rc = parz_stored_layout(&v, a, cfg, err)) != PARZ_OK)
    return rc;
  if (!data || !dst)
    return parz_fail(err, PARZ_ERR_ARG, "NULL array or destination");
  if (dst_bytes < v.chunk_bytes)
    return parz_fail(err, PARZ_ERR_BUFFER, "destination of %zu bytes, the stored chunk takes %zu",
                     dst_bytes, v.chunk_bytes);
  parz_chunk_header_write(&v, out);
  parz_chunk_section_offsets(&v, &o);
  gather(a, (const unsigned char*)data, out + o.payload);
  memset(out + o.payload + v.raw_bytes, 0, v.payload_bytes - v.raw_bytes);
  for (p = 0; p < v.nchecksums; p++) {
    const uint64_t s0 = p * v.checksum_segments, s1 = s0 + v.checksum_segments;
    const uint64_t begin = parz_chunk_segment_offset(&v, s0);
    const uint64_t end =
        s1 < v.nsegments ? parz_chunk_segment_offset(&v, s1) : 8u * v.payload_bytes;
    parz_store64(out + o.checksums + 8u * p, parz_payload_checksum(out + o.payload, begin, end));
  }
  parz_chunk_header_seal(out, o.payload);
  if (written)
    *written = v.chunk_bytes;
  return PARZ_OK;
}

int parz_stored_check(parz_chunk_view* v, parz_error* err) {
  const size_t size = parz_type_size(v->array.type);
  uint64_t count = 1;
  unsigned k;
  for (k = 0; k < v->array.dims; k++)
    count *= v->array.shape[k]; /* the parser checked that the decoded size fits size_t */
  if (v->version < 2)
    return parz_fail(err, PARZ_ERR_FORMAT, "a stored chunk (codec 2) of format version %u",
                     v->version);
  if (v->params.minbits != 8u * size || v->params.maxbits != 8u * size || v->params.maxprec ||
      v->params.minexp)
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "stored chunk with parameters %u, %u, %u, %d (must be %zu, %zu, 0, 0)",
                     v->params.minbits, v->params.maxbits, v->params.maxprec, v->params.minexp,
                     8u * size, 8u * size);
  if (v->table != PARZ_TABLE_NONE || v->length_bytes || v->partition_segments || v->table_bytes)
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "stored chunk with table kind %d, width %u, P %u, %zu table bytes (must be "
                     "NONE, 0, 0, 0)",
                     (int)v->table, v->length_bytes, v->partition_segments, v->table_bytes);
  if (v->segment_blocks < 1 || v->segment_blocks > PARZ_MAX_SEGMENT_BLOCKS)
    return parz_fail(err, PARZ_ERR_FORMAT, "stored chunk with %u values per segment",
                     v->segment_blocks);
  if (v->nexceptions || v->mask.section_bytes || v->codec_data_bytes)
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "stored chunk with %llu exceptions, a mask of %llu bytes and %llu bytes of "
                     "codec data (must have none)",
                     (unsigned long long)v->nexceptions, (unsigned long long)v->mask.section_bytes,
                     (unsigned long long)v->codec_data_bytes);
  if (v->payload_bits != count * 8u * size || v->payload_bytes != ((count * size + 7u) & ~7ull))
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "stored chunk of %llu values with a payload of %llu bits in %zu bytes",
                     (unsigned long long)count, (unsigned long long)v->payload_bits,
                     v->payload_bytes);
  v->nblocks = count;
  v->nsegments = count / v->segment_blocks + (count % v->segment_blocks != 0);
  return PARZ_OK;
}

/* Calls fn for every row of the last dimension whose values in [v0, v1) meet d's window: the
 * row's first value index, the window's part of it [c0, c1) along the last dimension, and its
 * coordinates x. Stops at the first nonzero return and returns it. */
typedef int (*row_fn)(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t row_start,
                      size_t c0, size_t c1, const size_t* x, void* ctx);

static int each_row(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t v0, uint64_t v1,
                    row_fn fn, void* ctx) {
  const unsigned last = v->array.dims - 1;
  const uint64_t n = v->array.shape[last];
  uint64_t row, rest;
  size_t x[4] = {0, 0, 0, 0};
  unsigned k;
  int rc;
  if (v1 <= v0)
    return 0;
  row = v0 / n;
  for (rest = row, k = last; k-- > 0;) { /* the coordinates of the first row */
    x[k] = (size_t)(rest % v->array.shape[k]);
    rest /= v->array.shape[k];
  }
  for (; row * n < v1; row++) {
    int inside = 1;
    for (k = 0; k < last; k++)
      inside &= x[k] >= d->lo[k] && x[k] < d->hi[k];
    if (inside) {
      const uint64_t from = v0 > row * n ? v0 - row * n : 0,
                     to = v1 - row * n < n ? v1 - row * n : n;
      const size_t c0 = from > d->lo[last] ? (size_t)from : d->lo[last];
      const size_t c1 = to < d->hi[last] ? (size_t)to : d->hi[last];
      if (c0 < c1 && (rc = fn(v, d, row * n, c0, c1, x, ctx)) != 0)
        return rc;
    }
    for (k = last; k-- > 0;) {
      if (++x[k] < v->array.shape[k])
        break;
      x[k] = 0;
    }
  }
  return 0;
}

static int copy_row(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t row_start,
                    size_t c0, size_t c1, const size_t* x, void* ctx) {
  const size_t size = parz_type_size(v->array.type);
  const unsigned last = v->array.dims - 1;
  ptrdiff_t at = (ptrdiff_t)(c0 - d->lo[last]) * d->stride[last];
  unsigned k;
  (void)ctx;
  for (k = 0; k < last; k++)
    at += (ptrdiff_t)(x[k] - d->lo[k]) * d->stride[k];
  copy_values((unsigned char*)d->data + at * (ptrdiff_t)size, d->stride[last],
              v->payload + (row_start + c0) * size, size, c1 - c0);
  return 0;
}

static int found_row(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t row_start,
                     size_t c0, size_t c1, const size_t* x, void* ctx) {
  (void)v, (void)d, (void)row_start, (void)c0, (void)c1, (void)x, (void)ctx;
  return 1;
}

/* Values of segments [first, first + count). */
static void segment_values(const parz_chunk_view* v, uint64_t first, uint64_t count, uint64_t* v0,
                           uint64_t* v1) {
  const uint64_t end = first + count < v->nsegments ? first + count : v->nsegments;
  *v0 = first < v->nsegments ? first * v->segment_blocks : v->nblocks;
  *v1 = end * v->segment_blocks < v->nblocks ? end * v->segment_blocks : v->nblocks;
}

void parz_stored_decode_to(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t first,
                           uint64_t count) {
  uint64_t v0, v1;
  segment_values(v, first, count, &v0, &v1);
  each_row(v, d, v0, v1, copy_row, NULL);
}

int parz_stored_meets(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t first,
                      uint64_t count) {
  uint64_t v0, v1;
  segment_values(v, first, count, &v0, &v1);
  return each_row(v, d, v0, v1, found_row, NULL);
}

static void block_sides(const parz_chunk_view* v, uint32_t side[4]) {
  parz_block_sides_cube(v, 1, side);
}

static int read_params(parz_chunk_view* v, parz_error* err) {
  (void)err; /* its values' widths, checked by parz_stored_check with the rest of the header */
  parz_codec_params_get4(v->codec_params, &v->params);
  return PARZ_OK;
}

static int fixed_length(const parz_params* p) {
  (void)p;
  return 1;
}

const parz_codec parz_codec_stored = {
    PARZ_CODEC_STORED,     /* id */
    1,                     /* version */
    "stored",              /* name */
    0,                     /* exact: its check refuses exceptions, masks and codec data */
    0,                     /* contiguous: written by its own encoder */
    0,                     /* segment_blocks: its layout's own */
    block_sides,           /* block_sides: a block is one value */
    read_params,           /* read_params */
    NULL,                  /* configure: written by the rule of stored chunks only */
    NULL,                  /* prepare */
    fixed_length,          /* fixed_length */
    parz_stored_check,     /* check */
    NULL,                  /* block_bits_bound: a direct codec */
    NULL,                  /* stream_bound */
    NULL,                  /* check_encode */
    NULL,                  /* encode_segments */
    NULL,                  /* decode_segments */
    parz_stored_decode_to, /* decode_to */
    parz_stored_meets,     /* meets */
    NULL,                  /* modes: written by the rule of stored chunks only */
    NULL,                  /* exception_rules: NaN and the infinities alone */
    NULL,                  /* check_bound: values come back as they are */
    0,                     /* min_block_bits: its check asks for every value's bits */
    NULL                   /* scratch: a direct codec */
};
