/* Canonical Huffman coding of the codes, one codebook per chunk, the codes cut into segments that
 * decode independently (a run of zeros never crosses a segment's end, each segment's bit length
 * goes into the chunk's table). The code, its words and the LSB-first bit streams are the
 * codecs' shared ones (codec/entropy/). */
#include <stdlib.h>
#include <string.h>

#include "bitio.h"
#include "bounded.h"
#include "bounded_book_read.h"
#include "bounded_jobs.h"
#include "bounded_forward.h"
#include "chunk_keep.h"
#include "huffman.h"

#define SYM_ESCAPE PARZ_BOUNDED_SYM_ESCAPE
#define SYM_ZERO PARZ_BOUNDED_SYM_ZERO
#define TABLE_BITS 12

/* The first code at or after j, before end, that is not 0 (end when none): four codes at a time
 * through a run of zeros (holes' codes make long ones), then one by one. */
static inline size_t zeros_end(const int32_t* codes, size_t j, size_t end) {
  for (; j + 4 <= end; j += 4) {
    uint64_t a, b;
    memcpy(&a, codes + j, 8);
    memcpy(&b, codes + j + 2, 8);
    if (a | b) {
      /* the first of the four not 0, found without a branch (where a run ends is a coin toss) */
      const size_t in_b = a == 0;
      const uint64_t pair = in_b ? b : a;
      uint32_t first;
      memcpy(&first, &pair, 4); /* the pair's first code, as it lies in memory */
      return j + 2 * in_b + (first == 0);
    }
  }
  while (j < end && codes[j] == 0)
    j++;
  return j;
}

/* The run symbol of a run of len zeros, 2 <= len <= PARZ_BOUNDED_RUN_MAX: floor(log2(len)), as
 * parz_bounded_zero_token finds it, here without a loop. */
static inline uint32_t run_symbol(size_t len) {
  return parz_bitlen64((uint64_t)len) - 1u;
}

/* parz_bounded_next_token with its run of zeros found by zeros_end, and the run's token that
 * parz_bounded_zero_token gives. */
static inline parz_bounded_token next_token(const int32_t* codes, size_t i, size_t end, int runs) {
  if (codes[i] != 0 || !runs)
    return parz_bounded_next_token(codes, i, end, runs);
  const size_t len = zeros_end(codes, i + 1, end) - i;
  if (len < 2 || len > PARZ_BOUNDED_RUN_MAX)
    return parz_bounded_zero_token(len, runs);
  parz_bounded_token t;
  t.sym = run_symbol(len);
  t.extra = (uint32_t)(len - ((size_t)1 << t.sym));
  t.extra_bits = t.sym;
  t.advance = len;
  return t;
}

/* The symbols of the codes counted (parz_bounded_count_symbols) into arrays zeroed by the
 * caller, a residual symbol past the run symbols at its number less shift. A residual but 0 is
 * the same symbol with runs and without: it is counted once, into runs when there are both, and
 * added to plain at the end (an increment per code, not two). Without runs every zero is the zero
 * symbol, so plain's count of it is the zeros', added at the end too. */
static void count_tokens(const int32_t* codes, size_t n, size_t seg, uint64_t* plain,
                         uint64_t* runs, uint32_t shift, size_t m) {
  uint64_t* once = runs ? runs : plain;
  const uint32_t zero = SYM_ZERO - shift;
  size_t zeros = 0;
  for (size_t s0 = 0; s0 < n; s0 += seg) {
    size_t end = s0 + seg < n ? s0 + seg : n;
    for (size_t i = s0; i < end;) {
      const int32_t v = codes[i];
      if (v != 0 && v >= -PARZ_BOUNDED_RADIUS && v <= PARZ_BOUNDED_RADIUS) {
        /* a residual but 0: its own symbol, with runs or without (parz_bounded_next_token's) */
        once[(uint32_t)((int64_t)SYM_ZERO + v) - shift]++;
        i++;
        continue;
      }
      if (v != 0) { /* an escape, in both counts */
        once[SYM_ESCAPE]++;
        if (runs && plain)
          plain[SYM_ESCAPE]++;
        i++;
        continue;
      }
      /* a run of zeros: with runs, tokens of as many as a run symbol holds, a single zero the
       * zero symbol (parz_bounded_zero_token) */
      const size_t j = zeros_end(codes, i + 1, end);
      zeros += j - i;
      if (runs)
        for (size_t len = j - i; len;) {
          const size_t take = len > PARZ_BOUNDED_RUN_MAX ? PARZ_BOUNDED_RUN_MAX : len;
          runs[take >= 2 ? run_symbol(take) : zero]++;
          len -= take;
        }
      i = j;
    }
  }
  if (plain)
    plain[zero] += zeros;
  /* the residuals but 0 (the tokens above counted into runs alone: the zero symbol, whose
   * counts differ, and escapes, below the residuals) */
  if (runs && plain)
    for (size_t k = PARZ_BOUNDED_HEAD; k < m; k++)
      if (k != zero)
        plain[k] += runs[k];
}

/* The least and greatest residual in the range of codes [first, first + count), 0 and 0 when
 * none. */
static void residual_span(const int32_t* codes, size_t first, size_t count, int32_t* lo,
                          int32_t* hi) {
  int16_t a = 0, b = 0;
  for (size_t i = first; i < first + count; i++) {
    const int32_t v = codes[i];
    /* an escape's code taken as 0, which the span holds already: no branch, and residuals in
     * 16-bit lanes (the radius fits them), so that the loop vectorizes */
    const int16_t r = (int16_t)(v >= -PARZ_BOUNDED_RADIUS && v <= PARZ_BOUNDED_RADIUS ? v : 0);
    a = r < a ? r : a;
    b = r > b ? r : b;
  }
  *lo = a;
  *hi = b;
}

/* The codes' residual span in parts. */
typedef struct {
  const int32_t* codes;
  uint64_t n, parts;
  int32_t lo[PARZ_BOUNDED_PARTS_MAX], hi[PARZ_BOUNDED_PARTS_MAX];
} span_job;

static void span_part(void* arg, uint64_t i) {
  span_job* j = (span_job*)arg;
  size_t first, count;
  parz_bounded_part(j->n, j->parts, i, &first, &count);
  residual_span(j->codes, first, count, &j->lo[i], &j->hi[i]);
}

void parz_bounded_code_range(const int32_t* codes, size_t n, parz_bounded_range* r,
                             const parz_jobs* jobs) {
  int32_t a = 0, b = 0; /* 0 and 0 with no residual in the range */
  span_job j;
  j.codes = codes;
  j.n = n;
  j.parts = parz_bounded_parts(jobs, n, n);
  parz_bounded_run(jobs, j.parts, span_part, &j);
  for (uint64_t i = 0; i < j.parts; i++) {
    a = j.lo[i] < a ? j.lo[i] : a;
    b = j.hi[i] > b ? j.hi[i] : b;
  }
  r->shift = (uint32_t)(SYM_ZERO + a) - PARZ_BOUNDED_HEAD;
  r->m = PARZ_BOUNDED_HEAD + (size_t)(b - a) + 1;
}

/* Bytes of the histograms of one count's parts at most. */
#define PART_HISTOGRAMS_BYTES ((size_t)8 << 20)

/* A count cut into parts of whole segments, each counting into histograms of its own over the
 * range, m entries. */
typedef struct {
  const int32_t* codes;
  size_t n, seg, m;
  uint64_t nseg, parts;
  uint32_t shift;
  uint64_t *plain, *runs; /* parts x m, or NULL */
} count_job;

static void count_part(void* arg, uint64_t i) {
  const count_job* j = (const count_job*)arg;
  size_t first, count;
  parz_bounded_part(j->nseg, j->parts, i, &first, &count);
  const size_t c0 = first * j->seg,
               c1 = (first + count) * j->seg < j->n ? (first + count) * j->seg : j->n;
  uint64_t* plain = j->plain ? j->plain + i * j->m : NULL;
  uint64_t* runs = j->runs ? j->runs + i * j->m : NULL;
  /* each part clears its own histograms: their memory is touched first, and cleared, here */
  if (plain)
    memset(plain, 0, j->m * sizeof *plain);
  if (runs)
    memset(runs, 0, j->m * sizeof *runs);
  count_tokens(j->codes + c0, c1 - c0, j->seg, plain, runs, j->shift, j->m);
}

/* The parts' histograms added into the range's, the range cut into parts of its own. */
typedef struct {
  const count_job* count;
  uint64_t *plain, *runs; /* the range's, or NULL */
  uint64_t parts;
} add_job;

static void add_range(const count_job* j, const uint64_t* parts, uint64_t* all, size_t first,
                      size_t count) {
  for (uint64_t p = 0; p < j->parts; p++)
    for (size_t k = first; k < first + count; k++)
      all[k] += parts[p * j->m + k];
}

static void add_part(void* arg, uint64_t i) {
  const add_job* a = (const add_job*)arg;
  size_t first, count;
  parz_bounded_part(a->count->m, a->parts, i, &first, &count);
  if (a->plain)
    add_range(a->count, a->count->plain, a->plain, first, count);
  if (a->runs)
    add_range(a->count, a->count->runs, a->runs, first, count);
}

void parz_bounded_count_symbols(const int32_t* codes, size_t n, size_t seg,
                                const parz_bounded_range* r, uint64_t* plain, uint64_t* runs,
                                const parz_jobs* jobs, parz_keep* keep) {
  count_job j;
  uint64_t* hist = NULL;
  int zeroed;
  if (plain)
    memset(plain, 0, r->m * sizeof *plain);
  if (runs)
    memset(runs, 0, r->m * sizeof *runs);
  j.nseg = (n + seg - 1) / seg;
  j.m = r->m;
  j.parts = parz_bounded_parts(jobs, j.nseg, n);
  if (j.parts > 1 && j.parts * j.m * 2 * sizeof(uint64_t) > PART_HISTOGRAMS_BYTES)
    j.parts = PART_HISTOGRAMS_BYTES / (j.m * 2 * sizeof(uint64_t));
  /* the parts' histograms in one block of the keep: each part clears its own */
  if (j.parts > 1)
    hist = (uint64_t*)parz_keep_take(keep, (plain && runs ? 2 : 1) * j.parts * j.m * sizeof *hist,
                                     &zeroed);
  if (!hist) {
    count_tokens(codes, n, seg, plain, runs, r->shift, r->m);
    return;
  }
  j.plain = plain ? hist : NULL;
  j.runs = runs ? hist + (plain ? j.parts * j.m : 0) : NULL;
  j.codes = codes;
  j.n = n;
  j.seg = seg;
  j.shift = r->shift;
  parz_bounded_run(jobs, j.parts, count_part, &j);
  add_job a = {&j, plain, runs, parz_bounded_parts(jobs, j.m, j.m * j.parts)};
  parz_bounded_run(jobs, a.parts, add_part, &a);
  parz_keep_give(keep, hist);
}

size_t parz_bounded_estimate_counted(const uint64_t* runs, const parz_bounded_range* r) {
  uint8_t* len = (uint8_t*)malloc(r->m);
  uint8_t* out = (uint8_t*)malloc(PARZ_BOUNDED_BOOK_BYTES_MAX);
  size_t bytes = SIZE_MAX;
  if (len && out && !parz_huff_lengths(runs, r->m, PARZ_BOUNDED_MAX_LEN, len, NULL)) {
    uint64_t bits = parz_bounded_coded_bits(runs, len, r->m);
    size_t book_size = parz_bounded_book_write(len, r, out, PARZ_BOUNDED_BOOK_BYTES_MAX);
    if (book_size)
      bytes = book_size + (size_t)((bits + 7) / 8);
  }
  free(len), free(out);
  return bytes;
}

size_t parz_bounded_estimate_bytes(const int32_t* codes, size_t n, size_t seg,
                                   const parz_jobs* jobs) {
  parz_bounded_range r;
  parz_bounded_code_range(codes, n, &r, jobs);
  uint64_t* freq = (uint64_t*)malloc(r.m * sizeof *freq);
  size_t bytes = SIZE_MAX;
  if (freq) {
    parz_bounded_count_symbols(codes, n, seg, &r, NULL, freq, jobs, NULL);
    bytes = parz_bounded_estimate_counted(freq, &r);
  }
  free(freq);
  return bytes;
}

/* ---------------- building the code ---------------- */

int parz_bounded_book_lengths(const uint64_t* freq, size_t m, uint8_t* len, parz_error* err) {
  int rc = parz_huff_lengths(freq, m, PARZ_BOUNDED_MAX_LEN, len, err);
  if (rc)
    return rc;
  unsigned any = 0;
  for (size_t s = 0; s < m; s++)
    any |= len[s];
  if (!any)
    return parz_fail(err, PARZ_ERR_ARG, "bounded: no symbol to code");
  return PARZ_OK;
}

void parz_bounded_book_expand(const uint8_t* len, const parz_bounded_range* r, uint8_t* all) {
  memset(all, 0, PARZ_BOUNDED_SYMBOLS);
  memcpy(all, len, PARZ_BOUNDED_HEAD);
  memcpy(all + PARZ_BOUNDED_HEAD + r->shift, len + PARZ_BOUNDED_HEAD, r->m - PARZ_BOUNDED_HEAD);
}

int parz_bounded_range_codes(const uint8_t* len, const parz_bounded_range* r, uint32_t* code,
                             parz_error* err) {
  uint32_t* words = (uint32_t*)malloc(r->m * sizeof *words);
  int rc;
  if (!words)
    return parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory for %zu code words", r->m);
  rc = parz_huff_codes(len, r->m, PARZ_BOUNDED_MAX_LEN, words, err);
  if (rc == PARZ_OK) {
    memset(code, 0, PARZ_BOUNDED_SYMBOLS * sizeof *code);
    memcpy(code, words, PARZ_BOUNDED_HEAD * sizeof *code);
    memcpy(code + PARZ_BOUNDED_HEAD + r->shift, words + PARZ_BOUNDED_HEAD,
           (r->m - PARZ_BOUNDED_HEAD) * sizeof *code);
  }
  free(words);
  return rc;
}

/* ---------------- encoding ---------------- */

size_t parz_bounded_encode(const int32_t* codes, size_t n, size_t seg, int runs,
                           const parz_bounded_book* book, uint8_t* out, size_t cap,
                           uint64_t* seg_bits) {
  parz_bitw w;
  parz_bitw_init(&w, out, cap, 0);
  size_t si = 0;
  for (size_t s0 = 0; s0 < n; s0 += seg, si++) {
    uint64_t start = parz_bitw_bits(&w);
    size_t end = s0 + seg < n ? s0 + seg : n;
    for (size_t i = s0; i < end;) {
      const int32_t v = codes[i];
      if (v != 0 && v >= -PARZ_BOUNDED_RADIUS && v <= PARZ_BOUNDED_RADIUS) {
        /* a residual but 0: its code word alone (parz_bounded_next_token's symbol) */
        const uint32_t sym = (uint32_t)((int64_t)SYM_ZERO + v);
        const unsigned l = book->len[sym];
        if (!l)
          return (size_t)-1;
        parz_bitw_put(&w, book->code[sym], l);
        i++;
        continue;
      }
      parz_bounded_token t = next_token(codes, i, end, runs);
      unsigned l = book->len[t.sym];
      if (!l)
        return (size_t)-1; /* the book was not built from these codes */
      parz_bitw_put(&w, book->code[t.sym], l);
      if (t.extra_bits)
        parz_bitw_put(&w, t.extra, t.extra_bits);
      i += t.advance;
    }
    seg_bits[si] = parz_bitw_bits(&w) - start;
  }
  uint64_t total = parz_bitw_bits(&w);
  parz_bitw_finish(&w);
  if (w.overflow)
    return (size_t)-1;
  return (size_t)total;
}

/* ---------------- decoding ---------------- */

struct parz_bounded_decoder {
  parz_huff_decoder huff;
  uint32_t mem[]; /* the decoder's table and symbols */
};

/* Lengths are walked in groups of 32: a group of unused ones costs four loads and a test. */
#define GROUP 32u
#define GROUPS ((PARZ_BOUNDED_SYMBOLS + GROUP - 1) / GROUP)

/* How many of the 8 lengths at p are not 0. */
static unsigned used_in_word(const uint8_t* p) {
  uint64_t w;
  memcpy(&w, p, 8);
  w |= w >> 4;
  w |= w >> 2;
  w |= w >> 1;
  /* one bit per byte, then their sum in the top byte */
  return (unsigned)(((w & 0x0101010101010101ull) * 0x0101010101010101ull) >> 56);
}

/* The groups of the alphabet that hold a used symbol, into group[] (their number returned), and
 * the used symbols' count into *used. */
static size_t used_groups(const uint8_t* len, uint16_t* group, size_t* used) {
  size_t n = 0, m = 0;
  for (size_t g = 0; g < GROUPS; g++) {
    const size_t lo = g * GROUP, hi = lo + GROUP < PARZ_BOUNDED_SYMBOLS ? lo + GROUP
                                                                        : PARZ_BOUNDED_SYMBOLS;
    size_t s = lo;
    unsigned k = 0;
    if (hi - lo == GROUP) {
      uint64_t w[4];
      memcpy(w, len + lo, sizeof w);
      if (!(w[0] | w[1] | w[2] | w[3]))
        continue;
    }
    for (; s + 8 <= hi; s += 8)
      k += used_in_word(len + s);
    for (; s < hi; s++)
      k += len[s] != 0;
    group[n] = (uint16_t)g;
    n += k != 0;
    m += k;
  }
  *used = m;
  return n;
}

/* A used symbol and its length in one word of a list in symbol order. */
#define USED(s, l) ((uint32_t)(s) << 5 | (l))
#define USED_SYM(u) ((u) >> 5)
#define USED_LEN(u) ((u)&31u)

/* The used symbols of the groups, in order, into list (with room for one entry past the last
 * used symbol, which the walk writes without a branch); their longest length returned. */
static unsigned used_symbols(const uint8_t* len, const uint16_t* group, size_t ngroups,
                             uint32_t* list) {
  size_t m = 0;
  unsigned top = 0;
  for (size_t i = 0; i < ngroups; i++) {
    const size_t lo = (size_t)group[i] * GROUP;
    const size_t hi = lo + GROUP < PARZ_BOUNDED_SYMBOLS ? lo + GROUP : PARZ_BOUNDED_SYMBOLS;
    for (size_t s = lo; s < hi; s++) {
      list[m] = USED(s, len[s] & 31u);
      m += len[s] != 0;
      top = len[s] > top ? len[s] : top;
    }
  }
  return top;
}

/* The list walked in this many quarters side by side when its symbols are counted and placed:
 * a length's count and its next place are a chain of increments through memory, which one walk
 * would run one symbol at a time where lengths repeat (as they mostly do). */
#define WAYS 4u

/* The decoder of the used symbols in list (symbol order, lengths 1..PARZ_BOUNDED_MAX_LEN), the
 * one parz_huff_decoder_init builds over the whole alphabet's lengths: a symbol's place in the
 * canonical code depends only on the symbols before it, so one pass over the used ones in order
 * gives every word, without walks over the unused symbols (a chunk's book uses dozens to
 * thousands of the 65,560, scattered over the alphabet). The list is cut into WAYS parts, each
 * counted and placed with counters of its own: part q's symbols of a length follow those of the
 * parts before it, so the order is the one walk's. NULL, with err set, for lengths that are no
 * prefix code or without memory. */
static parz_bounded_decoder* decoder_of(const uint32_t* list, size_t used, parz_error* err) {
  const size_t words = parz_bounded_decoder_words_for(used);
  const unsigned max_len = PARZ_BOUNDED_MAX_LEN;
  const unsigned bits = TABLE_BITS < max_len ? TABLE_BITS : max_len;
  const size_t part = used / WAYS, tail = WAYS * part;
  uint32_t next[WAYS][32], count[WAYS][32];
  uint64_t kraft = 0;
  parz_bounded_decoder* d = (parz_bounded_decoder*)malloc(sizeof *d + words * sizeof(uint32_t));
  if (!d) {
    parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory for a decoder of %zu words", words);
    return NULL;
  }
  parz_huff_decoder* h = &d->huff;
  memset(count, 0, sizeof count);
  for (size_t i = 0; i < part; i++)
    for (unsigned q = 0; q < WAYS; q++)
      count[q][USED_LEN(list[q * part + i])]++;
  for (size_t i = tail; i < used; i++) /* the last part's rest */
    count[WAYS - 1][USED_LEN(list[i])]++;
  uint32_t all[32] = {0}, longer = 0;
  for (unsigned q = 0; q < WAYS; q++)
    for (unsigned l = 0; l < 32; l++)
      all[l] += count[q][l];
  for (unsigned l = 1; l <= max_len; l++)
    kraft += (uint64_t)all[l] << (max_len - l);
  for (unsigned l = max_len + 1; l < 32; l++)
    longer |= all[l];
  if (all[0] || longer || kraft > ((uint64_t)1 << max_len)) {
    free(d);
    parz_fail(err, PARZ_ERR_STREAM, "huffman: code lengths (at most %u) are no prefix code",
              max_len);
    return NULL;
  }
  memset(h, 0, sizeof *h);
  memcpy(h->count, all, sizeof h->count);
  h->max_len = max_len;
  h->table_bits = bits;
  h->table = d->mem;
  h->sorted = d->mem + ((size_t)1 << TABLE_BITS);
  h->count[0] = (uint32_t)(PARZ_BOUNDED_SYMBOLS - used);
  uint32_t code = 0, at = 0;
  for (unsigned l = 1; l <= max_len; l++) {
    if (l > 1)
      code = (code + h->count[l - 1]) << 1;
    h->first[l] = code;
    h->index[l] = at;
    for (unsigned q = 0; q < WAYS; q++) {
      next[q][l] = at;
      at += count[q][l];
    }
  }
  for (size_t i = 0; i < part; i++)
    for (unsigned q = 0; q < WAYS; q++) {
      const uint32_t u = list[q * part + i];
      h->sorted[next[q][USED_LEN(u)]++] = USED_SYM(u);
    }
  for (size_t i = tail; i < used; i++)
    h->sorted[next[WAYS - 1][USED_LEN(list[i])]++] = USED_SYM(list[i]);
  /* the words of at most `bits` bits, each the first of its length plus its place among them:
   * the 2^(bits - l) entries whose low l bits are the word, reversed */
  memset(h->table, 0, sizeof(uint32_t) << bits);
  for (unsigned l = 1; l <= bits; l++)
    for (uint32_t k = 0; k < h->count[l]; k++) {
      const uint32_t sym = h->sorted[h->index[l] + k];
      for (uint32_t e = parz_huff_reverse(h->first[l] + k, l); e < (1u << bits); e += 1u << l)
        h->table[e] = sym << 5 | l; /* PARZ_HUFF_ENTRY_SYM, PARZ_HUFF_ENTRY_LEN */
    }
  return d;
}

parz_bounded_decoder* parz_bounded_decoder_new(const parz_bounded_book* book, parz_error* err) {
  uint16_t group[GROUPS];
  size_t used;
  const size_t ngroups = used_groups(book->len, group, &used);
  uint32_t* list = (uint32_t*)malloc((used + 1) * sizeof *list);
  parz_bounded_decoder* d = NULL;
  if (!list) {
    parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory for a decoder of %zu symbols", used);
    return NULL;
  }
  if (used_symbols(book->len, group, ngroups, list) <= PARZ_BOUNDED_MAX_LEN)
    d = decoder_of(list, used, err);
  else
    parz_fail(err, PARZ_ERR_STREAM, "huffman: code lengths (at most %u) are no prefix code",
              (unsigned)PARZ_BOUNDED_MAX_LEN);
  free(list);
  return d;
}

void parz_bounded_decoder_free(parz_bounded_decoder* d) { free(d); }

const parz_huff_decoder* parz_bounded_decoder_huff(const parz_bounded_decoder* d) {
  return &d->huff;
}

size_t parz_bounded_decoder_words_for(size_t used) {
  return parz_huff_decoder_words(used, TABLE_BITS);
}

size_t parz_bounded_decoder_words(const parz_bounded_decoder* d) {
  size_t used = 0;
  for (unsigned l = 1; l <= d->huff.max_len; l++)
    used += d->huff.count[l];
  return parz_bounded_decoder_words_for(used);
}

int parz_bounded_decode_segment(const parz_bounded_decoder* d, const uint8_t* payload,
                                size_t payload_bytes, uint64_t bit0, uint64_t nbits, int32_t* codes,
                                size_t count, int zeroed, size_t index, parz_error* err) {
  if (nbits > (uint64_t)payload_bytes * 8 || bit0 > (uint64_t)payload_bytes * 8 - nbits)
    return parz_fail(err, PARZ_ERR_STREAM,
                     "bounded: segment %zu's bits %llu+%llu pass the payload's %zu bytes", index,
                     (unsigned long long)bit0, (unsigned long long)nbits, payload_bytes);
  parz_bitr r;
  size_t at = 0, run = 0;
  parz_bitr_init(&r, payload, payload_bytes, bit0, nbits);
  switch (parz_bounded_segment_codes(&d->huff, &r, codes, count, zeroed, &at, &run)) {
    case PARZ_BOUNDED_SEGMENT_OK: return PARZ_OK;
    case PARZ_BOUNDED_SEGMENT_SHORT:
      return parz_fail(err, PARZ_ERR_STREAM, "bounded: segment %zu ends after %zu of its %zu codes",
                       index, at, count);
    case PARZ_BOUNDED_SEGMENT_WORD:
      return parz_fail(err, PARZ_ERR_STREAM,
                       "bounded: segment %zu, code %zu: bits not a code word of the book", index,
                       at);
    case PARZ_BOUNDED_SEGMENT_RUN:
      return parz_fail(err, PARZ_ERR_STREAM,
                       "bounded: segment %zu, code %zu: run of %zu zeros passes its %zu codes",
                       index, at, run, count);
    default:
      return parz_fail(err, PARZ_ERR_STREAM,
                       "bounded: segment %zu's codes end at bit %llu of its %llu", index,
                       (unsigned long long)(r.pos - bit0), (unsigned long long)nbits);
  }
}

uint64_t parz_bounded_coded_bits(const uint64_t* freq, const uint8_t* len, size_t m) {
  uint64_t bits = freq[SYM_ESCAPE] * (len[SYM_ESCAPE] + 32u);
  for (size_t s = 1; s < m; s++)
    bits += freq[s] * (len[s] + (s < PARZ_BOUNDED_HEAD ? (unsigned)s : 0u));
  return bits;
}

/* ---------------- codebook bytes ---------------- */

static size_t put_varint(uint8_t* out, size_t cap, size_t at, uint32_t v) {
  do {
    if (at >= cap)
      return 0;
    out[at++] = (uint8_t)((v & 0x7Fu) | (v >= 0x80u ? 0x80u : 0u));
    v >>= 7;
  } while (v);
  return at;
}

static int get_varint(const uint8_t* in, size_t size, size_t* at, uint32_t* v) {
  uint64_t r = 0;
  for (unsigned shift = 0; shift < 35; shift += 7) {
    if (*at >= size)
      return 0;
    uint8_t b = in[(*at)++];
    r |= (uint64_t)(b & 0x7Fu) << shift;
    if (!(b & 0x80u)) {
      if (r > 0xFFFFFFFFu)
        return 0;
      *v = (uint32_t)r;
      return 1;
    }
  }
  return 0;
}

/* The codebook: a varint span (symbols 0..span-1 are described), then each symbol's code length
 * as a bit code relative to the previous length, LSB first, padded to a byte:
 *   0                 the previous length again
 *   1 0 s             the previous length + 1 (s = 0) or - 1 (s = 1)
 *   1 1 0 l[5]        length l (0 = unused)
 *   1 1 1 k[5] r[k]   2^k + r unused symbols (the previous length is kept)
 * Lengths change slowly over the residuals, so most symbols cost 1 to 3 bits. */
/* Symbol s's length in a table over r. */
static unsigned range_len(const uint8_t* len, const parz_bounded_range* r, uint32_t s) {
  if (s < PARZ_BOUNDED_HEAD)
    return len[s];
  return s < PARZ_BOUNDED_HEAD + r->shift ? 0u : len[s - r->shift];
}

/* The unused symbols from s on, before span: the symbols between the head and the range's
 * residuals passed at once. */
static uint32_t unused_from(const uint8_t* len, const parz_bounded_range* r, uint32_t s,
                            uint32_t span) {
  uint32_t e = s;
  while (e < span) {
    if (e >= PARZ_BOUNDED_HEAD && e < PARZ_BOUNDED_HEAD + r->shift)
      e = PARZ_BOUNDED_HEAD + r->shift;
    else if (range_len(len, r, e))
      break;
    else
      e++;
  }
  return (e < span ? e : span) - s;
}

size_t parz_bounded_book_write(const uint8_t* len, const parz_bounded_range* r, uint8_t* out,
                               size_t cap) {
  uint32_t span = 0;
  for (size_t i = r->m; i-- > 0;)
    if (len[i]) {
      span = (uint32_t)(i < PARZ_BOUNDED_HEAD ? i : i + r->shift) + 1;
      break;
    }
  size_t at = put_varint(out, cap, 0, span);
  if (!at)
    return 0;
  parz_bitw w;
  parz_bitw_init(&w, out, cap, at);
  unsigned prev = 0;
  for (uint32_t s = 0; s < span;) {
    unsigned l = range_len(len, r, s);
    if (l == 0) {
      uint32_t u = unused_from(len, r, s, span);
      unsigned k = 0;
      while ((u >> (k + 1)) != 0)
        k++;
      parz_bitw_put(&w, 7u, 3);
      parz_bitw_put(&w, k, 5);
      parz_bitw_put(&w, u - (1u << k), k);
      s += u;
      continue;
    }
    if (l == prev) {
      parz_bitw_put(&w, 0u, 1);
    } else if (l == prev + 1 || l + 1 == prev) {
      parz_bitw_put(&w, l == prev + 1 ? 1u : 5u, 3);
    } else {
      parz_bitw_put(&w, 3u, 3);
      parz_bitw_put(&w, l, 5);
    }
    prev = l;
    s++;
  }
  size_t end = parz_bitw_finish(&w);
  return w.overflow ? 0 : end;
}

/* The codebook's bit reader: its bits from a window of at least 57 read at once, refilled when
 * a field needs more than it holds (a symbol's length takes 1 to 32 bits, most often 1 to 3). */
typedef struct {
  parz_bitr r;
  uint64_t window; /* the bits from r.pos on, low first */
  unsigned held;   /* of them, those read from the buffer */
} book_reader;

/* n <= 24 bits of the codebook, refused past its end. */
static inline int book_bits(book_reader* b, unsigned n, uint32_t* v) {
  if (b->r.pos + n > b->r.end)
    return 0;
  if (b->held < n) {
    b->window = parz_bitr_peek(&b->r);
    b->held = 57;
  }
  *v = (uint32_t)(b->window & ((UINT64_C(1) << n) - 1u));
  b->window >>= n;
  b->held -= n;
  b->r.pos += n;
  return 1;
}

/* Up to max zero bits (each the previous length again) after the one just read, as many as the
 * window holds, passed at once: lengths change slowly over the residuals, so a codebook is mostly
 * runs of them. Their count returned. */
static inline uint32_t book_zeros(book_reader* b, uint32_t max) {
  const uint64_t left = b->r.end - b->r.pos;
  uint32_t k = b->held < left ? b->held : (uint32_t)left;
  if (b->window)
    k = parz_ctz64(b->window) < k ? parz_ctz64(b->window) : k;
  k = k < max ? k : max;
  b->window >>= k; /* k <= held <= 57 */
  b->held -= k;
  b->r.pos += k;
  return k;
}

/* The most used symbols a codebook of size bytes can describe: each takes at least one bit. */
static size_t book_list_cap(size_t size) {
  return size < PARZ_BOUNDED_SYMBOLS / 8 ? size * 8 : PARZ_BOUNDED_SYMBOLS;
}

/* The zeros (the previous length again) read_fast takes in one step at most: its list entries for
 * them are written whole, used or not, so a list has this many entries of room past its end. */
#define FAST_ZEROS 4u

/* The codebook's state between symbols: read_fast's and read_book's. */
typedef struct {
  uint32_t s;     /* the next symbol */
  unsigned prev;  /* the previous length */
  size_t n;       /* used symbols listed */
  uint64_t kraft; /* sum of 2^(MAX_LEN - len) over them */
} book_state;

/* read_book's grammar on the bits of r from r->pos on, while at least 8 bytes of the buffer are
 * left (a window of 57 bits then holds any step): each step a run of zeros and the token after
 * it, their fields taken by shifts and selects rather than a branch per token, which a codebook's
 * mix of tokens would mispredict. Returns 0 at the first token read_book would refuse, with b and
 * r->pos wherever they stopped: the caller reads the codebook again from its start to say why. */
static int read_fast(parz_bitr* r, uint32_t span, uint32_t* list, book_state* b) {
  const unsigned max = PARZ_BOUNDED_MAX_LEN;
  uint32_t s = b->s;
  unsigned prev = b->prev;
  size_t n = b->n;
  uint64_t kraft = b->kraft, pos = r->pos;
  int ok = 1;
  uint64_t w = 0;
  unsigned held = 0; /* bits of w read from the buffer */
  while (s < span) {
    if (held < 42) { /* a step takes 42 bits at most */
      if ((pos >> 3) + 8 > r->bytes)
        break;
      r->pos = pos;
      w = parz_bitr_peek(r);
      held = 57;
    }
    const uint32_t z = parz_ctz64(w | (UINT64_C(1) << FAST_ZEROS)), left = span - s;
    /* the zeros' symbols, written whole; those of an unused length are not counted */
    const uint32_t at = USED(s, prev), used = prev ? 1u : 0u;
    for (uint32_t i = 0; i < FAST_ZEROS; i++)
      list[n + i] = at + (i << 5);
    if (z >= left) { /* the span ends inside the run */
      n += used * left;
      kraft += (uint64_t)(used * left) << (max - prev);
      s = span;
      pos += left;
      break;
    }
    n += used * z;
    kraft += (uint64_t)(used * z) << (max - prev);
    s += z;
    if (z == FAST_ZEROS) { /* the run goes on */
      pos += z;
      w >>= z;
      held -= z;
      continue;
    }
    /* the token at bit z: 1 0 s, 1 1 0 l[5] or 1 1 1 k[5] r[k] */
    const uint64_t t = w >> z;
    const unsigned kind = (unsigned)(t >> 1) & 1u, third = (unsigned)(t >> 2) & 1u;
    const unsigned x = (unsigned)(t >> 3) & 31u;
    const unsigned step = !kind, skip = kind & third;
    const unsigned l = step ? (third ? prev - 1u : prev + 1u) : (skip ? prev : x);
    const uint64_t count = skip ? (UINT64_C(1) << x) + ((t >> 8) & ((UINT64_C(1) << x) - 1u)) : 1u;
    const unsigned emit = !skip && l != 0;
    if ((step && (third ? prev < 2 : prev >= max)) || (kind && !third && x > max) ||
        (skip && (x > 24 || count > left - z))) {
      ok = 0;
      break;
    }
    list[n] = USED(s, l);
    n += emit;
    kraft += (uint64_t)emit << ((max - l) & 31u);
    s += (uint32_t)count;
    prev = l;
    const unsigned c = z + (step ? 3u : 8u + (skip ? x : 0u));
    pos += c;
    w = t >> (c - z);
    held -= c;
  }
  r->pos = pos;
  *b = (book_state){s, prev, n, kraft};
  return ok;
}

/* Entries of a list read_book fills from a codebook of size bytes. */
static size_t book_list_room(size_t size) { return book_list_cap(size) + FAST_ZEROS + 1; }

/* The codebook's grammar, with every check parz_bounded_book_read names: its used symbols in
 * symbol order into list (USED, book_list_room(size) entries), their count into *m and the bytes
 * it takes into *used. */
static int read_book(const uint8_t* in, size_t size, uint32_t* list, size_t* m, size_t* used,
                     parz_error* err) {
  size_t at = 0;
  uint32_t span = 0;
  *m = 0;
  if (!get_varint(in, size, &at, &span))
    return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: span cut off (%zu bytes)", size);
  if (span == 0 || span > PARZ_BOUNDED_SYMBOLS)
    return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: span %u, not 1..%u", span,
                     (unsigned)PARZ_BOUNDED_SYMBOLS);
  book_reader r;
  book_state b = {0, 0, 0, 0};
  parz_bitr_init(&r.r, in + at, size - at, 0, (uint64_t)(size - at) * 8);
  if (!read_fast(&r.r, span, list, &b)) { /* read again below, to the refusal's message */
    memset(&b, 0, sizeof b);
    r.r.pos = 0;
  }
  r.window = 0;
  r.held = 0;
  unsigned prev = b.prev;
  size_t n = b.n;
  uint32_t v = 0;
  uint64_t kraft = b.kraft; /* sum of 2^(MAX_LEN - len) */
  for (uint32_t s = b.s; s < span;) {
    if (!book_bits(&r, 1, &v))
      return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: cut off at symbol %u of %u", s,
                       span);
    unsigned l = prev;
    if (!v) { /* the previous length, for this symbol and the zeros after it */
      const uint32_t k = 1 + book_zeros(&r, span - s - 1);
      if (l) {
        for (uint32_t i = 0; i < k; i++)
          list[n + i] = USED(s + i, l);
        n += k;
        kraft += (uint64_t)k << (PARZ_BOUNDED_MAX_LEN - l);
      }
      s += k;
      continue;
    }
    uint32_t kind, sign;
    if (!book_bits(&r, 1, &kind))
      return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: cut off at symbol %u", s);
    if (!kind) {
      if (!book_bits(&r, 1, &sign))
        return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: cut off at symbol %u", s);
      l = sign ? prev - 1 : prev + 1;
      if ((sign && prev < 2) || l > PARZ_BOUNDED_MAX_LEN)
        return parz_fail(err, PARZ_ERR_STREAM,
                         "bounded codebook: symbol %u's length steps from %u out of 1..%u", s,
                         prev, (unsigned)PARZ_BOUNDED_MAX_LEN);
    } else {
      uint32_t run, x;
      if (!book_bits(&r, 1, &run) || !book_bits(&r, 5, &x))
        return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: cut off at symbol %u", s);
      if (run) {
        uint32_t extra;
        if (x > 24 || !book_bits(&r, x, &extra))
          return parz_fail(err, PARZ_ERR_STREAM,
                           "bounded codebook: run at symbol %u with %u bits refused", s, x);
        uint64_t count = ((uint64_t)1 << x) + extra;
        if (count > span - s)
          return parz_fail(err, PARZ_ERR_STREAM,
                           "bounded codebook: run of %llu unused symbols at %u passes span %u",
                           (unsigned long long)count, s, span);
        s += (uint32_t)count;
        continue;
      }
      if (x > PARZ_BOUNDED_MAX_LEN)
        return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: length %u of symbol %u > %u", x,
                         s, (unsigned)PARZ_BOUNDED_MAX_LEN);
      l = x;
    }
    if (l) {
      list[n++] = USED(s, l);
      kraft += (uint64_t)1 << (PARZ_BOUNDED_MAX_LEN - l);
    }
    prev = l;
    s++;
  }
  uint64_t full = (uint64_t)1 << PARZ_BOUNDED_MAX_LEN;
  if (n == 0)
    return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: no symbol is used");
  if (kraft > full)
    return parz_fail(err, PARZ_ERR_STREAM,
                     "bounded codebook: over-subscribed (Kraft sum %llu/%llu)",
                     (unsigned long long)kraft, (unsigned long long)full);
  if (kraft < full && !(n == 1 && kraft == full / 2))
    return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: incomplete (Kraft sum %llu/%llu)",
                     (unsigned long long)kraft, (unsigned long long)full);
  *m = n;
  *used = at + (size_t)((r.r.pos + 7) / 8);
  return PARZ_OK;
}

int parz_bounded_book_read(const uint8_t* in, size_t size, parz_bounded_book* book, size_t* used,
                           parz_error* err) {
  uint32_t* list = (uint32_t*)malloc(book_list_room(size) * sizeof *list);
  size_t m = 0;
  int rc;
  memset(book->len, 0, PARZ_BOUNDED_SYMBOLS);
  if (!list)
    return parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory for a codebook of %zu bytes", size);
  if ((rc = read_book(in, size, list, &m, used, err)) == PARZ_OK)
    for (size_t i = 0; i < m; i++)
      book->len[USED_SYM(list[i])] = (uint8_t)USED_LEN(list[i]);
  free(list);
  if (rc == PARZ_OK && book->code)
    rc = parz_huff_codes(book->len, PARZ_BOUNDED_SYMBOLS, PARZ_BOUNDED_MAX_LEN, book->code, err);
  return rc;
}

int parz_bounded_decoder_read(const uint8_t* in, size_t size, int runs,
                              parz_bounded_decoder** out, parz_error* err) {
  uint32_t* list = (uint32_t*)malloc(book_list_room(size) * sizeof *list);
  size_t m = 0, used = 0;
  int rc;
  *out = NULL;
  if (!list)
    return parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory for a codebook of %zu bytes", size);
  rc = read_book(in, size, list, &m, &used, err);
  if (rc == PARZ_OK && used != size)
    rc = parz_fail(err, PARZ_ERR_STREAM, "bounded: codebook of %zu bytes in a field of %zu", used,
                   size);
  /* a codebook without the run symbols when the chunk says it has none: they follow the escape,
   * the list's first symbol when used */
  const size_t first = rc == PARZ_OK && m > 1 && USED_SYM(list[0]) == 0;
  if (rc == PARZ_OK && !runs && USED_SYM(list[first]) >= 1 &&
      USED_SYM(list[first]) <= PARZ_BOUNDED_RUNS)
    rc = parz_fail(err, PARZ_ERR_STREAM,
                   "bounded: codebook codes run symbol %u in a chunk without runs",
                   (unsigned)USED_SYM(list[first]));
  if (rc == PARZ_OK && !(*out = decoder_of(list, m, err)))
    rc = PARZ_ERR_NOMEM;
  free(list);
  return rc;
}
