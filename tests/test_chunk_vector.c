/* The checked-in chunk-format test vectors (tests/vectors/) parse to the documented fields,
 * decode to the documented values bit for bit, and are exactly what the encoder writes today
 * (version 1: one vector per table kind, written with checksums off; version 2: sections,
 * payload checksums, a finite exception; version 2 with a mask section): any change to the
 * format shows up here. Also checks the CRC-32C
 * check value. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "crc32c.h"
#include "test_chunk_common.h"
#include "vectors/chunk_v1_float1d_hybrid.h"
#include "vectors/chunk_v1_more.h"
#include "vectors/chunk_v2_float1d_checksum.h"
#include "vectors/chunk_v2_float2d_mask.h"
#include "vectors/chunk_v1_lossless_holt.h"
#include "vectors/chunk_v1_lossless_rows.h"
#include "vectors/chunk_v1_lossless_runs.h"
#include "vectors/chunk_v1_lossless_zero_runs.h"
#include "vectors/chunk_v2_lossless.h"
#include "vectors/chunk_v2_lossless_dict.h"
#include "vectors/chunk_v2_bounded.h"
#include "vectors/chunk_v2_bounded_c1024.h"
#include "vectors/chunk_v2_stored.h"

/* Decodes vector c (n bytes) of array a into `decoded`'s values, and encodes `input` under cfg
 * back into exactly c's bytes. */
static void round_trip(const char* name, const unsigned char* c, size_t n, const parz_array* a,
                       const void* input, const void* decoded, const parz_chunk_config* cfg) {
  parz_error err;
  size_t raw = test_count(a) * parz_type_size(a->type), w = 0;
  unsigned char* out = malloc(raw);
  unsigned char again[512];
  int rc = out ? parz_chunk_decode(c, n, out, raw, &err) : PARZ_ERR_NOMEM;
  CHECK(rc == PARZ_OK && !memcmp(out, decoded, raw), "%s: decode: %s", name,
        rc ? err.message : "values differ");
  rc = parz_chunk_encode(a, input, cfg, again, sizeof again, &w, &err);
  CHECK(rc == PARZ_OK && w == n && !memcmp(again, c, n), "%s: encoder output differs (%s)", name,
        rc ? err.message : "bytes");
  free(out);
}

/* The error-bounded vectors' configuration: bound 0.5, Lorenzo asked for, C codes per segment
 * (0: the writers'). */
static parz_chunk_config bounded_config(unsigned c) {
  parz_chunk_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.codec = PARZ_CODEC_BOUNDED;
  cfg.segment_blocks = c;
  cfg.settings.error_bound = 0.5;
  cfg.settings.predictor = 1;
  return cfg;
}

/* Parses, decodes and re-encodes one vector. */
static void check_vector(const char* name, const unsigned char* c, size_t n, const parz_array* a,
                         const void* input, const void* decoded, parz_chunk_config cfg,
                         parz_table_kind kind) {
  parz_chunk_view v;
  parz_error err;
  const size_t raw = test_count(a) * parz_type_size(a->type);
  int rc = parz_chunk_parse(c, n, &v, &err);
  CHECK(rc == PARZ_OK, "%s: parse: %s", name, err.message);
  /* AUTO is only used with the fixed-rate vector, where it must resolve to NONE */
  CHECK(rc || (v.table == (kind == PARZ_TABLE_AUTO ? PARZ_TABLE_NONE : kind) &&
               v.raw_bytes == raw && v.nexceptions == 0),
        "%s: fields", name);
  cfg.table = kind;
  cfg.checksum = PARZ_CHECKSUM_OFF; /* version 1 has no payload checksums */
  round_trip(name, c, n, a, input, decoded, &cfg);
}

/* A version 1 lossless vector of one segment of runs of 16 residuals (coder 3 or 4, at payload
 * byte 128): its fields, and its values (raw bytes of them) decoded. */
static void runs_vector(const char* name, const unsigned char* c, size_t n, unsigned coder,
                        const int32_t* values, size_t raw) {
  parz_chunk_view v;
  parz_error err;
  int32_t out[64];
  int rc = parz_chunk_parse(c, n, &v, &err);
  CHECK(rc == PARZ_OK, "%s parse: %s", name, err.message);
  if (rc != PARZ_OK || raw > sizeof out)
    return;
  CHECK(v.version == 1 && v.codec == PARZ_CODEC_LOSSLESS && v.nsegments == 1 &&
            v.payload == c + 128 && v.payload[0] == coder && v.payload[2] == 4,
        "%s fields", name);
  rc = parz_chunk_decode(c, n, out, raw, &err);
  CHECK(rc == PARZ_OK && !memcmp(out, values, raw), "%s decode: %s", name,
        rc ? err.message : "values differ");
}

/* parz_crc32c_combine against the CRC of the whole, for splits at every place of messages of
 * several lengths, long ones included (their shifts reduce modulo the order of x). */
static void crc_combine(void) {
  static unsigned char m[70000];
  static const size_t lens[] = {0, 1, 9, 100, 4097, 70000};
  size_t i, k, cut;
  uint64_t r = 0x9E3779B97F4A7C15ull;
  for (i = 0; i < sizeof m; i++) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    m[i] = (unsigned char)r;
  }
  for (k = 0; k < sizeof lens / sizeof lens[0]; k++) {
    size_t n = lens[k], step = n > 200 ? n / 37 + 1 : 1;
    uint32_t whole = parz_crc32c(0, m, n);
    for (cut = 0; cut <= n; cut += step) {
      uint32_t a = parz_crc32c(0, m, cut), b = parz_crc32c(0, m + cut, n - cut);
      CHECK(parz_crc32c_combine(a, b, n - cut) == whole, "CRC-32C combine: %zu bytes cut at %zu", n,
            cut);
    }
  }
  /* the shift table: x^8, each entry the square of the one before, and x^(8 (2^31 - 1)) = 1
   * (the product of all 31), on which parz_crc32c_x8n's reduction rests */
  {
    uint32_t all = 0x80000000u;
    CHECK(parz_crc32c_x8[0] == 0x00800000u, "CRC-32C x^8");
    for (i = 0; i < 31; i++) {
      CHECK(
          parz_crc32c_mulmod(parz_crc32c_x8[i], parz_crc32c_x8[i]) == parz_crc32c_x8[(i + 1) % 31],
          "CRC-32C shift table entry %zu", i + 1);
      all = parz_crc32c_mulmod(all, parz_crc32c_x8[i]);
    }
    CHECK(all == 0x80000000u, "CRC-32C: x^(8 (2^31 - 1)) is %08x, not 1", (unsigned)all);
  }
}

int main(void) {
  const unsigned char* c = chunk_v1_float1d_hybrid;
  size_t n = sizeof chunk_v1_float1d_hybrid, i, written = 0;
  parz_chunk_view v;
  parz_error err;
  uint32_t out[10];
  float in[10];
  unsigned char again[512];
  parz_chunk_config cfg;
  parz_array a = test_array(PARZ_FLOAT, 1, 10, 0, 0, 0);
  int rc;

  CHECK(parz_crc32c(0, "123456789", 9) == 0xE3069283u, "CRC-32C check value");
  CHECK(parz_crc32c(parz_crc32c(0, "1234", 4), "56789", 5) == 0xE3069283u, "CRC-32C chaining");
  crc_combine();
  CHECK(parz_crc32c_bytewise(0, "123456789", 9) == 0xE3069283u, "bytewise CRC-32C check value");
  {
    /* the CRC instruction's path (where the CPU has one) against the table loop: every length
     * up to 300 at every alignment within a word, whole and continued from a split point */
    unsigned char buf[320];
    size_t at, len;
    uint32_t x = 12345;
    for (i = 0; i < sizeof buf; i++)
      buf[i] = (unsigned char)((x = x * 1103515245u + 12345u) >> 24);
    for (at = 0; at < 8; at++)
      for (len = 0; len <= 300; len++) {
        const uint32_t want = parz_crc32c_bytewise(0, buf + at, len);
        CHECK(parz_crc32c(0, buf + at, len) == want, "CRC-32C of %zu bytes at %zu", len, at);
        CHECK(parz_crc32c(parz_crc32c(0, buf + at, len / 3), buf + at + len / 3, len - len / 3) ==
                  want,
              "CRC-32C of %zu bytes at %zu, continued", len, at);
      }
  }

  rc = parz_chunk_parse(c, n, &v, &err);
  CHECK(rc == PARZ_OK, "parse: %s", err.message);
  CHECK(v.array.type == PARZ_FLOAT && v.array.dims == 1 && v.array.shape[0] == 10, "array");
  CHECK(v.params.minbits == 1 && v.params.maxbits == 16658 && v.params.maxprec == 64 &&
            v.params.minexp == -1075,
        "params");
  CHECK(v.table == PARZ_TABLE_HYBRID && v.length_bytes == 2 && v.segment_blocks == 1 &&
            v.partition_segments == 2,
        "table");
  CHECK(v.nblocks == 3 && v.nsegments == 3 && v.npartitions == 2 && v.table_bytes == 32, "sizes");
  CHECK(v.nexceptions == 2 && v.payload_bytes == 16 && v.payload_bits == 89 &&
            v.chunk_bytes == 192 && v.raw_bytes == 40,
        "payload");
  CHECK(parz_chunk_segment_offset(&v, 0) == 0 && parz_chunk_segment_offset(&v, 1) == 22 &&
            parz_chunk_segment_offset(&v, 2) == 57 && parz_chunk_segment_offset(&v, 3) == 89,
        "segment offsets");

  rc = parz_chunk_decode(c, n, out, sizeof out, &err);
  CHECK(rc == PARZ_OK, "decode: %s", err.message);
  for (i = 0; i < 10; i++)
    CHECK(out[i] == chunk_v1_float1d_hybrid_values[i], "value %zu: %08x, expected %08x", i, out[i],
          chunk_v1_float1d_hybrid_values[i]);

  /* re-encoding the decoded values with the vector's settings gives the same bytes */
  memcpy(in, out, sizeof in);
  memset(&cfg, 0, sizeof cfg);
  parz_params_reversible(&cfg.params);
  cfg.table = PARZ_TABLE_HYBRID;
  cfg.segment_blocks = 1;
  cfg.partition_segments = 2;
  cfg.checksum = PARZ_CHECKSUM_OFF;
  cfg.mask = PARZ_MASK_OFF; /* NaN as an exception, as before masks */
  rc = parz_chunk_encode(&a, in, &cfg, again, sizeof again, &written, &err);
  CHECK(rc == PARZ_OK, "encode: %s", err.message);
  CHECK(written == n && !memcmp(again, c, n), "encoder output differs from the test vector");
  if (written == n)
    for (i = 0; i < n; i++)
      if (again[i] != c[i]) {
        fprintf(stderr, "  first difference at byte %zu: %02x, vector %02x\n", i, again[i], c[i]);
        break;
      }

  /* LENGTHS, OFFSETS and NONE */
  {
    parz_array ai = test_array(PARZ_INT32, 1, 9, 0, 0, 0);
    parz_array ad = test_array(PARZ_DOUBLE, 2, 5, 6, 0, 0);
    memset(&cfg, 0, sizeof cfg);
    CHECK(parz_params_precision(&cfg.params, 28, &err) == PARZ_OK, "precision 28");
    cfg.segment_blocks = 2;
    check_vector("int32 LENGTHS", chunk_v1_int32_lengths, sizeof chunk_v1_int32_lengths, &ai,
                 chunk_v1_int32_input, chunk_v1_int32_decoded, cfg, PARZ_TABLE_LENGTHS);
    cfg.segment_blocks = 1;
    check_vector("int32 OFFSETS", chunk_v1_int32_offsets, sizeof chunk_v1_int32_offsets, &ai,
                 chunk_v1_int32_input, chunk_v1_int32_decoded, cfg, PARZ_TABLE_OFFSETS);
    memset(&cfg, 0, sizeof cfg);
    CHECK(parz_params_rate(&cfg.params, 8.0, PARZ_DOUBLE, 2, NULL, &err) == PARZ_OK, "rate 8");
    cfg.segment_blocks = 3;
    check_vector("double NONE", chunk_v1_double2d_none, sizeof chunk_v1_double2d_none, &ad,
                 chunk_v1_double2d_input, chunk_v1_double2d_decoded, cfg, PARZ_TABLE_NONE);
    check_vector("double AUTO", chunk_v1_double2d_none, sizeof chunk_v1_double2d_none, &ad,
                 chunk_v1_double2d_input, chunk_v1_double2d_decoded, cfg, PARZ_TABLE_AUTO);
  }
  /* version 2: section directory, payload checksums, a finite exception */
  {
    static const float v2_input[10] = {0, 1, 2, 3, 0, 5, 6, 0x1.fffffep+127f, 8, 9};
    const unsigned char* c2 = chunk_v2_float1d_checksum;
    size_t n2 = sizeof chunk_v2_float1d_checksum;
    float in2[10];
    memcpy(in2, v2_input, sizeof in2);
    in2[4] = (float)NAN;
    rc = parz_chunk_parse(c2, n2, &v, &err);
    CHECK(rc == PARZ_OK, "v2 parse: %s", err.message);
    CHECK(v.version == 2 && v.table == PARZ_TABLE_HYBRID && v.nexceptions == 2 &&
              v.nchecksums == 2 && v.checksum_segments == 2 && v.payload_bits == 131 &&
              v.payload_bytes == 24 && v.checksums == c2 + 200 && v.payload == c2 + 216,
          "v2 fields");
    CHECK(parz_chunk_segment_offset(&v, 2) == 83, "v2 partition 1 offset");
    rc = parz_chunk_decode(c2, n2, out, sizeof out, &err);
    CHECK(rc == PARZ_OK, "v2 decode: %s", err.message);
    for (i = 0; i < 10; i++)
      CHECK(out[i] == chunk_v2_float1d_checksum_values[i], "v2 value %zu: %08x, expected %08x", i,
            out[i], chunk_v2_float1d_checksum_values[i]);
    memset(&cfg, 0, sizeof cfg);
    CHECK(parz_params_accuracy(&cfg.params, 0.0625, NULL, &err) == PARZ_OK, "accuracy");
    cfg.table = PARZ_TABLE_HYBRID;
    cfg.segment_blocks = 1;
    cfg.partition_segments = 2;
    cfg.mask = PARZ_MASK_OFF; /* NaN as an exception, as before masks */
    rc = parz_chunk_encode(&a, in2, &cfg, again, sizeof again, &written, &err);
    CHECK(rc == PARZ_OK && written == n2 && !memcmp(again, c2, n2),
          "encoder output differs from the version 2 test vector");
  }
  /* version 2 with a mask: the fill value and NaN, a bitmap and a run record, an exception */
  {
    static const float cleaned0[4][4] = {{1.5f, 1.5f, 2.0f, 2.0f},
                                         {2.0f, 2.0f, 3.0f, 3.5f},
                                         {3.0f, 3.5f, 3.5f, 4.5f},
                                         {4.0f, 4.5f, 5.0f, 5.0f}};
    const unsigned char* c3 = chunk_v2_float2d_mask;
    size_t n3 = sizeof chunk_v2_float2d_mask, zbytes = 0, r, k;
    parz_array a2 = test_array(PARZ_FLOAT, 2, 4, 12, 0, 0);
    float in3[48], cleaned[48], fill = -9999.0f;
    uint32_t nan = 0x7fc00000u, fill_bits, out3[48];
    void* z;
    for (r = 0; r < 4; r++)
      for (k = 0; k < 12; k++) {
        in3[r * 12 + k] = k < 4 ? 1.0f + 0.5f * (float)k + (float)r : fill;
        cleaned[r * 12 + k] = k < 4 ? cleaned0[r][k] : 0.0f;
      }
    memcpy(&in3[0], &nan, 4);
    memcpy(&in3[13], &nan, 4);
    in3[26] = in3[39] = fill;
    in3[3] = INFINITY;
    rc = parz_chunk_parse(c3, n3, &v, &err);
    CHECK(rc == PARZ_OK, "mask vector parse: %s", err.message);
    CHECK(v.version == 2 && v.nexceptions == 1 && v.nchecksums == 2 && v.payload_bits == 143 &&
              v.mask.section_bytes == 56 && v.mask.group_blocks == 256 && v.mask.nvalues == 2 &&
              v.mask.record_bytes == 10 && v.mask.ngroups == 1 && v.mask.values == c3 + 232 &&
              v.mask.records == c3 + 256 && v.payload == c3 + 272,
          "mask vector fields");
    rc = parz_chunk_decode(c3, n3, out3, sizeof out3, &err);
    CHECK(rc == PARZ_OK, "mask vector decode: %s", err.message);
    for (i = 0; i < 48; i++)
      CHECK(out3[i] == chunk_v2_float2d_mask_values[i],
            "mask vector value %zu: %08x, expected %08x", i, out3[i],
            chunk_v2_float2d_mask_values[i]);
    z = zfp_oracle_compress(&a2, cleaned, &v.params, &zbytes);
    CHECK(test_payload_is_zfp(v.payload, v.payload_bytes, z, zbytes),
          "mask vector payload is not libzfp's stream of the cleaned array");
    free(z);
    memset(&cfg, 0, sizeof cfg);
    CHECK(parz_params_accuracy(&cfg.params, 0.0625, NULL, &err) == PARZ_OK, "accuracy");
    cfg.table = PARZ_TABLE_HYBRID;
    cfg.segment_blocks = 1;
    cfg.partition_segments = 2;
    memcpy(&fill_bits, &fill, 4);
    cfg.fill = 1;
    cfg.fill_bits = fill_bits;
    rc = parz_chunk_encode(&a2, in3, &cfg, again, sizeof again, &written, &err);
    CHECK(rc == PARZ_OK && written == n3 && !memcmp(again, c3, n3),
          "encoder output differs from the mask test vector");
  }
  /* a stored chunk (codec 2): the values as they are, NaN payload, -0.0, Inf, a subnormal */
  {
    const unsigned char* c4 = chunk_v2_stored;
    size_t n4 = sizeof chunk_v2_stored;
    parz_array a4 = test_array(PARZ_FLOAT, 2, 2, 3, 0, 0);
    uint32_t out4[6];
    int m;
    rc = parz_chunk_parse(c4, n4, &v, &err);
    CHECK(rc == PARZ_OK, "stored vector parse: %s", err.message);
    CHECK(v.version == 2 && v.codec == PARZ_CODEC_STORED && v.table == PARZ_TABLE_NONE &&
              v.nblocks == 6 && v.nsegments == 1 && v.segment_blocks == 4096 && v.nchecksums == 1 &&
              v.checksum_segments == 64 && v.payload_bits == 192 && v.payload_bytes == 24 &&
              v.checksums == c4 + 136 && v.payload == c4 + 144 && v.raw_bytes == 24 &&
              v.nexceptions == 0,
          "stored vector fields");
    rc = parz_chunk_decode(c4, n4, out4, sizeof out4, &err);
    CHECK(rc == PARZ_OK && !memcmp(out4, chunk_v2_stored_values, sizeof out4),
          "stored vector decode: %s", rc ? err.message : "values differ");
    /* every mode stores these six values: each encoding of them is larger */
    for (m = 0; m < TEST_MODES; m++) {
      memset(&cfg, 0, sizeof cfg);
      cfg.params = test_params(m, PARZ_FLOAT, 2);
      cfg.stored = PARZ_STORED_WHEN_SMALLER;
      rc =
          parz_chunk_encode(&a4, chunk_v2_stored_values, &cfg, again, sizeof again, &written, &err);
      CHECK(rc == PARZ_OK && written == n4 && !memcmp(again, c4, n4),
            "%s: encoder output differs from the stored test vector", test_mode_name(m));
    }
  }
  /* an error-bounded chunk (codec 4): Lorenzo, an exception, a masked NaN, codec data */
  {
    const unsigned char* c5 = chunk_v2_bounded;
    size_t n5 = sizeof chunk_v2_bounded;
    parz_array a5 = test_array(PARZ_FLOAT, 1, 8, 0, 0, 0);
    /* (float)(q * step) of q = 0..3, step = 1 - 2^-21, as FORMAT.md's example works them out */
    static const uint32_t want5[8] = {0x00000000u, 0x3f7ffff8u, 0x3ffffff8u, 0x403ffffau,
                                      0x7f800000u, 0x403ffffau, 0x403ffffau, 0x7fc00000u};
    rc = parz_chunk_parse(c5, n5, &v, &err);
    CHECK(rc == PARZ_OK, "bounded vector parse: %s", err.message);
    CHECK(v.version == 2 && v.codec == PARZ_CODEC_BOUNDED && v.table == PARZ_TABLE_HYBRID &&
              v.length_bytes == 4 && v.nblocks == 8 && v.nsegments == 1 &&
              v.segment_blocks == 4096 && v.nchecksums == 1 && v.payload_bits == 8 &&
              v.payload_bytes == 8 && v.nexceptions == 1 && v.mask.nvalues == 1 &&
              v.codec_data == c5 + 248 && v.codec_data_bytes == 24 && v.payload == c5 + 272,
          "bounded vector fields");
    cfg = bounded_config(4096);
    round_trip("bounded vector", c5, n5, &a5, chunk_v2_bounded_values, want5, &cfg);
  }
  /* an error-bounded chunk in two segments of the writers' C: a run of zeros cut at their edge */
  {
    enum { N = 1032 };
    const unsigned char* c = chunk_v2_bounded_c1024;
    const size_t n = sizeof chunk_v2_bounded_c1024;
    parz_array a = test_array(PARZ_FLOAT, 1, N, 0, 0, 0);
    static float in[N], want[N];
    for (int i = 0; i < 4; i++) {
      in[N - 4 + i] = (float)(i + 1);
      memcpy(&want[N - 4 + i], &chunk_v2_bounded_c1024_decoded[i], 4);
    }
    rc = parz_chunk_parse(c, n, &v, &err);
    CHECK(rc == PARZ_OK, "bounded C = 1024 vector parse: %s", err.message);
    CHECK(v.version == 2 && v.codec == PARZ_CODEC_BOUNDED && v.table == PARZ_TABLE_HYBRID &&
              v.length_bytes == 2 && v.nblocks == N && v.nsegments == 2 &&
              v.segment_blocks == 1024 && v.nchecksums == 1 && v.payload_bits == 20 &&
              v.payload_bytes == 8 && v.nexceptions == 0 && v.mask.nvalues == 0 &&
              v.codec_data == c + 176 && v.codec_data_bytes == 32 && v.payload == c + 208,
          "bounded C = 1024 vector fields");
    cfg = bounded_config(0); /* the writers' C */
    round_trip("bounded C = 1024 vector", c, n, &a, in, want, &cfg);
  }
  /* a lossless chunk (codec 3): scaled integers, the 2-D Lorenzo predictor, coder 1 */
  {
    const unsigned char* c6 = chunk_v2_lossless;
    size_t n6 = sizeof chunk_v2_lossless;
    parz_array a6 = test_array(PARZ_FLOAT, 2, 3, 4, 0, 0);
    rc = parz_chunk_parse(c6, n6, &v, &err);
    CHECK(rc == PARZ_OK, "lossless vector parse: %s", err.message);
    CHECK(v.version == 2 && v.codec == PARZ_CODEC_LOSSLESS && v.table == PARZ_TABLE_HYBRID &&
              v.length_bytes == 4 && v.nblocks == 1 && v.nsegments == 1 && v.segment_blocks == 4 &&
              v.partition_segments == 64 && v.nchecksums == 1 && v.block_side[0] == 64 &&
              v.block_side[1] == 64 && v.codec_params[0] == 3 && v.codec_params[1] == 0 &&
              v.payload_bits == 176 && v.payload_bytes == 24 && v.table_data == c6 + 128 &&
              v.checksums == c6 + 152 && v.payload == c6 + 160 && v.nexceptions == 0 &&
              v.mask.nvalues == 0,
          "lossless vector fields");
    memset(&cfg, 0, sizeof cfg);
    cfg.codec = PARZ_CODEC_LOSSLESS;
    round_trip("lossless vector", c6, n6, &a6, chunk_v2_lossless_values, chunk_v2_lossless_values,
               &cfg);
    cfg.stored = PARZ_STORED_WHEN_SMALLER; /* 184 bytes, the stored chunk 192 */
    round_trip("lossless vector with stored chunks on", c6, n6, &a6, chunk_v2_lossless_values,
               chunk_v2_lossless_values, &cfg);
  }
  /* a lossless chunk with Holt's predictor (codec 3, predictor 2), which the encoder chooses */
  {
    const unsigned char* c7 = chunk_v1_lossless_holt;
    size_t n7 = sizeof chunk_v1_lossless_holt;
    parz_array a7 = test_array(PARZ_INT32, 1, 8, 0, 0, 0);
    rc = parz_chunk_parse(c7, n7, &v, &err);
    CHECK(rc == PARZ_OK, "Holt vector parse: %s", err.message);
    CHECK(v.version == 1 && v.codec == PARZ_CODEC_LOSSLESS && v.nblocks == 1 && v.nsegments == 1 &&
              v.block_side[0] == 4096 && v.codec_params[1] == 2 && v.codec_params[2] == 8 &&
              v.codec_params[3] == 8 && v.payload_bits == 160 && v.payload_bytes == 24 &&
              v.nchecksums == 0 && v.payload == c7 + 128,
          "Holt vector fields");
    memset(&cfg, 0, sizeof cfg);
    cfg.codec = PARZ_CODEC_LOSSLESS;
    cfg.checksum = PARZ_CHECKSUM_OFF;
    round_trip("Holt vector", c7, n7, &a7, chunk_v1_lossless_holt_values,
               chunk_v1_lossless_holt_values, &cfg);
  }
  /* a lossless chunk under the row predictor (codec 3, predictor 3): written when asked for, and
   * the encoder's own choice for these independent rows */
  {
    const unsigned char* c9 = chunk_v1_lossless_rows;
    size_t n9 = sizeof chunk_v1_lossless_rows;
    parz_array a9 = test_array(PARZ_INT32, 2, 3, 6, 0, 0);
    unsigned p;
    rc = parz_chunk_parse(c9, n9, &v, &err);
    CHECK(rc == PARZ_OK, "rows vector parse: %s", err.message);
    CHECK(v.version == 1 && v.codec == PARZ_CODEC_LOSSLESS && v.nblocks == 3 && v.nsegments == 1 &&
              v.block_side[0] == 1 && v.block_side[1] == 4096 && v.codec_params[1] == 3 &&
              v.payload_bits == 192 && v.payload_bytes == 24 && v.payload == c9 + 128,
          "rows vector fields");
    for (p = 0; p <= 3; p += 3) {
      memset(&cfg, 0, sizeof cfg);
      cfg.codec = PARZ_CODEC_LOSSLESS;
      cfg.checksum = PARZ_CHECKSUM_OFF;
      cfg.settings.predictor = p;
      round_trip(p ? "rows vector, asked" : "rows vector, chosen", c9, n9, &a9,
                 chunk_v1_lossless_rows_values, chunk_v1_lossless_rows_values, &cfg);
    }
  }
  /* lossless chunks whose segment is coder 3, runs, and coder 4, runs with empty runs (of 16
   * residuals: the encoder writes runs of 512, so only the decoder is held to them); the coder 4
   * one read as coder 3, whose runs cannot be empty, refused */
  runs_vector("runs vector", chunk_v1_lossless_runs, sizeof chunk_v1_lossless_runs, 3,
              chunk_v1_lossless_runs_values, sizeof chunk_v1_lossless_runs_values);
  runs_vector("zero runs vector", chunk_v1_lossless_zero_runs, sizeof chunk_v1_lossless_zero_runs,
              4, chunk_v1_lossless_zero_runs_values, sizeof chunk_v1_lossless_zero_runs_values);
  {
    unsigned char as3[sizeof chunk_v1_lossless_zero_runs];
    int32_t out10[56];
    memcpy(as3, chunk_v1_lossless_zero_runs, sizeof as3);
    as3[128] = 3;
    rc = parz_chunk_decode(as3, sizeof as3, out10, sizeof out10, &err);
    CHECK(rc == PARZ_ERR_STREAM, "zero runs vector as coder 3: status %d", rc);
  }
  /* a lossless chunk with the value dictionary (codec 3, transform 128, codec data) */
  {
    const unsigned char* c8 = chunk_v2_lossless_dict;
    size_t n8 = sizeof chunk_v2_lossless_dict;
    parz_array a8 = test_array(PARZ_FLOAT, 1, 32, 0, 0, 0);
    rc = parz_chunk_parse(c8, n8, &v, &err);
    CHECK(rc == PARZ_OK, "dictionary vector parse: %s", err.message);
    CHECK(v.version == 2 && v.codec == PARZ_CODEC_LOSSLESS && v.nsegments == 1 &&
              v.codec_params[0] == 128 && v.codec_params[1] == 0 && v.codec_data == c8 + 144 &&
              v.codec_data_bytes == 32 && v.payload_bits == 208 && v.payload == c8 + 176,
          "dictionary vector fields");
    memset(&cfg, 0, sizeof cfg);
    cfg.codec = PARZ_CODEC_LOSSLESS;
    cfg.checksum = PARZ_CHECKSUM_OFF;
    round_trip("dictionary vector", c8, n8, &a8, chunk_v2_lossless_dict_values,
               chunk_v2_lossless_dict_values, &cfg);
  }
  return test_finish("test_chunk_vector");
}
