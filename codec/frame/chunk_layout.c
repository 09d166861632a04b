/* A chunk's layout from an array and a configuration (the table, the sections, auto C), and the
 * bounds on its size (codec/FORMAT.md, "Defaults and table overhead"). */
#include <string.h>

#include "codecs.h"
#include "exceptions.h"
#include "header.h"
#include "mask_build.h"
#include "scan.h"
#include "stored.h"
#include "table.h"

/* The codec cfg names (0: zfp), which the encoders write: a stream codec of the table. A direct
 * codec (stored) is written only where the rule of stored chunks says so, never named. */
static int codec_to_write(const parz_chunk_config* cfg, const parz_codec** codec, parz_error* err) {
  const unsigned id = cfg->codec ? cfg->codec : PARZ_CODEC_ZFP;
  char known[160];
  *codec = parz_codec_find(id);
  if (*codec && ((*codec)->encode_segments || (*codec)->scratch))
    return PARZ_OK;
  if (*codec)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "codec %u (%s) cannot be named in the chunk configuration: the encoders "
                     "write it only for chunks that encoding would enlarge (stored = "
                     "PARZ_STORED_WHEN_SMALLER)",
                     id, (*codec)->name);
  parz_codec_names(known, sizeof known);
  return parz_fail(err, PARZ_ERR_PARAM,
                   "unknown codec %u in the chunk configuration; this library knows codecs %s", id,
                   known);
}

/* v's blocks under its codec parameters: the sides, nblocks. */
static void cut_blocks(parz_chunk_view* v, const parz_codec* codec) {
  uint64_t nblocks = 1;
  unsigned k;
  codec->block_sides(v, v->block_side);
  for (k = 0; k < v->array.dims; k++)
    nblocks *= parz_blocks_along(v->array.shape[k], v->block_side[k]);
  v->nblocks = nblocks;
}

/* parz_chunk_layout, with the codec parameters `params` (NULL: the configuration's) in place of
 * those the configuration gives before the blocks are cut. */
static int layout_with(parz_chunk_view* v, const parz_array* a, const parz_chunk_config* cfg,
                       const unsigned char* params, parz_error* err) {
  const parz_codec* codec;
  int rc;
  unsigned k;
  parz_params p;
  uint64_t count = 1, size;
  memset(v, 0, sizeof *v);
  if (!a || !cfg)
    return parz_fail(err, PARZ_ERR_ARG, "NULL array or chunk configuration");
  if ((rc = codec_to_write(cfg, &codec, err)) != PARZ_OK ||
      (rc = parz_array_check(a, err)) != PARZ_OK)
    return rc;
  size = parz_type_size(a->type);
  for (k = 0; k < a->dims; k++) {
    uint64_t n = a->shape[k];
    if (count > UINT64_MAX / n || count * n > SIZE_MAX / size)
      return parz_fail(err, PARZ_ERR_DIMS, "array of more than SIZE_MAX bytes");
    count *= n;
  }
  v->codec = codec->id;
  v->settings = cfg->settings;
  v->array.type = a->type;
  v->array.dims = a->dims;
  for (k = 0; k < a->dims; k++)
    v->array.shape[k] = a->shape[k];
  if ((rc = codec->configure(cfg, v, err)) != PARZ_OK)
    return rc;
  p = v->params;
  if (params)
    memcpy(v->codec_params, params, PARZ_CODEC_PARAM_BYTES);
  cut_blocks(v, codec);
  v->raw_bytes = (size_t)(count * size);
  v->table = cfg->table;
  if (v->table == PARZ_TABLE_AUTO)
    v->table = codec->fixed_length(&p) ? PARZ_TABLE_NONE : PARZ_TABLE_HYBRID;
  if (v->table == PARZ_TABLE_NONE && !codec->fixed_length(&p))
    return parz_fail(err, PARZ_ERR_PARAM,
                     "table kind NONE needs fixed-rate parameters (minbits %u != maxbits %u)",
                     p.minbits, p.maxbits);
  if (v->table < PARZ_TABLE_NONE || v->table > PARZ_TABLE_HYBRID)
    return parz_fail(err, PARZ_ERR_PARAM, "unknown table kind %d", (int)cfg->table);
  /* C 0 is auto (parz_chunk_layout_auto): the encoder works in single blocks until the payload
   * is known; fixed rate, whose table is NONE or a function of C alone, takes the default, and a
   * codec that codes each segment as a whole its own C */
  v->segment_blocks = cfg->segment_blocks     ? cfg->segment_blocks
                      : codec->segment_blocks ? codec->segment_blocks
                      : parz_chunk_auto_c(v)  ? 1u
                                              : PARZ_DEFAULT_SEGMENT_BLOCKS;
  if (v->segment_blocks > PARZ_MAX_SEGMENT_BLOCKS)
    return parz_fail(err, PARZ_ERR_PARAM, "segment_blocks %u above the limit %u", v->segment_blocks,
                     PARZ_MAX_SEGMENT_BLOCKS);
  if (v->table == PARZ_TABLE_HYBRID) {
    v->partition_segments =
        cfg->partition_segments ? cfg->partition_segments : PARZ_DEFAULT_PARTITION_SEGMENTS;
    if (v->partition_segments > PARZ_MAX_PARTITION_SEGMENTS)
      return parz_fail(err, PARZ_ERR_PARAM, "partition_segments %u above the limit %u",
                       v->partition_segments, PARZ_MAX_PARTITION_SEGMENTS);
  }
  if (v->table == PARZ_TABLE_LENGTHS || v->table == PARZ_TABLE_HYBRID)
    v->length_bytes = parz_table_length_width((uint64_t)v->segment_blocks *
                                              codec->block_bits_bound(a->type, a->dims, &p));
  if (parz_table_layout(v, err) != PARZ_OK) /* only absurd sizes get here */
    return parz_fail(err, PARZ_ERR_PARAM, "table for %llu blocks too large",
                     (unsigned long long)v->nblocks);
  if (cfg->checksum != PARZ_CHECKSUM_DEFAULT && cfg->checksum != PARZ_CHECKSUM_ON &&
      cfg->checksum != PARZ_CHECKSUM_OFF)
    return parz_fail(err, PARZ_ERR_PARAM, "unknown checksum setting %d", (int)cfg->checksum);
  /* payload checksums need format version 2; without them the chunk is a version 1 chunk
   * unless its exceptions say otherwise (parz_chunk_encoder_begin) */
  v->version = 1;
  if (cfg->checksum != PARZ_CHECKSUM_OFF) {
    v->version = 2;
    v->checksum_segments =
        v->table == PARZ_TABLE_HYBRID ? v->partition_segments : PARZ_DEFAULT_PARTITION_SEGMENTS;
    v->nchecksums = parz_checksum_count(v->nsegments, v->checksum_segments);
  }
  return PARZ_OK;
}

int parz_chunk_layout(parz_chunk_view* v, const parz_array* a, const parz_chunk_config* cfg,
                      parz_error* err) {
  return layout_with(v, a, cfg, NULL, err);
}

int parz_chunk_recut(parz_chunk_view* v, parz_error* err) {
  int rc;
  cut_blocks(v, parz_codec_find(v->codec));
  if ((rc = parz_table_layout(v, err)) != PARZ_OK)
    return rc;
  if (v->checksum_segments)
    v->nchecksums = parz_checksum_count(v->nsegments, v->checksum_segments);
  return PARZ_OK;
}

int parz_chunk_auto_c(const parz_chunk_view* v) {
  const parz_codec* codec = parz_codec_find(v->codec);
  return codec && !codec->segment_blocks && !codec->fixed_length(&v->params) &&
         v->table != PARZ_TABLE_NONE;
}

/* Table bytes of the layout of a under cfg (codec parameters params, NULL: cfg's) with C = c,
 * or UINT64_MAX when it is not valid. */
static uint64_t table_bytes_at(const parz_array* a, const parz_chunk_config* cfg,
                               const unsigned char* params, uint32_t c, parz_chunk_view* v) {
  parz_chunk_config at = *cfg;
  at.segment_blocks = c;
  return layout_with(v, a, &at, params, NULL) == PARZ_OK ? (uint64_t)v->table_bytes : UINT64_MAX;
}

/* parz_chunk_layout_auto with the codec parameters params (NULL: cfg's). */
static int layout_auto_with(parz_chunk_view* v, const parz_array* a, const parz_chunk_config* cfg,
                            const unsigned char* params, uint64_t payload_bytes, parz_error* err) {
  parz_chunk_view t;
  uint64_t best = UINT64_MAX;
  uint32_t c;
  for (c = 1; c <= PARZ_AUTO_MAX_SEGMENT_BLOCKS; c *= 2) {
    uint64_t tb = table_bytes_at(a, cfg, params, c, &t);
    if (tb != UINT64_MAX && tb <= payload_bytes / PARZ_AUTO_TABLE_SHARE) {
      *v = t;
      return PARZ_OK;
    }
    if (tb < best) { /* none within the budget (tiny chunks): the smallest table */
      best = tb;
      *v = t;
    }
  }
  return best == UINT64_MAX ? layout_with(v, a, cfg, params, err) /* says why none is valid */
                            : PARZ_OK;
}

int parz_chunk_layout_auto(parz_chunk_view* v, const parz_array* a, const parz_chunk_config* cfg,
                           uint64_t payload_bytes, parz_error* err) {
  return layout_auto_with(v, a, cfg, NULL, payload_bytes, err);
}

int parz_chunk_settle(parz_chunk_view* v, const parz_array* a, const parz_chunk_config* cfg,
                      const unsigned char* codec_params, uint64_t payload_bits,
                      uint64_t nexceptions, size_t mask_bytes, unsigned version, parz_error* err) {
  uint64_t payload_bytes = 8u * (payload_bits / 64u + (payload_bits % 64u != 0));
  int rc = layout_with(v, a, cfg, codec_params, err);
  if (rc == PARZ_OK && cfg->segment_blocks == 0 && parz_chunk_auto_c(v))
    rc = layout_auto_with(v, a, cfg, codec_params, payload_bytes, err);
  if (rc != PARZ_OK)
    return rc;
  v->payload_bits = payload_bits;
  v->payload_bytes = (size_t)payload_bytes;
  v->nexceptions = nexceptions;
  v->mask.section_bytes = mask_bytes;
  if (version > v->version)
    v->version = version;
  return PARZ_OK;
}

/* Bound for an array with nexc exception records and `masked` masked values (or, with
 * UINT64_MAX, as many as it could ever have). */
static size_t bound_with(const parz_array* a, const parz_chunk_config* cfg, uint64_t nexc,
                         uint64_t masked) {
  parz_chunk_view v;
  parz_chunk_offsets o;
  uint64_t total, stream, count;
  if (parz_chunk_layout(&v, a, cfg, NULL) != PARZ_OK)
    return 0;
  if (cfg->segment_blocks == 0 && parz_chunk_auto_c(&v)) { /* the largest table auto may pick */
    parz_chunk_view t;
    uint32_t c;
    for (c = 2; c <= PARZ_AUTO_MAX_SEGMENT_BLOCKS; c *= 2) {
      uint64_t tb = table_bytes_at(a, cfg, NULL, c, &t);
      if (tb != UINT64_MAX && tb > v.table_bytes)
        v.table_bytes = (size_t)tb;
    }
  }
  count = v.raw_bytes / parz_type_size(a->type);
  if (nexc == UINT64_MAX)
    nexc = parz_exceptions_possible(parz_codec_find(v.codec), a, &v.params) ? count : 0;
  if (masked == UINT64_MAX)
    masked = parz_chunk_config_masks(cfg, a->type) ? count : 0;
  if (nexc > (SIZE_MAX - v.table_bytes - 4096u) / PARZ_EXCEPTION_BYTES)
    return 0;
  v.nexceptions = nexc;
  v.mask.section_bytes = masked ? parz_mask_bound(a, masked) : 0;
  if (parz_codec_find(v.codec)->scratch)
    v.codec_data_bytes = parz_codec_find(v.codec)->scratch->codec_data_bound(a);
  if (v.mask.section_bytes > SIZE_MAX / 4u)
    return 0;
  parz_chunk_section_offsets(&v, &o); /* the checksums of C = 1, the most */
  stream = parz_codec_find(v.codec)->stream_bound(a->type, a->dims, &v.params, (size_t)v.nblocks);
  total = o.payload;
  if (stream == 0 || stream > UINT64_MAX - total || total + stream > SIZE_MAX)
    return 0;
  return (size_t)(total + stream);
}

size_t parz_chunk_bound(const parz_array* a, const parz_chunk_config* cfg) {
  size_t bound = a && cfg ? bound_with(a, cfg, UINT64_MAX, UINT64_MAX) : 0, stored;
  /* a chunk that would be larger than its stored chunk is stored */
  if (bound && cfg->stored == PARZ_STORED_WHEN_SMALLER &&
      (stored = parz_stored_bytes(a, cfg)) != 0 && stored < bound)
    return stored;
  return bound;
}

size_t parz_chunk_bound_data_jobs(const parz_array* a, const void* data,
                                  const parz_chunk_config* cfg, const parz_jobs* jobs) {
  const parz_codec* codec;
  parz_scan scan;
  size_t bound;
  if (!a || !cfg || !data || parz_array_check(a, NULL) != PARZ_OK)
    return 0;
  /* bounded by the stored chunk without a look at the values; a scratch codec may make any
   * value an exception, which only its forward pass finds */
  codec = parz_codec_find(cfg->codec ? cfg->codec : PARZ_CODEC_ZFP);
  if (cfg->stored == PARZ_STORED_WHEN_SMALLER || (codec && codec->scratch))
    return parz_chunk_bound(a, cfg);
  if (!codec || parz_mask_palette_init(&scan.pal, codec, a->type, a->dims, &cfg->params, cfg,
                                       NULL) != PARZ_OK)
    return 0;
  parz_scan_run(&scan, a, data, jobs);
  /* the bound's check may take out any value that puts its block at risk (codecs.h), into the mask
   * or as an exception */
  bound = bound_with(a, cfg, scan.exceptions + scan.high,
                     scan.masked + (scan.pal.taken ? scan.high : 0));
  parz_scan_free(&scan);
  return bound;
}

size_t parz_chunk_bound_data(const parz_array* a, const void* data, const parz_chunk_config* cfg) {
  return parz_chunk_bound_data_jobs(a, data, cfg, NULL);
}
