/* Chunk round trips in every mode, type, rank and table kind, against libzfp:
 * - the payload is byte for byte what zfp_compress writes for the same array and parameters;
 * - every segment offset in the table is the prefix sum of the block lengths that
 *   parz_encode_blocks reports;
 * - decoding gives what zfp_decompress gives, whole or segment by segment in any order;
 * - the three-step encoder with segments encoded out of order and joined with parz_bits_copy
 *   writes the same bytes as parz_chunk_encode;
 * - the length field is 16 bits exactly when C * parz_block_max_bits fits in 16 bits;
 * - C = 0 (auto, variable rate) picks the smallest power of two up to 32 whose table is at most
 *   1/50 of the payload (else the smallest table among them), and the chunk encodes into a
 *   buffer of exactly its size. */
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "test_chunk_common.h"

static const parz_type types[4] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};

/* Shapes with partial blocks in every dimension. */
static const size_t shapes[][5] = {
    {1, 1, 0, 0, 0}, {1, 37, 0, 0, 0}, {1, 1001, 0, 0, 0}, {2, 13, 22, 0, 0},
    {2, 5, 4, 0, 0}, {3, 9, 7, 10, 0}, {4, 5, 6, 3, 9},
};
/* (C, P) pairs: degenerate, partial segments and partitions, defaults. */
static const uint32_t layouts[][2] = {{1, 1}, {3, 2}, {2, 3}, {0, 0}};

static void three_step(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                       const unsigned char* expect, size_t expect_bytes, const char* what) {
  parz_chunk_encoder* enc;
  parz_error err;
  uint64_t nseg, first, s;
  unsigned char* out;
  size_t size, payload_offset = 0;
  int rc = parz_chunk_encoder_begin(&enc, a, data, cfg, &err);
  CHECK(rc == PARZ_OK, "%s: begin: %s", what, err.message);
  if (rc)
    return;
  nseg = parz_chunk_encoder_segments(enc);
  /* ranges of 2 segments, encoded last to first, each into its own scratch */
  {
    uint64_t nranges = (nseg + 1) / 2;
    void** scratch = calloc(nranges, sizeof *scratch);
    uint64_t* bits = calloc(nranges, sizeof *bits);
    for (s = nranges; s-- > 0;) {
      uint64_t count = nseg - 2 * s < 2 ? nseg - 2 * s : 2;
      size_t cap = parz_chunk_encoder_scratch_bound(enc, count);
      scratch[s] = malloc(cap);
      rc = parz_chunk_encode_segments(enc, 2 * s, count, scratch[s], cap, &bits[s], &err);
      CHECK(rc == PARZ_OK, "%s: encode_segments %llu: %s", what, (unsigned long long)s,
            err.message);
    }
    size = parz_chunk_encoder_size(enc);
    CHECK(size == expect_bytes, "%s: 3-step size %zu, serial %zu", what, size, expect_bytes);
    out = calloc(1, size + 8);
    rc = parz_chunk_encoder_write_head(enc, out, size, &payload_offset, &err);
    CHECK(rc == PARZ_OK, "%s: write_head: %s", what, err.message);
    for (first = 0; first < nranges; first++) {
      uint64_t bit = parz_chunk_encoder_bit_offset(enc, 2 * first);
      parz_bits_copy(out + payload_offset, bit, scratch[first], bits[first]);
      free(scratch[first]);
    }
    /* payload checksums one partition at a time, last to first, then the seal */
    for (s = parz_chunk_encoder_partitions(enc); s-- > 0;)
      parz_chunk_encoder_checksum(enc, out, s, 1);
    parz_chunk_encoder_seal(enc, out);
    {
      uint64_t total = 0;
      for (s = 0; s < nranges; s++)
        total += bits[s];
      CHECK(parz_chunk_encoder_bit_offset(enc, nseg) == total, "%s: end offset", what);
    }
    CHECK(size == expect_bytes && !memcmp(out, expect, size), "%s: 3-step bytes differ", what);
    free(out);
    free(scratch);
    free(bits);
  }
  parz_chunk_encoder_free(enc);
}

static void one_case(const parz_array* a, const void* data, int mode, parz_table_kind kind,
                     uint32_t C, uint32_t P) {
  char what[200];
  parz_chunk_config cfg;
  parz_chunk_view v;
  parz_error err;
  size_t chunk_bytes = 0, zbytes = 0, nblocks = parz_block_count(a), b, raw;
  unsigned char* chunk;
  void *zstream, *zdecoded, *decoded, *decoded2;
  uint32_t* block_bits;
  uint64_t s, bits;
  int rc;
  memset(&cfg, 0, sizeof cfg);
  cfg.params = test_params(mode, a->type, a->dims);
  cfg.table = kind;
  cfg.segment_blocks = C;
  cfg.partition_segments = P;
  snprintf(what, sizeof what, "%s %uD %zux%zux%zux%zu %s table %d C %u P %u",
           parz_type_name(a->type), a->dims, a->shape[0], a->shape[1], a->shape[2], a->shape[3],
           test_mode_name(mode), (int)kind, C, P);
  if (kind == PARZ_TABLE_NONE && !parz_params_fixed_rate(&cfg.params)) {
    chunk = test_encode(a, data, &cfg, &chunk_bytes);
    CHECK(chunk == NULL, "%s: NONE table accepted for variable rate", what);
    free(chunk);
    return;
  }
  chunk = test_encode(a, data, &cfg, &chunk_bytes);
  CHECK(chunk != NULL, "%s: encode failed", what);
  if (!chunk)
    return;
  rc = parz_chunk_parse(chunk, chunk_bytes, &v, &err);
  CHECK(rc == PARZ_OK, "%s: parse: %s", what, err.message);
  if (rc) {
    free(chunk);
    return;
  }
  raw = test_count(a) * parz_type_size(a->type);
  CHECK(v.array.type == a->type && v.array.dims == a->dims && v.raw_bytes == raw &&
            v.chunk_bytes == chunk_bytes && v.nblocks == nblocks,
        "%s: view fields", what);
  CHECK(!memcmp(&v.params, &cfg.params, sizeof v.params), "%s: params", what);
  if (C || parz_params_fixed_rate(&cfg.params)) {
    CHECK(v.segment_blocks == (C ? C : PARZ_DEFAULT_SEGMENT_BLOCKS), "%s: C", what);
  } else {
    /* auto C, from the rule's own statement: every candidate's table, then the first that
     * fits the budget or else the first of the smallest */
    uint32_t c, expect = 0, first_min = 0;
    uint64_t min_table = UINT64_MAX;
    for (c = 1; c <= 32; c *= 2) {
      parz_chunk_config at = cfg;
      parz_chunk_view t;
      at.segment_blocks = c;
      if (parz_chunk_layout(&t, a, &at, NULL) != PARZ_OK)
        continue;
      if (!expect && t.table_bytes <= v.payload_bytes / 50)
        expect = c;
      if (t.table_bytes < min_table) {
        min_table = t.table_bytes;
        first_min = c;
      }
    }
    CHECK(v.segment_blocks == (expect ? expect : first_min), "%s: auto C %u, expected %u", what,
          v.segment_blocks, expect ? expect : first_min);
    CHECK(!expect || v.table_bytes <= v.payload_bytes / 50, "%s: auto table %zu of %zu", what,
          v.table_bytes, v.payload_bytes);
    {
      size_t n = 0;
      unsigned char* exact = malloc(chunk_bytes);
      CHECK(parz_chunk_encode(a, data, &cfg, exact, chunk_bytes, &n, &err) == PARZ_OK &&
                n == chunk_bytes && !memcmp(exact, chunk, n),
            "%s: auto C into exactly %zu bytes", what, chunk_bytes);
      CHECK(parz_chunk_encode(a, data, &cfg, exact, chunk_bytes - 1, &n, &err) == PARZ_ERR_BUFFER,
            "%s: auto C into one byte less", what);
      free(exact);
    }
  }
  CHECK(v.table == (kind != PARZ_TABLE_AUTO               ? kind
                    : parz_params_fixed_rate(&cfg.params) ? PARZ_TABLE_NONE
                                                          : PARZ_TABLE_HYBRID),
        "%s: table kind %d", what, (int)v.table);
  if (v.table == PARZ_TABLE_HYBRID)
    CHECK(v.partition_segments == (P ? P : PARZ_DEFAULT_PARTITION_SEGMENTS), "%s: P", what);
  if (v.table == PARZ_TABLE_LENGTHS || v.table == PARZ_TABLE_HYBRID) {
    uint64_t worst = (uint64_t)v.segment_blocks * parz_block_max_bits(a->type, a->dims, &v.params);
    CHECK(v.length_bytes == (worst <= 65535 ? 2u : 4u), "%s: width %u for worst segment %llu", what,
          v.length_bytes, (unsigned long long)worst);
  }

  /* payload == zfp_compress */
  zstream = zfp_oracle_compress(a, data, &cfg.params, &zbytes);
  CHECK(test_payload_is_zfp(v.payload, v.payload_bytes, zstream, zbytes),
        "%s: payload (%zu bytes) differs from zfp_compress (%zu bytes)", what, v.payload_bytes,
        zbytes);

  /* segment offsets == prefix sums of parz_encode_blocks' block lengths */
  block_bits = malloc(nblocks * sizeof *block_bits);
  {
    size_t cap = parz_stream_bound(a->type, a->dims, &cfg.params, nblocks);
    void* tmp = malloc(cap);
    rc = parz_encode_blocks(a, data, &cfg.params, 0, nblocks, tmp, cap, &bits, block_bits, &err);
    CHECK(rc == PARZ_OK, "%s: parz_encode_blocks: %s", what, err.message);
    free(tmp);
  }
  {
    uint64_t prefix = 0;
    for (s = 0, b = 0; s <= v.nsegments; s++) {
      uint64_t off = parz_chunk_segment_offset(&v, s);
      CHECK(off == prefix, "%s: segment %llu offset %llu, block prefix sum %llu", what,
            (unsigned long long)s, (unsigned long long)off, (unsigned long long)prefix);
      if (off != prefix)
        break;
      for (; b < nblocks && b < (s + 1) * v.segment_blocks; b++)
        prefix += block_bits[b];
    }
    CHECK(v.payload_bits == bits, "%s: payload bits %llu vs %llu", what,
          (unsigned long long)v.payload_bits, (unsigned long long)bits);
  }
  free(block_bits);

  /* decode == zfp_decompress, whole and segment by segment last to first */
  zdecoded = zfp_oracle_decompress(a, zstream, zbytes, &cfg.params);
  decoded = malloc(raw);
  decoded2 = calloc(1, raw);
  rc = parz_chunk_decode(chunk, chunk_bytes, decoded, raw, &err);
  CHECK(rc == PARZ_OK, "%s: decode: %s", what, err.message);
  CHECK(zdecoded && !memcmp(decoded, zdecoded, raw), "%s: decoded values differ from zfp", what);
  for (s = v.nsegments; s-- > 0;) {
    rc = parz_chunk_decode_segments(&v, decoded2, s, 1, &err);
    CHECK(rc == PARZ_OK, "%s: decode segment %llu: %s", what, (unsigned long long)s, err.message);
  }
  CHECK(!memcmp(decoded, decoded2, raw), "%s: segment-wise decode differs", what);
  rc = parz_chunk_decode(chunk, chunk_bytes, decoded, raw - 1, &err);
  CHECK(rc == PARZ_ERR_BUFFER, "%s: short destination gave %d", what, rc);

  three_step(a, data, &cfg, chunk, chunk_bytes, what);

  /* a destination of exactly the chunk's size (below the payload bound: scratch path) */
  {
    unsigned char* exact = malloc(chunk_bytes);
    size_t n = 0;
    rc = parz_chunk_encode(a, data, &cfg, exact, chunk_bytes, &n, &err);
    CHECK(rc == PARZ_OK && n == chunk_bytes && !memcmp(exact, chunk, n),
          "%s: exact-size destination: %s", what, err.message);
    rc = parz_chunk_encode(a, data, &cfg, exact, chunk_bytes - 1, &n, &err);
    CHECK(rc == PARZ_ERR_BUFFER, "%s: one byte short gave %d", what, rc);
    free(exact);
  }
  free(zstream);
  free(zdecoded);
  free(decoded);
  free(decoded2);
  free(chunk);
}

/* A segment longer than 65535 bits needs and gets 32-bit length fields. */
static void wide_lengths(void) {
  parz_array a = test_array(PARZ_DOUBLE, 4, 8, 8, 8, 8);
  double* data = malloc(4096 * sizeof *data);
  parz_chunk_config cfg;
  parz_chunk_view v;
  parz_error err;
  size_t n = 0, i;
  unsigned char* chunk;
  uint64_t s, longest = 0;
  uint32_t r = 12345;
  for (i = 0; i < 4096; i++) { /* incompressible noise */
    r = r * 1664525u + 1013904223u;
    data[i] = ((double)r - 2147483648.0) * 1e-3 + (double)(r >> 7) * 1e-12;
  }
  memset(&cfg, 0, sizeof cfg);
  parz_params_reversible(&cfg.params);
  cfg.table = PARZ_TABLE_HYBRID;
  cfg.segment_blocks = 8;
  cfg.partition_segments = 1;
  chunk = test_encode(&a, data, &cfg, &n);
  CHECK(chunk && parz_chunk_parse(chunk, n, &v, &err) == PARZ_OK, "wide: encode/parse");
  if (chunk) {
    CHECK(v.length_bytes == 4, "wide: width %u", v.length_bytes);
    for (s = 0; s < v.nsegments; s++) {
      uint64_t len = parz_chunk_segment_offset(&v, s + 1) - parz_chunk_segment_offset(&v, s);
      if (len > longest)
        longest = len;
    }
    CHECK(longest > 65535, "wide: longest segment only %llu bits", (unsigned long long)longest);
    {
      double* back = malloc(4096 * sizeof *back);
      CHECK(parz_chunk_decode(chunk, n, back, 4096 * sizeof *back, &err) == PARZ_OK &&
                !memcmp(back, data, 4096 * sizeof *back),
            "wide: reversible round trip");
      free(back);
    }
  }
  free(chunk);
  /* the same with C = 1: every worst block fits 16 bits for float 1D */
  {
    parz_array b = test_array(PARZ_FLOAT, 1, 64, 0, 0, 0);
    float f[64];
    for (i = 0; i < 64; i++)
      f[i] = (float)i;
    cfg.segment_blocks = 1;
    chunk = test_encode(&b, f, &cfg, &n);
    CHECK(chunk && parz_chunk_parse(chunk, n, &v, &err) == PARZ_OK && v.length_bytes == 2,
          "narrow: 16-bit width expected");
    free(chunk);
  }
  free(data);
}

/* All-zero arrays (the shortest blocks every mode can write) and strided input (encoded from a
 * view with strides, it must give the bytes of its contiguous copy). */
static void zeros_and_strides(void) {
  size_t ti;
  int mode;
  for (ti = 0; ti < 4; ti++)
    for (mode = 0; mode < TEST_MODES; mode++) {
      parz_array a = test_array(types[ti], 2, 9, 10, 0, 0);
      size_t size = parz_type_size(a.type), n1 = 0, n2 = 0, r, c;
      unsigned char* zero = calloc(90, size);
      unsigned char* big = malloc(18 * 30 * size);
      unsigned char* compact = test_data(&a, 5);
      unsigned char *c1, *c2;
      parz_chunk_config cfg;
      parz_error err;
      parz_array view = a;
      memset(&cfg, 0, sizeof cfg);
      cfg.params = test_params(mode, a.type, 2);
      one_case(&a, zero, mode, PARZ_TABLE_AUTO, 1, 1);
      c1 = test_encode(&a, zero, &cfg, &n1);
      {
        parz_chunk_view v;
        CHECK(c1 && parz_chunk_parse(c1, n1, &v, &err) == PARZ_OK, "zeros %s",
              test_mode_name(mode));
      }
      free(c1);
      /* view: rows 0, 2, 4, ... and columns 0, 3, 6, ... of an 18 x 30 array */
      for (r = 0; r < 9; r++)
        for (c = 0; c < 10; c++)
          memcpy(big + (2 * r * 30 + 3 * c) * size, compact + (r * 10 + c) * size, size);
      view.stride[0] = 60;
      view.stride[1] = 3;
      c1 = test_encode(&a, compact, &cfg, &n1);
      c2 = test_encode(&view, big, &cfg, &n2);
      CHECK(c1 && c2 && n1 == n2 && !memcmp(c1, c2, n1), "strided %s %s differs",
            parz_type_name(a.type), test_mode_name(mode));
      free(c1);
      free(c2);
      free(zero);
      free(big);
      free(compact);
    }
}

int main(void) {
  size_t si, ti, li;
  int mode, kind;
  for (ti = 0; ti < 4; ti++)
    for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
      const size_t* sh = shapes[si];
      parz_array a = test_array(types[ti], (unsigned)sh[0], sh[1], sh[2], sh[3], sh[4]);
      void* data = test_data(&a, (unsigned)(si + 1));
      for (mode = 0; mode < TEST_MODES; mode++)
        for (kind = PARZ_TABLE_AUTO; kind <= PARZ_TABLE_HYBRID; kind++)
          for (li = 0; li < sizeof layouts / sizeof layouts[0]; li++)
            one_case(&a, data, mode, (parz_table_kind)kind, layouts[li][0], layouts[li][1]);
      free(data);
    }
  wide_lengths();
  zeros_and_strides();
  return test_finish("test_chunk_roundtrip");
}
