/* Chunk encoder in three steps (begin / encode segments / write head), shared by the serial path
 * below and the OpenMP driver so that both write the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "exceptions.h"
#include "table.h"

#define NOT_ENCODED UINT64_MAX
#define UNIT_NOT_ENCODED UINT32_MAX /* unit lengths are below it (encode_segments checks) */
#define CHECKPOINT 64u              /* units per stored offset (unit_offset) */

struct parz_chunk_encoder {
  parz_chunk_view v;        /* layout and sizes; its pointers are unused. Its segments are the
                             * encoder's units; with auto C (auto_c) they are single blocks and
                             * the chunk's own layout comes from settle() */
  parz_chunk_config cfg;    /* the caller's configuration, for settle() */
  int auto_c;
  parz_array src;           /* what the codec reads: the caller's array or the cleaned copy */
  const void* data;
  void* cleaned;            /* owned; NULL when the array has no non-finite value */
  unsigned char* records;   /* owned exception records, nexceptions * PARZ_EXCEPTION_BYTES */
  uint32_t* seg_bits;       /* per unit, UNIT_NOT_ENCODED until encoded */
  uint64_t* seg_offset;     /* the offset of every CHECKPOINT-th unit (and of the end when
                             * nsegments is a multiple), computed by write_head (`joined`):
                             * 8 bytes per 64 units, so that auto C's single-block units cost
                             * 8 bytes per block with block_bits. Re-encoding a segment
                             * afterwards needs another write_head. encode_segments writes no
                             * shared field: threads may run it at once on disjoint ranges
                             * without a data race */
  uint32_t* block_bits;     /* per block scratch for the codec (NULL for fixed rate) */
  size_t head_bytes;        /* header + table + exceptions of the units' layout (the largest) */
  int joined;
};

void parz_chunk_encoder_free(parz_chunk_encoder* enc) {
  if (!enc)
    return;
  free(enc->cleaned);
  free(enc->records);
  free(enc->seg_bits);
  free(enc->seg_offset);
  free(enc->block_bits);
  free(enc);
}

int parz_chunk_encoder_begin(parz_chunk_encoder** out, const parz_array* a, const void* data,
                             const parz_chunk_config* cfg, parz_error* err) {
  parz_chunk_encoder* enc;
  uint64_t s, nexc;
  int rc;
  if (!out)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_encoder_begin: NULL encoder pointer");
  *out = NULL;
  if (!data)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_encoder_begin: NULL data");
  enc = (parz_chunk_encoder*)calloc(1, sizeof *enc);
  if (!enc)
    return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for the chunk encoder");
  if ((rc = parz_chunk_layout(&enc->v, a, cfg, err)) != PARZ_OK) {
    free(enc);
    return rc;
  }
  enc->cfg = *cfg;
  enc->auto_c = cfg->segment_blocks == 0 && parz_chunk_auto_c(&enc->v);
  enc->src = *a;
  enc->data = data;
  nexc = parz_exceptions_count(a, data);
  if (nexc) {
    /* only arrays holding NaN or Inf pay for a copy */
    enc->cleaned = malloc(enc->v.raw_bytes);
    enc->records = (unsigned char*)malloc((size_t)nexc * PARZ_EXCEPTION_BYTES);
    if (!enc->cleaned || !enc->records) {
      parz_chunk_encoder_free(enc);
      return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for %llu non-finite exceptions",
                       (unsigned long long)nexc);
    }
    parz_exceptions_clean(a, data, enc->cleaned, enc->records);
    enc->src = enc->v.array;   /* contiguous */
    enc->data = enc->cleaned;
    enc->v.nexceptions = nexc;
  }
  enc->seg_bits = (uint32_t*)malloc((size_t)enc->v.nsegments * sizeof(uint32_t));
  enc->seg_offset =
      (uint64_t*)malloc(((size_t)enc->v.nsegments / CHECKPOINT + 1) * sizeof(uint64_t));
  if (!parz_params_fixed_rate(&enc->v.params))
    enc->block_bits = (uint32_t*)malloc((size_t)enc->v.nblocks * sizeof(uint32_t));
  if (!enc->seg_bits || !enc->seg_offset ||
      (!enc->block_bits && !parz_params_fixed_rate(&enc->v.params))) {
    uint64_t n = enc->v.nsegments;
    parz_chunk_encoder_free(enc);
    return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for the table of %llu segments",
                     (unsigned long long)n);
  }
  for (s = 0; s < enc->v.nsegments; s++)
    enc->seg_bits[s] = UNIT_NOT_ENCODED;
  enc->head_bytes = parz_chunk_head_bytes(&enc->v);
  *out = enc;
  return PARZ_OK;
}

uint64_t parz_chunk_encoder_segments(const parz_chunk_encoder* enc) {
  return enc ? enc->v.nsegments : 0;
}

/* Blocks of segments [first, first + count): [*b0, *b0 + return value). */
static uint64_t segment_blocks(const parz_chunk_view* v, uint64_t first, uint64_t count,
                               uint64_t* b0) {
  uint64_t end = (first + count) * v->segment_blocks;
  *b0 = first * v->segment_blocks;
  return (end < v->nblocks ? end : v->nblocks) - *b0;
}

size_t parz_chunk_encoder_scratch_bound(const parz_chunk_encoder* enc, uint64_t count) {
  uint64_t b0, nb;
  if (!enc)
    return 0;
  if (count > enc->v.nsegments)
    count = enc->v.nsegments;
  nb = segment_blocks(&enc->v, 0, count, &b0);
  return parz_stream_bound(enc->v.array.type, enc->v.array.dims, &enc->v.params, (size_t)nb);
}

int parz_chunk_encode_segments(parz_chunk_encoder* enc, uint64_t first, uint64_t count,
                               void* scratch, size_t scratch_bytes, uint64_t* bits,
                               parz_error* err) {
  const parz_chunk_view* v;
  uint64_t b0, nb, total, sum = 0, s;
  uint32_t* bb;
  int rc;
  if (!enc || !scratch)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_encode_segments: NULL argument");
  v = &enc->v;
  if (count == 0 || first >= v->nsegments || count > v->nsegments - first)
    return parz_fail(err, PARZ_ERR_ARG, "segments [%llu, +%llu) outside the chunk's %llu",
                     (unsigned long long)first, (unsigned long long)count,
                     (unsigned long long)v->nsegments);
  nb = segment_blocks(v, first, count, &b0);
  bb = enc->block_bits ? enc->block_bits + b0 : NULL;
  rc = parz_encode_blocks(&enc->src, enc->data, &v->params, (size_t)b0, (size_t)nb, scratch,
                          scratch_bytes, &total, bb, err);
  if (rc != PARZ_OK)
    return rc;
  for (s = first; s < first + count; s++) {
    uint64_t sb0, snb = segment_blocks(v, s, 1, &sb0), n = 0, j;
    if (bb) {
      const uint32_t* p = enc->block_bits + sb0;
      for (j = 0; j < snb; j++)
        n += p[j];
    } else {
      n = snb * v->params.maxbits;
    }
    if (n >= UNIT_NOT_ENCODED) /* only minbits padding in the billions gets here */
      return parz_fail(err, PARZ_ERR_PARAM,
                       "segment %llu is %llu bits long, more than a table length can hold "
                       "(lower minbits or segment_blocks)",
                       (unsigned long long)s, (unsigned long long)n);
    enc->seg_bits[s] = (uint32_t)n;
    sum += n;
  }
  if (sum != total)   /* the codec's block lengths must add up to its stream */
    return parz_fail(err, PARZ_ERR_STREAM, "block lengths sum to %llu bits, stream has %llu",
                     (unsigned long long)sum, (unsigned long long)total);
  if (bits)
    *bits = total;
  return PARZ_OK;
}

/* Payload bits once every segment is encoded, or NOT_ENCODED. */
static uint64_t payload_bits(const parz_chunk_encoder* enc) {
  uint64_t s, sum = 0;
  for (s = 0; s < enc->v.nsegments; s++) {
    if (enc->seg_bits[s] == UNIT_NOT_ENCODED)
      return NOT_ENCODED;
    sum += enc->seg_bits[s];
  }
  return sum;
}

static size_t padded_bytes(uint64_t bits) { return (size_t)(8u * (bits / 64u + (bits % 64u != 0))); }

/* The chunk's layout for a payload of `bits` bits (parz_chunk_settle); *head gets its header +
 * table + exceptions bytes. */
static int settle(const parz_chunk_encoder* enc, uint64_t bits, parz_chunk_view* fin,
                  size_t* head, parz_error* err) {
  int rc = parz_chunk_settle(fin, &enc->v.array, &enc->cfg, bits, enc->v.nexceptions, err);
  *head = parz_chunk_head_bytes(fin);
  return rc;
}

size_t parz_chunk_encoder_size(const parz_chunk_encoder* enc) {
  parz_chunk_view fin;
  uint64_t bits;
  size_t head;
  if (!enc)
    return 0;
  bits = enc->joined ? enc->v.payload_bits : payload_bits(enc);
  if (bits == NOT_ENCODED || settle(enc, bits, &fin, &head, NULL) != PARZ_OK)
    return 0;
  return head + padded_bytes(bits);
}

/* The chunk's table from the units' lengths: each of its segments is fin C / unit C units
 * (C single blocks with auto C, else one). */
static int write_table(const parz_chunk_encoder* enc, const parz_chunk_view* fin,
                       unsigned char* dst, parz_error* err) {
  const uint64_t per = fin->segment_blocks / enc->v.segment_blocks;
  uint64_t* bits = (uint64_t*)malloc((size_t)fin->nsegments * sizeof *bits);
  uint64_t s, u;
  int rc;
  if (!bits)
    return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for the table of %llu segments",
                     (unsigned long long)fin->nsegments);
  for (s = 0, u = 0; s < fin->nsegments; s++) {
    uint64_t end = (s + 1) * per, n = 0;
    for (; u < end && u < enc->v.nsegments; u++)
      n += enc->seg_bits[u];
    bits[s] = n;
  }
  rc = parz_table_write(fin, bits, dst, err);
  free(bits);
  return rc;
}

int parz_chunk_encoder_write_head(parz_chunk_encoder* enc, void* dst, size_t dst_bytes,
                                  size_t* payload_offset, parz_error* err) {
  unsigned char* d = (unsigned char*)dst;
  parz_chunk_view fin;
  uint64_t bits, s, sum;
  size_t size, head;
  int rc;
  if (!enc || !dst)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_encoder_write_head: NULL argument");
  bits = payload_bits(enc);
  if (bits == NOT_ENCODED)
    return parz_fail(err, PARZ_ERR_ARG, "write_head before every segment was encoded");
  if ((rc = settle(enc, bits, &fin, &head, err)) != PARZ_OK)
    return rc;
  size = head + fin.payload_bytes;
  if (dst_bytes < size)
    return parz_fail(err, PARZ_ERR_BUFFER, "chunk needs %zu bytes, buffer has %zu", size,
                     dst_bytes);
  enc->v.payload_bits = bits;
  enc->v.payload_bytes = fin.payload_bytes;
  for (s = 0, sum = 0; s < enc->v.nsegments; s++) {
    if (s % CHECKPOINT == 0)
      enc->seg_offset[s / CHECKPOINT] = sum;
    sum += enc->seg_bits[s];
  }
  if (s % CHECKPOINT == 0)
    enc->seg_offset[s / CHECKPOINT] = sum;
  enc->joined = 1;
  parz_chunk_header_write(&fin, d);
  rc = write_table(enc, &fin, d + PARZ_HEADER_BYTES, err);
  if (rc != PARZ_OK)
    return rc;
  if (fin.nexceptions)
    memcpy(d + PARZ_HEADER_BYTES + fin.table_bytes, enc->records,
           (size_t)fin.nexceptions * PARZ_EXCEPTION_BYTES);
  parz_chunk_header_seal(d, head);
  if (payload_offset)
    *payload_offset = head;
  return PARZ_OK;
}

uint64_t parz_chunk_encoder_bit_offset(const parz_chunk_encoder* enc, uint64_t segment) {
  uint64_t s, sum = 0;
  if (!enc || segment > enc->v.nsegments)
    return NOT_ENCODED;
  if (enc->joined) { /* the checkpoint below, then at most CHECKPOINT - 1 units */
    s = segment - segment % CHECKPOINT;
    sum = enc->seg_offset[s / CHECKPOINT];
  } else {
    s = 0;
  }
  for (; s < segment; s++) {
    if (enc->seg_bits[s] == UNIT_NOT_ENCODED)
      return NOT_ENCODED;
    sum += enc->seg_bits[s];
  }
  return sum;
}

int parz_chunk_encode(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                      void* dst, size_t dst_bytes, size_t* written, parz_error* err) {
  parz_chunk_encoder* enc;
  unsigned char* d = (unsigned char*)dst;
  unsigned char* scratch = NULL;
  size_t head, cap = 0, at = 0, payload;
  uint64_t bits = 0;
  int rc;
  if (written)
    *written = 0;
  if (!dst)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_encode: NULL destination");
  if ((rc = parz_chunk_encoder_begin(&enc, a, data, cfg, err)) != PARZ_OK)
    return rc;
  head = enc->head_bytes;
  /* The head's size is known before encoding, so the payload is encoded straight into its place
   * after it: no scratch, no copy. The codec never writes past the room it is given (it fails
   * with PARZ_ERR_BUFFER instead), so a tight destination is safe too. With auto C the head is
   * known only afterwards: the payload goes in after the largest head auto may pick when the
   * destination has room for the whole bound there, and moves down to its place; else into
   * scratch, so that a destination of the chunk's exact size still works. */
  if (enc->auto_c) {
    cap = parz_chunk_encoder_scratch_bound(enc, enc->v.nsegments);
    if (dst_bytes < head || dst_bytes - head < cap) {
      scratch = (unsigned char*)malloc(cap ? cap : 1);
      if (!scratch)
        rc = parz_fail(err, PARZ_ERR_NOMEM, "out of memory for %zu bytes of encoder scratch",
                       cap);
    }
  }
  if (rc == PARZ_OK && scratch)
    rc = parz_chunk_encode_segments(enc, 0, enc->v.nsegments, scratch, cap, &bits, err);
  else if (rc == PARZ_OK && dst_bytes < head)
    rc = parz_fail(err, PARZ_ERR_BUFFER, "chunk needs more than %zu bytes, buffer has %zu", head,
                   dst_bytes);
  else if (rc == PARZ_OK)
    rc = parz_chunk_encode_segments(enc, 0, enc->v.nsegments, d + head, dst_bytes - head, &bits,
                                    err);
  if (rc == PARZ_ERR_BUFFER && dst_bytes >= head && !scratch)
    rc = parz_fail(err, PARZ_ERR_BUFFER, "chunk does not fit in %zu bytes (parz_chunk_bound: %zu)",
                   dst_bytes, parz_chunk_bound(a, cfg));
  payload = padded_bytes(bits);
  if (rc == PARZ_OK && enc->auto_c && !scratch) {
    size_t size = parz_chunk_encoder_size(enc);
    if (size > payload && size <= dst_bytes && size - payload != head)
      memmove(d + (size - payload), d + head, payload);
  }
  if (rc == PARZ_OK)
    rc = parz_chunk_encoder_write_head(enc, dst, dst_bytes, &at, err);
  if (rc == PARZ_OK && scratch)
    memcpy(d + at, scratch, payload);
  if (rc == PARZ_OK && written)
    *written = at + payload; /* the head write_head laid out, then the payload */
  free(scratch);
  parz_chunk_encoder_free(enc);
  return rc;
}
