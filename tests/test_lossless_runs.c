/* The lossless codec's runs (coders 3 and 4): the CPU decoder, which reads several runs side by
 * side, gives what the shared reader of residual_decode.h gives reading the runs one after the
 * other (the GPU's way): the same residuals, or the same refusal of the same run (its kind, and
 * for a bad word its bit), for crafted residuals of every width a code word and its bits can
 * take (short words, words longer than the fast table's, residuals wider than its window),
 * intact and under damage (bit flips, run lengths told wrong, truncation, code lengths no encoder
 * writes). Each damaged segment is a copy of exactly its bytes, so that a read past them is a
 * sanitizer's error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "residual_coder.h"
#include "xorshift.h"

/* A residual of bit length k (0..64). */
static uint64_t of_length(unsigned k) {
  if (k == 0)
    return 0;
  return (uint64_t)1 << (k - 1) | (xorshift_next() & (((uint64_t)1 << (k - 1)) - 1));
}

/* The reference's set-up, the plain one that the CPU decoder's context_setup (residual_coder.c)
 * must match: the code of context c of a segment's `contexts` from the code lengths at `lengths`
 * (bytes long: the segment's bytes from its first length on): its decoder into *d, over mem
 * (PARZ_LL_CODE_WORDS; the decoder has no table of its own, its words decoded by the canonical
 * walk), and its fast table into fast (PARZ_LL_TABLE_SIZE), each word of at most
 * PARZ_LL_TABLE_BITS bits written at every entry it starts. PARZ_LL_OK or PARZ_LL_BAD_PREFIX; the
 * caller has checked that the lengths lie inside the bytes. */
static int plain_setup(const uint8_t* lengths, size_t bytes, unsigned w, unsigned c,
                       unsigned contexts, parz_huff_decoder* d, uint32_t* mem, uint32_t* fast) {
  uint8_t len[65];
  unsigned k, l;
  parz_ll_context_lengths(lengths, bytes, w, c, len);
  if (parz_huff_decoder_setup(d, len, w + 1, PARZ_LL_CODE_MAX, 0, mem))
    return PARZ_LL_BAD_PREFIX;
  /* by doubling: the first 2^l entries hold the words of up to l bits once the first 2^(l-1)
   * are repeated above themselves (a shorter word's entries recur every 2^(l-1)) and the words
   * of l bits written at theirs */
  fast[0] = 0;
  for (l = 1; l <= PARZ_LL_TABLE_BITS; l++) {
    const uint32_t half = 1u << (l - 1);
    for (k = 0; k < half; k++)
      fast[half + k] = fast[k];
    for (k = 0; k < d->count[l]; k++) {
      const unsigned s = d->sorted[d->index[l] + k], advance = l + (s >= 2 ? s - 1 : 0);
      fast[parz_huff_reverse(d->first[l] + k, l)] = advance <= PARZ_LL_FAST_MOST
                                                        ? advance | (63u - s) << 8 |
                                                              parz_ll_next_context(s, contexts)
                                                                  << PARZ_LL_TABLE_BITS << 16
                                                        : s << 8 | l << 16;
    }
  }
  return PARZ_LL_OK;
}

/* What the reference read: PARZ_LL_OK, or the refusal of run `run` (bit: where a bad word
 * starts in it; PARZ_LL_BAD_RUNS: a run length past the bytes), or of the segment's head (run
 * HEAD). */
#define HEAD ((size_t)-1)
typedef struct {
  int bad;
  size_t run;
  uint64_t bit;
} outcome;

/* The n residuals of the coder 3 or 4 segment src (bytes long) into z, run after run through the
 * shared reader. */
static outcome reference(const uint8_t* src, size_t bytes, size_t n, unsigned w, uint64_t* z) {
  static parz_huff_decoder code[PARZ_LL_CONTEXTS];
  static uint32_t tables[PARZ_LL_UNCODE_WORDS];
  outcome o = {PARZ_LL_OK, HEAD, 0};
  unsigned coder = 0, q = 0, c, nc;
  size_t lengths_bytes = 0, runs = 0, at = 0, r;
  o.bad = bytes && src[0] != PARZ_LL_CODER_RUNS && src[0] != PARZ_LL_CODER_ZERO_RUNS
              ? PARZ_LL_BAD_CODER
              : parz_ll_runs_layout(src, bytes, n, w, &coder, &q, &lengths_bytes, &runs, &at);
  if (o.bad != PARZ_LL_OK)
    return o;
  nc = parz_ll_contexts(w, coder);
  for (c = 0; c < nc; c++)
    if (plain_setup(src + PARZ_LL_RUN_HEAD, lengths_bytes, w, c, nc, &code[c],
                    tables + (size_t)nc * PARZ_LL_TABLE_SIZE + c * PARZ_LL_CODE_WORDS,
                    tables + (size_t)c * PARZ_LL_TABLE_SIZE) != PARZ_LL_OK) {
      o.bad = PARZ_LL_BAD_PREFIX;
      return o;
    }
  o.run = 0;
  for (r = 0; r < runs; r++) {
    const size_t i0 = r << q, count = n - i0 < ((size_t)1 << q) ? n - i0 : (size_t)1 << q;
    const size_t len = r + 1 < runs ? parz_ll_run_bytes(src, lengths_bytes, r) : bytes - at;
    parz_ll_residual_reader rd;
    size_t i;
    o.run = r;
    if (len > bytes - at) {
      o.bad = PARZ_LL_BAD_RUNS;
      return o;
    }
    if (parz_ll_run_zero(src[0], len)) {
      memset(z + i0, 0, count * sizeof *z);
      continue;
    }
    parz_ll_reader_init_at(&rd, src + at, len, 0, coder, code, tables);
    for (i = 0; i < count && o.bad == PARZ_LL_OK; i++)
      o.bad = parz_ll_residual_next(&rd, &z[i0 + i]);
    if (o.bad == PARZ_LL_OK)
      o.bad = parz_ll_reader_end(&rd);
    if (o.bad != PARZ_LL_OK) {
      o.bit = rd.r.pos;
      return o;
    }
    at += len;
  }
  o.run = 0;
  return o;
}

/* What a refusal's message holds for each kind. */
static const char* says(int bad) {
  switch (bad) {
    case PARZ_LL_BAD_WORD: return "no code at bit";
    case PARZ_LL_BAD_PAST: return "pass its";
    case PARZ_LL_BAD_TRAILING: return "after its last value";
    case PARZ_LL_BAD_RUNS: return "bytes from byte";
    default: return "?";
  }
}

/* The decoder against the reference on segment src (exactly bytes long); returns whether it
 * decoded. */
static int same(const char* what, const uint8_t* src, size_t bytes, size_t n, unsigned w) {
  uint64_t* want = malloc(n * sizeof *want);
  uint64_t* got = malloc(n * sizeof *got);
  parz_error err;
  const outcome o = reference(src, bytes, n, w, want);
  const int rc = parz_ll_uncode_residuals(src, bytes, n, w, got, NULL, 7, &err);
  CHECK((rc == PARZ_OK) == (o.bad == PARZ_LL_OK), "%s: decoder %d, reference %d (run %zu)", what,
        rc, o.bad, o.run);
  if (rc == PARZ_OK && o.bad == PARZ_LL_OK) {
    CHECK(!memcmp(want, got, n * sizeof *got), "%s: residuals differ", what);
  } else if (rc != PARZ_OK && o.bad == PARZ_LL_BAD_PREFIX) {
    CHECK(strstr(err.message, "not a prefix code") != NULL,
          "%s: reference refused the code lengths, the decoder said: %s", what, err.message);
  } else if (rc != PARZ_OK && o.bad != PARZ_LL_OK && o.run != HEAD) {
    char bit[64], run[64];
    snprintf(bit, sizeof bit, "no code at bit %llu", (unsigned long long)o.bit);
    snprintf(run, sizeof run, "run %zu of", o.run);
    CHECK(strstr(err.message, "segment 7") && strstr(err.message, says(o.bad)),
          "%s: reference refused run %zu (%d), the decoder said: %s", what, o.run, o.bad,
          err.message);
    CHECK(o.bad != PARZ_LL_BAD_WORD || strstr(err.message, bit),
          "%s: reference refused run %zu at bit %llu, the decoder said: %s", what, o.run,
          (unsigned long long)o.bit, err.message);
    CHECK(o.bad != PARZ_LL_BAD_RUNS || strstr(err.message, run),
          "%s: reference refused run %zu's length, the decoder said: %s", what, o.run, err.message);
  }
  free(want);
  free(got);
  return rc == PARZ_OK;
}

/* src with one change applied to an exact copy, decoded both ways. */
static void damaged(const char* what, const uint8_t* src, size_t bytes, size_t n, unsigned w,
                    size_t flip_bit, size_t keep) {
  uint8_t* copy = malloc(keep ? keep : 1);
  memcpy(copy, src, keep < bytes ? keep : bytes);
  if (flip_bit < keep * 8)
    copy[flip_bit / 8] ^= (uint8_t)(1u << (flip_bit % 8));
  same(what, copy, keep, n, w);
  free(copy);
}

/* Residuals of n whose bit lengths follow `shape`, coded by the encoder in runs of 2^want_q;
 * its coder, the code's coder and q checked, then the decode intact and damaged. */
static void segment(const char* what, size_t n, unsigned w, unsigned (*shape)(size_t, unsigned),
                    unsigned coder, unsigned code, unsigned want_q) {
  uint64_t* z = malloc(n * sizeof *z);
  uint8_t* dst = malloc(parz_ll_residual_bound(n, w));
  size_t i, bytes, bit, stride, lengths_bytes = 0, runs = 0, first = 0, r;
  unsigned got_code = 0, q = 0, flips = 0;
  for (i = 0; i < n; i++)
    z[i] = of_length(shape(i, w));
  bytes = want_q == PARZ_LL_RUN_Q ? parz_ll_code_residuals(z, n, w, dst)
                                  : parz_ll_code_residuals_q(z, n, w, want_q, dst);
  CHECK(dst[0] == coder && dst[1] == code, "%s: coder %u code %u, not %u and %u", what, dst[0],
        dst[1], coder, code);
  CHECK(parz_ll_runs_layout(dst, bytes, n, w, &got_code, &q, &lengths_bytes, &runs, &first) ==
            PARZ_LL_OK,
        "%s: layout refused", what);
  CHECK(q == want_q && runs == (n + ((size_t)1 << want_q) - 1) >> want_q,
        "%s: %zu runs of 2^%u, not of 2^%u", what, runs, q, want_q);
  {
    uint8_t* copy = malloc(bytes);
    uint64_t* back = malloc(n * sizeof *back);
    parz_error err;
    memcpy(copy, dst, bytes);
    CHECK(same(what, copy, bytes, n, w), "%s: intact segment refused", what);
    CHECK(parz_ll_uncode_residuals(copy, bytes, n, w, back, NULL, 0, &err) == PARZ_OK &&
              !memcmp(back, z, n * sizeof *z),
          "%s: residuals not back", what);
    free(copy);
    free(back);
  }
  /* bit flips: every bit of the head, of the first run's start and of the last run's end, an
   * odd stride through the rest (about 1000 of them, so that a sanitizer's build runs it too) */
  stride = (bytes * 8 / 1000) | 1;
  for (bit = 0; bit < bytes * 8;
       bit += bit < (first + 16) * 8 || bit >= (bytes - 32) * 8 ? 1 : stride) {
    damaged(what, dst, bytes, n, w, bit, bytes);
    flips++;
  }
  /* each run length told one byte longer and shorter, and truncations */
  for (r = 0; r + 1 < runs; r++) {
    const size_t field = PARZ_LL_RUN_HEAD + lengths_bytes + 2 * r;
    const unsigned was = dst[field] | dst[field + 1] << 8;
    int d;
    for (d = -1; d <= 1; d += 2) {
      uint8_t* copy = malloc(bytes);
      memcpy(copy, dst, bytes);
      copy[field] = (uint8_t)(was + d);
      copy[field + 1] = (uint8_t)((was + d) >> 8);
      same(what, copy, bytes, n, w);
      free(copy);
    }
  }
  for (i = first; i < bytes; i += (bytes - first) / 97 + 1)
    damaged(what, dst, bytes, n, w, (size_t)-1, i);
  printf("%-26s %zu residuals, w %u: coder %u, code %u, %zu runs of 2^%u in %zu bytes, %u flips\n",
         what, n, w, dst[0], dst[1], runs, q, bytes, flips);
  free(z);
  free(dst);
}

/* Mostly short residuals, with wide ones now and then: many short words, rare lengths that take
 * words longer than the fast table's, residuals too wide for its window (w = 64). */
static unsigned mixed(size_t i, unsigned w) {
  const uint64_t d = xorshift_next() % 1000;
  (void)i;
  if (d < 6)
    return w - (unsigned)(xorshift_next() % 8); /* wide: past the window where w = 64 */
  if (d < 20)
    return 12 + (unsigned)(xorshift_next() % 20); /* rare lengths: long code words */
  return (unsigned)(xorshift_next() % 9);
}

/* Full-width noise: residuals too wide for the window under short words, k = 64 among them. */
static unsigned wide(size_t i, unsigned w) {
  (void)i;
  return w - (unsigned)(xorshift_next() % 5);
}

/* Runs of small and of large residuals: context coding pays. */
static unsigned waves(size_t i, unsigned w) {
  return (i / 300) % 2 ? w / 2 + (unsigned)(xorshift_next() % 4) : (unsigned)(xorshift_next() % 3);
}

/* A quiet stretch of zeros in the middle: coder 4's empty runs among coded ones. */
static unsigned quiet(size_t i, unsigned w) { return i >= 2048 && i < 6144 ? 0u : mixed(i, w); }

/* Nibble p of the code lengths of coder 3's segment src set to v (4 bits a length, low half of
 * a byte first). */
static void set_length(uint8_t* src, size_t p, unsigned v) {
  uint8_t* b = src + PARZ_LL_RUN_HEAD + p / 2;
  *b = (uint8_t)(p & 1 ? (*b & 15u) | v << 4 : (*b & 0xF0u) | v);
}

/* Symbol s of ns with length l, each other symbol's length 0, for lengths 1, 2, .., 12 and 12
 * once more (a code whose words fill its 2^12 exactly) on ns distinct symbols from `from` on
 * with a stride of 7 (ns >= 13). */
static unsigned ladder(unsigned s, unsigned ns, unsigned from) {
  unsigned l;
  for (l = 0; l < 13; l++)
    if ((from + 7u * l) % ns == s)
      return l < 12 ? l + 1 : 12;
  return 0;
}

/* Code lengths that no encoder writes, put into coder 3's segments of both codes (one context,
 * and a context per 4 bit lengths, whose lengths start at odd nibbles): the decoder sets up the
 * codes as the reference's plain_setup does, so that both take the same residuals
 * or refuse alike. Per context: random prefix codes (incomplete, words of 1 to 12 bits), codes
 * that fill 2^12 exactly, the same with one word more (refused), a length of 13 to 15 (refused)
 * and no words at all. */
static void foreign_lengths(const char* what, size_t n, unsigned w,
                            unsigned (*shape)(size_t, unsigned), unsigned code) {
  uint64_t* z = malloc(n * sizeof *z);
  uint8_t* dst = malloc(parz_ll_residual_bound(n, w));
  uint8_t* copy;
  const unsigned ns = w + 1, nc = parz_ll_contexts(w, code);
  size_t i, bytes;
  uint64_t* back = malloc(n * sizeof *back);
  unsigned trial, read = 0, refused = 0;
  for (i = 0; i < n; i++)
    z[i] = of_length(shape(i, w));
  bytes = parz_ll_code_residuals(z, n, w, dst);
  CHECK(dst[0] == PARZ_LL_CODER_RUNS && dst[1] == code, "%s: coder %u code %u", what, dst[0],
        dst[1]);
  copy = malloc(bytes);
  for (trial = 0; trial < 120; trial++) {
    unsigned c, k;
    memcpy(copy, dst, bytes);
    for (c = 0; c < nc; c++) {
      /* every fourth trial refused in one context (kinds 3 and 4), the others take kinds 0, 1,
       * 2 and 5 in turn */
      static const unsigned taken[4] = {0, 1, 2, 5};
      const unsigned kind =
          trial % 4 == 0 && c == trial / 4 % nc ? 3 + trial / 4 % 2 : taken[(trial + c) % 4];
      const unsigned from = (unsigned)(xorshift_next() % ns);
      uint32_t room = 1u << PARZ_LL_CODE_MAX;
      for (k = 0; k < ns; k++) {
        unsigned l = 0;
        if (kind == 0 || kind == 1) { /* random, incomplete; kind 0 with few words past 9 bits */
          l = (unsigned)(xorshift_next() % 13);
          if (kind == 0 && l > 9 && xorshift_next() % 4)
            l = (unsigned)(xorshift_next() % 4) + 1;
          if (l && (1u << (PARZ_LL_CODE_MAX - l)) > room)
            l = 0;
          room -= l ? 1u << (PARZ_LL_CODE_MAX - l) : 0u;
        } else if (kind == 2 || kind == 3) { /* full; kind 3 one 12-bit word more */
          l = ladder(k, ns, from);
          if (kind == 3 && !l && k == (from + 7u * 13) % ns)
            l = 12;
        } else if (kind == 4) { /* words of 1 to 4 bits and one length past 12 */
          l = k == from ? 13 + (unsigned)(xorshift_next() % 3) : ladder(k, ns, from);
          l = l > 4 && k != from ? 0 : l;
        }
        set_length(copy, (size_t)c * ns + k, l); /* kind 5: no words, every length 0 */
      }
    }
    same(what, copy, bytes, n, w);
    if (reference(copy, bytes, n, w, back).bad == PARZ_LL_BAD_PREFIX)
      refused++;
    else
      read++;
  }
  /* both outcomes seen: codes refused, and codes set up whose words were then read */
  CHECK(read > 0 && refused > 0, "%s: %u codes set up, %u refused", what, read, refused);
  printf("%-26s foreign code lengths: %u set up and read, %u refused, as the reference\n", what,
         read, refused);
  free(back);
  free(copy);
  free(z);
  free(dst);
}

int main(void) {
  const unsigned q = PARZ_LL_RUN_Q;
  segment("mixed, w 64", 16384, 64, mixed, PARZ_LL_CODER_RUNS, PARZ_LL_CODER_LENGTHS, q);
  segment("mixed, w 32", 16384, 32, mixed, PARZ_LL_CODER_RUNS, PARZ_LL_CODER_LENGTHS, q);
  segment("wide, w 64", 16384, 64, wide, PARZ_LL_CODER_RUNS, PARZ_LL_CODER_LENGTHS, q);
  segment("waves, w 64", 16384, 64, waves, PARZ_LL_CODER_RUNS, PARZ_LL_CODER_CONTEXT, q);
  segment("waves, w 32, short end", 16000, 32, waves, PARZ_LL_CODER_RUNS, PARZ_LL_CODER_CONTEXT, q);
  segment("quiet, w 32", 16384, 32, quiet, PARZ_LL_CODER_ZERO_RUNS, PARZ_LL_CODER_CONTEXT, q);
  /* the run lengths a test or benchmark may ask for (parz_codec_settings.run_q) */
  segment("mixed, w 32, q 4", 16384, 32, mixed, PARZ_LL_CODER_RUNS, PARZ_LL_CODER_LENGTHS, 4);
  segment("mixed, w 64, q 7", 16384, 64, mixed, PARZ_LL_CODER_RUNS, PARZ_LL_CODER_LENGTHS, 7);
  segment("waves, w 32, short end, q 8", 16000, 32, waves, PARZ_LL_CODER_RUNS,
          PARZ_LL_CODER_CONTEXT, 8);
  segment("quiet, w 32, q 7", 16384, 32, quiet, PARZ_LL_CODER_ZERO_RUNS, PARZ_LL_CODER_CONTEXT, 7);
  segment("wide, w 64, q 12", 16384, 64, wide, PARZ_LL_CODER_RUNS, PARZ_LL_CODER_LENGTHS, 12);
  foreign_lengths("mixed, w 32", 16384, 32, mixed, PARZ_LL_CODER_LENGTHS);
  foreign_lengths("waves, w 32", 16384, 32, waves, PARZ_LL_CODER_CONTEXT);
  foreign_lengths("waves, w 64", 16384, 64, waves, PARZ_LL_CODER_CONTEXT);
  return test_finish("test_lossless_runs");
}
