/* Hostile mask sections (codec/FORMAT.md, "Mask"), each re-sealed with a valid header checksum so
 * that validation, not the checksum, must catch it:
 *  - header fields out of range or disagreeing with the section's size, values wider than the
 *    chunk's type (a fill value of the wrong size), group starts out of order or past the records;
 *  - records that claim more blocks than the chunk has, runs that overflow, skips past the group,
 *    varints that run on or exceed 64 bits, bitmaps that are empty or mark values outside the
 *    array, value indices past the values, records that stop inside their group's bytes;
 *  - every single bit flip of the section and every truncation.
 * Each is refused by the parser with PARZ_ERR_FORMAT and a message, or decodes (serially and with
 * OpenMP, to the same bytes) without touching anything outside the chunk and the array (guard
 * bytes here, AddressSanitizer in scripts/sanitize.sh). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "vectors/chunk_v2_float2d_mask.h"
#ifdef PARZ_TEST_OMP
#include "parz_omp.h"
#endif

static int failures;
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      failures++;                                                              \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
  } while (0)

#define GUARD 64u

/* Parses a heap copy of exactly n bytes and, when it parses, decodes it into an array followed by
 * guard bytes, serially and with OpenMP. Returns the parse status. */
static int try_chunk(const unsigned char* chunk, size_t n, const char* what) {
  unsigned char* c = malloc(n ? n : 1);
  parz_chunk_view v;
  parz_error e = {0, ""};
  int rc;
  memcpy(c, chunk, n);
  rc = parz_chunk_parse(c, n, &v, &e);
  if (rc != PARZ_OK) {
    CHECK(e.code == rc && e.message[0], "%s: error %d without a message", what, rc);
  } else if (v.raw_bytes <= ((size_t)1 << 20)) {
    unsigned char* out = malloc(v.raw_bytes + GUARD);
    unsigned char* again = malloc(v.raw_bytes + GUARD);
    size_t i;
    int drc;
    parz_fuzz_check_view(&v, c, n);
    memset(out, 0xA5, v.raw_bytes + GUARD);
    drc = parz_chunk_decode(c, n, out, v.raw_bytes, &e);
    for (i = 0; i < GUARD; i++)
      CHECK(out[v.raw_bytes + i] == 0xA5, "%s: write past the array", what);
#ifdef PARZ_TEST_OMP
    memset(again, 0xA5, v.raw_bytes + GUARD);
    CHECK(parz_omp_chunk_decode(c, n, again, v.raw_bytes, 3, NULL) == drc &&
              (drc != PARZ_OK || !memcmp(out, again, v.raw_bytes)),
          "%s: OpenMP decode differs", what);
#endif
    free(out);
    free(again);
  }
  free(c);
  return rc;
}

static void expect(const unsigned char* c, size_t n, int want, const char* what) {
  int rc = try_chunk(c, n, what);
  CHECK(rc == want, "%s: parse gave %d (%s), expected %d", what, rc, parz_status_name(rc), want);
}

/* Where a chunk's mask section and its parts lie. */
typedef struct {
  size_t entry;   /* its directory entry */
  size_t section; /* the section */
  size_t records; /* its records */
  size_t record_bytes, payload, payload_bytes;
} layout;

static layout locate(const unsigned char* c, size_t n) {
  parz_chunk_view v;
  layout l;
  unsigned i;
  memset(&l, 0, sizeof l);
  if (parz_chunk_parse(c, n, &v, NULL) != PARZ_OK || !v.mask.nvalues)
    return l;
  for (i = 0; i < parz_fuzz_rd32(c + 104); i++)
    if (c[112 + 16 * i] == 2)
      l.entry = 112 + 16 * i;
  l.section = (size_t)(v.mask.values - 16 - c);
  l.records = (size_t)(v.mask.records - c);
  l.record_bytes = (size_t)v.mask.record_bytes;
  l.payload = (size_t)(v.payload - c);
  l.payload_bytes = v.payload_bytes;
  return l;
}

/* A copy of chunk c with the mask's records replaced by recs (nrec bytes): R, the section's size
 * in its directory entry and the chunk's size follow, the checksum is recomputed. */
static unsigned char* with_records(const unsigned char* c, const layout* l,
                                   const unsigned char* recs, size_t nrec, size_t* n) {
  size_t pad = (8 - nrec % 8) % 8, size = l->records + nrec + pad + l->payload_bytes;
  unsigned char* m = calloc(1, size);
  uint64_t bytes = (uint64_t)(l->records - l->section) + nrec + pad;
  memcpy(m, c, l->records);
  memcpy(m + l->records, recs, nrec);
  memcpy(m + l->records + nrec + pad, c + l->payload, l->payload_bytes);
  parz_store64(m + l->section + 8, nrec);
  parz_store64(m + l->entry + 8, bytes);
  parz_fuzz_fix_checksum(m, size);
  *n = size;
  return m;
}

/* The records of the test vector with one record changed: recs replaces the vector's. */
static void records_case(const unsigned char* base, size_t n, const unsigned char* recs,
                         size_t nrec, int want, const char* what) {
  layout l = locate(base, n);
  size_t size;
  unsigned char* m = with_records(base, &l, recs, nrec, &size);
  expect(m, size, want, what);
  free(m);
}

static void fields(void) {
  const unsigned char* v = chunk_v2_float2d_mask;
  const size_t n = sizeof chunk_v2_float2d_mask;
  const layout l = locate(v, n);
  unsigned char* m = malloc(n);
  CHECK(l.section == 216 && l.records == 256 && l.record_bytes == 10, "vector layout");
#define EDIT(stmt, want, what)    \
  do {                            \
    memcpy(m, v, n);              \
    stmt;                         \
    parz_fuzz_fix_checksum(m, n); \
    expect(m, n, want, what);     \
  } while (0)
  EDIT((void)0, PARZ_OK, "the vector");
  EDIT(parz_store32(m + 216, 0), PARZ_ERR_FORMAT, "G = 0");
  EDIT(parz_store32(m + 216, 65537), PARZ_ERR_FORMAT, "G = 65537");
  EDIT(parz_store32(m + 216, 1), PARZ_ERR_FORMAT, "G = 1: three groups, sizes disagree");
  EDIT(parz_store32(m + 220, 0), PARZ_ERR_FORMAT, "V = 0");
  EDIT(parz_store32(m + 220, 257), PARZ_ERR_FORMAT, "V = 257");
  EDIT(parz_store32(m + 220, 3), PARZ_ERR_FORMAT, "V = 3: sizes disagree");
  EDIT(parz_store32(m + 220, 0xffffffffu), PARZ_ERR_FORMAT, "V = 2^32 - 1");
  EDIT(parz_store64(m + 224, 11), PARZ_ERR_FORMAT, "R = 11: a record in the padding");
  EDIT(parz_store64(m + 224, 17), PARZ_ERR_FORMAT, "R = 17: past the section");
  EDIT(parz_store64(m + 224, ~0ull), PARZ_ERR_FORMAT, "R = 2^64 - 1");
  EDIT(parz_store64(m + 224, 9), PARZ_ERR_FORMAT, "R = 9: the run's value cut off");
  EDIT(parz_store64(m + 232, 0x1c61c3c00ull), PARZ_ERR_FORMAT,
       "fill value of 33 bits in a float32 chunk");
  EDIT(parz_store64(m + 240, 0xffffffff7fc00000ull), PARZ_ERR_FORMAT,
       "NaN of 64 bits in a float32 chunk");
  EDIT(parz_store64(m + 248, 1), PARZ_ERR_FORMAT, "start[0] = 1");
  EDIT(parz_store64(m + 248, 11), PARZ_ERR_FORMAT, "start[0] past the records");
  EDIT(m[270] = 1, PARZ_ERR_FORMAT, "nonzero padding after the records");
  EDIT(m[130] = 0, PARZ_OK, "mask section not marked required (a kind this reader knows)");
  EDIT(m[130] = 3, PARZ_ERR_VERSION, "mask section with an unknown flag");
  EDIT(m[128] = 1, PARZ_ERR_FORMAT, "two checksum sections");
  EDIT((m[128] = 9, m[130] = 1), PARZ_ERR_VERSION, "the mask as a required unknown kind");
#undef EDIT
  free(m);
}

static void records(void) {
  const unsigned char* v = chunk_v2_float2d_mask;
  const size_t n = sizeof chunk_v2_float2d_mask;
  /* the vector's own records: 01 21 84 01 01 00 00 | 00 01 00 */
  static const unsigned char ok[] = {0x01, 0x21, 0x84, 0x01, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00};
  static const unsigned char run3[] = {0x01, 0x21, 0x84, 0x01, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00};
  static const unsigned char skip[] = {0x01, 0x21, 0x84, 0x01, 0x01, 0x00, 0x00, 0x06, 0x00, 0x00};
  static const unsigned char far[] = {0x01, 0x21, 0x84, 0x01, 0x01, 0x00, 0x00, 0xfe, 0xff, 0xff,
                                      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00, 0x00};
  static const unsigned char huge[] = {0x01, 0x21, 0x84, 0x01, 0x01, 0x00, 0x00, 0x00, 0xff, 0xff,
                                       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00};
  static const unsigned char wide[] = {0x01, 0x21, 0x84, 0x01, 0x01, 0x00, 0x00, 0x00, 0xff, 0xff,
                                       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x00};
  static const unsigned char long11[] = {0x01, 0x21, 0x84, 0x01, 0x01, 0x00, 0x00,
                                         0x00, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80,
                                         0x80, 0x80, 0x80, 0x80, 0x00, 0x00};
  static const unsigned char runon[] = {0x01, 0x21, 0x84, 0x01, 0x01, 0x00, 0x00, 0x00, 0x81};
  static const unsigned char empty[] = {0x01, 0x00, 0x00, 0x00, 0x01, 0x00};
  static const unsigned char index[] = {0x01, 0x21, 0x84, 0x01, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00};
  static const unsigned char runidx[] = {0x01, 0x21, 0x84, 0x01, 0x01,
                                         0x00, 0x00, 0x00, 0x01, 0x05};
  static const unsigned char extra[] = {0x01, 0x21, 0x84, 0x01, 0x01, 0x00,
                                        0x00, 0x00, 0x01, 0x00, 0x00};
  static const unsigned char twice[] = {0x01, 0x21, 0x84, 0x01, 0x01, 0x00, 0x00, 0x01, 0x21,
                                        0x84, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00};
  static const unsigned char none[] = {0};
  records_case(v, n, ok, sizeof ok, PARZ_OK, "the vector's records rebuilt");
  records_case(v, n, run3, sizeof run3, PARZ_ERR_FORMAT,
               "a run of 3 blocks from block 1: more blocks than the chunk has");
  records_case(v, n, skip, sizeof skip, PARZ_ERR_FORMAT, "a skip past the chunk's blocks");
  records_case(v, n, far, sizeof far, PARZ_ERR_FORMAT, "a skip of 2^63 - 1 blocks");
  records_case(v, n, huge, sizeof huge, PARZ_ERR_FORMAT, "a run of 2^64 blocks (count overflows)");
  records_case(v, n, wide, sizeof wide, PARZ_ERR_FORMAT, "a varint beyond 64 bits");
  records_case(v, n, long11, sizeof long11, PARZ_ERR_FORMAT, "a varint of 11 bytes");
  records_case(v, n, runon, sizeof runon, PARZ_ERR_FORMAT, "a varint that runs past the records");
  records_case(v, n, empty, sizeof empty, PARZ_ERR_FORMAT, "an empty bitmap");
  records_case(v, n, index, sizeof index, PARZ_ERR_FORMAT, "a value index past the values");
  records_case(v, n, runidx, sizeof runidx, PARZ_ERR_FORMAT, "a run's value index past the values");
  records_case(v, n, extra, sizeof extra, PARZ_ERR_FORMAT, "a record cut off at the group's end");
  records_case(v, n, twice, sizeof twice, PARZ_OK,
               "a bitmap record for block 1 too (valid, though no writer writes it)");
  records_case(v, n, none, 0, PARZ_OK, "no records at all: nothing masked");
}

/* Bitmaps of partial blocks at the array's edges must not mark values outside it. */
static void edges(void) {
  parz_array a = {PARZ_FLOAT, 2, {5, 10}, {0}};
  float in[50];
  parz_chunk_config cfg;
  unsigned char buf[2048];
  size_t n = 0, i;
  layout l;
  for (i = 0; i < 50; i++)
    in[i] = (float)i * 0.25f;
  in[8] = in[49] = (float)NAN; /* blocks 2 (columns 8, 9) and 5 (row 4, columns 8, 9) */
  memset(&cfg, 0, sizeof cfg);
  parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL);
  CHECK(parz_chunk_encode(&a, in, &cfg, buf, sizeof buf, &n, NULL) == PARZ_OK, "edge encode");
  l = locate(buf, n);
  CHECK(l.record_bytes == 6, "edge records: %zu bytes", l.record_bytes);
  {
    /* block 2: bit 0 (x 0, y 0: row 0, column 8); block 5: bit 1 (x 1, y 0: row 4, column 9) */
    unsigned char r[6];
    memcpy(r, buf + l.records, 6);
    CHECK(r[0] == 0x05 && r[1] == 0x01 && r[2] == 0x00 && r[3] == 0x05 && r[4] == 0x02 &&
              r[5] == 0x00,
          "edge records %02x %02x %02x %02x %02x %02x", r[0], r[1], r[2], r[3], r[4], r[5]);
    records_case(buf, n, r, 6, PARZ_OK, "edge records rebuilt");
    r[1] = 0x04; /* x 2: column 10, outside */
    records_case(buf, n, r, 6, PARZ_ERR_FORMAT, "a bitmap bit past the last column");
    r[1] = 0x01;
    r[4] = 0x12; /* block 5 holds row 4 only: y 1 is row 5, outside */
    records_case(buf, n, r, 6, PARZ_ERR_FORMAT, "a bitmap bit past the last row");
  }
}

/* Every bit flip of the vector's mask section, checksum recomputed; every truncation. */
static void flips(void) {
  const unsigned char* v = chunk_v2_float2d_mask;
  const size_t n = sizeof chunk_v2_float2d_mask;
  unsigned char* m = malloc(n);
  size_t i, ok = 0;
  int bit;
  for (i = 216; i < 272; i++)
    for (bit = 0; bit < 8; bit++) {
      char what[64];
      memcpy(m, v, n);
      m[i] ^= (unsigned char)(1u << bit);
      parz_fuzz_fix_checksum(m, n);
      snprintf(what, sizeof what, "flip of byte %zu bit %d", i, bit);
      ok += try_chunk(m, n, what) == PARZ_OK;
    }
  for (i = 0; i < n; i++)
    CHECK(try_chunk(v, i, "truncated") != PARZ_OK, "truncation to %zu bytes accepted", i);
  printf("mask section flips: %zu of %d parse (value bits, skips within the group)\n", ok, 56 * 8);
  free(m);
}

int main(void) {
  fields();
  records();
  edges();
  flips();
  if (failures) {
    fprintf(stderr, "test_hostile_mask: %d check(s) failed\n", failures);
    return 1;
  }
  printf("test_hostile_mask: all checks passed\n");
  return 0;
}
