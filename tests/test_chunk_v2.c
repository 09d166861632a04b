/* Format version 2 (codec/FORMAT.md): the section directory and the payload checksum section.
 * - which version the encoder writes (1 exactly when nothing needs 2) and what its sections
 *   hold, for every table kind and auto C;
 * - every single-bit flip of the head (header, directory, table, exceptions, checksums) and
 *   every truncation is refused by the parser;
 * - hand edits, each re-sealed with a valid header CRC so that validation must catch them:
 *   directory entries out of order, too many, of odd sizes, unknown flags; an unknown section
 *   that a reader must understand (PARZ_ERR_VERSION) and one it may skip (decodes unchanged);
 *   checksum sections of the wrong size or partition length;
 * - version 2 exception records (integers, finite values) parse, version 1 ones do not. */
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "table_endian.h"
#include "test_chunk_common.h"

#define HEADER 112u

/* Recomputes the header CRC over everything in front of the payload (payload_bytes at 88). */
static void reseal(unsigned char* c, size_t n) {
  uint64_t payload = parz_load64(c + 88);
  uint32_t crc;
  if (payload > n - HEADER)
    return;
  crc = parz_crc32c(0, c, 108);
  crc = parz_crc32c(crc, c + HEADER, (size_t)(n - payload - HEADER));
  parz_store32(c + 108, crc);
}

static int parse(const unsigned char* c, size_t n, parz_chunk_view* v) {
  parz_chunk_view tmp;
  return parz_chunk_parse(c, n, v ? v : &tmp, NULL);
}

static int expect(unsigned char* m, size_t n, int want, const char* what) {
  parz_chunk_view v;
  parz_error err;
  int rc;
  reseal(m, n);
  rc = parz_chunk_parse(m, n, &v, &err);
  CHECK(rc == want, "%s: parse gave %d (%s: %s), expected %d", what, rc, parz_status_name(rc),
        rc ? err.message : "", want);
  return rc;
}

static unsigned char* make(parz_type type, parz_table_kind kind, uint32_t C, uint32_t P,
                           parz_checksum_mode sums, int mode, size_t* n, parz_array* a) {
  parz_chunk_config cfg;
  unsigned char* c;
  void* data;
  *a = test_array(type, 2, 21, 30, 0, 0);
  data = test_data(a, 5);
  if (type == PARZ_FLOAT)
    ((float*)data)[17] = 1.0f / 0.0f;
  memset(&cfg, 0, sizeof cfg);
  cfg.params = test_params(mode, type, 2);
  cfg.table = kind;
  cfg.segment_blocks = C;
  cfg.partition_segments = P;
  cfg.checksum = sums;
  c = test_encode(a, data, &cfg, n);
  free(data);
  return c;
}

/* The encoder's choice of version and the sections it writes. */
static void versions(void) {
  static const parz_table_kind kinds[] = {PARZ_TABLE_HYBRID, PARZ_TABLE_LENGTHS, PARZ_TABLE_OFFSETS,
                                          PARZ_TABLE_NONE};
  parz_array a;
  size_t n, k;
  for (k = 0; k < 4; k++) {
    int mode = kinds[k] == PARZ_TABLE_NONE ? 0 : 2;
    uint32_t P = kinds[k] == PARZ_TABLE_HYBRID ? 3 : 0;
    size_t no = 0;
    unsigned char* c = make(PARZ_FLOAT, kinds[k], 2, P, PARZ_CHECKSUM_DEFAULT, mode, &n, &a);
    unsigned char* off = make(PARZ_FLOAT, kinds[k], 2, P, PARZ_CHECKSUM_OFF, mode, &no, &a);
    parz_chunk_view v, w;
    CHECK(c && off, "kind %d: encode", (int)kinds[k]);
    if (c && off) {
      CHECK(parse(c, n, &v) == PARZ_OK && v.version == 2 && c[4] == 2 &&
                parz_load32(c + 104) == 1 && parz_load16(c + HEADER) == 1 &&
                parz_load16(c + HEADER + 2) == 0,
            "kind %d: checksums make a version 2 chunk with one optional section", (int)kinds[k]);
      CHECK(v.checksum_segments == (kinds[k] == PARZ_TABLE_HYBRID ? 3u : 64u) &&
                v.nchecksums == (v.nsegments + v.checksum_segments - 1) / v.checksum_segments,
            "kind %d: %llu checksums over partitions of %u segments", (int)kinds[k],
            (unsigned long long)v.nchecksums, v.checksum_segments);
      CHECK(parse(off, no, &w) == PARZ_OK && w.version == 1 && off[4] == 1 && !w.nchecksums &&
                w.payload_bytes == v.payload_bytes &&
                !memcmp(off + no - w.payload_bytes, c + n - v.payload_bytes, w.payload_bytes),
            "kind %d: without checksums, version 1 and the same payload", (int)kinds[k]);
      CHECK(no + 16 + 8 + 8 * v.nchecksums == n,
            "kind %d: checksums cost a directory entry, 8 bytes and 8 per partition",
            (int)kinds[k]);
    }
    free(c);
    free(off);
  }
  { /* auto C: checksums of the settled C's partitions */
    unsigned char* c = make(PARZ_FLOAT, PARZ_TABLE_AUTO, 0, 0, PARZ_CHECKSUM_DEFAULT, 2, &n, &a);
    parz_chunk_view v;
    CHECK(c && parse(c, n, &v) == PARZ_OK && v.nchecksums == v.npartitions &&
              v.checksum_segments == v.partition_segments,
          "auto C: one checksum per partition");
    free(c);
  }
  { /* integer and finite exceptions need version 2 even without checksums */
    parz_array ai = test_array(PARZ_INT32, 1, 9, 0, 0, 0);
    int32_t vals[9] = {1, 2, 3, 1 << 30, 5, 6, 7, -8, 9};
    parz_chunk_config cfg;
    parz_chunk_view v;
    unsigned char* c;
    int32_t back[9];
    memset(&cfg, 0, sizeof cfg);
    parz_params_precision(&cfg.params, 32, NULL);
    cfg.checksum = PARZ_CHECKSUM_OFF;
    c = test_encode(&ai, vals, &cfg, &n);
    CHECK(c && parse(c, n, &v) == PARZ_OK && v.version == 2 && v.nexceptions == 1 &&
              !v.nchecksums && parz_load32(c + 104) == 0,
          "int32 exception: version 2 without sections");
    CHECK(c && parz_chunk_decode(c, n, back, sizeof back, NULL) == PARZ_OK && back[3] == 1 << 30,
          "int32 exception restored");
    if (c) { /* the same records in a version 1 chunk are refused */
      unsigned char* m = malloc(n);
      memcpy(m, c, n);
      m[4] = 1;
      expect(m, n, PARZ_ERR_FORMAT, "integer exception in a version 1 chunk");
      free(m);
    }
    free(c);
  }
}

/* Every flip of a head bit and every truncation is refused. */
static void flips(void) {
  parz_array a;
  size_t n, i, head;
  unsigned char* c = make(PARZ_FLOAT, PARZ_TABLE_HYBRID, 2, 3, PARZ_CHECKSUM_DEFAULT, 2, &n, &a);
  unsigned char* m;
  parz_chunk_view v;
  int bit;
  CHECK(c && parse(c, n, &v) == PARZ_OK && v.nexceptions == 1, "valid chunk");
  if (!c)
    return;
  head = n - v.payload_bytes;
  m = malloc(n);
  for (i = 0; i < head; i++)
    for (bit = 0; bit < 8; bit++) {
      memcpy(m, c, n);
      m[i] ^= (unsigned char)(1u << bit);
      CHECK(parse(m, n, NULL) != PARZ_OK, "flip of byte %zu bit %d accepted", i, bit);
    }
  for (i = 0; i < n; i++)
    CHECK(parse(c, i, NULL) != PARZ_OK, "truncation to %zu bytes accepted", i);
  free(m);
  free(c);
}

/* c with one more directory entry (kind, flags) for a section of `bytes` bytes put after the
 * existing ones; *n grows by the entry and the section. */
static unsigned char* add_section(const unsigned char* c, size_t* n, unsigned kind, unsigned flags,
                                  size_t bytes) {
  size_t payload = (size_t)parz_load64(c + 88), head = *n - payload;
  uint32_t nsec = parz_load32(c + 104);
  size_t dir_end = HEADER + 16u * nsec;
  unsigned char* m = calloc(1, *n + 16 + bytes);
  memcpy(m, c, dir_end);
  parz_store16(m + dir_end, (uint16_t)kind);
  parz_store16(m + dir_end + 2, (uint16_t)flags);
  parz_store64(m + dir_end + 8, bytes);
  memcpy(m + dir_end + 16, c + dir_end, head - dir_end);
  memset(m + head + 16, 0x5a, bytes);
  memcpy(m + head + 16 + bytes, c + head, payload);
  parz_store32(m + 104, nsec + 1);
  *n += 16 + bytes;
  reseal(m, *n);
  return m;
}

static void edits(void) {
  parz_array a;
  size_t n, raw;
  unsigned char* c = make(PARZ_FLOAT, PARZ_TABLE_HYBRID, 2, 3, PARZ_CHECKSUM_DEFAULT, 2, &n, &a);
  unsigned char *m, *ref, *out;
  parz_chunk_view v;
  size_t sec; /* the checksum section's header */
  if (!c || parse(c, n, &v) != PARZ_OK)
    return;
  raw = v.raw_bytes;
  sec = (size_t)(v.checksums - c) - 8;
  /* the header's codec parameters as the view holds them, and zfp's block of 4^d values */
  CHECK(!memcmp(v.codec_params, c + 48, 16) && v.params.minbits == parz_load32(c + 48) &&
            v.params.minexp == (int32_t)parz_load32(c + 60),
        "codec parameters in the view");
  CHECK(
      v.block_side[0] == 4 && v.block_side[1] == 4 && v.block_side[2] == 1 && v.block_side[3] == 1,
      "zfp's block sides %u %u %u %u", v.block_side[0], v.block_side[1], v.block_side[2],
      v.block_side[3]);
  m = malloc(n);
  ref = malloc(raw);
  out = malloc(raw);
  CHECK(parz_chunk_decode(c, n, ref, raw, NULL) == PARZ_OK, "decode");

  memcpy(m, c, n);
  m[4] = 3;
  expect(m, n, PARZ_ERR_VERSION, "format version 3");
  memcpy(m, c, n);
  m[14] = 1;
  expect(m, n, PARZ_ERR_VERSION, "header flags");
  memcpy(m, c, n);
  parz_store32(m + 104, 17);
  expect(m, n, PARZ_ERR_FORMAT, "17 sections");
  memcpy(m, c, n);
  parz_store32(m + 104, 0);
  expect(m, n, PARZ_ERR_FORMAT, "directory entry dropped: sizes disagree");
  memcpy(m, c, n);
  parz_store16(m + HEADER, 0);
  expect(m, n, PARZ_ERR_FORMAT, "section kind 0");
  memcpy(m, c, n);
  parz_store16(m + HEADER + 2, 2);
  expect(m, n, PARZ_ERR_VERSION, "unknown entry flag");
  memcpy(m, c, n);
  parz_store32(m + HEADER + 4, 1);
  expect(m, n, PARZ_ERR_FORMAT, "reserved entry field");
  memcpy(m, c, n);
  parz_store64(m + HEADER + 8, parz_load64(c + HEADER + 8) + 4);
  expect(m, n, PARZ_ERR_FORMAT, "section size not a multiple of 8");
  memcpy(m, c, n);
  parz_store64(m + HEADER + 8, parz_load64(c + HEADER + 8) + 8);
  expect(m, n, PARZ_ERR_FORMAT, "section 8 bytes longer: sizes disagree");
  memcpy(m, c, n);
  parz_store64(m + HEADER + 8, ~(uint64_t)7);
  expect(m, n, PARZ_ERR_FORMAT, "section size 2^64 - 8");
  memcpy(m, c, n);
  parz_store16(m + HEADER + 2, 1);
  expect(m, n, PARZ_OK, "checksum section marked required (a kind this reader knows)");
  memcpy(m, c, n);
  parz_store32(m + sec, 4);
  expect(m, n, PARZ_ERR_FORMAT, "checksum partitions other than the table's");
  memcpy(m, c, n);
  parz_store32(m + sec, 0);
  expect(m, n, PARZ_ERR_FORMAT, "checksum partitions of 0 segments");
  memcpy(m, c, n);
  parz_store32(m + sec + 4, 1);
  expect(m, n, PARZ_ERR_FORMAT, "checksum section reserved field");
  { /* a checksum section of another size than its partitions need: move the payload */
    size_t n2 = n;
    unsigned char* big = add_section(c, &n2, 7, 0, 8);
    parz_chunk_view w;
    CHECK(expect(big, n2, PARZ_OK, "optional unknown section") == PARZ_OK &&
              parz_chunk_decode(big, n2, out, raw, NULL) == PARZ_OK && !memcmp(out, ref, raw),
          "a chunk with an optional unknown section decodes as without it");
    parse(big, n2, &w);
    CHECK(w.nchecksums == v.nchecksums, "checksums found past another section");
    free(big);
    n2 = n;
    big = add_section(c, &n2, 7, 1, 8);
    expect(big, n2, PARZ_ERR_VERSION, "required unknown section");
    free(big);
    n2 = n;
    big = add_section(c, &n2, 1, 0, 8);
    expect(big, n2, PARZ_ERR_FORMAT, "two checksum sections");
    free(big);
    /* codec data (kind 3) is the codec's: zfp defines none, so a reader refuses it as damage,
     * not as a kind it does not know */
    n2 = n;
    big = add_section(c, &n2, 3, 1, 8);
    expect(big, n2, PARZ_ERR_FORMAT, "codec data in a zfp chunk");
    free(big);
    /* checksum entry one partition short: take 8 bytes off both the entry and the chunk */
    memcpy(m, c, n);
    parz_store64(m + HEADER + 8, parz_load64(c + HEADER + 8) - 8);
    memmove(m + sec + 8 + 8 * (v.nchecksums - 1), m + sec + 8 + 8 * v.nchecksums, v.payload_bytes);
    expect(m, n - 8, PARZ_ERR_FORMAT, "checksum section one partition short");
  }
  { /* version 2 exceptions: any value of the type, positions still checked */
    size_t e = (size_t)(v.exceptions - c);
    memcpy(m, c, n);
    parz_store64(m + e + 8, 0x3f800000u);
    expect(m, n, PARZ_OK, "finite float exception");
    memcpy(m, c, n);
    parz_store64(m + e + 8, 0x13f800000ull);
    expect(m, n, PARZ_ERR_FORMAT, "float exception with high bits");
    memcpy(m, c, n);
    parz_store64(m + e, 21 * 30);
    expect(m, n, PARZ_ERR_FORMAT, "exception outside the array");
  }
  free(m);
  free(ref);
  free(out);
  free(c);
}

int main(void) {
  versions();
  flips();
  edits();
  return test_finish("test_chunk_v2");
}
