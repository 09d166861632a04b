/* Chunk header: layout from a configuration, serialisation, and the parser that validates a
 * chunk before any decoding; the serial chunk decoder. Byte layout: codec/FORMAT.md. */
#include <string.h>

#include "checksum.h"
#include "decode_segments.h"
#include "exceptions.h"
#include "mask.h"
#include "payload_checksum.h"
#include "scan.h"
#include "stored.h"
#include "table.h"
#include "table_endian.h"

#define MAGIC0 0x50u /* 'P' */
#define MAGIC1 0x41u /* 'A' */
#define MAGIC2 0x52u /* 'R' */
#define MAGIC3 0x5Au /* 'Z' */
#define FORMAT_VERSION ((unsigned)PARZ_CHUNK_FORMAT_VERSION)
#define CODEC_VERSION 1u

/* Header field offsets (FORMAT.md, "Header"). H_SECTIONS is version 1's reserved field. */
enum {
  H_MAGIC = 0,
  H_FORMAT = 4,
  H_CODEC = 6,
  H_CODEC_VERSION = 8,
  H_TYPE = 10,
  H_RANK = 11,
  H_TABLE = 12,
  H_WIDTH = 13,
  H_FLAGS = 14,
  H_SHAPE = 16,
  H_MINBITS = 48,
  H_MAXBITS = 52,
  H_MAXPREC = 56,
  H_MINEXP = 60,
  H_SEGMENT_BLOCKS = 64,
  H_PARTITION_SEGMENTS = 68,
  H_TABLE_BYTES = 72,
  H_NEXCEPTIONS = 80,
  H_PAYLOAD_BYTES = 88,
  H_PAYLOAD_BITS = 96,
  H_SECTIONS = 104,
  H_CHECKSUM = 108
};

/* Directory entry field offsets (FORMAT.md, "Sections"). */
enum { E_KIND = 0, E_FLAGS = 2, E_RESERVED = 4, E_BYTES = 8 };

/* Blocks per extent n: ceil(n / 4) without overflow. */
static uint64_t blocks_along(uint64_t n) { return n / 4u + (n % 4u != 0); }

int parz_chunk_layout(parz_chunk_view* v, const parz_array* a, const parz_chunk_config* cfg,
                      parz_error* err) {
  int rc;
  unsigned k;
  parz_params p;
  uint64_t count = 1, nblocks = 1, size;
  memset(v, 0, sizeof *v);
  if (!a || !cfg)
    return parz_fail(err, PARZ_ERR_ARG, "NULL array or chunk configuration");
  if ((rc = parz_array_check(a, err)) != PARZ_OK)
    return rc;
  size = parz_type_size(a->type);
  for (k = 0; k < a->dims; k++) {
    uint64_t n = a->shape[k];
    if (count > UINT64_MAX / n || count * n > SIZE_MAX / size)
      return parz_fail(err, PARZ_ERR_DIMS, "array of more than SIZE_MAX bytes");
    count *= n;
    nblocks *= blocks_along(n);
  }
  if ((rc = parz_params_expert(&p, cfg->params.minbits, cfg->params.maxbits, cfg->params.maxprec,
                               cfg->params.minexp, err)) != PARZ_OK)
    return rc;
  v->codec = PARZ_CODEC_ZFP;
  v->array.type = a->type;
  v->array.dims = a->dims;
  for (k = 0; k < a->dims; k++)
    v->array.shape[k] = a->shape[k];
  v->params = p;
  v->nblocks = nblocks;
  v->raw_bytes = (size_t)(count * size);
  v->table = cfg->table;
  if (v->table == PARZ_TABLE_AUTO)
    v->table = parz_params_fixed_rate(&p) ? PARZ_TABLE_NONE : PARZ_TABLE_HYBRID;
  if (v->table == PARZ_TABLE_NONE && !parz_params_fixed_rate(&p))
    return parz_fail(err, PARZ_ERR_PARAM,
                     "table kind NONE needs fixed-rate parameters (minbits %u != maxbits %u)",
                     p.minbits, p.maxbits);
  if (v->table < PARZ_TABLE_NONE || v->table > PARZ_TABLE_HYBRID)
    return parz_fail(err, PARZ_ERR_PARAM, "unknown table kind %d", (int)cfg->table);
  /* C 0 is auto (parz_chunk_layout_auto): the encoder works in single blocks until the payload
   * is known; fixed rate, whose table is NONE or a function of C alone, takes the default */
  v->segment_blocks = cfg->segment_blocks    ? cfg->segment_blocks
                      : parz_chunk_auto_c(v) ? 1u
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
                                              parz_block_max_bits(a->type, a->dims, &p));
  if (parz_table_layout(v, err) != PARZ_OK) /* only absurd sizes get here */
    return parz_fail(err, PARZ_ERR_PARAM, "table for %llu blocks too large",
                     (unsigned long long)nblocks);
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
    v->nchecksums =
        v->nsegments / v->checksum_segments + (v->nsegments % v->checksum_segments != 0);
  }
  return PARZ_OK;
}

/* Sections a layout has: payload checksums, a mask. */
static unsigned section_count(const parz_chunk_view* v) {
  return (v->nchecksums != 0) + (v->mask.section_bytes != 0);
}

void parz_chunk_section_offsets(const parz_chunk_view* v, parz_chunk_offsets* o) {
  size_t at = PARZ_HEADER_BYTES + section_count(v) * PARZ_SECTION_ENTRY_BYTES;
  o->table = at;
  o->exceptions = at += v->table_bytes;
  at += (size_t)v->nexceptions * PARZ_EXCEPTION_BYTES;
  o->checksums = v->nchecksums ? at + PARZ_CHECKSUM_HEAD_BYTES : at;
  if (v->nchecksums)
    at = o->checksums + (size_t)(8u * v->nchecksums);
  o->mask = at;
  o->payload = at + (size_t)v->mask.section_bytes;
}

void parz_chunk_head_fixed(const parz_chunk_view* v, unsigned char* h, unsigned char* sums_head) {
  unsigned k;
  memset(h, 0, PARZ_HEADER_BYTES);
  h[H_MAGIC] = MAGIC0;
  h[H_MAGIC + 1] = MAGIC1;
  h[H_MAGIC + 2] = MAGIC2;
  h[H_MAGIC + 3] = MAGIC3;
  parz_store16(h + H_CODEC, (uint16_t)(v->codec ? v->codec : PARZ_CODEC_ZFP));
  parz_store16(h + H_CODEC_VERSION, CODEC_VERSION);
  h[H_TYPE] = (unsigned char)v->array.type;
  h[H_RANK] = (unsigned char)v->array.dims;
  h[H_TABLE] = (unsigned char)v->table;
  h[H_WIDTH] = (unsigned char)v->length_bytes;
  for (k = 0; k < v->array.dims; k++)
    parz_store64(h + H_SHAPE + 8 * k, v->array.shape[k]);
  parz_store32(h + H_MINBITS, v->params.minbits);
  parz_store32(h + H_MAXBITS, v->params.maxbits);
  parz_store32(h + H_MAXPREC, v->params.maxprec);
  parz_store32(h + H_MINEXP, (uint32_t)v->params.minexp);
  parz_store32(h + H_SEGMENT_BLOCKS, v->segment_blocks);
  parz_store32(h + H_PARTITION_SEGMENTS, v->partition_segments);
  parz_store64(h + H_TABLE_BYTES, v->table_bytes);
  parz_store64(h + H_NEXCEPTIONS, v->nexceptions);
  parz_store64(h + H_PAYLOAD_BYTES, v->payload_bytes);
  parz_store64(h + H_PAYLOAD_BITS, v->payload_bits);
  parz_store16(h + H_FORMAT, (uint16_t)v->version);
  if (section_count(v)) { /* the directory, in order of kind */
    unsigned char* e = h + PARZ_HEADER_BYTES;
    parz_store32(h + H_SECTIONS, section_count(v));
    memset(e, 0, section_count(v) * PARZ_SECTION_ENTRY_BYTES);
    if (v->nchecksums) { /* the entry, then the section's own header */
      parz_store16(e + E_KIND, PARZ_SECTION_CHECKSUMS);
      parz_store64(e + E_BYTES, PARZ_CHECKSUM_HEAD_BYTES + 8u * v->nchecksums);
      parz_store32(sums_head, v->checksum_segments);
      parz_store32(sums_head + 4, 0);
      e += PARZ_SECTION_ENTRY_BYTES;
    }
    if (v->mask.section_bytes) {
      parz_store16(e + E_KIND, PARZ_SECTION_MASK);
      parz_store16(e + E_FLAGS, PARZ_SECTION_REQUIRED);
      parz_store64(e + E_BYTES, v->mask.section_bytes);
    }
  }
}

void parz_chunk_header_write(const parz_chunk_view* v, unsigned char* h) {
  parz_chunk_offsets o;
  parz_chunk_section_offsets(v, &o);
  parz_chunk_head_fixed(v, h, h + o.checksums - PARZ_CHECKSUM_HEAD_BYTES);
}

void parz_chunk_header_seal(unsigned char* h, size_t head_bytes) {
  uint32_t crc = parz_crc32c(0, h, H_CHECKSUM);
  crc = parz_crc32c(crc, h + PARZ_HEADER_BYTES, head_bytes - PARZ_HEADER_BYTES);
  parz_store32(h + H_CHECKSUM, crc);
}

/* The mix's two 64-bit multiplies per word bound the checksum on the CPU. Compilers vectorize
 * the loop for AVX2 (4 words at once, the multiplies built from 32-bit ones), which outruns the
 * scalar loop. One build serves every x86-64 machine: the AVX2
 * clone is picked at load time where the CPU has it. (Clang before 16 names the dispatcher
 * apart from the function, which leaves callers in other files unresolved: not there.) */
#if defined(__x86_64__) && defined(__ELF__) && defined(__has_attribute) && \
    (!defined(__clang__) || __clang_major__ >= 16)
#if __has_attribute(target_clones)
#define PARZ_CHECKSUM_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef PARZ_CHECKSUM_CLONES
#define PARZ_CHECKSUM_CLONES
#endif

PARZ_CHECKSUM_CLONES
uint64_t parz_payload_checksum(const unsigned char* payload, uint64_t begin, uint64_t end) {
  return parz_checksum_lane(payload, begin, end, 0, 1);
}

int parz_chunk_auto_c(const parz_chunk_view* v) {
  return !parz_params_fixed_rate(&v->params) && v->table != PARZ_TABLE_NONE;
}

/* Table bytes of the layout of a under cfg with C = c, or UINT64_MAX when it is not valid. */
static uint64_t table_bytes_at(const parz_array* a, const parz_chunk_config* cfg, uint32_t c,
                               parz_chunk_view* v) {
  parz_chunk_config at = *cfg;
  at.segment_blocks = c;
  return parz_chunk_layout(v, a, &at, NULL) == PARZ_OK ? (uint64_t)v->table_bytes : UINT64_MAX;
}

int parz_chunk_layout_auto(parz_chunk_view* v, const parz_array* a, const parz_chunk_config* cfg,
                           uint64_t payload_bytes, parz_error* err) {
  parz_chunk_view t;
  uint64_t best = UINT64_MAX;
  uint32_t c;
  for (c = 1; c <= PARZ_AUTO_MAX_SEGMENT_BLOCKS; c *= 2) {
    uint64_t tb = table_bytes_at(a, cfg, c, &t);
    if (tb != UINT64_MAX && tb <= payload_bytes / PARZ_AUTO_TABLE_SHARE) {
      *v = t;
      return PARZ_OK;
    }
    if (tb < best) { /* none within the budget (tiny chunks): the smallest table */
      best = tb;
      *v = t;
    }
  }
  return best == UINT64_MAX ? parz_chunk_layout(v, a, cfg, err) /* says why none is valid */
                            : PARZ_OK;
}

int parz_chunk_settle(parz_chunk_view* v, const parz_array* a, const parz_chunk_config* cfg,
                      uint64_t payload_bits, uint64_t nexceptions, size_t mask_bytes,
                      unsigned version, parz_error* err) {
  uint64_t payload_bytes = 8u * (payload_bits / 64u + (payload_bits % 64u != 0));
  int rc = parz_chunk_layout(v, a, cfg, err);
  if (rc == PARZ_OK && cfg->segment_blocks == 0 && parz_chunk_auto_c(v))
    rc = parz_chunk_layout_auto(v, a, cfg, payload_bytes, err);
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

size_t parz_chunk_head_bytes(const parz_chunk_view* v) {
  parz_chunk_offsets o;
  parz_chunk_section_offsets(v, &o);
  return o.payload;
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
      uint64_t tb = table_bytes_at(a, cfg, c, &t);
      if (tb != UINT64_MAX && tb > v.table_bytes)
        v.table_bytes = (size_t)tb;
    }
  }
  count = v.raw_bytes / parz_type_size(a->type);
  if (nexc == UINT64_MAX)
    nexc = parz_exceptions_possible(a, &v.params) ? count : 0;
  if (masked == UINT64_MAX)
    masked = parz_chunk_config_masks(cfg, a->type) ? count : 0;
  if (nexc > (SIZE_MAX - v.table_bytes - 4096u) / PARZ_EXCEPTION_BYTES)
    return 0;
  v.nexceptions = nexc;
  v.mask.section_bytes = masked ? parz_mask_bound(a, masked) : 0;
  if (v.mask.section_bytes > SIZE_MAX / 4u)
    return 0;
  parz_chunk_section_offsets(&v, &o); /* the checksums of C = 1, the most */
  stream = parz_stream_bound(a->type, a->dims, &v.params, (size_t)v.nblocks);
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
  parz_scan scan;
  size_t bound;
  if (!a || !cfg || !data || parz_array_check(a, NULL) != PARZ_OK)
    return 0;
  /* bounded by the stored chunk without a look at the values */
  if (cfg->stored == PARZ_STORED_WHEN_SMALLER)
    return parz_chunk_bound(a, cfg);
  if (parz_mask_palette_init(&scan.pal, a->type, a->dims, &cfg->params, cfg, NULL) != PARZ_OK)
    return 0;
  parz_scan_run(&scan, a, data, jobs);
  /* the bound's check may take out any value that puts its block at risk (risk.h), into the mask
   * or as an exception */
  bound = bound_with(a, cfg, scan.exceptions + scan.high,
                     scan.masked + (scan.pal.taken ? scan.high : 0));
  parz_scan_free(&scan);
  return bound;
}

size_t parz_chunk_bound_data(const parz_array* a, const void* data, const parz_chunk_config* cfg) {
  return parz_chunk_bound_data_jobs(a, data, cfg, NULL);
}

/* Takes `bytes` from the remaining *left bytes of the chunk, refusing when there are fewer. */
static int take(uint64_t bytes, uint64_t* left) {
  if (bytes > *left)
    return 0;
  *left -= bytes;
  return 1;
}

/* Where a known section lies: its offset after the exceptions and its size (0: absent). */
typedef struct {
  uint64_t at, bytes;
} section_place;

/* A version 2 chunk's section directory, read against the bytes left after the table and
 * exceptions (*left, reduced by the sections' sizes): entries in strictly increasing kind order,
 * sizes multiples of 8. Known kinds are located (checksums, mask); unknown ones are skipped
 * unless marked required. */
static int parse_directory(const unsigned char* dir, uint32_t n, uint64_t* left,
                           section_place* checksums, section_place* mask, parz_error* err) {
  uint32_t i, prev = 0;
  uint64_t at = 0;
  checksums->bytes = mask->bytes = 0;
  for (i = 0; i < n; i++) {
    const unsigned char* e = dir + (size_t)i * PARZ_SECTION_ENTRY_BYTES;
    unsigned kind = parz_load16(e + E_KIND), flags = parz_load16(e + E_FLAGS);
    uint64_t bytes = parz_load64(e + E_BYTES);
    if (kind <= prev || parz_load32(e + E_RESERVED) || bytes % 8u || !take(bytes, left))
      return parz_fail(err, PARZ_ERR_FORMAT,
                       "ParZ chunk section %u (kind %u, %llu bytes): out of order, not a "
                       "multiple of 8 bytes or past the chunk",
                       (unsigned)i, kind, (unsigned long long)bytes);
    if (flags & ~PARZ_SECTION_REQUIRED)
      return parz_fail(err, PARZ_ERR_VERSION,
                       "ParZ chunk section %u has flags 0x%x unknown to this reader", (unsigned)i,
                       flags);
    if (kind == PARZ_SECTION_CHECKSUMS || kind == PARZ_SECTION_MASK) {
      section_place* s = kind == PARZ_SECTION_CHECKSUMS ? checksums : mask;
      s->at = at;
      s->bytes = bytes;
    } else if (flags & PARZ_SECTION_REQUIRED) {
      return parz_fail(err, PARZ_ERR_VERSION,
                       "ParZ chunk needs section kind %u, unknown to this reader", kind);
    }
    at += bytes;
    prev = kind;
  }
  return PARZ_OK;
}

/* The checksum section of bytes bytes at c: its own header (u32 P, u32 reserved 0) and one u64
 * per partition of P segments; P equals the table's P for HYBRID. */
static int parse_checksums(parz_chunk_view* v, const unsigned char* c, uint64_t bytes,
                           parz_error* err) {
  uint64_t P, n;
  if (bytes < PARZ_CHECKSUM_HEAD_BYTES)
    return parz_fail(err, PARZ_ERR_FORMAT, "payload checksum section of %llu bytes",
                     (unsigned long long)bytes);
  P = parz_load32(c);
  if (P < 1 || P > PARZ_MAX_PARTITION_SEGMENTS || parz_load32(c + 4) ||
      (v->table == PARZ_TABLE_HYBRID && P != v->partition_segments))
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "payload checksums over partitions of %llu segments (table: %u)",
                     (unsigned long long)P, v->partition_segments);
  n = v->nsegments / P + (v->nsegments % P != 0);
  if (bytes != PARZ_CHECKSUM_HEAD_BYTES + 8u * n)
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "payload checksum section of %llu bytes for %llu partitions",
                     (unsigned long long)bytes, (unsigned long long)n);
  v->checksums = c + PARZ_CHECKSUM_HEAD_BYTES;
  v->checksum_segments = (uint32_t)P;
  v->nchecksums = n;
  return PARZ_OK;
}

int parz_chunk_parse(const void* src, size_t src_bytes, parz_chunk_view* view, parz_error* err) {
  const unsigned char* h = (const unsigned char*)src;
  parz_chunk_view v;
  unsigned k, version, codec, codec_version, flags, type, rank;
  uint64_t count = 1, nblocks = 1, left, table_bytes, nexc, payload_bytes, payload_bits;
  uint64_t nsections = 0, head;
  section_place checksums = {0, 0}, mask = {0, 0};
  uint32_t crc;
  int rc;
  if (!src || !view)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_parse: NULL argument");
  memset(view, 0, sizeof *view);
  memset(&v, 0, sizeof v);
  if (src_bytes < 4 || h[0] != MAGIC0 || h[1] != MAGIC1 || h[2] != MAGIC2 || h[3] != MAGIC3)
    return parz_fail(err, PARZ_ERR_FORMAT, "not a ParZ chunk (bad magic, %zu bytes)", src_bytes);
  /* versions first: a newer writer may have changed everything after them */
  version = src_bytes >= H_FORMAT + 2 ? parz_load16(h + H_FORMAT) : FORMAT_VERSION;
  if (version < 1 || version > FORMAT_VERSION)
    return parz_fail(err, version > FORMAT_VERSION ? PARZ_ERR_VERSION : PARZ_ERR_FORMAT,
                     "ParZ chunk format version %u; this reader knows versions 1 to %u", version,
                     FORMAT_VERSION);
  v.version = version;
  if (src_bytes < H_CODEC_VERSION + 2)
    return parz_fail(err, PARZ_ERR_FORMAT, "ParZ chunk truncated to %zu bytes", src_bytes);
  codec = parz_load16(h + H_CODEC);
  codec_version = parz_load16(h + H_CODEC_VERSION);
  if ((codec != PARZ_CODEC_ZFP && codec != PARZ_CODEC_STORED) || codec_version > CODEC_VERSION ||
      codec_version == 0)
    return parz_fail(err, PARZ_ERR_VERSION,
                     "ParZ chunk codec %u version %u; this reader knows codecs %u (zfp) and %u "
                     "(stored) up to version %u",
                     codec, codec_version, PARZ_CODEC_ZFP, PARZ_CODEC_STORED, CODEC_VERSION);
  v.codec = codec;
  if (src_bytes < PARZ_HEADER_BYTES)
    return parz_fail(err, PARZ_ERR_FORMAT, "ParZ chunk truncated to %zu bytes (header is %u)",
                     src_bytes, PARZ_HEADER_BYTES);
  flags = parz_load16(h + H_FLAGS);
  if (flags)
    return parz_fail(err, PARZ_ERR_VERSION,
                     "ParZ chunk uses feature flags 0x%x unknown to this reader", flags);

  /* sizes: bounded by src_bytes before the checksum reads the table and exceptions */
  left = src_bytes - PARZ_HEADER_BYTES;
  if (version >= 2) {
    nsections = parz_load32(h + H_SECTIONS);
    if (nsections > PARZ_MAX_SECTIONS || !take(nsections * PARZ_SECTION_ENTRY_BYTES, &left))
      return parz_fail(err, PARZ_ERR_FORMAT,
                       "ParZ chunk lists %llu sections (at most %u) in %zu bytes",
                       (unsigned long long)nsections, PARZ_MAX_SECTIONS, src_bytes);
  }
  table_bytes = parz_load64(h + H_TABLE_BYTES);
  nexc = parz_load64(h + H_NEXCEPTIONS);
  payload_bytes = parz_load64(h + H_PAYLOAD_BYTES);
  payload_bits = parz_load64(h + H_PAYLOAD_BITS);
  if (!take(table_bytes, &left) || nexc > left / PARZ_EXCEPTION_BYTES ||
      !take(nexc * PARZ_EXCEPTION_BYTES, &left))
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "ParZ chunk sizes (table %llu + %llu exceptions) disagree with its %zu bytes",
                     (unsigned long long)table_bytes, (unsigned long long)nexc, src_bytes);
  if (nsections && (rc = parse_directory(h + PARZ_HEADER_BYTES, (uint32_t)nsections, &left,
                                         &checksums, &mask, err)) != PARZ_OK)
    return rc;
  if (payload_bytes != left)
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "ParZ chunk sizes (table %llu + %llu exceptions + sections + payload %llu "
                     "bytes) disagree with its %zu bytes",
                     (unsigned long long)table_bytes, (unsigned long long)nexc,
                     (unsigned long long)payload_bytes, src_bytes);
  head = src_bytes - payload_bytes;
  crc = parz_crc32c(0, h, H_CHECKSUM);
  crc = parz_crc32c(crc, h + PARZ_HEADER_BYTES, (size_t)(head - PARZ_HEADER_BYTES));
  if (crc != parz_load32(h + H_CHECKSUM))
    return parz_fail(err, PARZ_ERR_CHECKSUM,
                     "ParZ chunk header/table checksum 0x%08x, computed 0x%08x",
                     (unsigned)parz_load32(h + H_CHECKSUM), (unsigned)crc);
  if (version == 1 && parz_load32(h + H_SECTIONS))
    return parz_fail(err, PARZ_ERR_FORMAT, "nonzero reserved header field");

  /* array */
  type = h[H_TYPE];
  rank = h[H_RANK];
  if (type < PARZ_INT32 || type > PARZ_DOUBLE)
    return parz_fail(err, PARZ_ERR_FORMAT, "unknown scalar type %u", type);
  if (rank < 1 || rank > 4)
    return parz_fail(err, PARZ_ERR_FORMAT, "rank %u outside 1..4", rank);
  v.array.type = (parz_type)type;
  v.array.dims = rank;
  for (k = 0; k < 4; k++) {
    uint64_t n = parz_load64(h + H_SHAPE + 8 * k);
    if (k >= rank) {
      if (n != 0)
        return parz_fail(err, PARZ_ERR_FORMAT, "extent %llu given for unused dimension %u",
                         (unsigned long long)n, k);
      continue;
    }
    if (n == 0 || count > UINT64_MAX / n || count * n > SIZE_MAX / parz_type_size(v.array.type))
      return parz_fail(err, PARZ_ERR_FORMAT, "extent %llu of dimension %u: %s",
                       (unsigned long long)n, k, n ? "array too large" : "zero");
    count *= n;
    nblocks *= blocks_along(n);
    v.array.shape[k] = (size_t)n;
  }
  v.raw_bytes = (size_t)(count * parz_type_size(v.array.type));
  /* a stored chunk's block is one value (stored.h) */
  v.nblocks = codec == PARZ_CODEC_STORED ? count : nblocks;

  /* codec parameters, validated as zfp_stream_set_params does; a stored chunk's are its values'
   * widths (parz_stored_check) */
  if (codec == PARZ_CODEC_STORED) {
    v.params.minbits = parz_load32(h + H_MINBITS);
    v.params.maxbits = parz_load32(h + H_MAXBITS);
    v.params.maxprec = parz_load32(h + H_MAXPREC);
    v.params.minexp = (int32_t)parz_load32(h + H_MINEXP);
  } else if (parz_params_expert(&v.params, parz_load32(h + H_MINBITS), parz_load32(h + H_MAXBITS),
                                parz_load32(h + H_MAXPREC), (int32_t)parz_load32(h + H_MINEXP),
                                NULL) != PARZ_OK)
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "invalid codec parameters minbits %u maxbits %u maxprec %u minexp %d",
                     (unsigned)parz_load32(h + H_MINBITS), (unsigned)parz_load32(h + H_MAXBITS),
                     (unsigned)parz_load32(h + H_MAXPREC), (int)(int32_t)parz_load32(h + H_MINEXP));

  /* payload: exactly the zfp stream, padded to whole 64-bit words; every block has at least
   * one bit, which also bounds the size a small chunk may claim to decode to */
  if (payload_bytes != 8u * (payload_bits / 64u + (payload_bits % 64u != 0)) ||
      payload_bits < nblocks)
    return parz_fail(err, PARZ_ERR_FORMAT, "payload of %llu bits in %llu bytes for %llu blocks",
                     (unsigned long long)payload_bits, (unsigned long long)payload_bytes,
                     (unsigned long long)nblocks);

  /* table */
  v.table = (parz_table_kind)h[H_TABLE];
  v.length_bytes = h[H_WIDTH];
  v.segment_blocks = parz_load32(h + H_SEGMENT_BLOCKS);
  v.partition_segments = parz_load32(h + H_PARTITION_SEGMENTS);
  if ((rc = parz_table_layout(&v, err)) != PARZ_OK)
    return rc;
  if (v.table_bytes != table_bytes)
    return parz_fail(err, PARZ_ERR_FORMAT, "table of %llu bytes, its layout needs %zu",
                     (unsigned long long)table_bytes, v.table_bytes);
  v.table_data = h + PARZ_HEADER_BYTES + nsections * PARZ_SECTION_ENTRY_BYTES;
  v.exceptions = v.table_data + v.table_bytes;
  v.nexceptions = nexc;
  v.payload = h + head;
  v.payload_bytes = (size_t)payload_bytes;
  v.payload_bits = payload_bits;
  v.chunk_bytes = src_bytes;
  if (codec == PARZ_CODEC_STORED) {
    v.mask.section_bytes = mask.bytes;
    if ((rc = parz_stored_check(&v, err)) != PARZ_OK)
      return rc;
  }
  if (checksums.bytes &&
      (rc = parse_checksums(&v, v.exceptions + nexc * PARZ_EXCEPTION_BYTES + checksums.at,
                            checksums.bytes, err)) != PARZ_OK)
    return rc;
  if (mask.bytes && (rc = parz_mask_parse(&v, v.exceptions + nexc * PARZ_EXCEPTION_BYTES + mask.at,
                                          mask.bytes, err)) != PARZ_OK)
    return rc;
  if ((rc = parz_table_validate(&v, err)) != PARZ_OK)
    return rc;
  if ((rc = parz_exceptions_validate(&v, err)) != PARZ_OK)
    return rc;
  *view = v;
  return PARZ_OK;
}

/* Segments per parz_decode_segments call: their expected ends sit on the stack. */
#define DECODE_GROUP 64u

void parz_chunk_dest_whole(const parz_chunk_view* v, void* dst, parz_chunk_dest* d) {
  ptrdiff_t run = 1;
  unsigned k;
  memset(d, 0, sizeof *d);
  d->data = dst;
  for (k = v->array.dims; k-- > 0;) {
    d->stride[k] = run;
    d->hi[k] = v->array.shape[k];
    run *= (ptrdiff_t)v->array.shape[k];
  }
}

int parz_chunk_dest_check(const parz_chunk_view* v, const parz_chunk_dest* d, parz_error* err) {
  unsigned k;
  if (!v || !d || !d->data)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_dest_check: NULL argument");
  for (k = 0; k < v->array.dims; k++)
    if (d->lo[k] >= d->hi[k] || d->hi[k] > v->array.shape[k] || d->stride[k] < 0)
      return parz_fail(err, PARZ_ERR_ARG,
                       "destination window [%zu, %zu) stride %td in dimension %u of a chunk of "
                       "extent %zu",
                       d->lo[k], d->hi[k], d->stride[k], k, v->array.shape[k]);
  return PARZ_OK;
}

/* A destination's window in blocks: the blocks (C order, nb per dimension) holding a value of
 * it are those with lo[k] <= b[k] < hi[k]. cut: the fastest dimension the window does not span
 * (-1 when it spans them all): runs of consecutive blocks inside the window end there. */
typedef struct {
  unsigned dims;
  uint64_t nb[4], lo[4], hi[4], nblocks;
  int cut;
} window_blocks;

static void window_blocks_init(const parz_chunk_view* v, const parz_chunk_dest* d,
                               window_blocks* w) {
  unsigned k;
  w->dims = v->array.dims;
  w->nblocks = v->nblocks;
  w->cut = -1;
  for (k = 0; k < w->dims; k++) {
    w->nb[k] = blocks_along(v->array.shape[k]);
    w->lo[k] = d->lo[k] / 4u;
    w->hi[k] = blocks_along(d->hi[k]);
    if (w->lo[k] > 0 || w->hi[k] < w->nb[k])
      w->cut = (int)k;
  }
}

static uint64_t window_linear(const window_blocks* w, const uint64_t* x) {
  uint64_t b = 0;
  unsigned k;
  for (k = 0; k < w->dims; k++)
    b = b * w->nb[k] + x[k];
  return b;
}

/* The first block at or after block b that is inside the window; nblocks when none is. */
static uint64_t window_next(const window_blocks* w, uint64_t b) {
  uint64_t x[4];
  unsigned k, j;
  if (b >= w->nblocks)
    return w->nblocks;
  for (k = w->dims; k-- > 0;) {
    x[k] = b % w->nb[k];
    b /= w->nb[k];
  }
  for (k = 0; k < w->dims; k++) {
    int m;
    if (x[k] >= w->lo[k] && x[k] < w->hi[k])
      continue;
    if (x[k] < w->lo[k]) { /* the window's first block with this prefix */
      for (j = k; j < w->dims; j++)
        x[j] = w->lo[j];
      return window_linear(w, x);
    }
    /* past the window along k: the next prefix inside it */
    for (j = k; j < w->dims; j++)
      x[j] = w->lo[j];
    for (m = (int)k - 1; m >= 0; m--) {
      if (++x[m] < w->hi[m])
        break;
      x[m] = w->lo[m];
    }
    return m < 0 ? w->nblocks : window_linear(w, x);
  }
  return window_linear(w, x);
}

/* For a block b inside the window, the first block after it that is not (nblocks at most). */
static uint64_t window_run_end(const window_blocks* w, uint64_t b) {
  uint64_t x[4];
  unsigned k;
  if (w->cut < 0)
    return w->nblocks;
  for (k = w->dims; k-- > 0;) {
    x[k] = b % w->nb[k];
    b /= w->nb[k];
  }
  x[w->cut] = w->hi[w->cut];
  for (k = (unsigned)w->cut + 1; k < w->dims; k++)
    x[k] = 0;
  return window_linear(w, x);
}

/* Decodes segments [s, s + count) from the payload's bit *bit into d, in groups of DECODE_GROUP
 * segments, each group one pass of parz_decode_segments; *bit ends where segment s + count
 * starts. */
static int decode_run_of_segments(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t s,
                                  uint64_t count, uint64_t* bit, parz_error* err) {
  const uint64_t last = s + count;
  while (s < last) {
    uint64_t ends[DECODE_GROUP], n = last - s, b0 = s * v->segment_blocks, nb, k, end;
    size_t bad;
    int rc;
    if (n > DECODE_GROUP)
      n = DECODE_GROUP;
    for (k = 0, end = *bit; k < n; k++)
      ends[k] = end += parz_table_segment_bits(v, s + k);
    nb = (s + n) * v->segment_blocks;
    nb = (nb < v->nblocks ? nb : v->nblocks) - b0;
    rc = parz_decode_segments(&v->array, d, &v->params, v->payload, v->payload_bytes, *bit,
                              (size_t)b0, (size_t)nb, v->segment_blocks, ends, &v->mask, &bad, &end,
                              err);
    if (rc != PARZ_OK)
      return rc;
    if (bad != SIZE_MAX)
      return parz_fail(err, PARZ_ERR_STREAM,
                       "segment %llu ends at bit %llu but the table says %llu: corrupt payload",
                       (unsigned long long)(s + bad), (unsigned long long)end,
                       (unsigned long long)ends[bad]);
    *bit = ends[n - 1];
    s += n;
  }
  return PARZ_OK;
}

/* A walk through a chunk's payload in increasing segment order that knows where its last stop
 * was: the offset of a later segment is a table lookup, but for LENGTHS (whose lookup sums from
 * the start) the sum of the lengths since the last stop, so that a walk costs O(segments) for
 * every table kind. */
typedef struct {
  const parz_chunk_view* v;
  uint64_t segment, bit; /* segment `segment` starts at `bit`; segment == UINT64_MAX: none */
} payload_cursor;

static void cursor_init(payload_cursor* c, const parz_chunk_view* v) {
  c->v = v;
  c->segment = UINT64_MAX;
  c->bit = 0;
}

/* Where segment s (at or after the last stop) starts. */
static uint64_t cursor_offset(const payload_cursor* c, uint64_t s) {
  const parz_chunk_view* v = c->v;
  uint64_t at = c->bit, k;
  if (v->table != PARZ_TABLE_LENGTHS || c->segment == UINT64_MAX)
    return parz_chunk_segment_offset(v, s);
  for (k = c->segment; k < s; k++)
    at += parz_table_segment_bits(v, k);
  return at;
}

static void cursor_stop(payload_cursor* c, uint64_t s, uint64_t bit) {
  c->segment = s;
  c->bit = bit;
}

/* The one loop that verifies payload checksums: partitions [p0, p1), the first starting at the
 * cursor's next stop. */
static int verify_partitions(payload_cursor* c, uint64_t p0, uint64_t p1, parz_error* err) {
  const parz_chunk_view* v = c->v;
  const uint64_t P = v->checksum_segments;
  uint64_t p, begin;
  if (p0 >= p1)
    return PARZ_OK;
  begin = cursor_offset(c, p0 * P);
  for (p = p0; p < p1; p++) {
    uint64_t s1 = (p + 1) * P < v->nsegments ? (p + 1) * P : v->nsegments;
    /* the last partition also covers the zero bits that pad the payload to whole words */
    uint64_t end = s1 == v->nsegments ? 8u * (uint64_t)v->payload_bytes : 0;
    uint64_t want = parz_load64(v->checksums + 8u * p), sum;
    cursor_stop(c, p * P, begin);
    if (s1 < v->nsegments)
      end = cursor_offset(c, s1);
    sum = parz_payload_checksum(v->payload, begin, end);
    if (sum != want)
      return parz_fail(err, PARZ_ERR_CHECKSUM,
                       "payload checksum of partition %llu of %llu (segments %llu to %llu, "
                       "payload bits %llu to %llu) is 0x%016llx, stored 0x%016llx: corrupt "
                       "payload",
                       (unsigned long long)p, (unsigned long long)v->nchecksums,
                       (unsigned long long)(p * P), (unsigned long long)(s1 - 1),
                       (unsigned long long)begin, (unsigned long long)(end - 1),
                       (unsigned long long)sum, (unsigned long long)want);
    begin = end;
  }
  if (p1 * P < v->nsegments)
    cursor_stop(c, p1 * P, begin);
  return PARZ_OK;
}

/* PARZ_ERR_ARG unless checksummed partitions [first, first + count) are the chunk's. */
static int check_partitions(const parz_chunk_view* v, uint64_t first, uint64_t count,
                            const char* who, parz_error* err) {
  if (!v)
    return parz_fail(err, PARZ_ERR_ARG, "%s: NULL view", who);
  if (first > v->nchecksums || count > v->nchecksums - first)
    return parz_fail(err, PARZ_ERR_ARG, "%s: partitions [%llu, +%llu) outside the chunk's %llu",
                     who, (unsigned long long)first, (unsigned long long)count,
                     (unsigned long long)v->nchecksums);
  return PARZ_OK;
}

int parz_chunk_verify(const parz_chunk_view* v, uint64_t first, uint64_t count, parz_error* err) {
  payload_cursor c;
  int rc = check_partitions(v, first, count, "parz_chunk_verify", err);
  if (rc != PARZ_OK)
    return rc;
  cursor_init(&c, v);
  return verify_partitions(&c, first, first + count, err);
}

/* The runs of consecutive segments among [first, first + count) that hold blocks of a
 * destination's window, in increasing order (runs found in O(1) each). */
typedef struct {
  window_blocks w;
  uint64_t block, end_block, end_segment;
} run_walk;

static int run_walk_init(run_walk* r, const parz_chunk_view* v, const parz_chunk_dest* d,
                         uint64_t first, uint64_t count, parz_error* err) {
  const uint64_t C = v ? v->segment_blocks : 0;
  if (!v || !d || !d->data)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_decode_segments: NULL argument");
  if (first > v->nsegments || count > v->nsegments - first)
    return parz_fail(err, PARZ_ERR_ARG, "segments [%llu, +%llu) outside the chunk's %llu",
                     (unsigned long long)first, (unsigned long long)count,
                     (unsigned long long)v->nsegments);
  window_blocks_init(v, d, &r->w);
  r->block = first * C;
  r->end_segment = first + count;
  r->end_block = r->end_segment * C < v->nblocks ? r->end_segment * C : v->nblocks;
  return PARZ_OK;
}

/* The next run [*s0, *s1); 0 when there is none. */
static int run_walk_next(run_walk* r, uint64_t C, uint64_t* s0, uint64_t* s1) {
  uint64_t run_end;
  if (r->block >= r->end_block || (r->block = window_next(&r->w, r->block)) >= r->end_block)
    return 0;
  run_end = window_run_end(&r->w, r->block);
  *s0 = r->block / C;
  *s1 = run_end / C + (run_end % C != 0);
  if (*s1 > r->end_segment)
    *s1 = r->end_segment;
  r->block = *s1 * C;
  return 1;
}

/* Verifies the partitions that hold the runs of the walk, each once, consecutive ones in one
 * pass of verify_partitions. */
static int verify_runs(const parz_chunk_view* v, run_walk* r, parz_error* err) {
  const uint64_t P = v->checksum_segments;
  payload_cursor c;
  uint64_t s0, s1, q0 = 0, q1 = 0; /* partitions [q0, q1) to verify next */
  int rc;
  if (!v->nchecksums)
    return PARZ_OK;
  cursor_init(&c, v);
  while (run_walk_next(r, v->segment_blocks, &s0, &s1)) {
    uint64_t p0 = s0 / P, p1 = (s1 - 1) / P + 1;
    if (p0 < q1)
      p0 = q1; /* the run's first partition is already there */
    if (p0 >= p1)
      continue;
    if (p0 > q1 && q1 > q0 && (rc = verify_partitions(&c, q0, q1, err)) != PARZ_OK)
      return rc;
    if (p0 > q1)
      q0 = p0;
    q1 = p1;
  }
  return verify_partitions(&c, q0, q1, err);
}

/* A stored chunk's partitions [p0, p1) that hold a value of d's window, verified. */
static int verify_stored_to(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t p0,
                            uint64_t p1, parz_error* err) {
  const uint64_t P = v->checksum_segments;
  payload_cursor c;
  uint64_t p;
  int rc;
  cursor_init(&c, v);
  for (p = p0; p < p1; p++)
    if (parz_stored_meets(v, d, p * P, P) && (rc = verify_partitions(&c, p, p + 1, err)) != PARZ_OK)
      return rc;
  return PARZ_OK;
}

int parz_chunk_verify_to(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t first,
                         uint64_t count, parz_error* err) {
  run_walk r;
  uint64_t s0, s1;
  int rc = check_partitions(v, first, count, "parz_chunk_verify_to", err);
  if (rc != PARZ_OK || !count)
    return rc;
  if (v->codec == PARZ_CODEC_STORED)
    return verify_stored_to(v, d, first, first + count, err);
  s0 = first * v->checksum_segments;
  s1 = (first + count) * v->checksum_segments;
  if (s1 > v->nsegments)
    s1 = v->nsegments;
  if ((rc = run_walk_init(&r, v, d, s0, s1 - s0, err)) != PARZ_OK)
    return rc;
  return verify_runs(v, &r, err);
}

int parz_chunk_decode_segments_unverified(const parz_chunk_view* v, const parz_chunk_dest* d,
                                          uint64_t first, uint64_t count, parz_error* err) {
  run_walk r;
  payload_cursor c;
  uint64_t s0, s1;
  int rc;
  if ((rc = run_walk_init(&r, v, d, first, count, err)) != PARZ_OK)
    return rc;
  if (v->codec == PARZ_CODEC_STORED) {
    parz_stored_decode_to(v, d, first, count);
    return PARZ_OK;
  }
  cursor_init(&c, v);
  /* each run decoded from its table offset */
  while (run_walk_next(&r, v->segment_blocks, &s0, &s1)) {
    uint64_t bit = cursor_offset(&c, s0);
    if ((rc = decode_run_of_segments(v, d, s0, s1 - s0, &bit, err)) != PARZ_OK)
      return rc;
    cursor_stop(&c, s1, bit);
  }
  return PARZ_OK;
}

int parz_chunk_decode_segments_to(const parz_chunk_view* v, const parz_chunk_dest* d,
                                  uint64_t first, uint64_t count, parz_error* err) {
  run_walk r;
  int rc;
  /* every checksum first, as the parallel decoders report a bad one before other faults */
  if ((rc = run_walk_init(&r, v, d, first, count, err)) != PARZ_OK)
    return rc;
  if (v->codec == PARZ_CODEC_STORED && v->nchecksums && count) {
    const uint64_t P = v->checksum_segments;
    rc = verify_stored_to(v, d, first / P, (first + count - 1) / P + 1, err);
  } else {
    rc = verify_runs(v, &r, err);
  }
  if (rc != PARZ_OK)
    return rc;
  return parz_chunk_decode_segments_unverified(v, d, first, count, err);
}

int parz_chunk_decode_segments(const parz_chunk_view* v, void* dst, uint64_t first, uint64_t count,
                               parz_error* err) {
  parz_chunk_dest d;
  if (!v || !dst)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_decode_segments: NULL argument");
  parz_chunk_dest_whole(v, dst, &d);
  return parz_chunk_decode_segments_to(v, &d, first, count, err);
}

int parz_chunk_decode(const void* src, size_t src_bytes, void* dst, size_t dst_bytes,
                      parz_error* err) {
  parz_chunk_view v;
  int rc = parz_chunk_parse(src, src_bytes, &v, err);
  if (rc != PARZ_OK)
    return rc;
  if (!dst || dst_bytes < v.raw_bytes)
    return parz_fail(err, PARZ_ERR_BUFFER, "chunk decodes to %zu bytes, buffer has %zu",
                     v.raw_bytes, dst ? dst_bytes : 0);
  if ((rc = parz_chunk_decode_segments(&v, dst, 0, v.nsegments, err)) != PARZ_OK)
    return rc;
  return parz_chunk_patch_exceptions(&v, dst, err);
}
