/* The lanes of codec/bounded/bounded_lanes.h, as the GPU's segment kernel runs them on a warp,
 * emulated here lane by lane, against the serial decode of each segment
 * (parz_bounded_segment_codes): the same codes for every segment it accepts and a refusal for
 * every one it refuses, on chunks the encoder writes (every predictor, runs or not, escapes,
 * segments of 1 to 4096 codes, 1 to 64 lanes) and on their segments damaged (flipped bits, moved
 * ends, random bits); and the lanes on a copy of only the payload words a segment's reads may
 * touch (parz_bounded_lanes_words, what the GPU stages), the same. The codec's decode of words
 * longer than the table's bits against the table decoder's, on every window the table misses, for
 * each chunk's codebook and for random ones.
 *
 *   test_bounded_lanes           crafted arrays and their damaged segments
 *   test_bounded_lanes DIR       also every real array of DIR at 1e-3 x its range, C = 4096 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_chunk.h"
#include "bounded_lanes.h"
#include "check.h"
#include "real_arrays.h"
#include "xorshift.h"

#define LANES_MAX 64

static unsigned long long segments_seen, refusals_seen, rounds_total, redecodes, pairs_seen;

/* The warp's steps on `lanes` emulated lanes: every lane's first decode, then rounds of the
 * lanes taking the previous lane's end (all read before any lane decodes again) until none
 * moves, the counts, and the codes written. Returns 1 with the codes in out, 0 refused. */
static int lanes_decode(const parz_huff_decoder* d, const uint32_t* steps, const uint8_t* p,
                        size_t bytes, uint64_t bit0, uint64_t len, size_t count, unsigned lanes,
                        uint32_t lead, int32_t* out) {
  if (!parz_bounded_lanes_fit(len, count))
    return 0;
  const parz_bounded_lanes s = parz_bounded_lanes_init(d, d->table, steps, p, bytes, bit0);
  parz_bounded_lane o[LANES_MAX];
  uint32_t want[LANES_MAX];
  for (unsigned l = 0; l < lanes; l++)
    parz_bounded_lane_first(&s, (uint32_t)len, l, lanes, lead, &o[l]);
  int settled = 0;
  for (unsigned round = 0; round <= lanes && !settled; round++) {
    settled = 1;
    for (unsigned l = 0; l < lanes; l++) {
      want[l] = l ? o[l - 1].end : 0;
      settled &= want[l] == o[l].start;
    }
    rounds_total += !settled;
    for (unsigned l = 0; l < lanes; l++)
      if (want[l] != o[l].start) {
        parz_bounded_lane_redecode(&s, want[l], parz_bounded_lane_limit((uint32_t)len, l, lanes),
                                   &o[l]);
        redecodes++;
      }
  }
  CHECK(settled, "lanes unsettled after %u rounds", lanes + 1);
  uint64_t total = 0;
  int bad = 0;
  for (unsigned l = 0; l < lanes; l++) {
    total += o[l].codes;
    bad |= o[l].bad != 0;
  }
  if (!settled || !parz_bounded_lanes_ok(total, count, bad, o[lanes - 1].end, (uint32_t)len))
    return 0;
  size_t first = 0;
  for (unsigned l = 0; l < lanes; l++) {
    parz_bounded_lane_write(&s, &o[l], out, first, 0);
    first += o[l].codes;
  }
  return 1;
}

/* Segment [bit0, bit0 + len) of count codes, serially and on each lane count: accepted alike
 * with the same codes, or refused alike; the lanes by steps (steps), and token by token on 32
 * lanes. */
static void same_segment(const parz_huff_decoder* d, const uint32_t* steps, const uint8_t* p,
                         size_t bytes, uint64_t bit0, uint64_t len, size_t count,
                         const char* what) {
  static const unsigned lane_counts[] = {32, 1, 2, 7, 64, 32};
  static const uint32_t leads[] = {64, 0, 1, 13, 200, 64}; /* bits before a lane's guessed start */
  int32_t* want = (int32_t*)malloc(count * 4);
  int32_t* got = (int32_t*)malloc(count * 4);
  parz_bitr r;
  size_t at = 0, run = 0;
  parz_bitr_init(&r, p, bytes, bit0, len);
  const int ok =
      parz_bounded_segment_codes(d, &r, want, count, 0, &at, &run) == PARZ_BOUNDED_SEGMENT_OK;
  segments_seen++;
  refusals_seen += !ok;
  for (unsigned k = 0; k < sizeof lane_counts / sizeof lane_counts[0]; k++) {
    memset(got, 0x5a, count * 4);
    const int by_steps = k + 1 < sizeof lane_counts / sizeof lane_counts[0];
    const int lok = lanes_decode(d, by_steps ? steps : NULL, p, bytes, bit0, len, count,
                                 lane_counts[k], leads[k], got);
    CHECK(lok == ok,
          "%s: %u lanes (lead %u, %s) %s a segment of %zu codes in %llu bits the serial decode %s",
          what, lane_counts[k], leads[k], by_steps ? "steps" : "tokens", lok ? "accept" : "refuse",
          count, (unsigned long long)len, ok ? "accepts" : "refuses");
    if (ok && lok)
      CHECK(memcmp(got, want, count * 4) == 0, "%s: %u lanes' codes differ", what, lane_counts[k]);
  }
  /* The same lanes on a copy of the words parz_bounded_lanes_words names (the GPU's staging):
   * zeros past the payload, and two words of other bits after them, which a read past those
   * words would take for the payload's. */
  uint64_t first;
  const uint64_t nw = parz_bounded_lanes_words(bit0, bit0 + len, &first);
  uint8_t* w = (uint8_t*)calloc((size_t)(nw + 2), 8);
  for (uint64_t i = 0; i < 8 * nw && 8 * first + i < bytes; i++)
    w[i] = p[8 * first + i];
  for (uint64_t i = 8 * nw; i < 8 * (nw + 2); i++)
    w[i] = (uint8_t)(151 * i + 89);
  for (unsigned k = 0; k < 4; k += 3) {
    memset(got, 0x5a, count * 4);
    const int lok = lanes_decode(d, steps, w, (size_t)(8 * (nw + 2)), bit0 - 64 * first, len,
                                 count, lane_counts[k], leads[k], got);
    CHECK(lok == ok, "%s: %u lanes on the segment's words %s a segment of %zu codes the serial "
          "decode %s", what, lane_counts[k], lok ? "accept" : "refuse", count, ok ? "accepts" :
          "refuses");
    if (ok && lok)
      CHECK(memcmp(got, want, count * 4) == 0, "%s: %u lanes' codes on the segment's words differ",
            what, lane_counts[k]);
  }
  free(w);
  free(want);
  free(got);
}

/* Every entry of d's step table (steps): its bits end a token of the chain from the window's first
 * bit, its codes are those of the tokens before (within the entry's 12 bits), zero where they all
 * are, and the next token does not end within the table's bits (or starts no word); its pair is
 * the first two tokens exactly where both are single codes in [-8, 7] within those bits: random
 * bits past them change none of it. */
static void check_steps(const parz_huff_decoder* d, const uint32_t* steps, const char* what) {
  const unsigned T = d->table_bits;
  const uint64_t mask = ((uint64_t)1 << T) - 1;
  unsigned long long tokens = 0, pairs = 0;
  for (uint32_t i = 0; i < (1u << T); i++) {
    uint8_t buf[16];
    for (int k = 0; k < 16; k++)
      buf[k] = (uint8_t)xorshift_next();
    uint64_t w;
    memcpy(&w, buf, 8);
    w = (w & ~mask) | i;
    memcpy(buf, &w, 8);
    const uint32_t e = steps[i], b = PARZ_BOUNDED_STEP_BITS(e);
    parz_bitr r;
    parz_bitr_init(&r, buf, sizeof buf, 0, 0);
    parz_bounded_window win = {0, 0};
    uint64_t codes = 0;
    int zeros = 1;
    size_t n = 1;
    while (r.pos < b) {
      int32_t code;
      n = parz_bounded_read_token(d, d->table, mask, &r, &win, &code);
      if (!n)
        break;
      codes += n;
      zeros &= code == 0;
      tokens++;
    }
    CHECK(n && r.pos == b && codes == PARZ_BOUNDED_STEP_CODES(e) &&
              zeros == (int)PARZ_BOUNDED_STEP_ZEROS(e),
          "%s: step entry %u (%u bits, %u codes, zeros %u) is not the tokens' (%llu bits, %llu "
          "codes, zeros %d)",
          what, i, b, PARZ_BOUNDED_STEP_CODES(e), PARZ_BOUNDED_STEP_ZEROS(e),
          (unsigned long long)r.pos, (unsigned long long)codes, zeros);
    int32_t code;
    n = parz_bounded_read_token(d, d->table, mask, &r, &win, &code);
    CHECK(n == 0 || r.pos > T, "%s: step entry %u stops before a token that ends at bit %llu of %u",
          what, i, (unsigned long long)r.pos, T);
    /* the pair: the first two tokens where both are single codes in [-8, 7] ending within T bits */
    parz_bitr_init(&r, buf, sizeof buf, 0, 0);
    win.w = 0;
    win.valid = 0;
    int32_t c[2] = {0, 0};
    int pair = 1;
    for (int k = 0; k < 2 && pair; k++)
      pair = parz_bounded_read_token(d, d->table, mask, &r, &win, &c[k]) == 1 && r.pos <= T &&
             c[k] >= -8 && c[k] <= 7;
    const unsigned pb = PARZ_BOUNDED_STEP_PAIR_BITS(e);
    pairs += pair;
    CHECK(pair ? pb == r.pos && PARZ_BOUNDED_STEP_PAIR_CODE(e, 0) == c[0] &&
                     PARZ_BOUNDED_STEP_PAIR_CODE(e, 1) == c[1]
               : pb == 0,
          "%s: step entry %u's pair (%u bits, codes %d %d) is not the tokens' (%s, %llu bits, "
          "codes %d %d)", what, i, pb, PARZ_BOUNDED_STEP_PAIR_CODE(e, 0),
          PARZ_BOUNDED_STEP_PAIR_CODE(e, 1), pair ? "a pair" : "none", (unsigned long long)r.pos,
          c[0], c[1]);
  }
  CHECK(tokens > 0, "%s: no step holds a token", what);
  pairs_seen += pairs;
}

static unsigned long long long_windows;

/* The long words' decode of the codec (parz_bounded_decode_long) against the table decoder's walk
 * over the lengths (parz_huff_decode_long), on every window of max_len bits that d's table misses,
 * each with other bits past them: the same symbol and length, or -1 alike (bits that start no
 * word of an incomplete code). */
static void check_long(const parz_huff_decoder* d, const char* what) {
  const unsigned T = d->table_bits, max = d->max_len;
  uint64_t state = 0x2545F4914F6CDD1Dull; /* its own sequence: the other checks' stay as they are */
  unsigned long long bad = 0;
  for (uint32_t i = 0; i < (1u << T); i++) {
    if (PARZ_HUFF_ENTRY_LEN(d->table[i]))
      continue;
    for (uint64_t rest = 0; rest < ((uint64_t)1 << (max - T)); rest++) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      const uint64_t w = i | rest << T | (max < 64 ? state << max : 0);
      unsigned want_len = 0, got_len = 0;
      const int32_t want = parz_huff_decode_long(d, w, &want_len);
      const int32_t got = parz_bounded_decode_long(d, w, &got_len);
      if (got != want || (want >= 0 && got_len != want_len)) {
        if (bad++ < 5)
          CHECK(0, "%s: the long word at window %#llx is symbol %d of %u bits, not %d of %u", what,
                (unsigned long long)w, want, want_len, got, got_len);
      }
      long_windows++;
    }
  }
  CHECK(bad == 0, "%s: %llu windows' long words differ", what, bad);
}

/* Codebooks of random lengths (at most PARZ_BOUNDED_MAX_LEN bits, mostly incomplete codes: bits
 * that start no word), each one's long words checked (check_long). */
static void random_books(void) {
  parz_bounded_book b = {(uint8_t*)malloc(PARZ_BOUNDED_SYMBOLS),
                         (uint32_t*)malloc(PARZ_BOUNDED_SYMBOLS * 4)};
  for (int t = 0; t < 10; t++) {
    memset(b.len, 0, PARZ_BOUNDED_SYMBOLS);
    const unsigned m = 2 + (unsigned)(xorshift_next() % (t < 5 ? 40 : 600));
    uint64_t kraft = 0;
    for (unsigned k = 0; k < m; k++) {
      const size_t sym = (size_t)(xorshift_next() % PARZ_BOUNDED_SYMBOLS);
      if (b.len[sym])
        continue;
      b.len[sym] = (uint8_t)(1 + xorshift_next() % PARZ_BOUNDED_MAX_LEN);
      kraft += (uint64_t)1 << (PARZ_BOUNDED_MAX_LEN - b.len[sym]);
    }
    /* lengthened until the lengths are a prefix code */
    for (size_t sym = 0; kraft > ((uint64_t)1 << PARZ_BOUNDED_MAX_LEN); sym++)
      if (b.len[sym % PARZ_BOUNDED_SYMBOLS] &&
          b.len[sym % PARZ_BOUNDED_SYMBOLS] < PARZ_BOUNDED_MAX_LEN) {
        kraft -= (uint64_t)1 << (PARZ_BOUNDED_MAX_LEN - b.len[sym % PARZ_BOUNDED_SYMBOLS]);
        b.len[sym % PARZ_BOUNDED_SYMBOLS]++;
        kraft += (uint64_t)1 << (PARZ_BOUNDED_MAX_LEN - b.len[sym % PARZ_BOUNDED_SYMBOLS]);
      }
    parz_error err;
    parz_bounded_decoder* dec = parz_bounded_decoder_new(&b, &err);
    CHECK(dec != NULL, "random book %d: %s", t, err.message);
    if (!dec)
      continue;
    char what[48];
    snprintf(what, sizeof what, "random book %d (%u symbols)", t, m);
    check_long(parz_bounded_decoder_huff(dec), what);
    parz_bounded_decoder_free(dec);
  }
  free(b.len);
  free(b.code);
}

/* Every segment of chunk c, then (damage) each of its first segments damaged. */
static void same_chunk(const parz_bounded_chunk* c, const char* what, int damage) {
  parz_bounded_book b = {(uint8_t*)malloc(PARZ_BOUNDED_SYMBOLS),
                         (uint32_t*)malloc(PARZ_BOUNDED_SYMBOLS * 4)};
  size_t used;
  parz_error err;
  CHECK(parz_bounded_book_read(c->book, c->book_bytes, &b, &used, &err) == PARZ_OK, "%s: %s", what,
        err.message);
  parz_bounded_decoder* dec = parz_bounded_decoder_new(&b, &err);
  CHECK(dec != NULL, "%s: %s", what, err.message);
  free(b.len);
  free(b.code);
  if (!dec)
    return;
  const parz_huff_decoder* d = parz_bounded_decoder_huff(dec);
  const size_t n = parz_bounded_count(&c->shape);
  uint32_t* steps = (uint32_t*)malloc(((size_t)1 << d->table_bits) * 4);
  for (uint32_t i = 0; i < (1u << d->table_bits); i++)
    steps[i] = parz_bounded_step_entry(d->table, d->table_bits, i);
  check_steps(d, steps, what);
  check_long(d, what);
  uint64_t bit0 = 0;
  uint8_t* p = (uint8_t*)malloc(c->payload_bytes);
  memcpy(p, c->payload, c->payload_bytes);
  for (size_t g = 0; g < c->nsegments; g++) {
    const size_t count = n - g * c->segment < c->segment ? n - g * c->segment : c->segment;
    const uint64_t len = c->seg_bits[g];
    same_segment(d, steps, p, c->payload_bytes, bit0, len, count, what);
    if (damage && g < 6) {
      for (int t = 0; t < 40; t++) { /* bits flipped inside the segment */
        const uint64_t bit = bit0 + xorshift_next() % (len ? len : 1);
        if (bit / 8 >= c->payload_bytes)
          break;
        p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        same_segment(d, steps, p, c->payload_bytes, bit0, len, count, what);
        p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
      }
      for (int delta = -40; delta <= 40; delta++) /* its end moved */
        if ((int64_t)len + delta >= 0 && bit0 + len + delta <= 8 * (uint64_t)c->payload_bytes)
          same_segment(d, steps, p, c->payload_bytes, bit0, (uint64_t)((int64_t)len + delta), count,
                       what);
      for (int t = 0; t < 10; t++) { /* random bits where it lies */
        for (uint64_t k = bit0 / 8; k <= (bit0 + len) / 8 && k < c->payload_bytes; k++)
          p[k] = (uint8_t)xorshift_next();
        same_segment(d, steps, p, c->payload_bytes, bit0, len, count, what);
        memcpy(p, c->payload, c->payload_bytes);
      }
    }
    bit0 += len;
  }
  free(p);
  free(steps);
  parz_bounded_decoder_free(dec);
}

static void crafted(void) {
  parz_bounded_shape s = {PARZ_FLOAT, 2, {97, 131}};
  const size_t n = parz_bounded_count(&s);
  float* v = (float*)malloc(n * 4);
  static const size_t segments[] = {1, 5, 64, 1000, 4096};
  for (int kind = 0; kind < 3; kind++) {
    for (size_t i = 0; i < n; i++) {
      const double x = 10 * sin(0.01 * (double)i);
      /* smooth (runs of zeros), noisy, and plateaus with spikes (escapes at a small bound) */
      v[i] = (float)(kind == 0   ? x
                     : kind == 1 ? x + (double)(xorshift_next() % 1000) * 1e-3
                                 : (i % 97 < 60 ? 0.0 : (double)(xorshift_next() % 1000)));
    }
    for (int p = PARZ_BOUNDED_LORENZO; p <= PARZ_BOUNDED_PREDICTORS; p++)
      for (size_t k = 0; k < sizeof segments / sizeof segments[0]; k++)
        for (int runs = 0; runs < 2; runs++) {
          parz_bounded_options opt = {p, runs, segments[k], NULL, NULL, NULL};
          parz_bounded_chunk c;
          parz_error err;
          const double eb = kind == 2 ? 1e-4 : 1e-3;
          if (parz_bounded_chunk_encode(&s, v, eb, &opt, &c, &err) != PARZ_OK) {
            CHECK(0, "encode: %s", err.message);
            continue;
          }
          char what[96];
          snprintf(what, sizeof what, "kind %d, predictor %d, C %zu, runs %d", kind, p, segments[k],
                   runs);
          same_chunk(&c, what, segments[k] >= 64);
          parz_bounded_chunk_free(&c);
        }
  }
  free(v);
}

static void real(const char* dir) {
  size_t na = 0;
  real_array* arr = real_arrays_load(dir, 0, &na);
  CHECK(arr != NULL && na > 0, "no arrays in %s", dir);
  for (size_t a = 0; a < na; a++) {
    real_array* r = &arr[a];
    parz_bounded_shape s = {r->array.type, r->array.dims, {0}};
    for (unsigned k = 0; k < r->array.dims; k++)
      s.shape[k] = r->array.shape[k];
    parz_bounded_options opt = {0, 1, 4096, NULL, NULL, NULL};
    parz_bounded_chunk c;
    parz_error err;
    if (parz_bounded_chunk_encode(&s, r->data, 1e-3 * real_array_value_range(r), &opt, &c, &err) !=
        PARZ_OK) {
      CHECK(0, "%s: %s", r->name, err.message);
      continue;
    }
    const unsigned long long before = rounds_total, segs = segments_seen, re = redecodes;
    same_chunk(&c, r->name, 1);
    printf(
        "%s: %zu segments, %.2f rounds and %.1f lane decodes again per segment of 6 lane "
        "runs\n",
        r->name, c.nsegments, (double)(rounds_total - before) / (double)(segments_seen - segs),
        (double)(redecodes - re) / (double)(segments_seen - segs));
    parz_bounded_chunk_free(&c);
  }
  real_arrays_free(arr, na);
}

int main(int argc, char** argv) {
  crafted();
  printf("crafted: %llu segments, %llu refused by the serial decode, %llu step entries with a "
         "pair\n", segments_seen, refusals_seen, pairs_seen);
  CHECK(pairs_seen > 0, "no step entry holds a pair");
  CHECK(refusals_seen > 10000 && refusals_seen < segments_seen,
        "the damage reaches too few segments (%llu of %llu refused)", refusals_seen, segments_seen);
  if (argc > 1)
    real(argv[1]);
  random_books();
  printf("long words: %llu windows checked\n", long_windows);
  CHECK(long_windows > 0, "no window holds a long word");
  return test_finish("test_bounded_lanes");
}
