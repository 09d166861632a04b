/* The lossless codec through the frame (codec 3, codec/FORMAT.md "Lossless chunks"): every value
 * of every type and rank comes back bit for bit from the serial and the OpenMP decoders, which
 * write the same bytes and values as each other; windows of a chunk decode to the window's values
 * wherever they are stored; a chunk that encoding would enlarge is stored; the configuration's
 * and the chunk's hostile settings, and damaged chunks, are refused with a PARZ_ERR_* naming the
 * value, never read outside the chunk.
 *   test_lossless_chunk [SHARED_DATA_DIR [SERIES_DIR]] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dictionary.h"
#include "lossless.h"
#include "lossless_config.h"
#include "checksum.h"
#include "parz_chunk.h"
#include "parz_omp.h"
#include "real_arrays.h"
#include "residual_decode.h"
#include "residual_encode.h" /* PARZ_LL_RUN_Q */
#include "table_endian.h"
#include "team.h"
#include "test_chunk_common.h"

#define HEADER 112u

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* The chunk's CRC-32C over its head again, after an edit. */
static void reseal(unsigned char* c, size_t n) {
  size_t head = n - (size_t)parz_load64(c + 88);
  uint32_t crc = parz_crc32c(0, c, 108);
  crc = parz_crc32c(crc, c + HEADER, head - HEADER);
  parz_store32(c + 108, crc);
}

/* Serial and OpenMP encodes agree byte for byte; both decoders give back v bit for bit; a few
 * windows, one with a strided last dimension, hold the window's values. Returns the chunk's
 * size (0 on failure). */
static size_t check_array(const char* what, const parz_array* a, const void* v,
                          const parz_chunk_config* cfg) {
  const size_t raw = parz_array_count(a) * parz_type_size(a->type);
  const size_t size = parz_type_size(a->type);
  size_t n = 0, no = 0, bound = parz_chunk_bound(a, cfg), w;
  unsigned char *c = malloc(bound), *co = malloc(bound), *out = malloc(raw + 1),
                *win = malloc(2 * raw + 8);
  parz_chunk_view view;
  parz_error err;
  int rc = parz_chunk_encode(a, v, cfg, c, bound, &n, &err);
  CHECK(rc == PARZ_OK, "%s: encode: %s", what, rc ? err.message : "");
  if (rc != PARZ_OK)
    goto done;
  rc = parz_chunk_parse(c, n, &view, &err);
  CHECK(rc == PARZ_OK && view.codec == (cfg->stored ? view.codec : PARZ_CODEC_LOSSLESS),
        "%s: parse: %s", what, rc ? err.message : "");
  if (rc != PARZ_OK)
    goto done;
  CHECK(view.nexceptions == 0 && view.mask.nvalues == 0, "%s: %llu exceptions, %u masked", what,
        (unsigned long long)view.nexceptions, view.mask.nvalues);
  memset(out, 0xa5, raw + 1);
  rc = parz_chunk_decode(c, n, out, raw, &err);
  CHECK(rc == PARZ_OK && !memcmp(out, v, raw) && out[raw] == 0xa5, "%s: serial decode %s", what,
        rc ? err.message : "differs");
  rc = parz_omp_chunk_encode_above(a, v, cfg, co, bound, &no, 3, 0, &err);
  CHECK(rc == PARZ_OK && no == n && !memcmp(c, co, n),
        "%s: OpenMP encode (%zu bytes, serial %zu)%s", what, no, n, rc ? err.message : "");
  { /* the OpenMP decoder, the chunk split among the threads */
    parz_chunk_dest d;
    memset(out, 0x5a, raw);
    parz_chunk_dest_whole(&view, out, &d);
    rc = parz_omp_decode_chunks(1, &view, &d, 3, NULL, &err);
    CHECK(rc == PARZ_OK && !memcmp(out, v, raw), "%s: OpenMP decode %s", what,
          rc ? err.message : "differs");
  }
  for (w = 0; w < 3 && rc == PARZ_OK; w++) { /* windows, the last with a last-dimension stride 2 */
    parz_chunk_dest d;
    size_t k, x[4] = {0, 0, 0, 0}, ext[4];
    ptrdiff_t run = w == 2 ? 2 : 1;
    memset(&d, 0, sizeof d);
    d.data = win;
    for (k = a->dims; k-- > 0;) {
      size_t nk = a->shape[k];
      d.lo[k] = w == 0 ? 0 : (size_t)(next() % nk);
      d.hi[k] = d.lo[k] + 1 + (size_t)(next() % (nk - d.lo[k]));
      ext[k] = d.hi[k] - d.lo[k];
      d.stride[k] = run;
      run *= (ptrdiff_t)ext[k];
    }
    if (w == 0) /* a window of one value in the middle of the array's last block */
      for (k = 0; k < a->dims; k++) {
        d.lo[k] = a->shape[k] / 2;
        d.hi[k] = d.lo[k] + 1;
        ext[k] = 1;
      }
    memset(win, 0, 2 * raw + 8);
    rc = parz_chunk_decode_segments_to(&view, &d, 0, view.nsegments, &err);
    CHECK(rc == PARZ_OK, "%s: window %zu: %s", what, w, rc ? err.message : "");
    for (;;) { /* every value of the window against the array's */
      size_t at = 0, k2;
      ptrdiff_t to = 0;
      for (k2 = 0; k2 < a->dims; k2++) {
        at = at * a->shape[k2] + d.lo[k2] + x[k2];
        to += (ptrdiff_t)x[k2] * d.stride[k2];
      }
      if (memcmp(win + (size_t)to * size, (const unsigned char*)v + at * size, size)) {
        CHECK(0, "%s: window %zu value at %zu differs", what, w, at);
        break;
      }
      for (k2 = a->dims; k2-- > 0;) {
        if (++x[k2] < ext[k2])
          break;
        x[k2] = 0;
      }
      if (k2 == (size_t)-1)
        break;
    }
  }
done:
  free(c);
  free(co);
  free(out);
  free(win);
  return rc == PARZ_OK ? n : 0;
}

/* Special bit pattern i of 32 of a float of `w` bits: every sign, exponent field 0, 1, the
 * largest finite one and all ones, mantissa 0, 1, its top bit alone and all ones: zeros of both
 * signs, the least and largest subnormals, normals, the largest finite values, infinities, quiet
 * and signalling NaN with payloads. */
static uint64_t special(unsigned w, unsigned i) {
  const unsigned mbits = w == 32 ? 23 : 52;
  const uint64_t emax = w == 32 ? 255 : 2047, mall = ((uint64_t)1 << mbits) - 1;
  const uint64_t exps[4] = {0, 1, emax - 1, emax};
  const uint64_t mants[4] = {0, 1, (uint64_t)1 << (mbits - 1), mall};
  return ((uint64_t)(i >> 4 & 1) << (w - 1)) | exps[i >> 2 & 3] << mbits | mants[i & 3];
}

/* Every special bit pattern, all four types, ranks 1 to 4 (extents of 1 among them, edge-cut
 * blocks), the predictors asked for (Lorenzo, stack, rows), C of 1, 3 and the codec's own. */
static void special_patterns(void) {
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  static const size_t shapes[][5] = {{1, 1, 0, 0, 0},   {1, 5000, 0, 0, 0}, {2, 65, 130, 0, 0},
                                     {2, 1, 300, 0, 0}, {3, 20, 18, 36, 0}, {3, 1, 70, 1, 0},
                                     {4, 9, 2, 10, 11}, {4, 3, 17, 17, 9}};
  static const uint32_t cs[] = {1, 3, 0};
  unsigned ti, si, kind;
  for (ti = 0; ti < 4; ti++)
    for (si = 0; si < sizeof shapes / sizeof *shapes; si++)
      for (kind = 0; kind < 2; kind++) {
        const size_t* sh = shapes[si];
        parz_array a = test_array(types[ti], (unsigned)sh[0], sh[1], sh[2] ? sh[2] : 1,
                                  sh[3] ? sh[3] : 1, sh[4] ? sh[4] : 1);
        const size_t n = parz_array_count(&a), w = parz_type_size(a.type);
        unsigned char* v = malloc(n * w);
        size_t i;
        unsigned p, ci;
        for (i = 0; i < n; i++) {
          uint64_t bits;
          if (a.type == PARZ_FLOAT) {
            float f = (float)(1000.0 + (double)(i % 97) * 0.25 + (double)(i / 97));
            uint32_t b;
            memcpy(&b, &f, 4);
            bits = next() % 5 == 0 ? special(32, (unsigned)(next() % 32)) : b;
          } else if (a.type == PARZ_DOUBLE) {
            double f = 1e-3 * (double)i + 7.0;
            memcpy(&bits, &f, 8);
            if (next() % 5 == 0)
              bits = special(64, (unsigned)(next() % 32));
          } else {
            bits = (uint64_t)(int64_t)(i * 3) - (next() % 5 == 0 ? next() : 0);
          }
          /* kind 1: scaled integers for floats (k / 4, k / 100), random bits for integers */
          if (kind == 1 && (a.type == PARZ_INT32 || a.type == PARZ_INT64)) {
            bits = next();
          } else if (kind == 1 && a.type == PARZ_FLOAT) {
            float f = (float)(i % 1000) / 4.0f;
            uint32_t b;
            memcpy(&b, &f, 4);
            bits = b;
          } else if (kind == 1 && a.type == PARZ_DOUBLE) {
            double f = (double)(i % 5000) / 100.0;
            memcpy(&bits, &f, 8);
          }
          memcpy(v + i * w, &bits, w);
        }
        if (kind == 0 && (a.type == PARZ_FLOAT || a.type == PARZ_DOUBLE))
          for (i = 0; i < n && i < 32; i++) { /* every pattern once where there is room */
            uint64_t bits = special((unsigned)(8 * w), (unsigned)i);
            memcpy(v + i * w, &bits, w);
          }
        for (p = 0; p <= PARZ_LL_PREDICT_ROWS; p++)
          for (ci = 0; ci < 3 && p != PARZ_LL_PREDICT_HOLT; ci++) {
            parz_chunk_config cfg = test_lossless_config(p, cs[ci]);
            char what[96];
            snprintf(what, sizeof what, "%s rank %u (%zu values) kind %u predictor %u C %u",
                     parz_type_name(a.type), a.dims, n, kind, p, cs[ci]);
            check_array(what, &a, v, &cfg);
          }
        free(v);
      }
}

/* The header's codec parameters: the transform the values chose, the predictor, zeros; C the
 * codec's own when the configuration leaves it; a table of lengths. */
static void header_fields(void) {
  parz_array a = test_array(PARZ_FLOAT, 2, 100, 70, 1, 1);
  float* v = malloc(7000 * sizeof *v);
  parz_chunk_config cfg = test_lossless_config(0, 0);
  unsigned char* c;
  size_t n, i;
  for (i = 0; i < 7000; i++)
    v[i] = (float)(int)(i % 300) / 10.0f; /* scaled integers: k / 10 */
  c = test_encode(&a, v, &cfg, &n);
  if (c) {
    static const unsigned char zero[14] = {0};
    parz_chunk_view view;
    CHECK(parz_load16(c + 6) == PARZ_CODEC_LOSSLESS && c[48] == 6 && c[49] == 0 &&
              !memcmp(c + 50, zero, 14),
          "codec %u, parameters %u %u", parz_load16(c + 6), c[48], c[49]);
    CHECK(parz_chunk_parse(c, n, &view, NULL) == PARZ_OK && view.segment_blocks == 4 &&
              view.block_side[0] == 64 && view.block_side[1] == 64 && view.nblocks == 4 &&
              view.table == PARZ_TABLE_HYBRID,
          "C %u, sides %u %u, %llu blocks", view.segment_blocks, view.block_side[0],
          view.block_side[1], (unsigned long long)view.nblocks);
  }
  free(c);
  { /* 4D: sides 8^4, or 1 x 16^3 as a stack; extents of 1 are dropped */
    parz_array b = test_array(PARZ_INT32, 4, 3, 1, 20, 20);
    int32_t* iv = calloc(1200, sizeof *iv);
    parz_chunk_view view;
    cfg = test_lossless_config(1, 0);
    c = test_encode(&b, iv, &cfg, &n);
    CHECK(c && parz_chunk_parse(c, n, &view, NULL) == PARZ_OK && view.block_side[0] == 16 &&
              view.block_side[1] == 1 && view.block_side[2] == 16 && view.block_side[3] == 16 &&
              c[49] == 1,
          "rank 4 with an extent of 1: sides %u %u %u %u", c ? view.block_side[0] : 0,
          c ? view.block_side[1] : 0, c ? view.block_side[2] : 0, c ? view.block_side[3] : 0);
    free(c);
    b = test_array(PARZ_INT32, 4, 3, 2, 20, 10);
    cfg = test_lossless_config(1, 0);
    c = test_encode(&b, iv, &cfg, &n);
    CHECK(c && parz_chunk_parse(c, n, &view, NULL) == PARZ_OK && view.block_side[0] == 1 &&
              view.block_side[1] == 16 && view.nblocks == 3 * 2,
          "stack: sides %u %u, %llu blocks", c ? view.block_side[0] : 0, c ? view.block_side[1] : 0,
          c ? (unsigned long long)view.nblocks : 0ull);
    free(c);
    /* rows: side 4096 along the last dimension of extent above 1, 1 along the others */
    b = test_array(PARZ_INT32, 4, 3, 2, 20, 1);
    cfg = test_lossless_config(PARZ_LL_PREDICT_ROWS, 0);
    c = test_encode(&b, iv, &cfg, &n);
    CHECK(c && parz_chunk_parse(c, n, &view, NULL) == PARZ_OK && c[49] == 3 &&
              view.block_side[0] == 1 && view.block_side[1] == 1 && view.block_side[2] == 4096 &&
              view.block_side[3] == 1 && view.nblocks == 6 && view.nsegments == 2,
          "rows: sides %u %u %u %u, %llu blocks", c ? view.block_side[0] : 0,
          c ? view.block_side[1] : 0, c ? view.block_side[2] : 0, c ? view.block_side[3] : 0,
          c ? (unsigned long long)view.nblocks : 0ull);
    free(c);
    free(iv);
  }
  free(v);
}

/* Settings that make no sense are refused before anything is written. */
static void bad_settings(void) {
  parz_array a = test_array(PARZ_DOUBLE, 1, 100, 1, 1, 1);
  double v[100] = {0};
  unsigned char c[4096];
  size_t n;
  parz_error err;
  parz_chunk_config cfg = test_lossless_config(2, 0);
  CHECK(parz_chunk_encode(&a, v, &cfg, c, sizeof c, &n, &err) == PARZ_ERR_PARAM &&
            strstr(err.message, "predictor 2"),
        "predictor 2: %s", err.message);
  cfg = test_lossless_config(0, 0);
  cfg.settings.error_bound = 1e-3;
  CHECK(parz_chunk_encode(&a, v, &cfg, c, sizeof c, &n, &err) == PARZ_ERR_PARAM,
        "an error bound accepted");
  cfg = test_lossless_config(0, 4);
  cfg.table = PARZ_TABLE_NONE;
  CHECK(parz_chunk_encode(&a, v, &cfg, c, sizeof c, &n, &err) == PARZ_ERR_PARAM,
        "table kind NONE accepted");
  { /* a strided array (every other value): encoded from a contiguous copy, exact */
    parz_array s = a;
    double back[50];
    size_t i;
    for (i = 0; i < 100; i++)
      v[i] = (double)i * 0.5;
    s.shape[0] = 50;
    s.stride[0] = 2;
    cfg = test_lossless_config(0, 0);
    CHECK(parz_chunk_encode(&s, v, &cfg, c, sizeof c, &n, &err) == PARZ_OK &&
              parz_chunk_decode(c, n, back, sizeof back, &err) == PARZ_OK,
          "strided array: %s", err.message);
    for (i = 0; i < 50; i++)
      CHECK(back[i] == v[2 * i], "strided value %zu", i);
  }
}

/* Coder 3's run length from the configuration (parz_codec_settings.run_q, for tests and
 * benchmarks): each segment's head names the q asked for, 0 writes the writers' q byte for byte,
 * every decoder gives the values back, and a q the decoders refuse is refused before anything is
 * written. A 128 x 128 float32 grid of smooth rows with noise: one segment of 4 blocks, coded. */
static void run_lengths(void) {
  parz_array a = test_array(PARZ_FLOAT, 2, 128, 128, 1, 1);
  float* v = malloc(128 * 128 * sizeof *v);
  unsigned char *plain = NULL, *c;
  size_t n, n0 = 0, i;
  unsigned k;
  static const unsigned qs[] = {0, PARZ_LL_RUN_Q, 4, 7, 8, 12};
  parz_chunk_config cfg = test_lossless_config(0, 4);
  parz_error err;
  for (i = 0; i < 128 * 128; i++)
    v[i] = (float)(i / 128 + i % 128) * 0.25f + (float)(next() % 64);
  for (k = 0; k < sizeof qs / sizeof qs[0]; k++) {
    parz_chunk_view view;
    char what[48];
    cfg.settings.run_q = qs[k];
    snprintf(what, sizeof what, "runs of 2^%u (run_q %u)", qs[k] ? qs[k] : PARZ_LL_RUN_Q, qs[k]);
    CHECK(check_array(what, &a, v, &cfg) != 0, "%s: round trip", what);
    c = test_encode(&a, v, &cfg, &n);
    if (!c || parz_chunk_parse(c, n, &view, &err) != PARZ_OK) {
      CHECK(0, "%s: encode and parse", what);
      free(c);
      continue;
    }
    CHECK(view.nsegments == 1 && view.payload[0] == PARZ_LL_CODER_RUNS &&
              view.payload[2] == (qs[k] ? qs[k] : PARZ_LL_RUN_Q),
          "%s: %llu segments, coder %u, q %u", what, (unsigned long long)view.nsegments,
          view.payload[0], view.payload[2]);
    if (!qs[k]) {
      plain = c;
      n0 = n;
      continue;
    }
    if (qs[k] == PARZ_LL_RUN_Q)
      CHECK(plain && n == n0 && !memcmp(c, plain, n), "%s: not the writers' bytes", what);
    free(c);
  }
  free(plain);
  for (k = 0; k < 2; k++) {
    unsigned char out[4096];
    cfg.settings.run_q = k ? PARZ_LL_RUN_QMAX + 1 : PARZ_LL_RUN_QMIN - 1;
    CHECK(parz_chunk_encode(&a, v, &cfg, out, sizeof out, &n, &err) == PARZ_ERR_PARAM &&
              strstr(err.message, "run_q"),
          "run_q %u accepted (%s)", cfg.settings.run_q, err.message);
  }
  free(v);
}

/* Random bits do not shrink: with stored chunks on, the chunk is stored (codec 2) and no larger
 * than its values and a head. */
static void stored_instead(void) {
  parz_array a = test_array(PARZ_INT64, 2, 64, 64, 1, 1);
  uint64_t* v = malloc(4096 * sizeof *v);
  parz_chunk_config cfg = test_lossless_config(0, 0);
  unsigned char* c;
  size_t n, i;
  for (i = 0; i < 4096; i++)
    v[i] = next();
  cfg.stored = PARZ_STORED_WHEN_SMALLER;
  c = test_encode(&a, v, &cfg, &n);
  CHECK(c && parz_load16(c + 6) == PARZ_CODEC_STORED && n <= parz_chunk_bound(&a, &cfg),
        "random int64: codec %u, %zu bytes", c ? parz_load16(c + 6) : 0, n);
  if (c) {
    uint64_t* out = malloc(4096 * sizeof *out);
    CHECK(parz_chunk_decode(c, n, out, 4096 * 8, NULL) == PARZ_OK && !memcmp(out, v, 4096 * 8),
          "stored chunk's values");
    free(out);
  }
  free(c);
  free(v);
}

/* A lossless chunk edited: expect `want` from the parser or, when the parser takes it, from the
 * decoder; a decode that succeeds must not have written past the array. */
static void expect(const unsigned char* m, size_t n, size_t raw, int want, const char* what) {
  unsigned char* out = malloc(raw + 8);
  parz_error err;
  int rc;
  memset(out + raw, 0x77, 8);
  rc = parz_chunk_decode(m, n, out, raw, &err);
  CHECK(rc == want, "%s: %d (%s), expected %d", what, rc, rc ? err.message : "", want);
  CHECK(out[raw] == 0x77 && out[raw + 7] == 0x77, "%s: written past the array", what);
  free(out);
}

/* Chunk c (n bytes) with byte `at` set to value and its head resealed, into m: refused with
 * PARZ_ERR_FORMAT. */
static void byte_refused(unsigned char* m, const unsigned char* c, size_t n, size_t raw, size_t at,
                         unsigned char value, const char* what) {
  memcpy(m, c, n);
  m[at] = value;
  reseal(m, n);
  expect(m, n, raw, PARZ_ERR_FORMAT, what);
}

/* Every truncation of chunk c (n bytes) is refused by the parser. */
static void truncations_refused(const unsigned char* c, size_t n, const char* what) {
  size_t i;
  for (i = 0; i < n; i++) {
    parz_chunk_view t;
    CHECK(parz_chunk_parse(c, i, &t, NULL) != PARZ_OK, "%s cut to %zu bytes accepted", what, i);
  }
}

/* A bit flipped in every step-th payload byte of chunk c (n bytes, its payload the last
 * payload_bytes, no checksums): whatever the decoder says, it writes nothing past the array
 * (raw bytes). m: room for the chunk. */
static void payload_flips_inside(unsigned char* m, const unsigned char* c, size_t n,
                                 uint64_t payload_bytes, size_t raw, size_t step,
                                 const char* what) {
  size_t i;
  for (i = n - (size_t)payload_bytes; i < n; i += step) {
    unsigned char* out = malloc(raw + 8);
    memcpy(m, c, n);
    m[i] ^= (unsigned char)(1u << (next() % 8));
    memset(out + raw, 0x77, 8);
    (void)parz_chunk_decode(m, n, out, raw, NULL);
    CHECK(out[raw] == 0x77 && out[raw + 7] == 0x77, "%s: payload flip %zu wrote past the array",
          what, i);
    free(out);
  }
}

/* Hostile chunks: codec parameters, sections, table lengths that lie, truncations and bit flips
 * of every byte of the head and of payload bytes. */
static void hostile(void) {
  parz_array a = test_array(PARZ_FLOAT, 2, 90, 130, 1, 1);
  const size_t raw = 90 * 130 * 4;
  float* v = malloc(raw);
  parz_chunk_config cfg = test_lossless_config(0, 1);
  unsigned char *c, *m;
  size_t n, i, head;
  parz_chunk_view view;
  for (i = 0; i < 90 * 130; i++)
    v[i] = (float)(i % 130) * 0.37f + (float)(i / 130);
  cfg.partition_segments = 2;
  c = test_encode(&a, v, &cfg, &n);
  if (!c || parz_chunk_parse(c, n, &view, NULL) != PARZ_OK)
    return;
  head = n - view.payload_bytes;
  m = malloc(n + 64);
  /* past the last scale */
  byte_refused(m, c, n, raw, 48, 38, "transform 38");
  byte_refused(m, c, n, raw, 49, 4, "predictor 4");
  /* rows cut other blocks: 90 of them, whose table is not this one */
  byte_refused(m, c, n, raw, 49, 3, "Lorenzo read as rows");
  /* Holt's, for a grid */
  byte_refused(m, c, n, raw, 49, 2, "Holt's predictor for a grid");
  byte_refused(m, c, n, raw, 63, 1, "reserved parameter byte");
  { /* a payload of fewer bits than its values need (a 1-D chunk of 32768 zeros, one segment,
     * cut to one word: at most 256 values a bit): refused before a decoder allocates for them */
    parz_array z = test_array(PARZ_FLOAT, 1, 32768, 1, 1, 1);
    float* zeros = calloc(32768, sizeof *zeros);
    parz_chunk_config zc = test_lossless_config(0, 8);
    size_t zn, zh;
    unsigned char* zchunk;
    parz_chunk_view zv;
    parz_error err;
    zc.checksum = PARZ_CHECKSUM_OFF;
    zchunk = test_encode(&z, zeros, &zc, &zn);
    if (zchunk && parz_chunk_parse(zchunk, zn, &zv, NULL) == PARZ_OK) {
      zh = zn - zv.payload_bytes;
      parz_store64(zchunk + 88, 8);
      parz_store64(zchunk + 96, 64);
      parz_store32(zchunk + (size_t)(zv.table_data - zchunk) + 8, 64);
      reseal(zchunk, zh + 8);
      CHECK(parz_chunk_parse(zchunk, zh + 8, &zv, &err) == PARZ_ERR_FORMAT &&
                strstr(err.message, "64 bits for 32768 values"),
            "more values than payload bits: %s", err.message);
    }
    free(zchunk);
    free(zeros);
  }
  { /* an integer chunk cannot be scaled */
    parz_array b = test_array(PARZ_INT32, 1, 5000, 1, 1, 1);
    int32_t* iv = calloc(5000, sizeof *iv);
    size_t bn;
    unsigned char* bc = test_encode(&b, iv, &cfg, &bn);
    if (bc) {
      bc[48] = 3;
      reseal(bc, bn);
      expect(bc, bn, 5000 * 4, PARZ_ERR_FORMAT, "scaled int32");
    }
    free(bc);
    free(iv);
  }
  /* table lengths that lie: segment 0 one byte longer and segment 1 one shorter (the sum and
   * the partition still agree), and the same by a bit */
  {
    size_t t = HEADER + 16u * parz_load32(c + 104), w = c[13];
    uint64_t l0 = w == 2 ? parz_load16(c + t + 8) : parz_load32(c + t + 8);
    uint64_t l1 = w == 2 ? parz_load16(c + t + 8 + w) : parz_load32(c + t + 8 + w);
    unsigned d;
    for (d = 0; d < 2; d++) {
      const uint64_t by = d ? 1 : 8;
      memcpy(m, c, n);
      if (w == 2) {
        parz_store16(m + t + 8, (uint16_t)(l0 + by));
        parz_store16(m + t + 8 + w, (uint16_t)(l1 - by));
      } else {
        parz_store32(m + t + 8, (uint32_t)(l0 + by));
        parz_store32(m + t + 8 + w, (uint32_t)(l1 - by));
      }
      reseal(m, n);
      expect(m, n, raw, PARZ_ERR_STREAM, d ? "lengths off by a bit" : "lengths off by a byte");
    }
  }
  { /* exceptions and masks make no sense: every value is in the payload */
    size_t nx = n + 16;
    memcpy(m, c, head);
    memset(m + head, 0, 16);
    memcpy(m + head + 16, c + head, view.payload_bytes);
    parz_store64(m + 80, 1);
    /* the exception goes after the table, before the sections: move them */
    memmove(m + (size_t)(view.exceptions - c) + 16, m + (size_t)(view.exceptions - c),
            head - (size_t)(view.exceptions - c));
    memset(m + (size_t)(view.exceptions - c), 0, 16);
    reseal(m, nx);
    expect(m, nx, raw, PARZ_ERR_FORMAT, "an exception");
  }
  truncations_refused(c, n, "lossless chunk");
  for (i = 0; i < n; i += i < head ? 1 : 7) { /* bit flips: refused, or the values damaged only */
    unsigned bit = (unsigned)(next() % 8);
    unsigned char* out = malloc(raw + 8);
    int rc;
    memcpy(m, c, n);
    m[i] ^= (unsigned char)(1u << bit);
    memset(out + raw, 0x77, 8);
    rc = parz_chunk_decode(m, n, out, raw, NULL);
    CHECK(rc != PARZ_OK || i >= head, "flip of head byte %zu bit %u accepted", i, bit);
    CHECK(rc != PARZ_OK, "flip of payload byte %zu bit %u decoded (checksums are on)", i, bit);
    CHECK(out[raw] == 0x77, "flip of byte %zu: written past the array", i);
    free(out);
  }
  { /* without checksums a payload flip must still stay inside the array */
    parz_chunk_config off = cfg;
    size_t no;
    unsigned char* co;
    off.checksum = PARZ_CHECKSUM_OFF;
    co = test_encode(&a, v, &off, &no);
    if (co)
      payload_flips_inside(m, co, no, view.payload_bytes, raw, 3, "lossless chunk");
    free(co);
  }
  free(m);
  free(c);
  free(v);
}

/* The chunk of a's values v under cfg (n bytes, malloc'd) and its view, or NULL and a failed
 * check. */
static unsigned char* parsed_chunk(const char* what, const parz_array* a, const void* v,
                                   const parz_chunk_config* cfg, size_t* n, parz_chunk_view* view) {
  unsigned char* c = test_encode(a, v, cfg, n);
  if (c && parz_chunk_parse(c, *n, view, NULL) == PARZ_OK)
    return c;
  CHECK(0, "%s: no chunk", what);
  free(c);
  return NULL;
}

/* The row predictor through the frame: the encoder writes it for independent records along the
 * last dimension (serial and OpenMP alike, windows included), its blocks and table cut for it,
 * and not for a smooth field; hostile edits of the predictor byte are refused. */
static void rows(void) {
  const size_t nrow = 6, len = 5000, count = nrow * len;
  parz_array a = test_array(PARZ_DOUBLE, 2, nrow, len, 1, 1);
  parz_array a3 = test_array(PARZ_FLOAT, 3, 2, 3, 900, 1);
  double* v = malloc(count * sizeof *v);
  float* f = malloc(count * sizeof *f);
  parz_chunk_config cfg = test_lossless_config(0, 0);
  unsigned char *c, *m;
  size_t n, i, raw = count * sizeof *v;
  parz_chunk_view view;
  for (i = 0; i < count; i++) /* random walks, far apart: channels of a recording */
    v[i] =
        i % len ? v[i - 1] + 1e-3 * (double)((int)(next() % 2001) - 1000) : 1e4 * (double)(i / len);
  for (i = 0; i < 2 * 3 * 900; i++)
    f[i] = (float)v[i % count];
  check_array("independent rows", &a, v, &cfg);
  check_array("independent rows, float32 rank 3", &a3, f, &cfg);
  if (!(c = parsed_chunk("independent rows", &a, v, &cfg, &n, &view))) {
    free(v);
    free(f);
    return;
  }
  /* 6 rows of 5000: two blocks each (4096 and 904), 3 segments of C = 4 */
  CHECK(c[49] == 3 && view.nblocks == 12 && view.nsegments == 3 && view.block_side[1] == 4096,
        "independent rows: predictor %u, %llu blocks, %llu segments", c[49],
        (unsigned long long)view.nblocks, (unsigned long long)view.nsegments);
  {
    size_t n3;
    unsigned char* c3 = test_encode(&a3, f, &cfg, &n3);
    CHECK(c3 && c3[49] == 3, "independent rows, rank 3: predictor %u", c3 ? c3[49] : 99);
    free(c3);
  }
  m = malloc(n);
  /* the predictor byte edited: 0 cuts other blocks, so the table no longer fits them; gains are
   * Holt's alone; 4 is no predictor */
  byte_refused(m, c, n, raw, 49, 0, "rows read as Lorenzo");
  byte_refused(m, c, n, raw, 49, 4, "predictor 4");
  byte_refused(m, c, n, raw, 50, 8, "rows with a gain");
  truncations_refused(c, n, "rows chunk");
  payload_flips_inside(m, c, n, view.payload_bytes, raw, 97, "rows chunk");
  free(c);
  { /* a smooth field: Lorenzo */
    parz_array g = test_array(PARZ_DOUBLE, 2, 90, 130, 1, 1);
    for (i = 0; i < 90 * 130; i++)
      v[i] = 3.0 * (double)(i % 130) + 0.25 * (double)(i / 130) * (double)(i / 130);
    c = test_encode(&g, v, &cfg, &n);
    CHECK(c && c[49] == 0, "smooth field: predictor %u", c ? c[49] : 99);
    free(c);
  }
  free(m);
  free(v);
  free(f);
}

/* Holt's predictor through the frame: the encoder writes it for a trending series (serial and
 * OpenMP alike, windows included) and not for a random walk; edited gains and predictors are
 * refused, and so is every truncation and every flipped bit of the head. */
static void holt(void) {
  const size_t count = 20000;
  parz_array a = test_array(PARZ_DOUBLE, 1, count, 1, 1, 1);
  parz_array col = test_array(PARZ_DOUBLE, 2, count, 1, 1, 1);
  double* v = malloc(count * sizeof *v);
  parz_chunk_config cfg = test_lossless_config(0, 0);
  unsigned char *c, *m;
  size_t n, i, raw = count * sizeof *v;
  parz_chunk_view view;
  for (i = 0; i < count; i++) /* a trend, a slower swing and a little noise */
    v[i] = 250.0 + 0.37 * (double)i + 0.05 * (double)((int)(i % 400) - 200) +
           1e-6 * (double)(next() % 5);
  check_array("Holt series", &a, v, &cfg);
  check_array("Holt series of shape n x 1", &col, v, &cfg);
  if (!(c = parsed_chunk("Holt series", &a, v, &cfg, &n, &view))) {
    free(v);
    return;
  }
  CHECK(c[49] == 2 && c[50] <= 8 && c[51] <= 8, "trend: predictor %u, gains %u %u", c[49], c[50],
        c[51]);
  m = malloc(n);
  byte_refused(m, c, n, raw, 50, 9, "alpha 9/8");
  byte_refused(m, c, n, raw, 51, 200, "beta 200/8");
  /* gains left behind */
  byte_refused(m, c, n, raw, 49, 0, "gains with predictor 0");
  byte_refused(m, c, n, raw, 52, 1, "reserved byte after the gains");
  memcpy(m, c, n);
  m[50] ^= 3; /* other gains, valid ones: the payload's checksums still hold, the values not */
  reseal(m, n);
  {
    double* out = malloc(raw);
    int rc = parz_chunk_decode(m, n, out, raw, NULL);
    CHECK(rc != PARZ_OK || memcmp(out, v, raw) != 0, "other gains gave the same values");
    free(out);
  }
  truncations_refused(c, n, "Holt chunk");
  for (i = 0; i < n - view.payload_bytes; i++) { /* head bit flips */
    unsigned char* out = malloc(raw + 8);
    unsigned bit = (unsigned)(next() % 8);
    memcpy(m, c, n);
    m[i] ^= (unsigned char)(1u << bit);
    memset(out + raw, 0x77, 8);
    CHECK(parz_chunk_decode(m, n, out, raw, NULL) != PARZ_OK, "Holt head byte %zu bit %u accepted",
          i, bit);
    CHECK(out[raw] == 0x77, "Holt head flip %zu: written past the array", i);
    free(out);
  }
  free(m);
  free(c);
  { /* a random walk: the delta's own series, so predictor 0 */
    int64_t* y = (int64_t*)v;
    parz_array walk = test_array(PARZ_INT64, 1, count, 1, 1, 1);
    for (i = 0; i < count; i++)
      y[i] = (i ? y[i - 1] : 0) + (int64_t)(next() % 2001) - 1000;
    c = test_encode(&walk, y, &cfg, &n);
    CHECK(c && c[49] == 0 && c[50] == 0 && c[51] == 0, "random walk: predictor %u", c ? c[49] : 99);
    free(c);
  }
  free(v);
}

/* The value dictionary through the frame: the encoder writes it for a series of few distinct
 * values (serial and OpenMP alike, windows included) and not for a grid of the same values or
 * for a series of distinct ones; lying dictionaries and parameters are refused, truncations and
 * head flips too, and payload flips without checksums stay inside the array. */
static void dictionary(void) {
  static const double levels[7] = {-0.00022014, -0.00021537, 0.5, 1e300, -0.0, 3.25, 1e-310};
  const size_t count = 17000; /* more than a word of payload carries (256 values a bit) */
  parz_array a = test_array(PARZ_DOUBLE, 1, count, 1, 1, 1);
  parz_array grid = test_array(PARZ_DOUBLE, 2, 90, 100, 1, 1);
  parz_array f = test_array(PARZ_FLOAT, 3, 1, count, 1, 1);
  double* v = malloc(count * sizeof *v);
  float* g = malloc(count * sizeof *g);
  parz_chunk_config cfg = test_lossless_config(0, 0);
  unsigned char *c, *m;
  size_t n, i, at, raw = count * sizeof *v;
  parz_chunk_view view;
  unsigned level = 3;
  for (i = 0; i < count; i++) { /* a walk over the levels: mostly a step up or down */
    level = (level + 6 + (unsigned)(next() % 3)) % 7;
    v[i] = levels[level];
    g[i] = (float)levels[level]; /* 1e300 becomes +inf, 1e-310 zero */
  }
  check_array("dictionary series", &a, v, &cfg);
  check_array("dictionary series, float32 of shape 1 x n", &f, g, &cfg);
  c = test_encode(&grid, v, &cfg, &n);
  CHECK(c && c[48] != 128, "dictionary for a grid");
  free(c);
  c = test_encode(&f, g, &cfg, &n);
  CHECK(c && c[48] == 128, "float32 series: transform %u", c ? c[48] : 0);
  free(c);
  c = test_encode(&a, v, &cfg, &n);
  if (!c || parz_chunk_parse(c, n, &view, NULL) != PARZ_OK) {
    CHECK(0, "dictionary series: no chunk");
    free(c);
    free(v);
    free(g);
    return;
  }
  CHECK(c[48] == 128 && view.codec_data && parz_load64(view.codec_data) == 7,
        "dictionary series: transform %u, %llu words", c[48],
        view.codec_data ? (unsigned long long)parz_load64(view.codec_data) : 0ull);
  at = (size_t)(view.codec_data - c);
  m = malloc(n);
  { /* lying fields: the count, the list's bytes, padding, the transform on a grid's header */
    static const struct {
      size_t off;
      uint64_t value;
      const char* what;
    } lies[] = {{0, 0, "no word"},           {0, 9001, "more words than values"},
                {0, 6, "a word fewer"},      {0, 8, "a word more"},
                {8, 0, "an empty list"},     {8, 4096, "a list past its section"},
                {8, 1, "a list of one byte"}};
    unsigned k;
    for (k = 0; k < sizeof lies / sizeof lies[0]; k++) {
      memcpy(m, c, n);
      parz_store64(m + at + lies[k].off, lies[k].value);
      reseal(m, n);
      expect(m, n, raw, PARZ_ERR_FORMAT, lies[k].what);
    }
    memcpy(m, c, n);
    m[at + (size_t)view.codec_data_bytes - 1] ^= 0x40; /* the list's last byte, or its padding */
    reseal(m, n);
    {
      double* out = malloc(raw);
      int rc = parz_chunk_decode(m, n, out, raw, NULL);
      CHECK(rc != PARZ_OK || memcmp(out, v, raw) != 0, "a damaged dictionary gave the values");
      free(out);
    }
    { /* a payload of one word for its 17000 values: refused at parse, as without a dictionary */
      parz_error err;
      parz_chunk_view cut;
      const size_t head = n - (size_t)view.payload_bytes;
      memcpy(m, c, n);
      parz_store64(m + 88, 8);
      parz_store64(m + 96, 64);
      parz_store32(m + (size_t)(view.table_data - c) + 8, 64);
      reseal(m, head + 8);
      CHECK(parz_chunk_parse(m, head + 8, &cut, &err) == PARZ_ERR_FORMAT &&
                strstr(err.message, "64 bits for 17000 values"),
            "dictionary chunk, more values than payload bits: %s", err.message);
    }
    /* a scale that does not exist, its dictionary left behind */
    byte_refused(m, c, n, raw, 48, 127, "transform 127");
    /* integer images with the dictionary left behind */
    byte_refused(m, c, n, raw, 48, 0, "codec data without the dictionary");
  }
  truncations_refused(c, n, "dictionary chunk");
  for (i = 0; i < n - view.payload_bytes; i++) { /* head bit flips, resealed in the dictionary */
    unsigned char* out = malloc(raw + 8);
    unsigned bit = (unsigned)(next() % 8);
    const int in_dictionary = i >= at && i < at + (size_t)view.codec_data_bytes;
    int rc;
    memcpy(m, c, n);
    m[i] ^= (unsigned char)(1u << bit);
    if (in_dictionary)
      reseal(m, n);
    memset(out + raw, 0x77, 8);
    rc = parz_chunk_decode(m, n, out, raw, NULL);
    CHECK(rc != PARZ_OK || (in_dictionary && memcmp(out, v, raw) != 0),
          "dictionary chunk byte %zu bit %u accepted%s", i, bit,
          in_dictionary ? " with the same values" : "");
    CHECK(out[raw] == 0x77, "dictionary chunk flip %zu: written past the array", i);
    free(out);
  }
  free(c);
  { /* without checksums: payload flips, ranks past the dictionary among them, stay inside */
    parz_chunk_config off = cfg;
    off.checksum = PARZ_CHECKSUM_OFF;
    c = test_encode(&a, v, &off, &n);
    if (c && parz_chunk_parse(c, n, &view, NULL) == PARZ_OK)
      payload_flips_inside(m, c, n, view.payload_bytes, raw, 1, "dictionary chunk");
    free(c);
  }
  for (i = 0; i < count; i++) /* distinct values: no dictionary */
    v[i] = 1.0 + (double)i / 3.0;
  c = test_encode(&a, v, &cfg, &n);
  CHECK(c && c[48] != 128, "dictionary for distinct values");
  free(c);
  free(m);
  free(v);
  free(g);
}

/* The chunk of a (values v) under cfg holds in its payload, segment after segment, the core's
 * own coding of each segment under the chunk's transform and predictor: where the encoder's
 * choice coded the chunk (the row predictor against Lorenzo's, Holt's against the delta) and
 * kept the winner's segments, those and no others. Dictionary chunks are left out (their
 * segments code ranks). Returns the predictor byte, 255 where the chunk is not checked. */
static unsigned same_as_core(const char* what, const parz_array* a, const void* v,
                             const parz_chunk_config* cfg) {
  size_t n, s, bound;
  parz_chunk_view view;
  unsigned char *c = parsed_chunk(what, a, v, cfg, &n, &view), *seg;
  unsigned predictor, q = cfg->settings.run_q ? cfg->settings.run_q : PARZ_LL_RUN_Q;
  if (!c || view.codec != PARZ_CODEC_LOSSLESS || view.codec_params[0] == PARZ_LL_DICTIONARY) {
    free(c);
    return 255;
  }
  predictor = view.codec_params[1] == PARZ_LL_PREDICT_HOLT
                  ? PARZ_LL_HOLT(view.codec_params[2], view.codec_params[3])
                  : view.codec_params[1];
  bound = parz_ll_segment_bound(a, predictor, view.segment_blocks);
  seg = malloc(bound);
  for (s = 0; seg && s < view.nsegments; s++) {
    const uint64_t at = parz_chunk_segment_offset(&view, s);
    const uint64_t end = parz_chunk_segment_offset(&view, s + 1);
    size_t bytes = 0;
    int rc = parz_ll_encode_segment_q(a, v, view.codec_params[0], predictor, view.segment_blocks, s,
                                      q, seg, bound, &bytes, NULL);
    const int same =
        rc == PARZ_OK && 8u * bytes == end - at && !memcmp(view.payload + at / 8u, seg, bytes);
    CHECK(same,
          "%s: segment %zu of %llu (predictor %u) is not the core's (%zu bytes, chunk's %llu)",
          what, s, (unsigned long long)view.nsegments, view.codec_params[1], bytes,
          (unsigned long long)((end - at) / 8u));
    if (!same)
      break;
  }
  free(seg);
  predictor = view.codec_params[1];
  free(c);
  return predictor;
}

/* The encoder's choices keep the segments they code (lossless.h, parz_ll_segments) and the frame
 * copies those: the chunks are still the core's segments, under the writers'
 * runs and others, for the row predictor, Holt's and the delta, and for real arrays in slabs of
 * about 1 MiB (etopo5's include slabs the measure favours for rows that Lorenzo wins). */
static void kept_segments(const char* dir) {
  const size_t nrow = 6, len = 5000, count = nrow * len;
  parz_array a = test_array(PARZ_DOUBLE, 2, nrow, len, 1, 1);
  parz_array series = test_array(PARZ_DOUBLE, 1, count, 1, 1, 1);
  double* v = malloc(count * sizeof *v);
  parz_chunk_config cfg = test_lossless_config(0, 0);
  size_t i, k, n = 0;
  unsigned q, seen[4] = {0, 0, 0, 0};
  real_array* list;
  for (i = 0; i < count; i++) /* random walks, far apart: the rows' */
    v[i] =
        i % len ? v[i - 1] + 1e-3 * (double)((int)(next() % 2001) - 1000) : 1e4 * (double)(i / len);
  for (q = 0; q <= PARZ_LL_RUN_QMIN; q += PARZ_LL_RUN_QMIN) {
    cfg.settings.run_q = q;
    CHECK(same_as_core("rows kept", &a, v, &cfg) == PARZ_LL_PREDICT_ROWS,
          "rows kept, run_q %u: not the row predictor", q);
    CHECK(same_as_core("random walk kept", &series, v, &cfg) == PARZ_LL_PREDICT_ALL,
          "random walk kept, run_q %u: not the delta", q);
  }
  cfg.settings.run_q = 0;
  for (i = 0; i < count; i++) /* a trend: Holt's */
    v[i] = 250.0 + 0.37 * (double)i + 0.05 * (double)((int)(i % 400) - 200) +
           1e-3 * (double)(next() % 1000);
  CHECK(same_as_core("trend kept", &series, v, &cfg) == PARZ_LL_PREDICT_HOLT,
        "trend kept: not Holt's");
  free(v);
  if (!dir || !dir[0])
    return;
  list = real_arrays_load(dir, 0, &n);
  for (k = 0; k < n; k++) {
    parz_array slab = list[k].array;
    const size_t row = list[k].bytes / slab.shape[0],
                 rows = row < (1u << 20) ? (1u << 20) / row : 1;
    size_t first, total = slab.shape[0];
    for (first = 0; first < total; first += rows) {
      unsigned p;
      slab.shape[0] = total - first < rows ? total - first : rows;
      p = same_as_core(list[k].name, &slab, (const unsigned char*)list[k].data + first * row, &cfg);
      if (p < 4)
        seen[p]++;
    }
  }
  printf("kept segments: slabs of predictor 0 %u, 2 %u, 3 %u\n", seen[0], seen[2], seen[3]);
  real_arrays_free(list, n);
}

/* Every real array through the frame at the codec's own C, both predictors for 4D. */
static void real(const char* dir) {
  size_t n = 0, k;
  real_array* list = real_arrays_load(dir, 0, &n);
  for (k = 0; k < n; k++) {
    unsigned p, last = list[k].array.dims == 4 ? 1u : 0u;
    for (p = 0; p <= last; p++) {
      parz_chunk_config cfg = test_lossless_config(p, 0);
      size_t size = check_array(list[k].name, &list[k].array, list[k].data, &cfg);
      printf("%-24s predictor %u ratio %.3f\n", list[k].name, p,
             size ? (double)list[k].bytes / (double)size : 0.0);
    }
  }
  real_arrays_free(list, n);
}

/* Damaged segments of a chunk whose decoders read two segments side by side: the refusal names
 * the first damaged segment, whichever of a pair it is, and the values of the segments before it
 * come back. 1-D chunk of 6 segments of one block, no checksums; each case damages the coder
 * byte of some segments (9: no coder has it), or the code lengths of one. */
static void damaged_pairs(void) {
  parz_array a = test_array(PARZ_FLOAT, 1, 6 * 4096, 1, 1, 1);
  const size_t raw = 6 * 4096 * 4;
  float* v = malloc(raw);
  float* out = malloc(raw);
  parz_chunk_config cfg = test_lossless_config(0, 1);
  static const struct {
    unsigned damaged; /* a bit per segment: its coder byte set to 9 */
    unsigned lengths; /* a bit per segment: its first code lengths made no prefix code */
    unsigned first;   /* the segment the refusal must name */
  } cases[] = {{2, 0, 1},  {3, 0, 0}, {1, 0, 0}, {8, 0, 3}, {4 | 32, 0, 2},
               {32, 0, 5}, {0, 2, 1}, {2, 1, 0}, {0, 8, 3}, {16, 8, 3}};
  unsigned char *c, *m;
  size_t n, i, k;
  parz_chunk_view view;
  cfg.checksum = PARZ_CHECKSUM_OFF;
  for (i = 0; i < 6 * 4096; i++)
    v[i] = (float)(next() % 100000) * 0.25f;
  c = test_encode(&a, v, &cfg, &n);
  if (!c || parz_chunk_parse(c, n, &view, NULL) != PARZ_OK)
    goto done;
  CHECK(view.nsegments == 6, "%llu segments, not 6", (unsigned long long)view.nsegments);
  m = malloc(n);
  for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const size_t t = HEADER + 16u * parz_load32(c + 104), w = c[13];
    size_t at = n - (size_t)view.payload_bytes, s;
    char want[64];
    parz_error err;
    int rc;
    memcpy(m, c, n);
    for (s = 0; s < 6; s++) {
      const uint64_t bits =
          w == 2 ? parz_load16(c + t + 8 + s * w) : parz_load32(c + t + 8 + s * w);
      /* coder 3's code lengths start after its 3-byte head */
      const size_t lengths = m[at] == PARZ_LL_CODER_RUNS ? PARZ_LL_RUN_HEAD : 1;
      CHECK(m[at] >= 1 && m[at] <= 3, "segment %zu of coder %u, not a coded one", s, m[at]);
      if (cases[k].lengths >> s & 1)
        m[at + lengths] = 0x11; /* two codes of one bit, then more: no prefix code */
      if (cases[k].damaged >> s & 1)
        m[at] = 9;
      at += (size_t)(bits / 8);
    }
    memset(out, 0, raw);
    rc = parz_chunk_decode(m, n, out, raw, &err);
    snprintf(want, sizeof want, "lossless segment %u:", cases[k].first);
    CHECK(rc == PARZ_ERR_STREAM && strstr(err.message, want),
          "case %zu: %d (%s), expected a refusal of segment %u", k, rc, rc ? err.message : "",
          cases[k].first);
    CHECK(memcmp(out, v, cases[k].first * 4096u * 4u) == 0,
          "case %zu: the segments before segment %u not decoded", k, cases[k].first);
  }
  free(m);
done:
  free(c);
  free(out);
  free(v);
}

int main(int argc, char** argv) {
  header_fields();
  bad_settings();
  run_lengths();
  stored_instead();
  hostile();
  damaged_pairs();
  holt();
  rows();
  dictionary();
  special_patterns();
  kept_segments(argc > 1 ? argv[1] : NULL);
  if (argc > 2)
    kept_segments(argv[2]);
  if (argc > 1 && argv[1][0])
    real(argv[1]);
  if (argc > 2)
    real(argv[2]);
  return test_finish("test_lossless_chunk");
}
