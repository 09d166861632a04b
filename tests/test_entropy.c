/* The codecs' shared entropy coders (codec/entropy/): the length-limited code builder against an
 * exhaustive search (small alphabets) and a reference package-merge (medium ones), its limit,
 * completeness and determinism on alphabets of 2^17 symbols; canonical code words; the bit
 * writer and reader (round trips, never a byte outside their buffers); the table decoder on
 * every window of complete, incomplete and hostile codes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitio.h"
#include "check.h"
#include "fnv_hash.h"
#include "huffman.h"
#include "huffman_build.h"
#include "xorshift.h"

static uint64_t cost(const uint64_t* freq, const uint8_t* len, size_t n) {
  uint64_t c = 0;
  for (size_t s = 0; s < n; s++)
    c += freq[s] * len[s];
  return c;
}

/* ---------------- lengths: exhaustive search ---------------- */

/* The least cost of a prefix code of at most L bits for the m weights sorted descending: the
 * lengths of an optimal code can be taken non-decreasing along them, so every non-decreasing
 * sequence with Kraft sum <= 1 is tried. */
static uint64_t best_cost(const uint64_t* w, size_t m, unsigned L, size_t i, unsigned from,
                          uint64_t kraft, uint64_t sofar) {
  if (i == m)
    return sofar;
  uint64_t best = UINT64_MAX;
  for (unsigned l = from; l <= L; l++) {
    uint64_t k = kraft + ((uint64_t)1 << (L - l));
    /* the rest need at least 2^0 each (length L) */
    if (k + (uint64_t)(m - i - 1) > ((uint64_t)1 << L))
      continue;
    uint64_t c = best_cost(w, m, L, i + 1, l, k, sofar + w[i] * l);
    if (c < best)
      best = c;
  }
  return best;
}

static int descending(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* A random frequency: many small, some huge, some zero, so that limits bind. */
static uint64_t random_freq(void) {
  switch (xorshift_next() % 5) {
    case 0: return 0;
    case 1: return 1 + xorshift_next() % 3;
    case 2: return 1 + xorshift_next() % 100;
    case 3: return 1 + xorshift_next() % 100000;
    default: return (uint64_t)1 << (xorshift_next() % 40);
  }
}

/* Lengths that a builder gives must be a prefix code of at most L bits, 0 exactly for the unused
 * symbols, complete when two or more are used. */
static void check_code(const uint64_t* freq, const uint8_t* len, size_t n, unsigned L,
                       const char* what) {
  size_t used = 0, wrong = 0;
  for (size_t s = 0; s < n; s++) {
    used += freq[s] != 0;
    wrong += (freq[s] != 0) != (len[s] != 0) || len[s] > L;
  }
  CHECK(wrong == 0, "%s: %zu lengths out of 1..%u or on unused symbols", what, wrong, L);
  uint64_t kraft = parz_huff_kraft(len, n, L);
  if (used >= 2)
    CHECK(kraft == (uint64_t)1 << L, "%s: Kraft sum %llu, not 2^%u", what,
          (unsigned long long)kraft, L);
  else if (used == 1)
    CHECK(kraft == (uint64_t)1 << (L - 1), "%s: one symbol, Kraft sum %llu", what,
          (unsigned long long)kraft);
}

static void exhaustive(void) {
  uint64_t freq[10], sorted[10];
  uint8_t len[10];
  int tried = 0;
  for (int round = 0; round < 3000; round++) {
    size_t n = 1 + xorshift_next() % 9;
    unsigned L = 1 + (unsigned)(xorshift_next() % 9);
    size_t m = 0;
    for (size_t s = 0; s < n; s++) {
      freq[s] = random_freq();
      if (round % 7 == 0) /* Fibonacci weights: the unlimited code is as deep as it gets */
        freq[s] = s < 2 ? 1 : freq[s - 1] + freq[s - 2];
      if (freq[s])
        sorted[m++] = freq[s];
    }
    parz_error err;
    int rc = parz_huff_lengths(freq, n, L, len, &err);
    if (m > ((size_t)1 << L)) {
      CHECK(rc == PARZ_ERR_ARG, "%zu symbols in %u bits accepted", m, L);
      continue;
    }
    CHECK(rc == PARZ_OK, "round %d: %s", round, err.message);
    if (rc)
      continue;
    check_code(freq, len, n, L, "exhaustive");
    if (m == 0)
      continue;
    qsort(sorted, m, sizeof *sorted, descending);
    uint64_t best = m == 1 ? sorted[0] : best_cost(sorted, m, L, 0, 1, 0, 0);
    CHECK(cost(freq, len, n) == best, "round %d: %zu symbols, %u bits: cost %llu, optimum %llu",
          round, m, L, (unsigned long long)cost(freq, len, n), (unsigned long long)best);
    tried++;
  }
  CHECK(tried > 2000, "only %d rounds compared", tried);
}

/* ---------------- lengths: reference package-merge ---------------- */

/* The textbook package-merge, each item carrying how often it holds each symbol: n items of
 * denomination 2^-L, and at each level up the symbols merged with the pairs of the level below,
 * by weight; the 2n - 2 lightest items of level 1 give the lengths. */
typedef struct {
  uint64_t w;
  int leaf;
  uint8_t* c; /* [n] */
} item;

static void reference_lengths(const uint64_t* freq, size_t n, unsigned L, uint8_t* len) {
  size_t m = 0, *sym = (size_t*)malloc(n * sizeof *sym);
  for (size_t s = 0; s < n; s++)
    if (freq[s])
      sym[m++] = s;
  /* the used symbols by weight (insertion sort, ties by symbol) */
  for (size_t i = 1; i < m; i++)
    for (size_t j = i; j > 0 && freq[sym[j]] < freq[sym[j - 1]]; j--) {
      size_t t = sym[j];
      sym[j] = sym[j - 1];
      sym[j - 1] = t;
    }
  size_t cap = 4 * m;
  item *prev = (item*)calloc(cap, sizeof *prev), *cur = (item*)calloc(cap, sizeof *cur);
  for (size_t k = 0; k < cap; k++) {
    prev[k].c = (uint8_t*)calloc(n, 1);
    cur[k].c = (uint8_t*)calloc(n, 1);
  }
  size_t np = m;
  for (size_t i = 0; i < m; i++) {
    prev[i].w = freq[sym[i]];
    memset(prev[i].c, 0, n);
    prev[i].c[sym[i]] = 1;
  }
  for (unsigned level = L - 1; level >= 1; level--) {
    /* the pairs of the level below, then the symbols, then sorted by weight (symbols first on a
     * tie, each kind in its own order) */
    size_t k = 0;
    for (size_t p = 0; p + 1 < np; p += 2, k++) {
      cur[k].w = prev[p].w + prev[p + 1].w;
      cur[k].leaf = 0;
      for (size_t s = 0; s < n; s++)
        cur[k].c[s] = (uint8_t)(prev[p].c[s] + prev[p + 1].c[s]);
    }
    for (size_t i = 0; i < m; i++, k++) {
      cur[k].w = freq[sym[i]];
      cur[k].leaf = 1;
      memset(cur[k].c, 0, n);
      cur[k].c[sym[i]] = 1;
    }
    for (size_t i = 1; i < k; i++)
      for (size_t j = i; j > 0 && (cur[j].w < cur[j - 1].w ||
                                   (cur[j].w == cur[j - 1].w && cur[j].leaf > cur[j - 1].leaf));
           j--) {
        item t = cur[j];
        cur[j] = cur[j - 1];
        cur[j - 1] = t;
      }
    np = k;
    item* t = prev;
    prev = cur;
    cur = t;
  }
  memset(len, 0, n);
  for (size_t k = 0; k < 2 * m - 2; k++)
    for (size_t s = 0; s < n; s++)
      len[s] = (uint8_t)(len[s] + prev[k].c[s]);
  for (size_t k = 0; k < cap; k++) {
    free(prev[k].c);
    free(cur[k].c);
  }
  free(prev);
  free(cur);
  free(sym);
}

static void medium(void) {
  enum { N = 150 };
  uint64_t freq[N];
  uint8_t len[N], ref[N];
  for (int round = 0; round < 40; round++) {
    size_t n = 20 + xorshift_next() % (N - 20), m = 0;
    for (size_t s = 0; s < n; s++) {
      freq[s] = random_freq();
      m += freq[s] != 0;
    }
    unsigned L = 8 + (unsigned)(xorshift_next() % 7);
    if (m < 3)
      continue;
    parz_error err;
    CHECK(parz_huff_lengths(freq, n, L, len, &err) == PARZ_OK, "%s", err.message);
    check_code(freq, len, n, L, "medium");
    reference_lengths(freq, n, L, ref);
    CHECK(cost(freq, len, n) == cost(freq, ref, n),
          "round %d: %zu symbols, %u bits: cost %llu, reference %llu", round, m, L,
          (unsigned long long)cost(freq, len, n), (unsigned long long)cost(freq, ref, n));
  }
}

/* The stack builder for small alphabets (the residual coders', on the CPU and the GPU) gives
 * parz_huff_lengths's very lengths, ties and the limits' package-merge included, and refuses
 * what parz_huff_lengths refuses; its canonical words are parz_huff_codes's. */
static void small(void) {
  uint64_t freq[PARZ_HUFF_SMALL + 1];
  uint8_t len[PARZ_HUFF_SMALL + 1], ref[PARZ_HUFF_SMALL + 1];
  uint32_t code[PARZ_HUFF_SMALL + 1], refcode[PARZ_HUFF_SMALL + 1];
  unsigned limited = 0;
  for (int round = 0; round < 4000; round++) {
    const unsigned n = 1 + (unsigned)(xorshift_next() % PARZ_HUFF_SMALL);
    const unsigned L = 4 + (unsigned)(xorshift_next() % 9);
    const int ties = round % 3 == 0;
    for (unsigned s = 0; s < n; s++)
      freq[s] = ties ? xorshift_next() % 4 : random_freq();
    parz_error err;
    const int rc = parz_huff_lengths(freq, n, L, ref, &err);
    const int small_rc = parz_huff_small_lengths(freq, n, L, len);
    CHECK((rc == PARZ_OK) == (small_rc == 0), "round %d: %u symbols, %u bits: %d against %d", round,
          n, L, rc, small_rc);
    if (rc != PARZ_OK)
      continue;
    CHECK(memcmp(len, ref, n) == 0, "round %d: %u symbols, %u bits: other lengths", round, n, L);
    unsigned longest = 0;
    for (unsigned s = 0; s < n; s++)
      longest = ref[s] > longest ? ref[s] : longest;
    limited += longest == L;
    CHECK(parz_huff_codes(ref, n, L, refcode, &err) == PARZ_OK, "%s", err.message);
    CHECK(parz_huff_canonical(len, n, L, code) == 0 && memcmp(code, refcode, n * 4) == 0,
          "round %d: other code words", round);
  }
  CHECK(limited > 100, "only %u codes reached their limit", limited);
  /* out of its ranges: refused, every length 0 */
  memset(freq, 0, sizeof freq);
  freq[0] = freq[1] = freq[2] = 1;
  CHECK(parz_huff_small_lengths(freq, 3, 1, len) == 1 && !len[0] && !len[1] && !len[2],
        "3 symbols in 1-bit codes");
  CHECK(parz_huff_small_lengths(freq, PARZ_HUFF_SMALL + 1, 12, len) == 1, "%u symbols",
        PARZ_HUFF_SMALL + 1);
  freq[1] = (uint64_t)1 << 56;
  CHECK(parz_huff_small_lengths(freq, 3, 12, len) == 1, "a weight of 2^56");
}

/* ---------------- lengths: large alphabets, limits, determinism ---------------- */

static void large(void) {
  size_t n = PARZ_HUFF_MAX_SYMBOLS;
  uint64_t* freq = (uint64_t*)malloc(n * sizeof *freq);
  uint8_t *len = (uint8_t*)malloc(n), *again = (uint8_t*)malloc(n);
  uint8_t* free_len = (uint8_t*)malloc(n);
  parz_error err;
  /* geometric tails: the unlimited code is 40 bits deep */
  xorshift_state = 0x2545F4914F6CDD1Dull;
  for (size_t s = 0; s < n; s++)
    freq[s] = s % 3 ? 0 : (s < 120 ? (uint64_t)1 << (40 - s / 3) : 1 + xorshift_next() % 4);
  for (unsigned L = 18; L <= 24; L += 2) {
    CHECK(parz_huff_lengths(freq, n, L, len, &err) == PARZ_OK, "%s", err.message);
    check_code(freq, len, n, L, "geometric");
    CHECK(parz_huff_lengths(freq, n, 24, free_len, &err) == PARZ_OK, "%s", err.message);
    /* the limit costs something, and never more than the unlimited code's deepest layer */
    CHECK(cost(freq, len, n) >= cost(freq, free_len, n), "limited below the 24-bit code");
  }
  /* a fixed input's lengths are the same on every host: this hash is of lengths made by a
   * Linux x86-64 build; any other must give the same */
  xorshift_state = 0x9E3779B97F4A7C15ull;
  for (size_t s = 0; s < n; s++)
    freq[s] = random_freq();
  CHECK(parz_huff_lengths(freq, n, 20, len, &err) == PARZ_OK, "%s", err.message);
  check_code(freq, len, n, 20, "random 2^17");
  CHECK(parz_huff_lengths(freq, n, 20, again, &err) == PARZ_OK && memcmp(len, again, n) == 0,
        "two builds of one input differ");
  printf("lengths hash (2^17 random symbols, 20 bits): %016llx\n",
         (unsigned long long)fnv_bytes(FNV_START, len, n));
  CHECK(fnv_bytes(FNV_START, len, n) == 0xf4803d3205da2d54ull, "lengths hash %016llx",
        (unsigned long long)fnv_bytes(FNV_START, len, n));
  /* refusals */
  CHECK(parz_huff_lengths(freq, n + 1, 20, len, &err) == PARZ_ERR_ARG, "2^17 + 1 symbols");
  CHECK(parz_huff_lengths(freq, n, 0, len, &err) == PARZ_ERR_ARG, "limit 0");
  CHECK(parz_huff_lengths(freq, n, 25, len, &err) == PARZ_ERR_ARG, "limit 25");
  CHECK(parz_huff_lengths(freq, n, 16, len, &err) == PARZ_ERR_ARG, "78k symbols in 16 bits");
  freq[7] = (uint64_t)1 << 56;
  CHECK(parz_huff_lengths(freq, n, 20, len, &err) == PARZ_ERR_ARG, "a frequency of 2^56");
  memset(freq, 0, n * sizeof *freq);
  CHECK(parz_huff_lengths(freq, n, 20, len, &err) == PARZ_OK && parz_huff_kraft(len, n, 20) == 0,
        "no symbol: every length 0");
  freq[99] = 5;
  CHECK(parz_huff_lengths(freq, n, 20, len, &err) == PARZ_OK && len[99] == 1 &&
            parz_huff_kraft(len, n, 20) == (uint64_t)1 << 19,
        "one symbol: length 1");
  free(freq), free(len), free(again), free(free_len);
}

/* Weights too large to share a 64-bit sort key with their symbol take the comparison sort; the
 * same weights times 2^37 must give the same lengths as they do alone (sorted by keys), since
 * every comparison and sum of the construction scales with them. */
static void scaled(void) {
  const size_t n = PARZ_HUFF_MAX_SYMBOLS;
  uint64_t* small = (uint64_t*)calloc(n, sizeof *small);
  uint64_t* big = (uint64_t*)calloc(n, sizeof *big);
  uint8_t* a = (uint8_t*)malloc(n);
  uint8_t* b = (uint8_t*)malloc(n);
  parz_error err;
  xorshift_state = 0x2545F4914F6CDD1Dull;
  for (size_t k = 0; k < 200; k++) {
    const size_t s = (size_t)(xorshift_next() % n);
    small[s] = 1 + xorshift_next() % 1024;
  }
  small[n - 1] = 1024; /* 1024 * 2^37 = 2^47: past the key's weight bits with 17 symbol bits */
  for (size_t s = 0; s < n; s++)
    big[s] = small[s] << 37;
  const unsigned limits[] = {8, 12, 20};
  for (size_t i = 0; i < sizeof limits / sizeof *limits; i++) {
    const unsigned L = limits[i];
    CHECK(parz_huff_lengths(small, n, L, a, &err) == PARZ_OK, "%s", err.message);
    CHECK(parz_huff_lengths(big, n, L, b, &err) == PARZ_OK, "%s", err.message);
    check_code(big, b, n, L, "scaled weights");
    CHECK(memcmp(a, b, n) == 0, "%u bits: weights times 2^37 give other lengths", L);
  }
  free(small), free(big), free(a), free(b);
}

/* ---------------- canonical code words ---------------- */

static uint32_t unreverse(uint32_t c, unsigned l) {
  uint32_t r = 0;
  for (unsigned b = 0; b < l; b++)
    r |= ((c >> b) & 1u) << (l - 1 - b);
  return r;
}

static void canonical(void) {
  enum { N = 300 };
  uint64_t freq[N];
  uint8_t len[N];
  uint32_t code[N];
  parz_error err;
  for (int round = 0; round < 50; round++) {
    for (size_t s = 0; s < N; s++)
      freq[s] = random_freq();
    CHECK(parz_huff_lengths(freq, N, 15, len, &err) == PARZ_OK, "%s", err.message);
    CHECK(parz_huff_codes(len, N, 15, code, &err) == PARZ_OK, "%s", err.message);
    /* in (length, symbol) order each word is the previous one plus one, shifted to its length */
    uint32_t prev = 0;
    unsigned prev_len = 0;
    int first = 1, bad = 0;
    for (unsigned l = 1; l <= 15; l++)
      for (size_t s = 0; s < N; s++) {
        if (len[s] != l)
          continue;
        uint32_t c = unreverse(code[s], l);
        uint32_t want = first ? 0 : (prev + 1) << (l - prev_len);
        bad += c != want;
        prev = c;
        prev_len = l;
        first = 0;
      }
    CHECK(bad == 0, "round %d: %d words out of canonical order", round, bad);
  }
  uint8_t over[3] = {1, 1, 1}, deep[2] = {1, 16};
  CHECK(parz_huff_codes(over, 3, 15, code, &err) == PARZ_ERR_STREAM, "lengths 1, 1, 1 accepted");
  CHECK(parz_huff_codes(deep, 2, 15, code, &err) == PARZ_ERR_STREAM, "length 16 of 15 accepted");
}

/* ---------------- bit writer and reader ---------------- */

static void bits(void) {
  enum { COUNT = 5000 };
  static uint64_t v[COUNT];
  static unsigned nb[COUNT];
  uint64_t total = 0;
  for (int i = 0; i < COUNT; i++) {
    nb[i] = (unsigned)(xorshift_next() % 65);
    v[i] = nb[i] ? xorshift_next() >> (64 - nb[i]) : 0;
    total += nb[i];
  }
  size_t bytes = (size_t)((total + 7) / 8);
  uint8_t* out = (uint8_t*)malloc(bytes); /* exactly the stream: ASan sees any byte past it */
  parz_bitw w;
  parz_bitw_init(&w, out, bytes, 0);
  for (int i = 0; i < COUNT; i++)
    parz_bitw_put64(&w, v[i], nb[i]);
  CHECK(parz_bitw_bits(&w) == total, "writer counts %llu bits of %llu",
        (unsigned long long)parz_bitw_bits(&w), (unsigned long long)total);
  CHECK(parz_bitw_finish(&w) == bytes && !w.overflow, "stream of %zu bytes", bytes);
  CHECK(total % 8 == 0 || out[bytes - 1] >> (total % 8) == 0, "padding bits not zero");
  parz_bitr r;
  parz_bitr_init(&r, out, bytes, 0, total);
  int bad = 0;
  for (int i = 0; i < COUNT; i++) {
    uint64_t x = nb[i] > 32 ? parz_bitr_get(&r, 32) : parz_bitr_get(&r, nb[i]);
    if (nb[i] > 32)
      x |= parz_bitr_get(&r, nb[i] - 32) << 32;
    bad += x != v[i];
  }
  CHECK(bad == 0 && !parz_bitr_over(&r) && r.pos == total, "%d values read back wrong", bad);
  parz_bitr_skip(&r, 1);
  CHECK(parz_bitr_over(&r), "a bit past the end not seen");

  /* a writer short of room stores nothing past its cap */
  uint8_t guard[64];
  memset(guard, 0xA5, sizeof guard);
  parz_bitw_init(&w, guard, 5, 0);
  for (int i = 0; i < 20; i++)
    parz_bitw_put(&w, 0, 13);
  parz_bitw_finish(&w);
  int touched = 0;
  for (size_t i = 5; i < sizeof guard; i++)
    touched += guard[i] != 0xA5;
  CHECK(w.overflow && touched == 0, "overflow %d, %d bytes past the cap written", w.overflow,
        touched);
  CHECK(parz_bitw_bits(&w) == 264, "an overflowing writer counts %llu bits",
        (unsigned long long)parz_bitw_bits(&w));

  /* the reader of every short buffer at every position: zeros past it, no read outside */
  for (size_t n = 1; n <= 9; n++) {
    uint8_t* p = (uint8_t*)malloc(n);
    memset(p, 0xFF, n);
    int wrong = 0;
    for (uint64_t pos = 0; pos < 8 * n + 16; pos++) {
      parz_bitr_init(&r, p, n, pos, 0);
      uint64_t x = parz_bitr_peek(&r);
      uint64_t ones = pos >= 8 * n ? 0 : 8 * n - pos;
      uint64_t want = ones >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << ones) - 1);
      /* at least 57 bits are valid */
      wrong += ((x ^ want) & ((((uint64_t)1) << 57) - 1)) != 0;
    }
    CHECK(wrong == 0, "%zu-byte buffer: %d windows wrong", n, wrong);
    free(p);
  }
  free(out);
}

/* ---------------- the table decoder ---------------- */

static void decoder(void) {
  enum { N = 700, COUNT = 20000 };
  uint64_t freq[N];
  uint8_t len[N];
  uint32_t code[N];
  parz_error err;
  for (int round = 0; round < 12; round++) {
    unsigned L = 10 + (unsigned)(round % 6) * 2, tb = 1 + (unsigned)(xorshift_next() % L);
    for (size_t s = 0; s < N; s++)
      freq[s] = random_freq();
    freq[0] += 1;
    CHECK(parz_huff_lengths(freq, N, L, len, &err) == PARZ_OK, "%s", err.message);
    CHECK(parz_huff_codes(len, N, L, code, &err) == PARZ_OK, "%s", err.message);
    static uint32_t sym[COUNT];
    size_t m = 0, used[N];
    for (size_t s = 0; s < N; s++)
      if (len[s])
        used[m++] = s;
    uint64_t total = 0;
    for (int i = 0; i < COUNT; i++) {
      sym[i] = (uint32_t)used[xorshift_next() % m];
      total += len[sym[i]];
    }
    size_t bytes = (size_t)((total + 7) / 8);
    uint8_t* out = (uint8_t*)malloc(bytes);
    parz_bitw w;
    parz_bitw_init(&w, out, bytes, 0);
    for (int i = 0; i < COUNT; i++)
      parz_bitw_put(&w, code[sym[i]], len[sym[i]]);
    parz_bitw_finish(&w);
    uint32_t* mem = (uint32_t*)malloc(parz_huff_decoder_words(N, tb) * sizeof *mem);
    parz_huff_decoder d;
    CHECK(parz_huff_decoder_init(&d, len, N, L, tb, mem, &err) == PARZ_OK, "%s", err.message);
    parz_bitr r;
    parz_bitr_init(&r, out, bytes, 0, total);
    int bad = 0;
    for (int i = 0; i < COUNT; i++) {
      unsigned l = 0;
      int32_t s = parz_huff_decode(&d, parz_bitr_peek(&r), &l);
      bad += s != (int32_t)sym[i] || l != len[sym[i]];
      parz_bitr_skip(&r, l);
    }
    CHECK(bad == 0 && r.pos == total, "round %d (L %u, table %u bits): %d symbols wrong", round, L,
          tb, bad);
    free(out);
    free(mem);
  }

  /* every window of a complete code decodes; of an incomplete one, the words not in the book
   * are refused and the others decode to the word they start with */
  static const uint8_t complete[5] = {2, 2, 2, 3, 3}, holes[5] = {2, 0, 3, 3, 5};
  const uint8_t* books[2] = {complete, holes};
  for (int b = 0; b < 2; b++)
    for (unsigned tb = 1; tb <= 5; tb++) {
      uint32_t mem[64], words[5];
      parz_huff_decoder d;
      CHECK(parz_huff_decoder_init(&d, books[b], 5, 5, tb, mem, &err) == PARZ_OK, "%s",
            err.message);
      parz_huff_codes(books[b], 5, 5, words, NULL);
      int refused = 0, wrong = 0;
      for (uint64_t win = 0; win < 32; win++) {
        unsigned l = 0;
        int32_t s = parz_huff_decode(&d, win, &l);
        if (s < 0) {
          refused++;
          for (int k = 0; k < 5; k++) /* no word of the book starts the window */
            wrong += books[b][k] && (win & ((1u << books[b][k]) - 1)) == words[k];
        } else {
          wrong += l != books[b][s] || (win & ((1u << l) - 1)) != words[s];
        }
      }
      CHECK(wrong == 0, "book %d, table %u bits: %d windows decoded wrong", b, tb, wrong);
      /* 2 + 3 + 3 + 5 bits leave 32 - 8 - 4 - 4 - 1 = 15 of 32 windows */
      CHECK(refused == (b ? 15 : 0), "book %d, table %u bits: %d windows refused", b, tb, refused);
    }

  /* one symbol of length 1: the other bit is no word */
  uint8_t one[3] = {0, 1, 0};
  uint32_t mem[(1 << 4) + 4]; /* parz_huff_decoder_words(4 symbols, 4 bits) */
  parz_huff_decoder d;
  unsigned l = 0;
  CHECK(parz_huff_decoder_init(&d, one, 3, 4, 4, mem, &err) == PARZ_OK, "%s", err.message);
  CHECK(parz_huff_decode(&d, 0, &l) == 1 && l == 1 && parz_huff_decode(&d, 1, &l) < 0,
        "one-symbol code");
  /* lengths that are no prefix code, or too long, are refused before any table is built */
  uint8_t over[4] = {1, 2, 2, 2}, deep[2] = {1, 5};
  CHECK(parz_huff_decoder_init(&d, over, 4, 4, 4, mem, &err) == PARZ_ERR_STREAM,
        "over-subscribed code accepted");
  CHECK(parz_huff_decoder_init(&d, deep, 2, 4, 4, mem, &err) == PARZ_ERR_STREAM,
        "length 5 of 4 accepted");
}

int main(void) {
  exhaustive();
  medium();
  small();
  large();
  scaled();
  canonical();
  bits();
  decoder();
  return test_finish("test_entropy");
}
