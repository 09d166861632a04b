/* Chunk encoder in steps (begin / encode segments / write head / checksums / seal), shared by
 * the serial path below and the OpenMP driver so that both write the same bytes.
 *
 * Memory beyond the caller's array and destination: 4 bytes per unit (a segment, or a block
 * with auto C) and 8 per 64 units for the lengths, and, only when the array has exceptions,
 * masked values or blocks at risk of missing the accuracy bound, a cleaned copy of it, 16 bytes
 * per exception, the mask section and the patterns the bound's check took out; and the segments
 * a codec coded while it chose its parameters (kept), which the encoder copies. */
#include <stdlib.h>
#include <string.h>

#include "chunk_scratch.h"
#include "codecs.h"
#include "exceptions.h"
#include "mask.h"
#include "mask_parse.h"
#include "payload_checksum.h"
#include "scan.h"
#include "stored.h"
#include "table.h"
#include "table_endian.h"

#define NOT_ENCODED UINT64_MAX
#define UNIT_NOT_ENCODED UINT32_MAX /* unit lengths are below it (encode_segments checks) */
#define CHECKPOINT 64u              /* units per stored offset (unit_offset) */
/* Rounds of the bound's check that take out the values putting the blocks that miss the bound
 * at risk; the round after them takes those of every block at risk, which leaves none. */
#define CHECK_ROUNDS 3u

struct parz_chunk_encoder {
  parz_chunk_view v;       /* layout and sizes; its pointers are unused. Its segments are the
                             * encoder's units; with auto C (auto_c) they are single blocks and
                             * the chunk's own layout comes from settle() */
  parz_chunk_view fin;     /* the chunk's layout, from write_head */
  parz_chunk_config cfg;   /* the caller's configuration, for settle() */
  const parz_codec* codec; /* the layout's (codecs.h) */
  int auto_c;
  parz_array src; /* what the codec reads: the caller's array or the cleaned copy */
  const void* data;
  void* cleaned;             /* owned; NULL when the array has no exception nor masked value */
  unsigned char* records;    /* owned exception records, nexceptions * PARZ_EXCEPTION_BYTES */
  unsigned char* mask;       /* owned mask section, v.mask.section_bytes; NULL without one */
  unsigned char* codec_data; /* owned codec data section, v.codec_data_bytes; NULL without */
  uint64_t* taken;           /* owned: the patterns the bound's check took out, ascending */
  struct parz_codec_scratch* coded; /* owned: a scratch codec's forward pass, NULL for others */
  parz_kept_segments kept;          /* owned: the segments of the codec's choice (prepare), the
                                     * chunk's own (its C and count), or empty */
  size_t ntaken;
  unsigned version;     /* the layout's format version, before exceptions and mask */
  uint32_t* seg_bits;   /* per unit, UNIT_NOT_ENCODED until encoded */
  uint64_t* seg_offset; /* the offset of every CHECKPOINT-th unit (and of the end when
                             * nsegments is a multiple), computed by write_head (`joined`):
                             * 8 bytes per 64 units. Re-encoding a segment afterwards needs
                             * another write_head. encode_segments writes no shared field:
                             * threads may run it at once on disjoint ranges without a data
                             * race */
  size_t head_bytes;    /* all in front of the payload in the units' layout (the largest) */
  int joined;
  parz_array orig; /* the caller's array, for a stored chunk */
  const void* orig_data;
  size_t stored_bytes; /* the size of its stored chunk (stored.h) */
};

void parz_chunk_encoder_free(parz_chunk_encoder* enc) {
  if (!enc)
    return;
  free(enc->cleaned);
  free(enc->records);
  free(enc->mask);
  free(enc->codec_data);
  free(enc->taken);
  free(enc->kept.bytes);
  free(enc->kept.ends);
  if (enc->coded)
    enc->codec->scratch->free(enc->coded);
  free(enc->seg_bits);
  free(enc->seg_offset);
  free(enc);
}

/* The cleaned copy and exception records of an array with masked values or exceptions, and its
 * mask section when it has masked values (scan.h: in parts on jobs, when the scan was). */
static int clean(parz_chunk_encoder* enc, const parz_array* a, const void* data,
                 const parz_scan* scan, const parz_jobs* jobs, parz_error* err) {
  const uint64_t nexc = scan->exceptions;
  size_t bytes = 0;
  int rc;
  enc->cleaned = malloc(enc->v.raw_bytes);
  enc->records = nexc <= SIZE_MAX / PARZ_EXCEPTION_BYTES
                     ? (unsigned char*)malloc(nexc ? (size_t)nexc * PARZ_EXCEPTION_BYTES : 1)
                     : NULL;
  if (!enc->cleaned || !enc->records)
    return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for %llu exceptions",
                     (unsigned long long)nexc);
  enc->src = enc->v.array; /* contiguous */
  enc->data = enc->cleaned;
  enc->v.nexceptions = nexc;
  if ((rc = parz_scan_clean(scan, a, data, &enc->v.array, enc->cleaned, enc->records, &enc->mask,
                            &bytes, jobs, err)) != PARZ_OK)
    return rc;
  if (scan->masked) {
    enc->v.mask.section_bytes = bytes;
    enc->v.version = 2;
  } else if (!parz_exceptions_v1(a->type, enc->records, nexc)) {
    enc->v.version = 2; /* finite or integer exceptions */
  }
  return PARZ_OK;
}

/* Undoes clean(): the array as the caller gave it, no exception, no mask. */
static void unclean(parz_chunk_encoder* enc, const parz_array* a, const void* data) {
  free(enc->cleaned);
  free(enc->records);
  free(enc->mask);
  enc->cleaned = NULL;
  enc->records = NULL;
  enc->mask = NULL;
  enc->src = *a;
  enc->data = data;
  enc->v.nexceptions = 0;
  enc->v.mask.section_bytes = 0;
  enc->v.version = enc->version;
}

static int ascending(const void* x, const void* y) {
  const uint64_t a = *(const uint64_t*)x, b = *(const uint64_t*)y;
  return a < b ? -1 : a > b;
}

/* Adds the n patterns `found` (in any order, repeats allowed; sorted here) to the taken ones. */
static int take_out(parz_chunk_encoder* enc, uint64_t* found, size_t n, parz_error* err) {
  uint64_t* all = (uint64_t*)malloc((enc->ntaken + n) * sizeof *all);
  size_t i = 0, j = 0, k = 0;
  if (!all)
    return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for %zu values the bound takes out",
                     enc->ntaken + n);
  qsort(found, n, sizeof *found, ascending);
  while (i < enc->ntaken || j < n) {
    const uint64_t next =
        j == n || (i < enc->ntaken && enc->taken[i] < found[j]) ? enc->taken[i++] : found[j++];
    if (!k || all[k - 1] != next)
      all[k++] = next;
  }
  free(enc->taken);
  enc->taken = all;
  enc->ntaken = k;
  return PARZ_OK;
}

/* Holds a bounded chunk to its bound (the codec's check_bound, codecs.h) once the scan found
 * values that put blocks at risk and the array was cleaned: while some block misses the bound,
 * the values that put it at risk are taken out, and the array is scanned and cleaned again with
 * them as holes. */
static int hold_bound(parz_chunk_encoder* enc, const parz_array* a, const void* data,
                      const parz_chunk_config* cfg, parz_scan* scan, const parz_jobs* jobs,
                      parz_error* err) {
  unsigned round;
  int rc = PARZ_OK;
  for (round = 0; rc == PARZ_OK; round++) {
    uint64_t* found = NULL;
    size_t n = 0;
    rc = enc->codec->check_bound(&scan->pal, a, data, &enc->v.array, enc->cleaned, &enc->v.params,
                                 round >= CHECK_ROUNDS, jobs, &found, &n, err);
    if (rc == PARZ_OK && n)
      rc = take_out(enc, found, n, err);
    free(found);
    if (rc != PARZ_OK || !n)
      return rc;
    unclean(enc, a, data);
    parz_scan_free(scan);
    if ((rc = parz_mask_palette_init(&scan->pal, enc->codec, a->type, a->dims, &enc->v.params, cfg,
                                     err)) != PARZ_OK)
      return rc;
    scan->pal.exc.taken = enc->taken;
    scan->pal.exc.ntaken = enc->ntaken;
    parz_scan_run(scan, a, data, jobs);
    rc = clean(enc, a, data, scan, jobs, err);
  }
  return rc;
}

/* The encoder's exception records with the n positions pos (increasing, none of them a record's
 * already) of the values it encodes added, in order of position. */
static int add_exceptions(parz_chunk_encoder* enc, const uint64_t* pos, size_t n, parz_error* err) {
  const uint64_t had = enc->v.nexceptions, total = had + n;
  const size_t w = parz_type_size(enc->src.type);
  const unsigned char* values = (const unsigned char*)enc->data;
  unsigned char* all;
  uint64_t i = 0, j = 0, k = 0;
  if (!n)
    return PARZ_OK;
  if (total > SIZE_MAX / PARZ_EXCEPTION_BYTES ||
      !(all = (unsigned char*)malloc((size_t)total * PARZ_EXCEPTION_BYTES)))
    return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for %llu exceptions",
                     (unsigned long long)total);
  for (k = 0; k < total; k++) {
    unsigned char* r = all + k * PARZ_EXCEPTION_BYTES;
    if (j == n || (i < had && parz_load64(enc->records + i * PARZ_EXCEPTION_BYTES) < pos[j])) {
      memcpy(r, enc->records + i++ * PARZ_EXCEPTION_BYTES, PARZ_EXCEPTION_BYTES);
    } else {
      uint64_t bits = 0;
      if (w == 4) {
        uint32_t u;
        memcpy(&u, values + 4 * pos[j], 4);
        bits = u;
      } else {
        memcpy(&bits, values + 8 * pos[j], 8);
      }
      parz_store64(r, pos[j++]);
      parz_store64(r + 8, bits);
    }
  }
  free(enc->records);
  enc->records = all;
  enc->v.nexceptions = total;
  return PARZ_OK;
}

/* The mask's groups marked as holes in parts on the caller's jobs. */
typedef struct {
  const parz_chunk_view* v;
  uint8_t* hole;
  uint64_t parts;
} mark_job;

static void mark_part(void* arg, uint64_t i) {
  const mark_job* j = (const mark_job*)arg;
  const uint64_t groups = j->v->mask.ngroups;
  const uint64_t lo = groups * i / j->parts, hi = groups * (i + 1) / j->parts;
  parz_mask_mark(j->v, j->hole, lo, hi - lo);
}

static void mark_masked(const parz_chunk_view* v, uint8_t* hole, const parz_jobs* jobs) {
  mark_job j;
  uint64_t i;
  j.v = v;
  j.hole = hole;
  j.parts = jobs && jobs->run && jobs->parts > 1 ? jobs->parts : 1;
  if (j.parts > v->mask.ngroups)
    j.parts = v->mask.ngroups ? v->mask.ngroups : 1;
  if (j.parts > 1) {
    jobs->run(jobs->ctx, j.parts, mark_part, &j);
    return;
  }
  for (i = 0; i < j.parts; i++)
    mark_part(&j, i);
}

/* A scratch codec's forward pass over the values the encoder reads (codecs.h; contiguous: a
 * strided array was copied before), on the caller's jobs: the holes the frame restores (exceptions, masked values)
 * are marked for it, the values its codes cannot carry join the exceptions and its codec data is
 * written. */
static int code_scratch(parz_chunk_encoder* enc, const parz_array* a, const parz_jobs* jobs,
                        parz_error* err) {
  const size_t n = enc->v.raw_bytes / parz_type_size(a->type);
  const uint64_t* pos;
  uint8_t* hole = NULL;
  size_t npos;
  uint64_t i;
  int rc = PARZ_OK;
  if (enc->v.nexceptions || enc->v.mask.section_bytes) {
    parz_chunk_view m = enc->v;
    if (!(hole = (uint8_t*)calloc(n, 1)))
      return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for the holes of %zu values", n);
    for (i = 0; i < enc->v.nexceptions; i++)
      hole[parz_load64(enc->records + i * PARZ_EXCEPTION_BYTES)] = 1;
    if (enc->v.mask.section_bytes &&
        (rc = parz_mask_parse(&m, enc->mask, enc->v.mask.section_bytes, err)) == PARZ_OK)
      mark_masked(&m, hole, jobs);
  }
  if (rc == PARZ_OK)
    rc = enc->codec->scratch->code(&enc->v, &enc->src, enc->data, hole, jobs, &enc->coded, err);
  free(hole);
  if (rc != PARZ_OK)
    return rc;
  npos = enc->codec->scratch->coded_exceptions(enc->coded, &pos);
  if ((rc = add_exceptions(enc, pos, npos, err)) != PARZ_OK)
    return rc;
  enc->v.codec_data_bytes = enc->codec->scratch->codec_data(enc->coded, NULL);
  if (!(enc->codec_data = (unsigned char*)malloc((size_t)enc->v.codec_data_bytes)))
    return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for %llu bytes of codec data",
                     (unsigned long long)enc->v.codec_data_bytes);
  enc->codec->scratch->codec_data(enc->coded, enc->codec_data);
  enc->v.version = 2; /* sections, finite exceptions */
  return PARZ_OK;
}

int parz_chunk_encoder_begin_jobs(parz_chunk_encoder** out, const parz_array* a, const void* data,
                                  const parz_chunk_config* cfg, const parz_jobs* jobs,
                                  parz_error* err) {
  parz_chunk_encoder* enc;
  parz_scan scan;
  uint64_t s;
  int rc;
  if (!out)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_encoder_begin: NULL encoder pointer");
  *out = NULL;
  if (!data)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_encoder_begin: NULL data");
  enc = (parz_chunk_encoder*)calloc(1, sizeof *enc);
  if (!enc)
    return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for the chunk encoder");
  if ((rc = parz_chunk_layout(&enc->v, a, cfg, err)) != PARZ_OK ||
      (rc = (enc->codec = parz_codec_find(enc->v.codec))
                ->check_encode(&enc->v.params, a->type, a->dims, err)) != PARZ_OK ||
      (rc = parz_mask_palette_init(&scan.pal, enc->codec, a->type, a->dims, &enc->v.params, cfg,
                                   err)) != PARZ_OK) {
    free(enc);
    return rc;
  }
  enc->cfg = *cfg;
  enc->v.keep = cfg->keep; /* what the codec's forward pass takes its blocks from */
  enc->auto_c = cfg->segment_blocks == 0 && parz_chunk_auto_c(&enc->v);
  enc->src = enc->orig = *a;
  enc->data = enc->orig_data = data;
  enc->stored_bytes = cfg->stored == PARZ_STORED_WHEN_SMALLER ? parz_stored_bytes(a, cfg) : 0;
  enc->version = enc->v.version;
  parz_scan_run(&scan, a, data, jobs);
  /* only arrays holding exceptions, masked values or blocks at risk pay for a copy, and only
   * those at risk for the bound's check */
  rc =
      scan.masked || scan.exceptions || scan.high ? clean(enc, a, data, &scan, jobs, err) : PARZ_OK;
  if (rc == PARZ_OK && scan.high && enc->codec->check_bound)
    rc = hold_bound(enc, a, data, cfg, &scan, jobs, err);
  /* a codec that reads contiguous arrays only, and every scratch codec's forward pass, gets the
   * cleaned copy, here with nothing to clean */
  if (rc == PARZ_OK && (enc->codec->contiguous || enc->codec->scratch) && !enc->cleaned &&
      !parz_array_contiguous(a))
    rc = clean(enc, a, data, &scan, jobs, err);
  if (rc == PARZ_OK && enc->codec->scratch)
    rc = code_scratch(enc, a, jobs, err);
  parz_scan_free(&scan);
  /* the codec's choices from the values it will encode, before the head's size is fixed; they
   * may cut other blocks */
  if (rc == PARZ_OK && enc->codec->prepare &&
      (rc = enc->codec->prepare(&enc->v, &enc->src, enc->data, jobs, &enc->codec_data, &enc->kept,
                                err)) == PARZ_OK)
    rc = parz_chunk_recut(&enc->v, err);
  if (enc->kept.count != enc->v.nsegments || enc->kept.seg_blocks != enc->v.segment_blocks) {
    free(enc->kept.bytes); /* not the chunk's segments: they are coded when asked */
    free(enc->kept.ends);
    memset(&enc->kept, 0, sizeof enc->kept);
  }
  if (rc == PARZ_OK && enc->v.codec_data_bytes)
    enc->v.version = 2; /* sections need format version 2 */
  if (rc != PARZ_OK) {
    parz_chunk_encoder_free(enc);
    return rc;
  }
  enc->seg_bits = (uint32_t*)malloc((size_t)enc->v.nsegments * sizeof(uint32_t));
  enc->seg_offset =
      (uint64_t*)malloc(((size_t)enc->v.nsegments / CHECKPOINT + 1) * sizeof(uint64_t));
  if (!enc->seg_bits || !enc->seg_offset) {
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

int parz_chunk_encoder_begin(parz_chunk_encoder** out, const parz_array* a, const void* data,
                             const parz_chunk_config* cfg, parz_error* err) {
  return parz_chunk_encoder_begin_jobs(out, a, data, cfg, NULL, err);
}

size_t parz_chunk_encoder_head_bytes(const parz_chunk_encoder* enc) {
  return enc ? enc->head_bytes : 0;
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
  return enc->codec->stream_bound(enc->v.array.type, enc->v.array.dims, &enc->v.params, (size_t)nb);
}

/* Segments [first, first + count) that the codec kept (prepare) into dst as its encode_segments
 * writes them: one after the other, zero bytes up to a whole 64-bit word, *bits the segments'
 * bits; PARZ_ERR_BUFFER where dst_bytes is too small. */
static int copy_kept(const parz_kept_segments* k, uint64_t first, uint64_t count, void* dst,
                     size_t dst_bytes, uint64_t* bits, uint32_t* seg_bits, parz_error* err) {
  const size_t begin = first ? k->ends[first - 1] : 0, end = k->ends[first + count - 1];
  const size_t bytes = end - begin, pad = (8u - bytes % 8u) % 8u;
  uint64_t s;
  if (bytes + pad > dst_bytes)
    return parz_fail(err, PARZ_ERR_BUFFER, "%zu bytes of segments in %zu", bytes + pad, dst_bytes);
  memcpy(dst, k->bytes + begin, bytes);
  memset((unsigned char*)dst + bytes, 0, pad);
  for (s = 0; s < count; s++)
    seg_bits[s] = (uint32_t)(8u * (k->ends[first + s] - (first + s ? k->ends[first + s - 1] : 0)));
  *bits = 8u * (uint64_t)bytes;
  return PARZ_OK;
}

int parz_chunk_encode_segments(parz_chunk_encoder* enc, uint64_t first, uint64_t count,
                               void* scratch, size_t scratch_bytes, uint64_t* bits,
                               parz_error* err) {
  const parz_chunk_view* v;
  uint64_t b0, nb, total, sum = 0, s;
  int rc;
  if (!enc || !scratch)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_encode_segments: NULL argument");
  v = &enc->v;
  if (count == 0 || first >= v->nsegments || count > v->nsegments - first)
    return parz_fail(err, PARZ_ERR_ARG, "segments [%llu, +%llu) outside the chunk's %llu",
                     (unsigned long long)first, (unsigned long long)count,
                     (unsigned long long)v->nsegments);
  nb = segment_blocks(v, first, count, &b0);
  if (enc->kept.count)
    rc = copy_kept(&enc->kept, first, count, scratch, scratch_bytes, &total, enc->seg_bits + first,
                   err);
  else if (enc->coded)
    rc = enc->codec->scratch->encode_codes(enc->coded, (size_t)b0, (size_t)nb, v->segment_blocks,
                                           scratch, scratch_bytes, &total, enc->seg_bits + first,
                                           err);
  else
    rc = enc->codec->encode_segments(&enc->src, enc->data, v, (size_t)b0, (size_t)nb,
                                     v->segment_blocks, scratch, scratch_bytes, &total,
                                     enc->seg_bits + first, err);
  if (rc != PARZ_OK) {
    for (s = first; s < first + count; s++)
      enc->seg_bits[s] = UNIT_NOT_ENCODED;
    return rc;
  }
  for (s = first; s < first + count; s++) {
    if (enc->seg_bits[s] >= UNIT_NOT_ENCODED) /* only minbits padding in the billions */
      return parz_fail(err, PARZ_ERR_PARAM,
                       "segment %llu is 2^32 bits long or more, more than a table length can "
                       "hold (lower minbits or segment_blocks)",
                       (unsigned long long)s);
    sum += enc->seg_bits[s];
  }
  if (sum != total) /* the codec's segment lengths must add up to its stream */
    return parz_fail(err, PARZ_ERR_STREAM, "segment lengths sum to %llu bits, stream has %llu",
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

static size_t padded_bytes(uint64_t bits) {
  return (size_t)(8u * (bits / 64u + (bits % 64u != 0)));
}

/* The chunk's layout for a payload of `bits` bits (parz_chunk_settle) with the codec's choices
 * from the values (prepare); *head gets the bytes in front of its payload. */
static int settle(const parz_chunk_encoder* enc, uint64_t bits, parz_chunk_view* fin, size_t* head,
                  parz_error* err) {
  int rc = parz_chunk_settle(fin, &enc->v.array, &enc->cfg, enc->v.codec_params, bits,
                             enc->v.nexceptions, enc->v.mask.section_bytes, enc->v.version, err);
  memcpy(fin->codec_params, enc->v.codec_params, PARZ_CODEC_PARAM_BYTES);
  fin->codec_data_bytes = enc->v.codec_data_bytes;
  if (fin->codec_data_bytes && fin->version < 2)
    fin->version = 2; /* sections need format version 2 */
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

int parz_chunk_encoder_write_head(parz_chunk_encoder* enc, void* dst, size_t dst_bytes,
                                  size_t* payload_offset, parz_error* err) {
  unsigned char* d = (unsigned char*)dst;
  parz_chunk_view fin;
  parz_chunk_offsets o;
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
  parz_chunk_section_offsets(&fin, &o);
  parz_chunk_header_write(&fin, d);
  /* the table's segments are fin C / unit C units each (C single blocks with auto C, else 1) */
  rc = parz_table_write(&fin, enc->seg_bits, fin.segment_blocks / enc->v.segment_blocks,
                        enc->v.nsegments, d + o.table, err);
  if (rc != PARZ_OK)
    return rc;
  if (fin.nexceptions)
    memcpy(d + o.exceptions, enc->records, (size_t)fin.nexceptions * PARZ_EXCEPTION_BYTES);
  if (fin.mask.section_bytes)
    memcpy(d + o.mask, enc->mask, (size_t)fin.mask.section_bytes);
  if (fin.codec_data_bytes)
    memcpy(d + o.codec_data, enc->codec_data, (size_t)fin.codec_data_bytes);
  enc->fin = fin;
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

uint64_t parz_chunk_encoder_partitions(const parz_chunk_encoder* enc) {
  return enc && enc->joined ? enc->fin.nchecksums : 0;
}

void parz_chunk_encoder_checksum(const parz_chunk_encoder* enc, void* dst, uint64_t first,
                                 uint64_t count) {
  const parz_chunk_view* f;
  unsigned char* d = (unsigned char*)dst;
  parz_chunk_offsets o;
  uint64_t p, units, end;
  if (!enc || !enc->joined || first >= enc->fin.nchecksums)
    return;
  f = &enc->fin;
  parz_chunk_section_offsets(f, &o);
  /* units per checksummed partition: its segments times the units of a segment */
  units = (uint64_t)f->checksum_segments * (f->segment_blocks / enc->v.segment_blocks);
  end = first + count < f->nchecksums ? first + count : f->nchecksums;
  for (p = first; p < end; p++) {
    uint64_t begin = parz_chunk_encoder_bit_offset(enc, p * units);
    uint64_t stop = p + 1 == f->nchecksums ? 8u * (uint64_t)f->payload_bytes
                                           : parz_chunk_encoder_bit_offset(enc, (p + 1) * units);
    parz_store64(d + o.checksums + 8u * p, parz_payload_checksum(d + o.payload, begin, stop));
  }
}

void parz_chunk_encoder_seal(const parz_chunk_encoder* enc, void* dst) {
  if (enc && enc->joined)
    parz_chunk_header_seal((unsigned char*)dst, parz_chunk_head_bytes(&enc->fin));
}

int parz_chunk_encoder_stores(const parz_chunk_encoder* enc) {
  uint64_t fixed;
  if (!enc || !enc->stored_bytes)
    return 0;
  fixed = PARZ_HEADER_BYTES + enc->v.mask.section_bytes + enc->v.codec_data_bytes;
  /* the parts of the head that C does not change, with a payload of one word, are already more
   * than the stored chunk: so is any chunk of them */
  if (fixed + 8u > enc->stored_bytes ||
      enc->v.nexceptions > (enc->stored_bytes - fixed - 8u) / PARZ_EXCEPTION_BYTES)
    return 1;
  return parz_chunk_encoder_size(enc) > enc->stored_bytes; /* 0 until every segment is encoded */
}

size_t parz_chunk_encoder_stored_bytes(const parz_chunk_encoder* enc) {
  return enc ? enc->stored_bytes : 0;
}

int parz_chunk_encoder_write_stored(const parz_chunk_encoder* enc, void* dst, size_t dst_bytes,
                                    size_t* written, parz_error* err) {
  if (!enc)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_encoder_write_stored: NULL encoder");
  return parz_stored_encode(&enc->orig, enc->orig_data, &enc->cfg, dst, dst_bytes, written, err);
}

int parz_chunk_encode(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                      void* dst, size_t dst_bytes, size_t* written, parz_error* err) {
  return parz_chunk_encode_jobs(a, data, cfg, NULL, dst, dst_bytes, written, err);
}

int parz_chunk_encode_jobs(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                           const parz_jobs* jobs, void* dst, size_t dst_bytes, size_t* written,
                           parz_error* err) {
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
  if ((rc = parz_chunk_encoder_begin_jobs(&enc, a, data, cfg, jobs, err)) != PARZ_OK)
    return rc;
  if (parz_chunk_encoder_stores(enc)) /* exceptions or a mask alone outgrow the values */
    goto store;
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
        rc = parz_fail(err, PARZ_ERR_NOMEM, "out of memory for %zu bytes of encoder scratch", cap);
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
  /* a chunk larger than the stored one is stored: one that outgrew a destination that holds the
   * stored chunk (its head is the exact one, or the destination had room for the payload's
   * bound), or one whose size the encoded segments give */
  if ((rc == PARZ_ERR_BUFFER && !scratch && enc->stored_bytes && dst_bytes >= enc->stored_bytes) ||
      (rc == PARZ_OK && parz_chunk_encoder_stores(enc)))
    goto store;
  if (rc == PARZ_ERR_BUFFER && dst_bytes >= head && !scratch)
    rc = parz_fail(err, PARZ_ERR_BUFFER,
                   "chunk does not fit in %zu bytes (parz_chunk_bound_data: %zu)", dst_bytes,
                   parz_chunk_bound_data(a, data, cfg));
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
  if (rc == PARZ_OK) {
    parz_chunk_encoder_checksum(enc, dst, 0, parz_chunk_encoder_partitions(enc));
    parz_chunk_encoder_seal(enc, dst);
  }
  if (rc == PARZ_OK && written)
    *written = at + payload; /* the head write_head laid out, then the payload */
  free(scratch);
  parz_chunk_encoder_free(enc);
  return rc;
store:
  rc = parz_chunk_encoder_write_stored(enc, dst, dst_bytes, written, err);
  free(scratch);
  parz_chunk_encoder_free(enc);
  return rc;
}
