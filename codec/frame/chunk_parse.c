/* The parser that validates a chunk before any decoding: header, directory, sections, table
 * and exceptions, into a view (codec/FORMAT.md, "Validation"). */
#include <string.h>

#include "checksum.h"
#include "codecs.h"
#include "exceptions.h"
#include "header.h"
#include "mask_parse.h"
#include "table.h"
#include "table_endian.h"

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

/* The known sections' places. */
typedef struct {
  section_place checksums, mask, codec_data;
} section_places;

/* A version 2 chunk's section directory, read against the bytes left after the table and
 * exceptions (*left, reduced by the sections' sizes): entries in strictly increasing kind order,
 * sizes multiples of 8. Known kinds are located (checksums, mask, codec data); unknown ones are
 * skipped unless marked required. */
static int parse_directory(const unsigned char* dir, uint32_t n, uint64_t* left,
                           section_places* places, parz_error* err) {
  uint32_t i, prev = 0;
  uint64_t at = 0;
  memset(places, 0, sizeof *places);
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
    if (kind == PARZ_SECTION_CHECKSUMS || kind == PARZ_SECTION_MASK ||
        kind == PARZ_SECTION_CODEC_DATA) {
      section_place* s = kind == PARZ_SECTION_CHECKSUMS ? &places->checksums
                         : kind == PARZ_SECTION_MASK    ? &places->mask
                                                        : &places->codec_data;
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
  n = parz_checksum_count(v->nsegments, P);
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
  const parz_codec* ops;
  unsigned k, version, codec, codec_version, flags, type, rank;
  uint64_t count = 1, units = 1, left, table_bytes, nexc, payload_bytes, payload_bits;
  uint64_t nsections = 0, head;
  section_places sec;
  uint32_t crc;
  parz_error perr;
  const unsigned char* sections;
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
  ops = parz_codec_find(codec);
  if (!ops || codec_version > ops->version || codec_version == 0) {
    char known[160];
    parz_codec_names(known, sizeof known);
    return parz_fail(err, PARZ_ERR_VERSION,
                     "ParZ chunk codec %u version %u; this reader knows codecs %s, each up to "
                     "version %u",
                     codec, codec_version, known, ops ? ops->version : CODEC_VERSION);
  }
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
  memset(&sec, 0, sizeof sec);
  if (nsections && (rc = parse_directory(h + PARZ_HEADER_BYTES, (uint32_t)nsections, &left, &sec,
                                         err)) != PARZ_OK)
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
    v.array.shape[k] = (size_t)n;
  }
  v.raw_bytes = (size_t)(count * parz_type_size(v.array.type));

  /* codec parameters, as the codec reads them (zfp: validated as zfp_stream_set_params does; a
   * stored chunk's are its values' widths, checked by its codec's check) */
  memcpy(v.codec_params, h + H_CODEC_PARAMS, PARZ_CODEC_PARAM_BYTES);
  if (ops->read_params(&v, &perr) != PARZ_OK)
    return parz_fail(err, PARZ_ERR_FORMAT, "invalid codec parameters of a %s chunk: %s", ops->name,
                     perr.message);

  /* the codec's blocks (a stored chunk's block is one value, stored.h) */
  ops->block_sides(&v, v.block_side);
  for (k = 0; k < rank; k++)
    units *= parz_blocks_along(v.array.shape[k], v.block_side[k]);
  v.nblocks = units;

  /* payload: exactly the codec's stream, padded to whole 64-bit words; every block has at least
   * the codec's fewest bits, which also bounds the size a small chunk may claim to decode to */
  if (payload_bytes != 8u * (payload_bits / 64u + (payload_bits % 64u != 0)) ||
      (ops->min_block_bits && payload_bits / ops->min_block_bits < units))
    return parz_fail(err, PARZ_ERR_FORMAT, "payload of %llu bits in %llu bytes for %llu blocks",
                     (unsigned long long)payload_bits, (unsigned long long)payload_bytes,
                     (unsigned long long)units);

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
  sections = v.exceptions + nexc * PARZ_EXCEPTION_BYTES;
  if (sec.codec_data.bytes) {
    v.codec_data = sections + sec.codec_data.at;
    v.codec_data_bytes = sec.codec_data.bytes;
  }
  /* values an exact codec carries are never kept apart from its payload */
  if (ops->exact && (nexc || sec.mask.bytes))
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "a %s chunk carries every value in its payload, yet has %llu exceptions and "
                     "a mask of %llu bytes",
                     ops->name, (unsigned long long)nexc, (unsigned long long)sec.mask.bytes);
  if (v.codec_data && !ops->check)
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "a %s chunk with a codec data section of %llu bytes: its codec defines none",
                     ops->name, (unsigned long long)v.codec_data_bytes);
  if (ops->check) {
    v.mask.section_bytes = sec.mask.bytes;
    if ((rc = ops->check(&v, err)) != PARZ_OK)
      return rc;
  }
  if (sec.checksums.bytes &&
      (rc = parse_checksums(&v, sections + sec.checksums.at, sec.checksums.bytes, err)) != PARZ_OK)
    return rc;
  if (sec.mask.bytes &&
      (rc = parz_mask_parse(&v, sections + sec.mask.at, sec.mask.bytes, err)) != PARZ_OK)
    return rc;
  if ((rc = parz_table_validate(&v, err)) != PARZ_OK)
    return rc;
  if ((rc = parz_exceptions_validate(&v, err)) != PARZ_OK)
    return rc;
  *view = v;
  return PARZ_OK;
}
