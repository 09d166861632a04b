/* The error-bounded codec's core (codec/bounded/): the bound on every value of crafted arrays
 * (NaN, Inf, huge, subnormal, odd shapes, every rank and predictor), exceptions and masked values
 * restored bit for bit; hostile codebooks, segments and codes refused with an error.
 *
 *   test_bounded                 crafted arrays and hostile input
 *   test_bounded DIR             also every real array of DIR, both bounds, every predictor */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_book_read.h"
#include "bounded_chunk.h"
#include "bounded_codec.h"
#include "bounded_lengths.h"
#include "check.h"
#include "chunk_keep.h"
#include "fnv_hash.h"
#include "huffman.h"
#include "real_arrays.h"
#include "xorshift.h"

/* The fingerprint of every chunk roundtrip encoded with a predictor named (not chosen) since it
 * was last reset: the bytes must not change once a chunk format carries them. */
static uint64_t written_hash = FNV_START;

/* The fingerprint of c's bytes, continued from h. */
static uint64_t chunk_hash(uint64_t h, const parz_bounded_chunk* c) {
  uint64_t step;
  memcpy(&step, &c->step, 8);
  h = fnv_u64(fnv_u64(h, step), (uint64_t)c->runs);
  h = fnv_bytes(fnv_u64(h, c->book_bytes), c->book, c->book_bytes);
  h = fnv_bytes(fnv_u64(h, c->payload_bits), c->payload, c->payload_bytes);
  for (size_t i = 0; i < c->nsegments; i++)
    h = fnv_u64(h, c->seg_bits[i]);
  for (size_t i = 0; i < c->nexceptions; i++)
    h = fnv_u64(fnv_u64(h, c->exc_pos[i]), c->exc_bits[i]);
  return fnv_u64(h, c->nmasked);
}

static void note_written(const parz_bounded_chunk* c) {
  written_hash = chunk_hash(written_hash, c);
}

/* Jobs that run a pass's parts last first: a forward pass whose parts read what another part of
 * the same pass writes codes differently from the serial one. */
static void run_backwards(void* ctx, uint64_t n, void (*job)(void* arg, uint64_t i), void* arg) {
  (void)ctx;
  for (uint64_t i = n; i-- > 0;)
    job(arg, i);
}

/* The chunk c as the encoder writes it on jobs of 5 and of 64 parts, run backwards. */
static void same_on_jobs(const char* what, const parz_bounded_shape* s, const void* src, double eb,
                         const parz_bounded_options* opt, const parz_bounded_chunk* c) {
  for (uint64_t parts = 5; parts <= 64; parts += 59) {
    parz_jobs jobs = {run_backwards, NULL, parts};
    parz_bounded_options o = *opt;
    parz_bounded_chunk d;
    parz_error err;
    o.jobs = &jobs;
    int rc = parz_bounded_chunk_encode(s, src, eb, &o, &d, &err);
    CHECK(rc == PARZ_OK && d.predictor == c->predictor &&
              chunk_hash(FNV_START, &d) == chunk_hash(FNV_START, c),
          "%s: predictor %d, runs %d: the chunk differs on %llu parts: %s", what, opt->predictor,
          opt->runs, (unsigned long long)parts, rc ? err.message : "");
    if (rc == PARZ_OK)
      parz_bounded_chunk_free(&d);
  }
}

static double uniform(void) { return (double)(xorshift_next() >> 11) / 9007199254740992.0; }

static double get(const void* p, parz_type t, size_t i) {
  return t == PARZ_FLOAT ? ((const float*)p)[i] : ((const double*)p)[i];
}

/* The decoder a chunk's decoders read from the codebook in[0..size) (parz_bounded_decoder_read)
 * against the one of the whole alphabet's lengths parz_bounded_book_read gives, built by
 * parz_huff_decoder_init over all 65,560 symbols: the same status and message, and when
 * accepted the same table, symbols and limits; parz_bounded_decoder_new gives that decoder
 * too. Returns whether the codebook was accepted. */
static int same_decoder(const char* what, const uint8_t* in, size_t size) {
  parz_bounded_book b = {(uint8_t*)malloc(PARZ_BOUNDED_SYMBOLS), NULL};
  parz_bounded_decoder* d = NULL;
  parz_error e1, e2;
  size_t used = 0;
  memset(&e1, 0, sizeof e1);
  memset(&e2, 0, sizeof e2);
  int rc1 = parz_bounded_book_read(in, size, &b, &used, &e1);
  int rc2 = parz_bounded_decoder_read(in, rc1 == PARZ_OK ? used : size, 1, &d, &e2);
  CHECK(rc1 == rc2 && (rc1 == PARZ_OK || !strcmp(e1.message, e2.message)),
        "%s: book read %d (%s), decoder read %d (%s)", what, rc1, e1.message, rc2, e2.message);
  if (rc1 == PARZ_OK && used < size) {
    parz_bounded_decoder* longer = NULL;
    CHECK(parz_bounded_decoder_read(in, size, 1, &longer, &e2) == PARZ_ERR_STREAM && !longer,
          "%s: a codebook of %zu bytes read in a field of %zu", what, used, size);
  }
  if (rc1 == PARZ_OK && d) {
    size_t n = 0;
    for (uint32_t s = 0; s < PARZ_BOUNDED_SYMBOLS; s++)
      n += b.len[s] != 0;
    const size_t words = parz_huff_decoder_words(n, 12);
    uint32_t* mem = (uint32_t*)malloc(words * sizeof *mem);
    parz_huff_decoder g;
    parz_bounded_decoder* dn = parz_bounded_decoder_new(&b, &e1);
    CHECK(parz_huff_decoder_init(&g, b.len, PARZ_BOUNDED_SYMBOLS, PARZ_BOUNDED_MAX_LEN, 12, mem,
                                 &e1) == PARZ_OK &&
              dn != NULL,
          "%s: whole-alphabet decoder: %s", what, e1.message);
    const parz_bounded_decoder* two[2] = {d, dn};
    for (int k = 0; k < 2 && dn; k++) {
      const parz_huff_decoder* h = parz_bounded_decoder_huff(two[k]);
      int same = h->table_bits == g.table_bits && h->max_len == g.max_len &&
                 h->count[0] == g.count[0] &&
                 !memcmp(h->table, g.table, sizeof(uint32_t) << g.table_bits) &&
                 !memcmp(h->sorted, g.sorted, n * sizeof(uint32_t)) &&
                 parz_bounded_decoder_words(two[k]) == words;
      for (unsigned l = 1; l <= g.max_len; l++)
        same &= h->first[l] == g.first[l] && h->count[l] == g.count[l] && h->index[l] == g.index[l];
      CHECK(same, "%s: %s's decoder differs from the whole alphabet's (%zu symbols)", what,
            k ? "parz_bounded_decoder_new" : "parz_bounded_decoder_read", n);
    }
    parz_bounded_decoder_free(dn);
    free(mem);
  }
  parz_bounded_decoder_free(d);
  free(b.len);
  return rc1 == PARZ_OK;
}

/* Encodes and decodes; checks every value: within eb where finite and not the fill value, bit
 * for bit otherwise. Returns the chunk's payload bytes, or -1 when a step failed. */
static long roundtrip(const char* what, const parz_bounded_shape* s, const void* src, double eb,
                      int predictor, int runs, size_t segment, const void* fill) {
  size_t n = parz_bounded_count(s), w = s->type == PARZ_FLOAT ? 4 : 8;
  parz_bounded_options opt = {predictor, runs, segment, fill, NULL, NULL};
  parz_bounded_chunk c;
  parz_error err;
  int rc = parz_bounded_chunk_encode(s, src, eb, &opt, &c, &err);
  CHECK(rc == PARZ_OK, "%s: encode (predictor %d): %s", what, predictor, err.message);
  if (rc)
    return -1;
  if (predictor)
    note_written(&c);
  same_decoder(what, c.book, c.book_bytes);
  if (n <= ((size_t)1 << 16))
    same_on_jobs(what, s, src, eb, &opt, &c);
  void* dst = malloc(n * w);
  rc = parz_bounded_chunk_decode(&c, dst, &err);
  CHECK(rc == PARZ_OK, "%s: decode (predictor %d): %s", what, predictor, err.message);
  size_t bad = 0, first = 0;
  double worst = 0;
  for (size_t i = 0; rc == PARZ_OK && i < n; i++) {
    const unsigned char* a = (const unsigned char*)src + i * w;
    const unsigned char* b = (const unsigned char*)dst + i * w;
    double x = get(src, s->type, i), y = get(dst, s->type, i);
    int exact = (fill && memcmp(a, fill, w) == 0) || !isfinite(x);
    int ok = exact ? memcmp(a, b, w) == 0 : fabs(x - y) <= eb;
    if (!exact && fabs(x - y) > worst)
      worst = fabs(x - y);
    if (!ok && !bad++)
      first = i;
  }
  CHECK(bad == 0, "%s: predictor %d: %zu values miss (first at %zu: %.17g -> %.17g, eb %g)", what,
        predictor, bad, first, get(src, s->type, first), get(dst, s->type, first), eb);
  long bytes = rc == PARZ_OK ? (long)c.payload_bytes : -1;
  free(dst);
  parz_bounded_chunk_free(&c);
  return bytes;
}

static void all_predictors(const char* what, const parz_bounded_shape* s, const void* src,
                           double eb, const void* fill) {
  /* predictor 0: the encoder's choice; runs 2: likewise */
  for (int p = 0; p <= PARZ_BOUNDED_PREDICTORS; p++) {
    long bytes[3];
    for (int runs = 0; runs <= 2; runs++)
      bytes[runs] = roundtrip(what, s, src, eb, p, runs, 64, fill);
    /* the encoder's choice of runs is never the larger payload (one predictor fixed) */
    long least = bytes[0] < bytes[1] ? bytes[0] : bytes[1];
    CHECK(p == 0 || bytes[2] == least, "%s: predictor %d: runs chosen %ld bytes, least %ld", what,
          p, bytes[2], least);
  }
}

/* Smooth values with holes and hard values: NaN, +-Inf, huge, subnormal, the fill value, values
 * far off the grid; every rank and a few odd extents. */
static void crafted(void) {
  static const size_t shapes[][5] = {{1, 1},           {1, 37},        {2, 1, 1},
                                     {2, 5, 17},       {3, 9, 4, 33},  {4, 3, 2, 7, 11},
                                     {4, 1, 1, 1, 70}, {3, 16, 16, 16}};
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
    for (int t = 0; t < 2; t++) {
      parz_bounded_shape s = {t ? PARZ_DOUBLE : PARZ_FLOAT, (unsigned)shapes[si][0], {0}};
      for (unsigned k = 0; k < s.dims; k++)
        s.shape[k] = shapes[si][k + 1];
      size_t n = parz_bounded_count(&s), w = t ? 8 : 4;
      unsigned char* v = (unsigned char*)malloc(n * w);
      float ffill = -1e10f;
      double dfill = -1e10;
      const void* fill = t ? (const void*)&dfill : (const void*)&ffill;
      for (size_t i = 0; i < n; i++) {
        double x = 100 * sin(0.05 * (double)i) + uniform();
        switch (xorshift_next() % 24) {
          case 0: x = NAN; break;
          case 1: x = INFINITY; break;
          case 2: x = -INFINITY; break;
          case 3: x = t ? DBL_MAX : FLT_MAX; break;
          case 4: x = t ? 4.9e-324 : 1.4e-45; break;
          case 5: x = 1e30; break;
          case 6: x = t ? dfill : ffill; break;
          case 7: x = -3e9; break;
          default: break;
        }
        if (t) {
          memcpy(v + i * 8, &x, 8);
        } else {
          float f = (float)x;
          memcpy(v + i * 4, &f, 4);
        }
      }
      char what[64];
      snprintf(what, sizeof what, "crafted %s rank %u n %zu", t ? "double" : "float", s.dims, n);
      all_predictors(what, &s, v, 1e-2, fill);
      all_predictors(what, &s, v, 1e-3, NULL);
      /* an eb far below the values' spacing: nearly every value an exception */
      all_predictors(what, &s, v, 1e-300, fill);
      /* an eb so large that the whole range is a few steps */
      all_predictors(what, &s, v, 1e12, NULL);
      free(v);
    }
}

/* The estimate of a code's bytes from the codes' range equals the whole alphabet's: counts with
 * runs, Huffman lengths, the codebook's bytes and the payload's bits, on codes of narrow and wide
 * ranges, one-sided ones, escapes, zero runs and a single symbol. */
static void estimate(void) {
  static const int32_t spans[] = {0, 1, 3, 40, 2000, 40000, 70000};
  const size_t n = 5000;
  int32_t* codes = (int32_t*)malloc(n * sizeof *codes);
  uint64_t* freq = (uint64_t*)malloc(PARZ_BOUNDED_SYMBOLS * sizeof *freq);
  uint8_t* out = (uint8_t*)malloc(PARZ_BOUNDED_BOOK_BYTES_MAX);
  parz_bounded_book book = {(uint8_t*)malloc(PARZ_BOUNDED_SYMBOLS), NULL};
  for (size_t si = 0; si < sizeof spans / sizeof spans[0]; si++)
    for (int shape = 0; shape < 4; shape++) {
      const int32_t span = spans[si];
      for (size_t i = 0; i < n; i++) {
        int32_t v = span ? (int32_t)(xorshift_next() % (2 * (uint64_t)span + 1)) - span : 0;
        if (shape == 1 && v < 0) /* one-sided */
          v = -v;
        if (shape == 2 && i % 100 < 60) /* long zero runs */
          v = 0;
        if (shape == 3 && i % 7 == 0) /* escapes */
          v = (int32_t)(xorshift_next() % 1000000) + 40000;
        codes[i] = v;
      }
      /* the same over the whole alphabet */
      const parz_bounded_range all = {0, PARZ_BOUNDED_SYMBOLS};
      size_t want = SIZE_MAX, got = parz_bounded_estimate_bytes(codes, n, 256, NULL);
      parz_bounded_count_symbols(codes, n, 256, &all, NULL, freq, NULL, NULL);
      if (!parz_huff_lengths(freq, PARZ_BOUNDED_SYMBOLS, PARZ_BOUNDED_MAX_LEN, book.len, NULL)) {
        size_t b = parz_bounded_book_write(book.len, &all, out, PARZ_BOUNDED_BOOK_BYTES_MAX);
        if (b)
          want =
              b + (size_t)((parz_bounded_coded_bits(freq, book.len, PARZ_BOUNDED_SYMBOLS) + 7) / 8);
      }
      CHECK(got == want && want != SIZE_MAX, "estimate: span %d, shape %d: %zu bytes, not %zu",
            (int)span, shape, got, want);
    }
  free(codes), free(freq), free(out), free(book.len);
}

/* The code words of a range's lengths (parz_bounded_range_codes) are the whole alphabet's words
 * of the expanded lengths, unused symbols 0, for ranges narrow and wide, one-sided and far from
 * zero. */
static void range_codes(void) {
  static const int32_t lo[] = {0, -3, -40, 5, -2000, 1000, -32000};
  static const int32_t hi[] = {0, 3, 17, 60, 2000, 1900, 32000};
  const size_t n = 20000;
  int32_t* codes = (int32_t*)malloc(n * sizeof *codes);
  uint64_t* freq = (uint64_t*)malloc(PARZ_BOUNDED_SYMBOLS * sizeof *freq);
  uint8_t* len = (uint8_t*)malloc(PARZ_BOUNDED_SYMBOLS);
  uint8_t* all = (uint8_t*)malloc(PARZ_BOUNDED_SYMBOLS);
  uint32_t* got = (uint32_t*)malloc(PARZ_BOUNDED_SYMBOLS * sizeof *got);
  uint32_t* want = (uint32_t*)malloc(PARZ_BOUNDED_SYMBOLS * sizeof *want);
  for (size_t k = 0; k < sizeof lo / sizeof lo[0]; k++) {
    parz_bounded_range r;
    parz_error err;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) /* skewed towards lo, zeros in runs, a few escapes */
      codes[i] = i % 50 < 10 ? 0
                 : i % 97 == 0
                     ? 5000000
                     : lo[k] + (int32_t)(xorshift_next() %
                                         (xorshift_next() % (uint64_t)(hi[k] - lo[k] + 1) + 1));
    parz_bounded_code_range(codes, n, &r, NULL);
    parz_bounded_count_symbols(codes, n, 512, &r, NULL, freq, NULL, NULL);
    int rc = parz_bounded_book_lengths(freq, r.m, len, &err);
    CHECK(rc == PARZ_OK, "range codes %d..%d: lengths: %s", lo[k], hi[k], rc ? err.message : "");
    if (rc != PARZ_OK)
      continue;
    parz_bounded_book_expand(len, &r, all);
    memset(got, 0xA5, PARZ_BOUNDED_SYMBOLS * sizeof *got);
    rc = parz_bounded_range_codes(len, &r, got, &err) |
         parz_huff_codes(all, PARZ_BOUNDED_SYMBOLS, PARZ_BOUNDED_MAX_LEN, want, &err);
    CHECK(rc == PARZ_OK, "range codes %d..%d: %s", lo[k], hi[k], rc ? err.message : "");
    for (size_t s = 0; rc == PARZ_OK && s < PARZ_BOUNDED_SYMBOLS; s++)
      bad += got[s] != want[s];
    CHECK(bad == 0, "range codes %d..%d (m %zu): %zu of the alphabet's words differ", lo[k], hi[k],
          r.m, bad);
  }
  free(codes), free(freq), free(len), free(all), free(got), free(want);
}

/* The choice between the codes with zero runs and without (parz_bounded_range_lengths, which
 * leaves out the package-merge of a code that Huffman's unlimited code rules out) against both
 * codes built in full: the same kept lengths and the same choice, on the calling thread and on
 * jobs, for tables whose codes fit the limit or need package-merge, bounds far apart and close,
 * and equal tables (the plain code kept on a tie). */
static void range_choice(void) {
  const size_t cap = 6000;
  uint64_t* plain = (uint64_t*)malloc(cap * sizeof *plain);
  uint64_t* runs = (uint64_t*)malloc(cap * sizeof *runs);
  uint8_t* want = (uint8_t*)malloc(2 * cap);
  uint8_t* got = (uint8_t*)malloc(2 * cap);
  size_t bad = 0, cases = 0, deep = 0;
  for (unsigned t = 0; t < 1500; t++) {
    const unsigned kind = t % 5;
    const size_t m = PARZ_BOUNDED_HEAD + 2 + (size_t)(xorshift_next() % (t % 3 ? 300 : 5000));
    parz_bounded_range r = {0, m};
    memset(plain, 0, m * sizeof *plain);
    memset(runs, 0, m * sizeof *runs);
    uint64_t a = 1, b = 1;
    for (size_t s = PARZ_BOUNDED_HEAD; s < m; s++) {
      uint64_t w;
      if (kind == 0) { /* Fibonacci's weights: Huffman's code as deep as it gets */
        w = a;
        const uint64_t c = a + b;
        a = b;
        b = c < ((uint64_t)1 << 40) ? c : (uint64_t)1 << 40;
      } else if (kind == 1) { /* steep: deeper than the limit for a few hundred symbols */
        w = ((uint64_t)1 << 40) >> ((s - PARZ_BOUNDED_HEAD) * 40 / (m - PARZ_BOUNDED_HEAD));
      } else {
        w = xorshift_next() % (kind == 2 ? 5 : 1000000);
      }
      plain[s] = w;
      runs[s] = w;
    }
    /* the zeros' symbol and the escape; runs take zeros (and raw bits) away, or barely */
    const size_t zero = PARZ_BOUNDED_HEAD + (m - PARZ_BOUNDED_HEAD) / 2;
    plain[zero] += xorshift_next() % ((uint64_t)1 << 36);
    plain[0] = xorshift_next() % 3;
    runs[0] = plain[0];
    runs[zero] = t % 4 == 0 ? plain[zero] : plain[zero] - plain[zero] / (1 + t % 7 * 1000);
    for (unsigned k = 1; k < PARZ_BOUNDED_HEAD; k++)
      runs[k] = t % 4 == 1 ? 0 : (plain[zero] - runs[zero]) >> (k + t % 3);
    if (t % 11 == 0)
      memcpy(runs, plain, m * sizeof *plain);
    /* both codes in full, and the choice's rule */
    int rc = parz_bounded_book_lengths(plain, m, want, NULL) |
             parz_bounded_book_lengths(runs, m, want + m, NULL);
    if (rc != PARZ_OK)
      continue;
    const int want_runs =
        parz_bounded_coded_bits(runs, want + m, m) < parz_bounded_coded_bits(plain, want, m);
    for (unsigned s = 0; s < m; s++)
      deep += want[s] == PARZ_BOUNDED_MAX_LEN || want[m + s] == PARZ_BOUNDED_MAX_LEN;
    for (int on_jobs = 0; on_jobs < 2; on_jobs++) {
      parz_jobs jobs = {run_backwards, NULL, 2};
      const uint8_t* kept = NULL;
      int use_runs = -1;
      parz_error err;
      memset(got, 0xA5, 2 * m);
      rc = parz_bounded_range_lengths(&r, plain, runs, 2, got, &kept, &use_runs,
                                      on_jobs ? &jobs : NULL, &err);
      cases++;
      if (rc != PARZ_OK || use_runs != want_runs || kept != got + (use_runs ? m : 0) ||
          memcmp(kept, want + (want_runs ? m : 0), m) != 0)
        bad++;
    }
  }
  CHECK(bad == 0, "range choice: %zu of %zu choices differ from both codes built", bad, cases);
  CHECK(deep > 0, "range choice: no code reached the length limit");
  free(plain), free(runs), free(want), free(got);
}

/* A chunk large enough that every pass of the forward pass is cut into parts (a part holds
 * thousands of values): smooth values with NaN and fill values, every predictor, the same chunk
 * on jobs run last first as serially. */
static void large_on_jobs(void) {
  parz_bounded_shape s = {PARZ_FLOAT, 3, {40, 70, 90}};
  const size_t n = parz_bounded_count(&s);
  float* v = (float*)malloc(n * sizeof *v);
  const float fill = -1e10f;
  for (size_t i = 0; i < n; i++)
    v[i] = i % 997 == 0 ? NAN : i % 89 == 0 ? fill : (float)(50 * sin(0.002 * (double)i));
  for (int p = 0; p <= PARZ_BOUNDED_PREDICTORS; p++) {
    parz_bounded_options opt = {p, 2, 4096, &fill, NULL, NULL};
    parz_bounded_chunk c;
    parz_error err;
    int rc = parz_bounded_chunk_encode(&s, v, 1e-3, &opt, &c, &err);
    CHECK(rc == PARZ_OK, "large chunk, predictor %d: %s", p, rc ? err.message : "");
    if (rc == PARZ_OK) {
      same_on_jobs("large chunk", &s, v, 1e-3, &opt, &c);
      parz_bounded_chunk_free(&c);
    }
  }
  free(v);
}

/* Bad arguments refused with a message. */
static void arguments(void) {
  float v[4] = {1, 2, 3, 4};
  parz_bounded_shape s = {PARZ_FLOAT, 1, {4}};
  parz_bounded_options opt = {PARZ_BOUNDED_CUBIC, 1, 64, NULL, NULL, NULL};
  parz_bounded_chunk c;
  parz_error err;
  double bad_eb[] = {0, -1, NAN, INFINITY, DBL_MAX};
  for (size_t i = 0; i < sizeof bad_eb / sizeof bad_eb[0]; i++)
    CHECK(parz_bounded_chunk_encode(&s, v, bad_eb[i], &opt, &c, &err) == PARZ_ERR_PARAM,
          "eb %g accepted", bad_eb[i]);
  parz_bounded_shape st = {PARZ_INT32, 1, {4}};
  CHECK(parz_bounded_chunk_encode(&st, v, 1, &opt, &c, &err) == PARZ_ERR_TYPE, "int32 accepted");
  parz_bounded_shape s0 = {PARZ_FLOAT, 2, {4, 0}};
  CHECK(parz_bounded_chunk_encode(&s0, v, 1, &opt, &c, &err) == PARZ_ERR_DIMS, "extent 0 taken");
  parz_bounded_options o2 = opt;
  o2.segment = 0;
  CHECK(parz_bounded_chunk_encode(&s, v, 1, &o2, &c, &err) == PARZ_ERR_PARAM, "segment 0 taken");
  o2 = opt;
  o2.runs = 3;
  CHECK(parz_bounded_chunk_encode(&s, v, 1, &o2, &c, &err) == PARZ_ERR_PARAM, "runs 3 taken");
  o2 = opt;
  o2.predictor = 9;
  CHECK(parz_bounded_chunk_encode(&s, v, 1, &o2, &c, &err) == PARZ_ERR_PARAM, "predictor 9 taken");
  CHECK(strstr(err.message, "9") != NULL, "message does not name the predictor: %s", err.message);
}

/* A codebook written bit by bit: a one-byte span, then the length codes (bounded_huff.c). */
typedef struct {
  uint8_t b[64];
  size_t bits;
} book_bytes;

static void book_put(book_bytes* t, uint32_t v, unsigned n) {
  for (unsigned i = 0; i < n; i++, t->bits++)
    if (v >> i & 1u)
      t->b[1 + t->bits / 8] |= (uint8_t)(1u << (t->bits % 8));
}
static void book_len(book_bytes* t, unsigned l) { /* an explicit length */
  book_put(t, 3, 3);
  book_put(t, l, 5);
}
static size_t book_size(const book_bytes* t) { return 1 + (t->bits + 7) / 8; }

/* A chunk without runs refuses a codebook that codes a run symbol, with the escape before it or
 * not, and takes one whose first symbols past the escape are residuals. */
static void run_symbols_refused(void) {
  static const struct {
    unsigned first, second; /* two symbols of length 1 */
    int refused;            /* without runs */
  } cases[] = {{0, 1, 1}, {0, 24, 1}, {1, 2, 1}, {24, 30, 1}, {0, 25, 0}, {25, 26, 0}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    book_bytes t;
    parz_bounded_decoder* d = NULL;
    parz_error err;
    memset(&t, 0, sizeof t);
    t.b[0] = (uint8_t)(cases[k].second + 1); /* the span */
    if (cases[k].first) /* the unused symbols before the first: a run of 2^x + r */
      book_put(&t, 7, 3), book_put(&t, (uint32_t)parz_bitlen64(cases[k].first) - 1, 5),
          book_put(&t, cases[k].first - (1u << (parz_bitlen64(cases[k].first) - 1)),
                   parz_bitlen64(cases[k].first) - 1);
    book_len(&t, 1);
    const unsigned gap = cases[k].second - cases[k].first - 1;
    if (gap)
      book_put(&t, 7, 3), book_put(&t, (uint32_t)parz_bitlen64(gap) - 1, 5),
          book_put(&t, gap - (1u << (parz_bitlen64(gap) - 1)), parz_bitlen64(gap) - 1);
    book_put(&t, 0, 1); /* the previous length, 1 */
    const size_t size = book_size(&t);
    CHECK(same_decoder("two symbols", t.b, size), "codebook of symbols %u and %u refused",
          cases[k].first, cases[k].second);
    int rc = parz_bounded_decoder_read(t.b, size, 0, &d, &err);
    CHECK(cases[k].refused ? rc == PARZ_ERR_STREAM && !d && strstr(err.message, "run symbol")
                           : rc == PARZ_OK && d,
          "symbols %u and %u in a chunk without runs: status %d (%s)", cases[k].first,
          cases[k].second, rc, rc ? err.message : "");
    parz_bounded_decoder_free(d);
  }
}

/* The codebook's grammar (bounded_huff.c) read here one bit at a time, with every check of
 * parz_bounded_book_read: 1 with the lengths in len (PARZ_BOUNDED_SYMBOLS entries) and the bytes
 * read in *used, 0 for a codebook it refuses. The library reads most tokens several at a time;
 * this reading is the one it must agree with. */
static int reference_book(const uint8_t* in, size_t size, uint8_t* len, size_t* used) {
  const uint64_t full = (uint64_t)1 << PARZ_BOUNDED_MAX_LEN;
  uint64_t span = 0, pos = 0, kraft = 0;
  size_t at = 0, m = 0;
  for (unsigned shift = 0;; shift += 7) {
    if (shift >= 35 || at >= size)
      return 0;
    span |= (uint64_t)(in[at] & 0x7Fu) << shift;
    if (!(in[at++] & 0x80u))
      break;
  }
  if (span == 0 || span > PARZ_BOUNDED_SYMBOLS)
    return 0;
  const uint64_t end = (uint64_t)(size - at) * 8;
  memset(len, 0, PARZ_BOUNDED_SYMBOLS);
#define REF_BITS(n, v)                                           \
  do {                                                           \
    if (pos + (n) > end)                                         \
      return 0;                                                  \
    v = 0;                                                       \
    for (unsigned i_ = 0; i_ < (n); i_++, pos++)                 \
      v |= (uint32_t)(in[at + pos / 8] >> (pos % 8) & 1u) << i_; \
  } while (0)
  unsigned prev = 0;
  for (uint64_t sym = 0; sym < span;) {
    uint32_t bit, kind, third, x, r;
    unsigned l;
    REF_BITS(1, bit);
    if (!bit) {
      l = prev;
    } else {
      REF_BITS(1, kind);
      REF_BITS(1, third);
      if (!kind) { /* the previous length +- 1 */
        if (third ? prev < 2 : prev >= PARZ_BOUNDED_MAX_LEN)
          return 0;
        l = third ? prev - 1 : prev + 1;
      } else {
        REF_BITS(5, x);
        if (third) { /* 2^x + r unused symbols */
          if (x > 24)
            return 0;
          REF_BITS(x, r);
          if (((uint64_t)1 << x) + r > span - sym)
            return 0;
          sym += ((uint64_t)1 << x) + r;
          continue;
        }
        if (x > PARZ_BOUNDED_MAX_LEN)
          return 0;
        l = x;
      }
    }
    if (l) {
      len[sym] = (uint8_t)l;
      kraft += full >> l;
      m++;
    }
    prev = l;
    sym++;
  }
#undef REF_BITS
  if (!m || kraft > full || (kraft < full && !(m == 1 && kraft == full / 2)))
    return 0;
  *used = at + (size_t)((pos + 7) / 8);
  return 1;
}

/* parz_bounded_book_read against reference_book on the codebook in[0..size): the same verdict,
 * and when both take it the same lengths and bytes used. Returns whether the library took it. */
static int as_reference(const char* what, const uint8_t* in, size_t size, uint8_t* ref) {
  parz_bounded_book b = {(uint8_t*)malloc(PARZ_BOUNDED_SYMBOLS), NULL};
  size_t used = 0, ref_used = 0;
  parz_error err;
  const int rc = parz_bounded_book_read(in, size, &b, &used, &err);
  const int ok = reference_book(in, size, ref, &ref_used);
  CHECK((rc == PARZ_OK) == ok, "%s (%zu bytes): library %s, reference %s", what, size,
        rc == PARZ_OK ? "takes it" : err.message, ok ? "takes it" : "refuses it");
  if (rc == PARZ_OK && ok)
    CHECK(used == ref_used && !memcmp(b.len, ref, PARZ_BOUNDED_SYMBOLS),
          "%s (%zu bytes): lengths or bytes used (%zu, reference %zu) differ", what, size, used,
          ref_used);
  free(b.len);
  return rc == PARZ_OK;
}

/* Codebooks of thousands of symbols whose lengths repeat in runs of every size (the reader takes
 * a run of repeated lengths at once, as far as its window holds), with gaps of unused symbols,
 * whole and cut short near their end: each decoder equals the whole alphabet's. */
static void long_books(void) {
  parz_bounded_book b = {(uint8_t*)malloc(PARZ_BOUNDED_SYMBOLS), NULL};
  uint8_t* out = (uint8_t*)malloc(PARZ_BOUNDED_BOOK_BYTES_MAX);
  uint8_t* ref = (uint8_t*)malloc(PARZ_BOUNDED_SYMBOLS);
  const parz_bounded_range all = {0, PARZ_BOUNDED_SYMBOLS};
  int built = 0;
  size_t damaged = 0; /* damaged codebooks still taken */
  for (int round = 0; round < 40; round++) {
    /* a complete code: each symbol the drifting length l, or the shortest longer one that still
     * fits the Kraft sum left (in units of 2^-20), until the sum is spent */
    uint64_t left = (uint64_t)1 << PARZ_BOUNDED_MAX_LEN, s = xorshift_next() % 64;
    unsigned l = 6 + (unsigned)(xorshift_next() % 7);
    memset(b.len, 0, PARZ_BOUNDED_SYMBOLS);
    while (left && s < PARZ_BOUNDED_SYMBOLS) {
      unsigned k = l;
      while (((uint64_t)1 << (PARZ_BOUNDED_MAX_LEN - k)) > left)
        k++;
      b.len[s] = (uint8_t)k;
      left -= (uint64_t)1 << (PARZ_BOUNDED_MAX_LEN - k);
      s += 1 + (xorshift_next() % 64 == 0 ? xorshift_next() % 100 : 0);
      if (xorshift_next() % 97 == 0 && l < 13)
        l++;
      else if (xorshift_next() % 211 == 0 && l > 1)
        l--;
    }
    if (left)
      continue;
    built++;
    const size_t size = parz_bounded_book_write(b.len, &all, out, PARZ_BOUNDED_BOOK_BYTES_MAX);
    CHECK(size > 0 && same_decoder("long codebook", out, size), "long codebook %d refused", round);
    for (size_t cut = size > 16 ? size - 16 : 0; cut < size; cut++)
      same_decoder("long codebook cut short", out, cut);
    /* read back as written, and damaged: as the reference reads it */
    CHECK(
        as_reference("long codebook", out, size, ref) && !memcmp(ref, b.len, PARZ_BOUNDED_SYMBOLS),
        "long codebook %d: not read back as written", round);
    for (int k = 0; k < 200 && size; k++) {
      const size_t at = (size_t)(xorshift_next() % size);
      const uint8_t was = out[at], flip = (uint8_t)(1u << (xorshift_next() % 8));
      out[at] ^= k % 4 ? flip : (uint8_t)xorshift_next();
      damaged += as_reference("long codebook damaged", out, size, ref);
      out[at] = was;
    }
  }
  CHECK(built > 30, "only %d of 40 long codebooks built", built);
  /* a damage that keeps the code complete changes lengths, which the reader must read alike */
  CHECK(damaged > 10, "only %zu damaged codebooks taken: their lengths go unchecked", damaged);
  free(ref);
  free(out);
  free(b.len);
}

/* Hostile tokens after 40 bytes of good ones (an unused symbol each) and with 8 bytes after
 * them, where the library reads tokens several at a time: refused for the reason it gives for
 * them at a codebook's end. */
static void hostile_tokens_late(void) {
  static const char* const why[] = {"length 21 of symbol", "steps from 20", "steps from 1",
                                    "passes span", "with 25 bits refused"};
  uint8_t* ref = (uint8_t*)malloc(PARZ_BOUNDED_SYMBOLS);
  parz_bounded_book b = {(uint8_t*)malloc(PARZ_BOUNDED_SYMBOLS), NULL};
  for (int c = 0; c < 5; c++) {
    book_bytes t;
    parz_error err;
    size_t used;
    memset(&t, 0, sizeof t);
    t.b[0] = c < 3 ? 42 : 44; /* the span */
    for (int k = 0; k < 40; k++)
      book_put(&t, 7, 3), book_put(&t, 0, 5);
    switch (c) {
      case 0: book_len(&t, 1), book_len(&t, 21); break;
      case 1: book_len(&t, 20), book_put(&t, 1, 3); break;   /* + 1 */
      case 2: book_len(&t, 1), book_put(&t, 5, 3); break;    /* - 1 */
      case 3: book_put(&t, 7, 3), book_put(&t, 3, 5); break; /* 8 unused of the 4 left */
      default: book_put(&t, 7, 3), book_put(&t, 25, 5); break;
    }
    const size_t size = book_size(&t) + 8;
    CHECK(parz_bounded_book_read(t.b, size, &b, &used, &err) == PARZ_ERR_STREAM &&
              strstr(err.message, why[c]),
          "late hostile token %d: not refused for '%s' (%s)", c, why[c], err.message);
    as_reference("late hostile token", t.b, size, ref);
  }
  free(b.len);
  free(ref);
}

/* Codebooks built by hand: each refused with PARZ_ERR_STREAM and a message. */
static void hostile_books(void) {
  parz_bounded_book b = {(uint8_t*)malloc(PARZ_BOUNDED_SYMBOLS),
                         (uint32_t*)malloc(PARZ_BOUNDED_SYMBOLS * 4)};
  parz_error err;
  size_t used;
  enum { CASES = 12 };
  book_bytes t[CASES];
  size_t size[CASES];
  const char* what[CASES];
  memset(t, 0, sizeof t);
  int i = 0;
  what[i] = "empty", size[i++] = 0;
  what[i] = "span 0", size[i++] = 1;
  what[i] = "span past the alphabet";
  t[i].b[0] = 0xFF, t[i].b[1] = 0xFF, t[i].b[2] = 0x7F, size[i++] = 3;
  what[i] = "over-subscribed: three codes of length 1", t[i].b[0] = 3;
  for (int k = 0; k < 3; k++)
    book_len(&t[i], 1);
  size[i] = book_size(&t[i]), i++;
  what[i] = "incomplete: two codes of length 2", t[i].b[0] = 2;
  book_len(&t[i], 2), book_len(&t[i], 2), size[i] = book_size(&t[i]), i++;
  what[i] = "explicit length 21", t[i].b[0] = 2;
  book_len(&t[i], 1), book_len(&t[i], 21), size[i] = book_size(&t[i]), i++;
  what[i] = "length stepping to 21", t[i].b[0] = 2;
  book_len(&t[i], 20), book_put(&t[i], 1, 3), size[i] = book_size(&t[i]), i++;
  what[i] = "length stepping to 0", t[i].b[0] = 2;
  book_len(&t[i], 1), book_put(&t[i], 5, 3), size[i] = book_size(&t[i]), i++;
  what[i] = "run past the span", t[i].b[0] = 4;
  book_put(&t[i], 7, 3), book_put(&t[i], 3, 5), size[i] = book_size(&t[i]), i++;
  what[i] = "run of 2^25", t[i].b[0] = 4;
  book_put(&t[i], 7, 3), book_put(&t[i], 25, 5), size[i] = book_size(&t[i]), i++;
  what[i] = "no symbol used", t[i].b[0] = 3;
  book_put(&t[i], 7, 3), book_put(&t[i], 1, 5), book_put(&t[i], 1, 1);
  size[i] = book_size(&t[i]), i++;
  what[i] = "single symbol of length 2", t[i].b[0] = 1;
  book_len(&t[i], 2), size[i] = book_size(&t[i]), i++;
  for (int k = 0; k < i; k++) {
    memset(&err, 0, sizeof err);
    int rc = parz_bounded_book_read(t[k].b, size[k], &b, &used, &err);
    CHECK(rc == PARZ_ERR_STREAM, "codebook '%s' accepted (rc %d)", what[k], rc);
    same_decoder(what[k], t[k].b, size[k]);
    CHECK(rc == PARZ_OK || strstr(err.message, "codebook") != NULL, "codebook '%s': message '%s'",
          what[k], err.message);
  }
  /* a good one cut short at every byte is refused */
  book_bytes good;
  memset(&good, 0, sizeof good);
  good.b[0] = 40;
  for (int k = 0; k < 39; k++)
    book_put(&good, 7, 3), book_put(&good, 0, 5); /* unused */
  book_len(&good, 1);
  good.b[0] = 41;
  book_len(&good, 1);
  size_t gsize = book_size(&good);
  CHECK(parz_bounded_book_read(good.b, gsize, &b, &used, &err) == PARZ_OK && used == gsize,
        "good codebook refused: %s", err.message);
  CHECK(b.len[39] == 1 && b.len[40] == 1 && b.len[0] == 0, "good codebook's lengths wrong");
  for (size_t cut = 0; cut < gsize; cut++) {
    CHECK(parz_bounded_book_read(good.b, cut, &b, &used, &err) == PARZ_ERR_STREAM,
          "codebook cut to %zu of %zu bytes accepted", cut, gsize);
    same_decoder("good codebook cut short", good.b, cut);
  }
  CHECK(same_decoder("good codebook", good.b, gsize), "good codebook refused");
  /* and a single symbol of length 1 */
  book_bytes one;
  memset(&one, 0, sizeof one);
  one.b[0] = 8;
  book_put(&one, 7, 3), book_put(&one, 2, 5), book_put(&one, 3, 2); /* 7 unused */
  book_len(&one, 1);
  CHECK(parz_bounded_book_read(one.b, book_size(&one), &b, &used, &err) == PARZ_OK && b.len[7] == 1,
        "single-symbol codebook refused: %s", err.message);
  /* random bytes: refused with PARZ_ERR_STREAM, or a complete code whose decoder takes any bits
   * without reading past them */
  size_t accepted = 0;
  for (int round = 0; round < 20000; round++) {
    uint8_t bytes[24];
    size_t size = 1 + (size_t)(xorshift_next() % sizeof bytes);
    for (size_t k = 0; k < size; k++)
      bytes[k] = (uint8_t)xorshift_next();
    if (round % 2)
      bytes[0] = (uint8_t)(1 + xorshift_next() % 40); /* a small span: more books parse */
    int rc = parz_bounded_book_read(bytes, size, &b, &used, &err);
    CHECK(rc == PARZ_OK || rc == PARZ_ERR_STREAM, "random codebook: status %d", rc);
    same_decoder("random codebook", bytes, size);
    if (rc != PARZ_OK)
      continue;
    accepted++;
    uint64_t kraft = 0;
    unsigned m = 0;
    for (uint32_t sym = 0; sym < PARZ_BOUNDED_SYMBOLS; sym++)
      if (b.len[sym]) {
        kraft += (uint64_t)1 << (PARZ_BOUNDED_MAX_LEN - b.len[sym]);
        m++;
      }
    CHECK(used <= size, "random codebook: used %zu of %zu bytes", used, size);
    CHECK(kraft == (uint64_t)1 << PARZ_BOUNDED_MAX_LEN || (m == 1 && kraft * 2 == 1u << 20),
          "random codebook accepted with Kraft sum %llu", (unsigned long long)kraft);
    parz_bounded_decoder* d = parz_bounded_decoder_new(&b, &err);
    CHECK(d != NULL, "decoder of an accepted codebook: %s", err.message);
    int32_t codes[64];
    rc = parz_bounded_decode_segment(d, bytes, size, 0, (uint64_t)size * 8, codes, 64, 0, 0, &err);
    CHECK(rc == PARZ_OK || rc == PARZ_ERR_STREAM, "random segment: status %d", rc);
    parz_bounded_decoder_free(d);
  }
  CHECK(accepted > 10, "only %zu random codebooks parsed: the check above tests little", accepted);
  run_symbols_refused();
  long_books();
  hostile_tokens_late();
  free(b.len);
  free(b.code);
}

/* A real-looking chunk, then its payload, table and codebook damaged: decoding ends with an
 * error or with values, never outside a buffer (the sanitizer build runs this too); the damages
 * that are certain to be seen are refused. */
static void hostile_segments(void) {
  parz_bounded_shape s = {PARZ_FLOAT, 2, {61, 67}};
  size_t n = parz_bounded_count(&s);
  float* v = (float*)malloc(n * 4);
  float* out = (float*)malloc(n * 4);
  for (size_t i = 0; i < n; i++)
    v[i] = (float)(10 * sin(0.01 * (double)i) + 0.1 * uniform());
  for (int p = PARZ_BOUNDED_LORENZO; p <= PARZ_BOUNDED_PREDICTORS; p++) {
    parz_bounded_options opt = {p, 1, 256, NULL, NULL, NULL};
    parz_bounded_chunk c;
    parz_error err;
    if (parz_bounded_chunk_encode(&s, v, 1e-3, &opt, &c, &err)) {
      CHECK(0, "encode: %s", err.message);
      continue;
    }
    CHECK(c.nsegments > 3, "want several segments, have %zu", c.nsegments);
    CHECK(parz_bounded_chunk_decode(&c, out, &err) == PARZ_OK, "clean chunk: %s", err.message);
    /* a segment's length off by a few bits: its codes end elsewhere */
    for (int delta = -9; delta <= 9; delta++) {
      if (!delta)
        continue;
      uint64_t keep = c.seg_bits[0];
      if ((int64_t)keep + delta < 0)
        continue;
      c.seg_bits[0] = (uint64_t)((int64_t)keep + delta);
      int rc = parz_bounded_chunk_decode(&c, out, &err);
      CHECK(rc == PARZ_ERR_STREAM, "segment 0 length %+d accepted (predictor %d)", delta, p);
      c.seg_bits[0] = keep;
    }
    /* the payload cut short: the last segment passes its end */
    size_t keep_bytes = c.payload_bytes;
    for (size_t cut = 1; cut < 64 && cut < keep_bytes; cut += 7) {
      c.payload_bytes = keep_bytes - cut;
      int rc = parz_bounded_chunk_decode(&c, out, &err);
      CHECK(rc == PARZ_ERR_STREAM, "payload cut by %zu bytes accepted", cut);
      CHECK(rc == PARZ_OK || strstr(err.message, "segment") != NULL, "message: %s", err.message);
    }
    c.payload_bytes = keep_bytes;
    /* a huge segment length cannot wrap the offsets */
    uint64_t keep = c.seg_bits[1];
    c.seg_bits[1] = UINT64_MAX - 3;
    CHECK(parz_bounded_chunk_decode(&c, out, &err) == PARZ_ERR_STREAM, "segment 1 length 2^64-4");
    c.seg_bits[1] = keep;
    /* random bit flips in the payload and the codebook: an error or values, nothing else */
    for (int round = 0; round < 300; round++) {
      uint8_t* where = round % 3 ? c.payload : c.book;
      size_t size = round % 3 ? c.payload_bytes : c.book_bytes;
      size_t at = (size_t)(xorshift_next() % size);
      uint8_t bit = (uint8_t)(1u << (xorshift_next() % 8));
      where[at] ^= bit;
      int rc = parz_bounded_chunk_decode(&c, out, &err);
      CHECK(rc == PARZ_OK || rc == PARZ_ERR_STREAM || rc == PARZ_ERR_NOMEM, "flip gave status %d",
            rc);
      where[at] ^= bit;
    }
    CHECK(parz_bounded_chunk_decode(&c, out, &err) == PARZ_OK, "restored chunk: %s", err.message);
    parz_bounded_chunk_free(&c);
  }
  free(v);
  free(out);
}

/* Hostile codes straight into the inverse predictors: refused, no overflow. */
static void hostile_codes(void) {
  parz_bounded_shape s = {PARZ_FLOAT, 3, {5, 6, 7}};
  size_t n = parz_bounded_count(&s);
  int32_t* codes = (int32_t*)malloc(n * 4);
  int32_t* q = (int32_t*)malloc(n * 4);
  parz_error err;
  for (int p = PARZ_BOUNDED_LORENZO; p <= PARZ_BOUNDED_PREDICTORS; p++) {
    for (size_t i = 0; i < n; i++)
      codes[i] = i % 2 ? INT32_MAX : INT32_MIN;
    CHECK(parz_bounded_unpredict(&s, p, codes, q, &err) == PARZ_ERR_STREAM,
          "predictor %d: extreme codes accepted", p);
    for (size_t i = 0; i < n; i++)
      codes[i] = 1 << 26;
    CHECK(parz_bounded_unpredict(&s, p, codes, q, &err) == PARZ_ERR_STREAM,
          "predictor %d: codes summing past the range accepted", p);
  }
  CHECK(parz_bounded_unpredict(&s, 7, codes, q, &err) == PARZ_ERR_FORMAT, "predictor 7 taken");
  /* Lorenzo's range check at its edges: sums of exactly +-QMAX decode, one past either does not;
   * along the last axis (checked in its sum) and along the others (checked apart) */
  static const parz_bounded_shape lines[] = {{PARZ_FLOAT, 1, {4}},
                                             {PARZ_FLOAT, 2, {4, 1}},
                                             {PARZ_FLOAT, 3, {4, 1, 1}},
                                             {PARZ_FLOAT, 2, {1, 4}},
                                             {PARZ_FLOAT, 4, {1, 1, 4, 1}}};
  for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) {
    const parz_bounded_shape* line = &lines[k];
    const int32_t Q = PARZ_BOUNDED_QMAX;
    const int32_t inside[4] = {Q, 0, -2 * Q, 0};
    const int32_t above[4] = {Q, 0, 0, 1}, below[4] = {-Q, -1, 0, 0};
    memcpy(codes, inside, sizeof inside);
    CHECK(parz_bounded_unpredict(line, PARZ_BOUNDED_LORENZO, codes, q, &err) == PARZ_OK &&
              q[0] == Q && q[1] == Q && q[2] == -Q && q[3] == -Q,
          "shape %zu: sums of +-QMAX refused or changed", k);
    memcpy(codes, above, sizeof above);
    CHECK(parz_bounded_unpredict(line, PARZ_BOUNDED_LORENZO, codes, q, &err) == PARZ_ERR_STREAM &&
              strstr(err.message, "at 3 "),
          "shape %zu: a sum of QMAX + 1 accepted or misplaced (%s)", k, err.message);
    memcpy(codes, below, sizeof below);
    CHECK(parz_bounded_unpredict(line, PARZ_BOUNDED_LORENZO, codes, q, &err) == PARZ_ERR_STREAM &&
              strstr(err.message, "at 1 "),
          "shape %zu: a sum of -QMAX - 1 accepted or misplaced (%s)", k, err.message);
  }
  /* a single value: its code alone */
  {
    const parz_bounded_shape one = {PARZ_DOUBLE, 2, {1, 1}};
    codes[0] = PARZ_BOUNDED_QMAX;
    CHECK(parz_bounded_unpredict(&one, PARZ_BOUNDED_LORENZO, codes, q, &err) == PARZ_OK &&
              q[0] == PARZ_BOUNDED_QMAX,
          "a single value of QMAX refused or changed");
    codes[0] = -PARZ_BOUNDED_QMAX - 1;
    CHECK(parz_bounded_unpredict(&one, PARZ_BOUNDED_LORENZO, codes, q, &err) == PARZ_ERR_STREAM,
          "a single value of -QMAX - 1 accepted");
  }
  /* the first value out of range in C order is the one named, whatever order the sums ran in:
   * one code of QMAX + 1 at (1, 2, 3) of a 3 x 4 x 5 chunk puts every value from there on in
   * each axis's direction out of range */
  {
    const parz_bounded_shape box = {PARZ_FLOAT, 3, {3, 4, 5}};
    memset(codes, 0, 60 * sizeof *codes);
    codes[(1 * 4 + 2) * 5 + 3] = PARZ_BOUNDED_QMAX + 1;
    CHECK(parz_bounded_unpredict(&box, PARZ_BOUNDED_LORENZO, codes, q, &err) == PARZ_ERR_STREAM &&
              strstr(err.message, "at 33 "),
          "a value out of range at 33 of a 3 x 4 x 5 chunk: %s", err.message);
  }
  free(codes);
  free(q);
}

/* One pass of plan p over q (from the state before it, before) with the given codes: its result
 * code (err) and values in q. */
static int one_pass(const parz_bounded_plan* p, unsigned k, const int32_t* codes,
                    const int32_t* before, int32_t* q, size_t n, parz_error* err) {
  memcpy(q, before, n * sizeof *q);
  return parz_bounded_unpredict_pass(p, k, 0, parz_bounded_pass_units(p, k), codes, q, err);
}

/* The interpolation's range check at its edges, at every value of every pass (the passes'
 * ends, lines inside along the last axis and along the others): a value decoded to exactly
 * +-QMAX_FINE is kept, one past either is refused and named. Each value is taken in its pass
 * alone, from the state the passes before leave (a pass reads none of its own values): its
 * place is where code 1 and code 0 differ, its prediction what code 0 gives, and FINE times a
 * code reaches the edge exactly where the prediction's remainder by FINE allows; the run asserts
 * that those cases came up. */
static void interp_range_edges(void) {
  const parz_bounded_shape box = {PARZ_FLOAT, 3, {9, 8, 33}};
  const size_t n = 9 * 8 * 33;
  const int64_t Q = PARZ_BOUNDED_QMAX_FINE, F = PARZ_BOUNDED_FINE;
  int32_t *codes = (int32_t*)malloc(n * sizeof *codes), *q = (int32_t*)malloc(n * sizeof *q),
          *before = (int32_t*)malloc(n * sizeof *q), *zero = (int32_t*)malloc(n * sizeof *q);
  parz_error err;
  char at[32];
  for (int pr_kind = PARZ_BOUNDED_LINEAR; pr_kind <= PARZ_BOUNDED_PREDICTORS; pr_kind++) {
    parz_bounded_plan p;
    unsigned exact = 0, one_past = 0; /* bit 0: the top edge, bit 1: the bottom */
    parz_bounded_plan_init(&p, &box, pr_kind);
    for (size_t i = 0; i < n; i++)
      codes[i] = (int32_t)(xorshift_next() % 7) - 3;
    memset(before, 0, n * sizeof *before);
    for (unsigned k = 0; k < p.passes; k++) {
      const size_t last = parz_bounded_pass_codes(&p, k),
                   first = last - parz_bounded_pass_values(&p, k);
      for (size_t j = first; j < last; j++) {
        const int32_t keep = codes[j];
        size_t t = 0;
        codes[j] = 1;
        CHECK(one_pass(&p, k, codes, before, q, n, &err) == PARZ_OK,
              "predictor %d: small codes refused", pr_kind);
        codes[j] = 0;
        CHECK(one_pass(&p, k, codes, before, zero, n, &err) == PARZ_OK,
              "predictor %d: small codes refused", pr_kind);
        while (t < n && q[t] == zero[t])
          t++;
        if (t == n) {
          CHECK(0, "predictor %d, pass %u: code %zu changes no value", pr_kind, k, j);
          continue;
        }
        const int64_t pr = zero[t];
        snprintf(at, sizeof at, "at %zu ", t);
        for (int side = 0; side < 2; side++) {
          /* the code giving the value nearest the edge on its inside, then the next one out */
          const int64_t edge = side ? -Q : Q, dir = side ? -1 : 1, c = (edge - pr) / F;
          const int64_t inside = pr + c * F, outside = inside + dir * F;
          codes[j] = (int32_t)c;
          CHECK(one_pass(&p, k, codes, before, q, n, &err) == PARZ_OK && q[t] == inside,
                "predictor %d, value %zu: %lld refused or changed", pr_kind, t, (long long)inside);
          codes[j] = (int32_t)(c + dir);
          CHECK(one_pass(&p, k, codes, before, q, n, &err) == PARZ_ERR_STREAM &&
                    strstr(err.message, at),
                "predictor %d, value %zu: %lld accepted or misplaced", pr_kind, t,
                (long long)outside);
          exact |= (unsigned)(inside == edge) << side;
          one_past |= (unsigned)(outside == edge + dir) << side;
        }
        codes[j] = keep;
      }
      CHECK(one_pass(&p, k, codes, before, q, n, &err) == PARZ_OK,
            "predictor %d: small codes refused", pr_kind);
      memcpy(before, q, n * sizeof *q);
    }
    CHECK(exact == 3 && one_past == 3,
          "predictor %d: the edges themselves not reached (exactly %u, one past %u)", pr_kind,
          exact, one_past);
  }
  free(codes);
  free(q);
  free(before);
  free(zero);
}

/* Lorenzo's holes: each hole gets the clamped Lorenzo prediction from the values before it in C
 * order (holes included, neighbours outside the array taken as 0), the known values stay, and
 * the codes sum back to them. Shapes of every rank, axes of length 1 between and last, holes in
 * runs (at rows' starts and ends) and alone; small values, and values near +-QMAX whose runs of
 * holes are clamped. */
static int32_t holes_reference(const int32_t* q, const size_t n[4], size_t i) {
  const size_t c[4] = {i / (n[1] * n[2] * n[3]), i / (n[2] * n[3]) % n[1], i / n[3] % n[2],
                       i % n[3]};
  const size_t st[4] = {n[1] * n[2] * n[3], n[2] * n[3], n[3], 1};
  int64_t p = 0;
  for (unsigned m = 1; m < 16; m++) {
    size_t back = 0;
    int ok = 1, bits = 0;
    for (unsigned k = 0; k < 4; k++)
      if (m >> k & 1u) {
        ok &= c[k] > 0;
        back += st[k];
        bits++;
      }
    if (ok)
      p += (bits & 1 ? 1 : -1) * (int64_t)q[i - back];
  }
  const int64_t Q = PARZ_BOUNDED_QMAX;
  return (int32_t)(p > Q ? Q : p < -Q ? -Q : p);
}

static void lorenzo_holes_filled(void) {
  static const parz_bounded_shape shapes[] = {
      {PARZ_FLOAT, 1, {40}},          {PARZ_FLOAT, 2, {7, 33}},      {PARZ_FLOAT, 3, {5, 6, 29}},
      {PARZ_FLOAT, 3, {4, 1, 17}},    {PARZ_FLOAT, 3, {6, 9, 1}},    {PARZ_FLOAT, 4, {3, 4, 5, 19}},
      {PARZ_FLOAT, 4, {2, 1, 3, 11}}, {PARZ_FLOAT, 4, {3, 2, 4, 1}}, {PARZ_DOUBLE, 2, {1, 50}}};
  size_t clamped = 0;
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
    for (int big = 0; big <= 1; big++) {
      const parz_bounded_shape* s = &shapes[si];
      size_t n[4] = {1, 1, 1, 1}, total = 1, holes = 0, wrong = 0, first = 0;
      for (unsigned k = 0; k < s->dims; k++) {
        n[4 - s->dims + k] = s->shape[k];
        total *= s->shape[k];
      }
      int32_t* q0 = (int32_t*)malloc(total * sizeof *q0);
      int32_t* q = (int32_t*)malloc(total * sizeof *q);
      int32_t* ref = (int32_t*)malloc(total * sizeof *ref);
      int32_t* codes = (int32_t*)malloc(total * sizeof *codes);
      int32_t* back = (int32_t*)malloc(total * sizeof *back);
      uint8_t* hole = (uint8_t*)malloc(total);
      for (size_t i = 0; i < total; i++) {
        const size_t x = i % n[3], row = i / n[3];
        const int32_t r = (int32_t)(xorshift_next() % 2001) - 1000;
        /* big: rows alternating near +QMAX and -QMAX, so that predictions leave the range */
        q0[i] = big ? (row % 2 ? 1 : -1) * (PARZ_BOUNDED_QMAX - 2000 - r) : r;
        hole[i] =
            (x / 4 + row) % 3 == 0 || xorshift_next() % 7 == 0
                ? (uint8_t)(xorshift_next() % 2 ? PARZ_BOUNDED_MASKED : PARZ_BOUNDED_EXCEPTION)
                : (uint8_t)PARZ_BOUNDED_KNOWN;
        /* the holes' own values are never read */
        q[i] = hole[i] ? (int32_t)(xorshift_next() % 1000) : q0[i];
      }
      parz_bounded_predict(s, PARZ_BOUNDED_LORENZO, NULL, 1.0, 1.0, q, hole, codes, NULL);
      for (size_t i = 0; i < total; i++) {
        if (hole[i]) {
          holes++;
          ref[i] = holes_reference(ref, n, i);
          clamped += ref[i] == PARZ_BOUNDED_QMAX || ref[i] == -PARZ_BOUNDED_QMAX;
        } else {
          ref[i] = q0[i];
        }
        if (q[i] != ref[i] && !wrong++)
          first = i;
      }
      CHECK(holes > total / 4 && wrong == 0,
            "Lorenzo's holes, shape %zu%s: %zu of %zu values (%zu holes) differ from the walk's, "
            "the first at %zu (%d, not %d)",
            si, big ? " near QMAX" : "", wrong, total, holes, first, (int)q[first],
            (int)ref[first]);
      parz_error err;
      CHECK(parz_bounded_unpredict(s, PARZ_BOUNDED_LORENZO, codes, back, &err) == PARZ_OK &&
                memcmp(back, q, total * sizeof *q) == 0,
            "Lorenzo's holes, shape %zu%s: the codes do not sum back to the values", si,
            big ? " near QMAX" : "");
      free(q0), free(q), free(ref), free(codes), free(back), free(hole);
    }
  CHECK(clamped > 50, "Lorenzo's holes: only %zu holes clamped", clamped);
}

/* The predictor's choice skips the caller's holes as the chunk's codes do: a smooth 3-D field
 * with a "land" of holes over a third of it, the holes holding zeros or loud noise, chooses the
 * same predictor and writes the same codes either way (values at holes are never read). */
static void choice_skips_holes(void) {
  const parz_bounded_shape s = {PARZ_FLOAT, 3, {48, 48, 48}};
  const size_t n = parz_bounded_count(&s);
  float* quiet = (float*)malloc(n * sizeof *quiet);
  float* loud = (float*)malloc(n * sizeof *loud);
  uint8_t* given = (uint8_t*)malloc(n);
  parz_bounded_options opt = {0, 2, PARZ_BOUNDED_SEGMENT_CODES, NULL, NULL, NULL};
  parz_bounded_coded a, b;
  parz_error err;
  size_t holes = 0;
  for (size_t i = 0; i < n; i++) {
    const double z = (double)(i / 2304), y = (double)(i / 48 % 48), x = (double)(i % 48);
    const double field = 20 * sin(0.11 * x) * cos(0.07 * y) + 0.3 * z;
    given[i] = sin(0.13 * x + 0.05 * z) + cos(0.17 * y) > 0.9;
    holes += given[i];
    quiet[i] = given[i] ? 0.0f : (float)field;
    loud[i] = given[i] ? (float)(1e4 * (uniform() - 0.5)) : (float)field;
  }
  CHECK(holes > n / 5 && holes < n / 2, "choice_skips_holes: %zu holes of %zu", holes, n);
  int ra = parz_bounded_code(&s, quiet, 1e-3, &opt, given, &a, &err);
  int rb = parz_bounded_code(&s, loud, 1e-3, &opt, given, &b, &err);
  CHECK(ra == PARZ_OK && rb == PARZ_OK, "choice_skips_holes: %s", err.message);
  if (ra == PARZ_OK && rb == PARZ_OK) {
    CHECK(a.predictor == b.predictor,
          "choice_skips_holes: predictor %d with zeros in the holes, %d with noise", a.predictor,
          b.predictor);
    CHECK(a.predictor != b.predictor ||
              (a.book_size == b.book_size && !memcmp(a.codes, b.codes, n * sizeof *a.codes)),
          "choice_skips_holes: predictor %d codes the field differently by its holes' values",
          a.predictor);
  }
  if (ra == PARZ_OK)
    parz_bounded_coded_free(&a);
  if (rb == PARZ_OK)
    parz_bounded_coded_free(&b);
  free(quiet), free(loud), free(given);
}

/* The bytes each real array's chunks were written as (both bounds, every predictor, zero runs,
 * the writers' segments): the encoder may get faster, never different. */
static const fnv_pinned real_written[] = {
    {"ccsm_trefht_ens", 0xe983e94a94aa39b5ull}, {"egm96_geoid", 0x04d7792c0d0483d4ull},
    {"etopo5_relief", 0x7cbe5aa4f26fd23aull},   {"hst_acs_hrc_ngc104_sci", 0x053ae6bcd13dc1d3ull},
    {"levitus_temp", 0x9883d15692341ad4ull},    {"vasp_fepo4_chgcar", 0x4d347c1a8af8521aull},
};

/* Every real array, both bounds relative to its value range (fill values masked), every
 * predictor: the bound on every finite value. */
static void real(const char* dir) {
  size_t na = 0;
  real_array* arr = real_arrays_load(dir, 0, &na);
  CHECK(arr != NULL && na > 0, "no arrays in %s", dir);
  for (size_t a = 0; a < na; a++) {
    real_array* r = &arr[a];
    size_t w = parz_type_size(r->array.type), n = r->bytes / w;
    const void* fill = NULL;
    for (size_t i = 0; i < n && !fill; i++) {
      double x = get(r->data, r->array.type, i);
      if (isfinite(x) && fabs(x) >= 1e9)
        fill = (const unsigned char*)r->data + i * w;
    }
    parz_bounded_shape s = {r->array.type, r->array.dims, {0}};
    for (unsigned k = 0; k < r->array.dims; k++)
      s.shape[k] = r->array.shape[k];
    double range = real_array_value_range(r);
    written_hash = FNV_START;
    for (int e = 0; e < 2; e++) {
      double eb = (e ? 1e-5 : 1e-3) * range;
      for (int p = PARZ_BOUNDED_LORENZO; p <= PARZ_BOUNDED_PREDICTORS; p++)
        roundtrip(r->name, &s, r->data, eb, p, 1, PARZ_BOUNDED_SEGMENT_CODES, fill);
    }
    printf("%s: checked, bytes written %016llx\n", r->name, (unsigned long long)written_hash);
    CHECK(!fnv_pinned_differs(real_written, sizeof real_written / sizeof real_written[0], r->name,
                              written_hash),
          "%s: the chunks' bytes changed (%016llx)", r->name, (unsigned long long)written_hash);
  }
  real_arrays_free(arr, na);
}

/* The predictor's trials and the chunk take their blocks from the caller's keep, which hands
 * back blocks holding what their last use left: a chunk coded through a keep whose blocks hold
 * garbage, and again through the blocks the first left, chooses the predictor and writes the
 * codes and codebook of a chunk coded without a keep (whose blocks start zeroed). A smooth 3-D
 * field with holes given and NaN, so that every trial meets holes and exceptions. */
static void choice_in_a_used_keep(void) {
  const parz_bounded_shape s = {PARZ_FLOAT, 3, {40, 56, 72}};
  const size_t n = parz_bounded_count(&s);
  float* v = (float*)malloc(n * sizeof *v);
  uint8_t* given = (uint8_t*)malloc(n);
  parz_bounded_options opt = {0, 2, PARZ_BOUNDED_SEGMENT_CODES, NULL, NULL, NULL};
  parz_keep* keep = parz_keep_new(0);
  void* junk[12];
  parz_bounded_coded a;
  parz_error err;
  for (size_t i = 0; i < n; i++) {
    const double z = (double)(i / (56 * 72)), y = (double)(i / 72 % 56), x = (double)(i % 72);
    given[i] = sin(0.13 * x + 0.05 * z) + cos(0.17 * y) > 1.2;
    v[i] = i % 97 == 5 ? NAN : (float)(20 * sin(0.11 * x) * cos(0.07 * y) + 0.3 * z);
  }
  /* the keep's blocks, of 4 KiB to 8 MiB, filled with garbage */
  for (unsigned k = 0; k < 12; k++) {
    int zeroed;
    const size_t bytes = (size_t)4096 << k;
    junk[k] = parz_keep_take(keep, bytes, &zeroed);
    if (junk[k])
      memset(junk[k], 0xA5 ^ (int)k, bytes);
  }
  for (unsigned k = 0; k < 12; k++)
    parz_keep_give(keep, junk[k]);
  int ra = parz_bounded_code(&s, v, 1e-3, &opt, given, &a, &err);
  CHECK(ra == PARZ_OK, "choice_in_a_used_keep: %s", err.message);
  opt.keep = keep;
  for (int round = 0; ra == PARZ_OK && round < 2; round++) {
    parz_bounded_coded b;
    int rb = parz_bounded_code(&s, v, 1e-3, &opt, given, &b, &err);
    CHECK(rb == PARZ_OK, "choice_in_a_used_keep: %s", err.message);
    if (rb != PARZ_OK)
      break;
    CHECK(a.predictor == b.predictor && a.nexceptions == b.nexceptions && a.nmasked == b.nmasked &&
              a.book_size == b.book_size && !memcmp(a.book_bytes, b.book_bytes, a.book_size) &&
              !memcmp(a.codes, b.codes, n * sizeof *a.codes),
          "choice_in_a_used_keep: round %d through the keep: predictor %d (%d without), %zu "
          "exceptions (%zu), a codebook of %zu bytes (%zu) or the codes differ",
          round, b.predictor, a.predictor, b.nexceptions, a.nexceptions, b.book_size, a.book_size);
    parz_bounded_coded_free(&b);
  }
  if (ra == PARZ_OK)
    parz_bounded_coded_free(&a);
  parz_keep_free(keep);
  free(v), free(given);
}

int main(int argc, char** argv) {
  arguments();
  crafted();
  printf("crafted arrays, bytes written: %016llx\n", (unsigned long long)written_hash);
  CHECK(written_hash == 0xff26287d9e322ae9ull,
        "crafted arrays: the chunks' bytes changed (%016llx)", (unsigned long long)written_hash);
  estimate();
  range_codes();
  range_choice();
  large_on_jobs();
  hostile_books();
  hostile_segments();
  hostile_codes();
  interp_range_edges();
  lorenzo_holes_filled();
  choice_skips_holes();
  choice_in_a_used_keep();
  if (argc > 1)
    real(argv[1]);
  return test_finish("test_bounded");
}
