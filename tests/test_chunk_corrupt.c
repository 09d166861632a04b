/* Hostile format version 1 chunks: every single-bit flip in header, table and exceptions,
 * truncation at every length, wrong versions, huge claimed sizes, non-monotone offsets, lengths that do not sum,
 * bad exception records (all re-sealed with a valid checksum so that validation, not the
 * checksum, must catch them), and payload corruption, which must give an error or data but never
 * a read out of bounds (run this test under -fsanitize=address,undefined: PARZ_SANITIZE=ON). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "table_endian.h"
#include "test_chunk_common.h"

#define HEADER 112u

static size_t head_bytes(const unsigned char* c) {
  return HEADER + (size_t)parz_load64(c + 72) + 16u * (size_t)parz_load64(c + 80);
}

/* Recomputes the checksum after a deliberate edit (of a chunk of n bytes; sizes edited past the
 * end are left for the parser to refuse). */
static void reseal_n(unsigned char* c, size_t n) {
  uint32_t crc = parz_crc32c(0, c, 108);
  uint64_t t = parz_load64(c + 72), e = parz_load64(c + 80);
  if (t > n || e > n / 16 || HEADER + t + 16 * e > n)
    return;
  crc = parz_crc32c(crc, c + HEADER, head_bytes(c) - HEADER);
  parz_store32(c + 108, crc);
}

static void reseal(unsigned char* c) { reseal_n(c, SIZE_MAX / 2); }

static unsigned char* make(parz_table_kind kind, size_t* bytes, parz_array* a) {
  parz_chunk_config cfg;
  float* data;
  unsigned char* c;
  *a = test_array(PARZ_FLOAT, 2, 21, 30, 0, 0);
  data = test_data(a, 3);
  data[17] = data[200] = data[201] = (float)NAN;
  memset(&cfg, 0, sizeof cfg);
  if (kind == PARZ_TABLE_NONE)
    parz_params_rate(&cfg.params, 10.0, PARZ_FLOAT, 2, NULL, NULL);
  else
    parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL);
  cfg.table = kind;
  cfg.segment_blocks = 2;
  cfg.partition_segments = 3;
  cfg.checksum = PARZ_CHECKSUM_OFF; /* format version 1; test_chunk_v2 edits version 2 */
  cfg.mask = PARZ_MASK_OFF;         /* NaN as exceptions: version 1 has no mask */
  c = test_encode(a, data, &cfg, bytes);
  free(data);
  return c;
}

static int parse(const unsigned char* c, size_t n) {
  parz_chunk_view v;
  parz_error err;
  return parz_chunk_parse(c, n, &v, &err);
}

/* Decoding must fail cleanly or succeed; the sanitizers catch any stray access. A copy of
 * exactly n bytes makes any over-read visible to AddressSanitizer. */
static int decode_copy(const unsigned char* c, size_t n, size_t raw) {
  unsigned char* copy = malloc(n ? n : 1);
  void* out = malloc(raw);
  parz_error err;
  int rc;
  memcpy(copy, c, n);
  rc = parz_chunk_decode(copy, n, out, raw, &err);
  if (rc != PARZ_OK)
    CHECK(err.code == rc && err.message[0] != 0, "error %d without a message", rc);
  free(copy);
  free(out);
  return rc;
}

static void flips_and_truncation(parz_table_kind kind) {
  parz_array a;
  size_t n = 0, i, head, raw = 21 * 30 * 4;
  unsigned char* c = make(kind, &n, &a);
  unsigned char* m;
  int bit;
  CHECK(c != NULL && parse(c, n) == PARZ_OK, "kind %d: valid chunk refused", (int)kind);
  if (!c)
    return;
  head = head_bytes(c);
  m = malloc(n);
  for (i = 0; i < head; i++)
    for (bit = 0; bit < 8; bit++) {
      int rc;
      memcpy(m, c, n);
      m[i] ^= (unsigned char)(1u << bit);
      rc = parse(m, n);
      CHECK(rc != PARZ_OK, "kind %d: flip of byte %zu bit %d accepted", (int)kind, i, bit);
    }
  for (i = 0; i < n; i++) {
    CHECK(parse(c, i) != PARZ_OK, "kind %d: truncation to %zu bytes accepted", (int)kind, i);
    CHECK(decode_copy(c, i, raw) != PARZ_OK, "kind %d: truncated decode succeeded", (int)kind);
  }
  /* payload bit flips: error or data, never out of bounds */
  for (i = head; i < n; i++)
    for (bit = 0; bit < 8; bit += 3) {
      memcpy(m, c, n);
      m[i] ^= (unsigned char)(1u << bit);
      decode_copy(m, n, raw);
    }
  /* payload garbage */
  {
    uint32_t r = 99;
    int round;
    for (round = 0; round < 200; round++) {
      memcpy(m, c, n);
      for (i = head; i < n; i++) {
        r = r * 1664525u + 1013904223u;
        m[i] = (unsigned char)(round & 1 ? r >> 24 : (r >> 24) | 0xf0);
      }
      decode_copy(m, n, raw);
    }
  }
  free(m);
  free(c);
}

static void expect(unsigned char* m, size_t n, int want, const char* what) {
  int rc;
  reseal(m);
  rc = parse(m, n);
  CHECK(rc == want, "%s: parse gave %d (%s), expected %d", what, rc, parz_status_name(rc), want);
}

static void edits(void) {
  parz_array a;
  size_t n = 0, nl = 0, no = 0;
  unsigned char* h = make(PARZ_TABLE_HYBRID, &n, &a);
  unsigned char* l = make(PARZ_TABLE_LENGTHS, &nl, &a);
  unsigned char* o = make(PARZ_TABLE_OFFSETS, &no, &a);
  unsigned char* m = malloc(n > nl ? (n > no ? n : no) : (nl > no ? nl : no));
  parz_chunk_view v;
  parz_error err;
  CHECK(h && l && o, "make");
  if (!h || !l || !o)
    return;
  CHECK(parse(h, n) == PARZ_OK, "valid chunk refused");
  CHECK(h[13] == 2, "16-bit lengths expected");

  memcpy(m, h, n);
  m[0] = 'X';
  CHECK(parse(m, n) == PARZ_ERR_FORMAT, "bad magic");
  CHECK(parse((const unsigned char*)"HDF5 data", 9) == PARZ_ERR_FORMAT, "foreign bytes");
  {
    parz_error e2;
    parz_chunk_view v2;
    int rc = parz_chunk_parse("XXXXXXXXXXXX", 12, &v2, &e2);
    CHECK(rc == PARZ_ERR_FORMAT && strstr(e2.message, "not a ParZ chunk"), "message: %s",
          e2.message);
  }
  memcpy(m, h, n);
  m[4] = 3; /* format version 3 */
  expect(m, n, PARZ_ERR_VERSION, "format version 3");
  CHECK(parse(m, 6) == PARZ_ERR_VERSION, "future version refused even when truncated");
  memcpy(m, h, n);
  m[8] = 2; /* codec version 2 */
  expect(m, n, PARZ_ERR_VERSION, "codec version 2");
  memcpy(m, h, n);
  m[6] = 7; /* unknown codec */
  expect(m, n, PARZ_ERR_VERSION, "codec 7");
  memcpy(m, h, n);
  m[14] = 1; /* unknown flag */
  expect(m, n, PARZ_ERR_VERSION, "flags");
  memcpy(m, h, n);
  m[104] = 1; /* reserved */
  expect(m, n, PARZ_ERR_FORMAT, "reserved");
  memcpy(m, h, n);
  m[10] = 9; /* type */
  expect(m, n, PARZ_ERR_FORMAT, "type 9");
  memcpy(m, h, n);
  m[11] = 5; /* rank */
  expect(m, n, PARZ_ERR_FORMAT, "rank 5");
  memcpy(m, h, n);
  m[11] = 0;
  expect(m, n, PARZ_ERR_FORMAT, "rank 0");
  memcpy(m, h, n);
  parz_store64(m + 32, 4); /* extent for an unused dimension */
  expect(m, n, PARZ_ERR_FORMAT, "unused extent");
  memcpy(m, h, n);
  parz_store64(m + 16, 0);
  expect(m, n, PARZ_ERR_FORMAT, "zero extent");
  /* huge claimed sizes */
  memcpy(m, h, n);
  parz_store64(m + 16, 1ull << 40);
  parz_store64(m + 24, 1ull << 40);
  expect(m, n, PARZ_ERR_FORMAT, "extents whose product overflows");
  memcpy(m, h, n);
  parz_store64(m + 16, 1ull << 20);
  parz_store64(m + 24, 1ull << 20);
  expect(m, n, PARZ_ERR_FORMAT, "2^40 values claimed by a small chunk");
  memcpy(m, h, n);
  parz_store64(m + 16, 0xffffffffffffffffull);
  expect(m, n, PARZ_ERR_FORMAT, "extent 2^64-1");
  memcpy(m, h, n);
  parz_store64(m + 72, 0xfffffffffffffff8ull);
  expect(m, n, PARZ_ERR_FORMAT, "table bytes 2^64-8");
  memcpy(m, h, n);
  parz_store64(m + 80, 0x1000000000000001ull);
  expect(m, n, PARZ_ERR_FORMAT, "exceptions * 16 wraps");
  memcpy(m, h, n);
  parz_store64(m + 88, parz_load64(m + 88) + 8);
  expect(m, n, PARZ_ERR_FORMAT, "payload bytes past the end");
  memcpy(m, h, n);
  parz_store64(m + 96, parz_load64(m + 96) + 64);
  expect(m, n, PARZ_ERR_FORMAT, "payload bits past the payload");
  memcpy(m, h, n);
  parz_store32(m + 64, 0);
  expect(m, n, PARZ_ERR_FORMAT, "C = 0");
  memcpy(m, h, n);
  parz_store32(m + 64, 1u << 20);
  expect(m, n, PARZ_ERR_FORMAT, "C = 2^20");
  memcpy(m, h, n);
  parz_store32(m + 68, 0);
  expect(m, n, PARZ_ERR_FORMAT, "P = 0");
  memcpy(m, h, n);
  parz_store32(m + 68, 4);
  expect(m, n, PARZ_ERR_FORMAT, "P changed: table size mismatch");
  memcpy(m, h, n);
  m[13] = 3;
  expect(m, n, PARZ_ERR_FORMAT, "width 3");
  memcpy(m, h, n);
  m[12] = 1;
  expect(m, n, PARZ_ERR_FORMAT, "table NONE for a variable-rate chunk");
  memcpy(m, h, n);
  m[12] = 0;
  expect(m, n, PARZ_ERR_FORMAT, "table AUTO stored");
  memcpy(m, h, n);
  parz_store32(m + 56, 0);
  expect(m, n, PARZ_ERR_FORMAT, "maxprec 0");
  memcpy(m, h, n);
  parz_store32(m + 48, 100000);
  expect(m, n, PARZ_ERR_FORMAT, "minbits > maxbits");

  /* HYBRID: partition offsets and lengths */
  parz_chunk_parse(h, n, &v, &err);
  CHECK(v.npartitions >= 3, "need 3 partitions, have %llu", (unsigned long long)v.npartitions);
  {
    size_t rec = 8 + ((3 * 2 + 7) & ~(size_t)7); /* P = 3 lengths of 2 bytes, padded */
    unsigned char* t = m + HEADER;
    memcpy(m, h, n);
    parz_store64(t + rec, parz_load64(t + rec) + 1);
    expect(m, n, PARZ_ERR_FORMAT, "partition 1 offset off by one");
    memcpy(m, h, n);
    parz_store64(t, 1);
    expect(m, n, PARZ_ERR_FORMAT, "partition 0 offset not 0");
    memcpy(m, h, n);
    t[8] ^= 1;
    expect(m, n, PARZ_ERR_FORMAT, "lengths of partition 0 do not sum");
    memcpy(m, h, n);
    t[8 + 6] = 1;
    expect(m, n, PARZ_ERR_FORMAT, "nonzero record padding");
    /* lengths that still sum but put segment ends in the wrong place: parse cannot tell,
     * decoding must (segment end check) */
    memcpy(m, h, n);
    parz_store16(t + 8, (uint16_t)(parz_load16(t + 8) + 1));
    parz_store16(t + 10, (uint16_t)(parz_load16(t + 10) - 1));
    expect(m, n, PARZ_OK, "shifted boundary parses");
    CHECK(decode_copy(m, n, 21 * 30 * 4) == PARZ_ERR_STREAM, "shifted boundary decodes");
  }
  /* LENGTHS */
  CHECK(parse(l, nl) == PARZ_OK, "valid LENGTHS chunk refused");
  memcpy(m, l, nl);
  m[HEADER] ^= 4;
  expect(m, nl, PARZ_ERR_FORMAT, "LENGTHS do not sum");
  /* OFFSETS */
  CHECK(parse(o, no) == PARZ_OK, "valid OFFSETS chunk refused");
  {
    unsigned char tmp[8];
    memcpy(m, o, no);
    memcpy(tmp, m + HEADER + 8, 8);
    memcpy(m + HEADER + 8, m + HEADER + 16, 8);
    memcpy(m + HEADER + 16, tmp, 8);
    expect(m, no, PARZ_ERR_FORMAT, "non-monotone offsets");
    memcpy(m, o, no);
    parz_store64(m + HEADER, 5);
    expect(m, no, PARZ_ERR_FORMAT, "first offset not 0");
    memcpy(m, o, no);
    parz_store64(m + HEADER + 8, parz_load64(o + 96) + 1);
    expect(m, no, PARZ_ERR_FORMAT, "offset past the payload");
  }
  /* exceptions: 3 records after the table */
  {
    size_t e = HEADER + (size_t)parz_load64(h + 72);
    CHECK(parz_load64(h + 80) == 3, "3 exceptions expected");
    memcpy(m, h, n);
    parz_store64(m + e + 16, parz_load64(m + e)); /* position repeated */
    expect(m, n, PARZ_ERR_FORMAT, "exception positions not increasing");
    memcpy(m, h, n);
    parz_store64(m + e + 32, 21 * 30); /* position outside */
    expect(m, n, PARZ_ERR_FORMAT, "exception position outside");
    memcpy(m, h, n);
    parz_store64(m + e + 8, 0x3f800000u); /* 1.0f is finite */
    expect(m, n, PARZ_ERR_FORMAT, "finite exception value");
    memcpy(m, h, n);
    parz_store64(m + e + 8, 0x7fc0000000000000ull); /* high bits set for float */
    expect(m, n, PARZ_ERR_FORMAT, "float exception with high bits");
  }
  free(m);
  free(h);
  free(l);
  free(o);
}

/* Random header fields behind a valid magic, version and checksum: the parser must refuse or
 * accept without touching anything outside the buffer, and an accepted chunk must decode or fail
 * cleanly. Each round randomises a few fields of a valid chunk, so deep checks are reached. */
static void random_fields(void) {
  parz_array a;
  size_t n = 0, round;
  unsigned char* c = make(PARZ_TABLE_HYBRID, &n, &a);
  unsigned char* m = malloc(n);
  uint32_t r = 4242;
  int accepted = 0;
  for (round = 0; round < 20000; round++) {
    int k, edits = 1 + (int)(round % 4);
    memcpy(m, c, n);
    for (k = 0; k < edits; k++) {
      size_t at;
      r = r * 1664525u + 1013904223u;
      at = 10 + (r >> 8) % (n - 10 < 200 ? n - 10 : 200); /* header, table, exceptions */
      r = r * 1664525u + 1013904223u;
      m[at] = (unsigned char)(round & 1 ? r >> 24 : m[at] ^ (1u << (r >> 29)));
    }
    reseal_n(m, n);
    if (parse(m, n) == PARZ_OK) {
      accepted++;
      decode_copy(m, n, 21 * 30 * 4);
    }
  }
  printf("random fields: %d of 20000 edited chunks accepted by the parser\n", accepted);
  free(m);
  free(c);
}

/* Arguments: NULL pointers and out-of-range segment ranges. */
static void arguments(void) {
  parz_array a;
  size_t n = 0;
  unsigned char* c = make(PARZ_TABLE_HYBRID, &n, &a);
  parz_chunk_view v;
  parz_error err;
  float out[21 * 30];
  CHECK(parz_chunk_parse(NULL, 10, &v, &err) == PARZ_ERR_ARG, "NULL src");
  CHECK(parz_chunk_parse(c, n, NULL, &err) == PARZ_ERR_ARG, "NULL view");
  CHECK(parz_chunk_parse(c, n, &v, NULL) == PARZ_OK, "NULL err on success");
  CHECK(parz_chunk_decode_segments(&v, out, v.nsegments, 1, &err) == PARZ_ERR_ARG, "range");
  CHECK(parz_chunk_decode_segments(&v, out, 1, UINT64_MAX, &err) == PARZ_ERR_ARG, "count wrap");
  CHECK(parz_chunk_decode_segments(&v, out, 0, v.nsegments, &err) == PARZ_OK, "full range");
  CHECK(parz_chunk_bound(NULL, NULL) == 0, "bound(NULL)");
  free(c);
  /* encoder configurations: C and P limits, unknown table kind, misuse of the three steps */
  {
    float data[21 * 30] = {0};
    unsigned char dst[16384];
    size_t w = 0;
    parz_chunk_config cfg;
    parz_chunk_encoder* enc = NULL;
    memset(&cfg, 0, sizeof cfg);
    parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
    cfg.segment_blocks = 65537;
    CHECK(parz_chunk_encode(&a, data, &cfg, dst, sizeof dst, &w, &err) == PARZ_ERR_PARAM, "C");
    CHECK(parz_chunk_bound(&a, &cfg) == 0, "bound with C too large");
    cfg.segment_blocks = 65536;
    CHECK(parz_chunk_encode(&a, data, &cfg, dst, sizeof dst, &w, &err) == PARZ_OK, "C = 65536");
    cfg.partition_segments = 65537;
    CHECK(parz_chunk_encode(&a, data, &cfg, dst, sizeof dst, &w, &err) == PARZ_ERR_PARAM, "P");
    cfg.partition_segments = 0;
    cfg.table = (parz_table_kind)9;
    CHECK(parz_chunk_encode(&a, data, &cfg, dst, sizeof dst, &w, &err) == PARZ_ERR_PARAM, "kind");
    cfg.table = PARZ_TABLE_AUTO;
    cfg.segment_blocks = 2;
    CHECK(parz_chunk_encode(&a, NULL, &cfg, dst, sizeof dst, &w, &err) == PARZ_ERR_ARG, "data");
    CHECK(parz_chunk_encoder_begin(&enc, &a, data, &cfg, &err) == PARZ_OK, "begin");
    CHECK(parz_chunk_encoder_write_head(enc, dst, sizeof dst, NULL, &err) == PARZ_ERR_ARG,
          "write_head before the segments");
    CHECK(parz_chunk_encoder_size(enc) == 0, "size before the segments");
    CHECK(parz_chunk_encode_segments(enc, 0, 0, dst, sizeof dst, NULL, &err) == PARZ_ERR_ARG,
          "empty range");
    CHECK(parz_chunk_encode_segments(enc, 1, parz_chunk_encoder_segments(enc), dst, sizeof dst,
                                     NULL, &err) == PARZ_ERR_ARG,
          "range past the end");
    parz_chunk_encoder_free(enc);
    parz_chunk_encoder_free(NULL);
  }
}

int main(void) {
  flips_and_truncation(PARZ_TABLE_HYBRID);
  flips_and_truncation(PARZ_TABLE_LENGTHS);
  flips_and_truncation(PARZ_TABLE_OFFSETS);
  flips_and_truncation(PARZ_TABLE_NONE);
  edits();
  random_fields();
  arguments();
  return test_finish("test_chunk_corrupt");
}
