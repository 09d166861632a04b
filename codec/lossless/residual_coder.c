/* The residual coder (residual_coder.h): the codes, their words and the LSB-first bit streams
 * are the codecs' shared ones (codec/entropy/). The encoder runs the steps of residual_encode.h
 * in order, its two passes over the residuals written for one core: the count keeps each
 * residual's symbol (its context and bit length), and the writer takes everything a residual's
 * bits need from one entry per symbol, so that no bit length, context or mask is computed twice.
 * Its bytes are those of residual_encode.h's steps alone (the GPU's), which the tests compare. */
#include "residual_coder.h"

#include <stdlib.h>
#include <string.h>

#include "bitio.h"
#include "block_common.h"
#include "cpu_has.h"
#include "huffman.h"
#include "residual_encode.h"

/* On x86-64 the runs' readers hand their residuals' bits to a second pass on AVX2's lanes where
 * the CPU has it (runs_split); elsewhere each reader computes its residuals itself. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && PARZ_BITIO_LE
#include <immintrin.h>
#define RUNS_SPLIT 1
#else
#define RUNS_SPLIT 0
#endif

/* The encoder's writer has a build for BMI2 (put_run_bmi2) where the compiler can make one. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PUT_BMI2 1
#define ALWAYS_INLINE __attribute__((always_inline))
#else
#define PUT_BMI2 0
#define ALWAYS_INLINE
#endif

size_t parz_ll_residual_bound(size_t n, unsigned w) { return parz_ll_raw_bytes(n, w); }

void parz_ll_huffman_lengths(const uint64_t* freq, unsigned ns, unsigned max_len, uint8_t* len) {
  /* ns <= 65 symbols fit any max_len >= 7, and a segment's counts are far below 2^56 */
  parz_huff_small_lengths(freq, ns, max_len, len);
}

/* The raw coder's bytes of z[0..n); returns them. */
static size_t code_raw(const uint64_t* z, size_t n, unsigned w, uint8_t* dst) {
  size_t i;
  dst[0] = PARZ_LL_CODER_RAW;
  for (i = 0; i < n; i++)
    parz_ll_raw_put(dst + 1, i, z[i], w);
  return parz_ll_residual_bound(n, w);
}

/* A residual's symbol: its context's row of 65 and its bit length, s = 65 * context + k. */
#define ROW 65u

/* Residuals whose symbols live on the stack (a segment of the writers' 4 blocks), with a flag per
 * run of the shortest runs (2^PARZ_LL_RUN_QMIN); more take memory of their own. */
#define STACK_SYMBOLS (4u * 4096u)
#define STACK_RUNS (STACK_SYMBOLS >> PARZ_LL_RUN_QMIN)

/* The bit length of x (of w = 64 bits where wide) without a branch on x = 0, whose residuals are
 * common and unpredictable: 2x + 1 has its leading one at x's bit length. */
static inline unsigned bit_length(uint64_t x, int wide) {
#if defined(__GNUC__) || defined(__clang__)
  return wide && x >> 63 ? 64u : (unsigned)(__builtin_clzll(x << 1 | 1) ^ 63);
#else
  (void)wide;
  return parz_bitlen64(x);
#endif
}

/* parz_ll_count's counts of z[0..n) (runs: parz_ll_runs_q's; wide: w = 64) into freq (rows of
 * ROW, zeroed for the w / 4 + 1 rows w takes), each residual's symbol into sym[0..n), and per run
 * whether it is all zeros into zero. Even and odd residuals count into freq and odd (zeroed as
 * freq), so that runs of one symbol do not wait on their own increments; odd is added into freq
 * at the end. */
static inline void count_symbols(const uint64_t* z, size_t n, unsigned runs, unsigned w, int wide,
                                 uint64_t* freq, uint64_t* odd, uint16_t* sym, uint8_t* zero) {
  const size_t per = runs ? (size_t)1 << runs : n;
  uint16_t row_of[65]; /* the context row of the residual after one of bit length k */
  size_t i, i0, r;
  unsigned k;
  for (k = 0; k <= w; k++)
    row_of[k] = (uint16_t)(ROW * parz_ll_context_of(k));
  for (i0 = 0, r = 0; i0 < n; i0 += per, r++) {
    const size_t end = n - i0 < per ? n : i0 + per;
    unsigned row = 0, any = 0; /* each run starts in context 0 */
    for (i = i0; i + 1 < end; i += 2) {
      const unsigned k0 = bit_length(z[i], wide), k1 = bit_length(z[i + 1], wide);
      const unsigned s0 = row + k0, s1 = row_of[k0] + k1;
      freq[s0]++;
      odd[s1]++;
      sym[i] = (uint16_t)s0;
      sym[i + 1] = (uint16_t)s1;
      any |= k0 | k1;
      row = row_of[k1];
    }
    if (i < end) { /* runs are of even length: a segment's last residual */
      const unsigned k0 = bit_length(z[i], wide);
      freq[row + k0]++;
      sym[i] = (uint16_t)(row + k0);
      any |= k0;
    }
    zero[r] = !any;
  }
  for (i = 0; i < (size_t)parz_ll_contexts(w, PARZ_LL_CODER_CONTEXT) * ROW; i++)
    freq[i] += odd[i];
}

/* What the writer takes per symbol of the chosen code: the residual's bits are
 * (x << len) ^ word, where word is the code word with, for k >= 1, the residual's leading one
 * (bit len + k - 1 of x << len) set, so that the xor clears it; bits the count of them. Where
 * they are more than 56, word is the code word alone (the writer's slow path). */
typedef struct {
  uint64_t word;
  uint32_t len, bits;
} symbol_entry;

/* The entries of the code len and code (one code, or one per context: contexts) for every
 * context's row, so that symbols counted in context need no other index under one code; only
 * the symbols the segment has (freq, by context), the writer's only reads. */
static void symbol_table_init(symbol_entry* t, unsigned w, int contexts, uint8_t len[][65],
                              uint32_t code[][65], const uint64_t (*freq)[ROW]) {
  const unsigned nc = parz_ll_contexts(w, PARZ_LL_CODER_CONTEXT);
  unsigned c, k;
  for (c = 0; c < nc; c++) {
    const unsigned from = contexts ? c : 0;
    for (k = 0; k <= w; k++) {
      const unsigned l = len[from][k], n = l + (k >= 2 ? k - 1 : 0);
      symbol_entry* e = &t[c * ROW + k];
      if (!freq[c][k])
        continue;
      e->word = code[from][k] ^ (k >= 1 && n <= 56 ? (uint64_t)1 << n : 0);
      e->len = l;
      e->bits = n;
    }
  }
}

/* Residual x of entry e into wr through p, as parz_ll_code_run writes it (the slow path). */
static void put_slow(parz_bitw* wr, parz_ll_put_state* p, uint64_t x, const symbol_entry* e,
                     int wide) {
  parz_ll_put_residual(wr, p, x, bit_length(x, wide),
                       (uint32_t)(e->word & ~(~(uint64_t)0 << e->len)), e->len);
}

/* The n bits of v (n <= 56) into the stream whose next byte is *o, its bits not yet stored in
 * *acc (fewer than 8: *fill), with one store: 8 bytes' room at *o. */
static inline ALWAYS_INLINE void put_at(uint8_t** o, uint64_t* acc, unsigned* fill, uint64_t v,
                                        unsigned n) {
  *acc |= v << *fill;
  *fill += n;
  memcpy(*o, acc, 8);
  *o += *fill >> 3;
  *acc >>= *fill & ~7u;
  *fill &= 7u;
}

/* parz_ll_code_run's stream of z[0..n) (symbols sym; wide: w = 64) through the table t into wr
 * (its first byte stored: wr->at >= 1): the same bits, two residuals a store where their bits
 * are 56 or fewer and 8 bytes are left; returns the stream's end in bytes, its last byte padded.
 * The writer's state in locals, its place a pointer: with the residuals' and symbols' places,
 * the loop's state fits the registers. Inlined into each of put_run's builds. */
static inline ALWAYS_INLINE size_t put_run_body(parz_bitw* wr, const uint64_t* z,
                                                const uint16_t* sym, size_t n,
                                                const symbol_entry* t, int wide) {
  const uint64_t* const pairs_end = z + (n & ~(size_t)1);
  /* the last place with 8 bytes' room, before the first where there is none (at >= 1) */
  uint8_t* const last = wr->out + (wr->cap >= 8 ? wr->cap - 8 : 0);
  uint8_t* o = wr->out + wr->at;
  uint64_t acc = wr->acc;
  unsigned fill = wr->fill;
  parz_ll_put_state p;
  for (; z < pairs_end; z += 2, sym += 2) {
    const symbol_entry *e0 = t + sym[0], *e1 = t + sym[1];
    const unsigned n0 = e0->bits, n1 = e1->bits;
    const uint64_t v0 = z[0] << e0->len ^ e0->word, v1 = z[1] << e1->len ^ e1->word;
    if (PARZ_BITIO_LE && n0 + n1 <= 56 && o <= last) {
      put_at(&o, &acc, &fill, v0 | v1 << n0, n0 + n1);
    } else if (PARZ_BITIO_LE && n0 <= 56 && n1 <= 56 && o <= last && last - o >= 7) {
      /* wide residuals: a store each (the first moves o on by 7 bytes at most) */
      put_at(&o, &acc, &fill, v0, n0);
      put_at(&o, &acc, &fill, v1, n1);
    } else {
      p.acc = acc;
      p.at = (size_t)(o - wr->out);
      p.fill = fill;
      put_slow(wr, &p, z[0], e0, wide);
      put_slow(wr, &p, z[1], e1, wide);
      acc = p.acc;
      o = wr->out + p.at;
      fill = p.fill;
    }
  }
  p.acc = acc;
  p.at = (size_t)(o - wr->out);
  p.fill = fill;
  if (n & 1)
    put_slow(wr, &p, z[0], t + sym[0], wide);
  wr->acc = p.acc;
  wr->at = p.at;
  wr->fill = p.fill;
  return parz_bitw_finish(wr);
}

static size_t put_run(parz_bitw* wr, const uint64_t* z, const uint16_t* sym, size_t n,
                      const symbol_entry* t, int wide) {
  return put_run_body(wr, z, sym, n, t, wide);
}

#if PUT_BMI2
/* put_run where the CPU has BMI2: its shifts by a register's count (shlx, shrx) need no move to
 * cl, which leaves the loop's state in registers. */
__attribute__((target("bmi2"))) static size_t put_run_bmi2(parz_bitw* wr, const uint64_t* z,
                                                           const uint16_t* sym, size_t n,
                                                           const symbol_entry* t, int wide) {
  return put_run_body(wr, z, sym, n, t, wide);
}

#endif

size_t parz_ll_code_residuals(const uint64_t* z, size_t n, unsigned w, uint8_t* dst) {
  return parz_ll_code_residuals_q(z, n, w, PARZ_LL_RUN_Q, dst);
}

/* What the count keeps for the writer: each residual's symbol, per run whether it is all zeros,
 * and whether w is 64. */
typedef struct {
  uint16_t* sym;
  uint8_t* zero;
  int wide, bmi2; /* bmi2: put_run_bmi2 runs */
} symbols;

/* Run r (residuals [i0, i0 + n) of z) into wr as parz_ll_code_run writes it: from the symbols y
 * through the table t, or without symbols (y NULL) through residual_encode.h's writer. */
static size_t code_run(parz_bitw* wr, const uint64_t* z, size_t i0, size_t n, const symbols* y,
                       const symbol_entry* t, int contexts, uint8_t len[][65],
                       uint32_t code[][65]) {
  if (!y)
    return parz_ll_code_run(wr, z + i0, n, contexts, len, code);
#if PUT_BMI2
  if (y->bmi2)
    return put_run_bmi2(wr, z + i0, y->sym + i0, n, t, y->wide);
#endif
  return put_run(wr, z + i0, y->sym + i0, n, t, y->wide);
}

/* The segment's bytes once its codes are planned under a coder other than raw: one run (coder 1
 * or 2) or runs (coder 3, 4 where a run is all zeros); raw where they would not be smaller. */
static size_t write_coded(const uint64_t* z, size_t n, unsigned w, unsigned q, uint8_t* dst,
                          const symbols* y, unsigned coder, uint8_t len[][65], uint32_t code[][65],
                          const uint64_t (*freq)[ROW]) {
  const unsigned runs = parz_ll_runs_q(n, q);
  const int contexts = coder == PARZ_LL_CODER_CONTEXT;
  const size_t per = (size_t)1 << q, raw = parz_ll_residual_bound(n, w);
  size_t r, m, at, lengths_end;
  symbol_entry t[PARZ_LL_CONTEXTS * ROW];
  parz_bitw wr;
  if (y)
    symbol_table_init(t, w, contexts, len, code, freq);
  if (!runs) { /* coder 1 or 2: the residuals right after the lengths' bits */
    parz_ll_single_lengths(&wr, dst, raw, w, coder, len);
    parz_bitw_flush_bytes(&wr);
    return code_run(&wr, z, 0, n, y, t, contexts, len, code);
  }
  lengths_end = parz_ll_runs_head_q(dst, raw, coder, len, w, q);
  m = parz_ll_run_count_q(n, q);
  at = parz_ll_runs_start_q(lengths_end, n, q);
  for (r = 0; r < m; r++) {
    const size_t i0 = r * per, count = n - i0 > per ? per : n - i0;
    size_t end = at;
    if (at >= raw)
      return code_raw(z, n, w, dst);
    if (y ? y->zero[r] : parz_ll_all_zero(z + i0, count)) { /* no bytes: coder 4 */
      dst[0] = (uint8_t)PARZ_LL_CODER_ZERO_RUNS;
    } else {
      parz_bitw_init(&wr, dst, raw, at);
      end = code_run(&wr, z, i0, count, y, t, contexts, len, code);
      if (wr.overflow || end >= raw)
        return code_raw(z, n, w, dst);
    }
    if (r + 1 < m)
      parz_ll_run_length_put(dst, lengths_end, r, end - at);
    at = end;
  }
  return at;
}

size_t parz_ll_code_residuals_q(const uint64_t* z, size_t n, unsigned w, unsigned q, uint8_t* dst) {
  uint8_t len[2][PARZ_LL_CONTEXTS][65];
  uint32_t code[2][PARZ_LL_CONTEXTS][65];
  uint64_t bits[2], counts[2][PARZ_LL_CONTEXTS * ROW], all[1][65];
  /* the counts by symbol, as rows of contexts for the steps of residual_encode.h */
  uint64_t(*freq)[ROW] = (uint64_t(*)[ROW])counts[0], (*odd)[ROW] = (uint64_t(*)[ROW])counts[1];
  uint16_t stack_sym[STACK_SYMBOLS];
  uint8_t stack_zero[STACK_RUNS], *heap = NULL;
  const unsigned nc = parz_ll_contexts(w, PARZ_LL_CODER_CONTEXT), runs = parz_ll_runs_q(n, q);
  const size_t nruns = runs ? parz_ll_run_count_q(n, q) : 1;
  symbols y, *have = &y;
  unsigned k, c, coder, pick;
  size_t bytes;
  y.sym = stack_sym;
  y.zero = stack_zero;
  y.wide = w == 64;
#if PUT_BMI2
  y.bmi2 = PARZ_CPU_HAS("bmi2");
#else
  y.bmi2 = 0;
#endif
  /* more residuals than the stack holds: their symbols in memory of their own, or without it
   * residual_encode.h's steps, which keep none */
  if ((n > STACK_SYMBOLS || nruns > STACK_RUNS) &&
      (heap = (uint8_t*)malloc(n * sizeof *y.sym + nruns)) != NULL) {
    y.sym = (uint16_t*)(void*)heap;
    y.zero = heap + n * sizeof *y.sym;
  } else if (n > STACK_SYMBOLS || nruns > STACK_RUNS) {
    have = NULL;
  }
  /* one pass counts per context (the rows of w's contexts zeroed); the single code's counts are
   * their sums */
  memset(counts[0], 0, nc * ROW * sizeof counts[0][0]);
  memset(counts[1], 0, nc * ROW * sizeof counts[1][0]);
  memset(all, 0, sizeof all);
  if (!have)
    parz_ll_count(z, n, runs, freq, odd, w);
  else if (y.wide) /* each width its own loop: the bit length's test only where w = 64 */
    count_symbols(z, n, runs, w, 1, counts[0], counts[1], y.sym, y.zero);
  else
    count_symbols(z, n, runs, w, 0, counts[0], counts[1], y.sym, y.zero);
  for (c = 0; c < nc; c++)
    for (k = 0; k <= w; k++)
      all[0][k] += freq[c][k];
  bits[0] = parz_ll_plan(all, w, PARZ_LL_CODER_LENGTHS, len[0], code[0]);
  bits[1] = parz_ll_plan(freq, w, PARZ_LL_CODER_CONTEXT, len[1], code[1]);
  coder = parz_ll_pick(bits[0], bits[1], parz_ll_residual_bound(n, w));
  pick = coder == PARZ_LL_CODER_CONTEXT;
  bytes = coder == PARZ_LL_CODER_RAW ? code_raw(z, n, w, dst)
                                     : write_coded(z, n, w, q, dst, have, coder, len[pick],
                                                   code[pick], (const uint64_t(*)[ROW])freq);
  free(heap);
  return bytes;
}

/* Messages of the shared decoder's refusals (residual_decode.h). */
static int refuse(int bad, size_t segment, size_t bytes, uint64_t pos, size_t n, parz_error* err) {
  static const char* what = "lossless segment";
  switch (bad) {
    case PARZ_LL_BAD_LENGTHS:
      return parz_fail(err, PARZ_ERR_STREAM, "%s %zu: %zu bytes end inside its code", what, segment,
                       bytes);
    case PARZ_LL_BAD_WORD:
      return parz_fail(err, PARZ_ERR_STREAM, "%s %zu: no code at bit %llu", what, segment,
                       (unsigned long long)pos);
    case PARZ_LL_BAD_PAST:
      return parz_fail(err, PARZ_ERR_STREAM, "%s %zu: its %zu values pass its %zu bytes", what,
                       segment, n, bytes - 1);
    case PARZ_LL_BAD_RUNS:
      return parz_fail(err, PARZ_ERR_STREAM,
                       "%s %zu: runs of code %u and q %u: no code, or q outside %u..%u", what,
                       segment, (unsigned)(pos >> 8), (unsigned)(pos & 255), PARZ_LL_RUN_QMIN,
                       PARZ_LL_RUN_QMAX);
    case PARZ_LL_BAD_TRAILING:
      return parz_fail(err, PARZ_ERR_STREAM, "%s %zu: %zu bytes after its last value", what,
                       segment, bytes - 1 - (size_t)((pos + 7) / 8));
    default: return parz_fail(err, PARZ_ERR_STREAM, "%s %zu: refused (%d)", what, segment, bad);
  }
}

/* A segment being decoded: a raw one's residuals are read at once; a coded one's codes are set
 * up and its reader stands before its first residual, its outcome in bad. */
typedef struct {
  parz_huff_decoder code[PARZ_LL_CONTEXTS];
  parz_ll_residual_reader rd;
  const uint8_t* src;
  size_t bytes, n, segment;
  uint64_t* z;
  uint32_t* fast;
  int coded, bad;
  /* coders 3 and 4: its runs (0 for the other coders), the code's coder and q, the run being
   * read and its bytes [at, at + len), the run lengths' place */
  size_t runs, run, at, len, lengths_bytes;
  unsigned coder, q, contexts;
  int split; /* whether runs_side reads in two passes (runs_split: the CPU has AVX2) */
} uncoding;

/* The code of context c of a segment's nc from its code lengths: the decoder over mem, the fast
 * table and the outcome that the plain set-up of tests/test_lossless_runs.c gives, in fewer steps
 * for one core: a segment of 4,096 values sets up nine codes of 33 lengths, most of them 0. The lengths' nibbles
 * are read straight from their bytes and counted as they are read, and the symbols are sorted by
 * one pass that gives every symbol its place (the unused ones after the used), with no search
 * for the next used symbol. The caller has checked that the lengths lie inside their bytes. */
static int context_setup(const uint8_t* lengths, unsigned w, unsigned c, unsigned nc,
                         parz_huff_decoder* d, uint32_t* mem, uint32_t* fast) {
  const unsigned ns = w + 1, at = ns * c;
  const uint8_t* b = lengths + at / 2; /* nibble p: the low half of byte p / 2 where p is even */
  uint8_t len[65];
  uint32_t all[16] = {0}, next[16], code = 0, kraft = 0;
  unsigned k = 0, l;
  if (at & 1u) {
    len[k] = (uint8_t)(*b++ >> 4);
    all[len[k++]]++;
  }
  for (; k + 1 < ns; k += 2, b++) {
    len[k] = (uint8_t)(*b & 15u);
    len[k + 1] = (uint8_t)(*b >> 4);
    all[len[k]]++;
    all[len[k + 1]]++;
  }
  if (k < ns) {
    len[k] = (uint8_t)(*b & 15u);
    all[len[k]]++;
  }
  /* words longer than the code's most, or more words than its bits hold: no prefix code */
  if (all[13] | all[14] | all[15])
    return PARZ_LL_BAD_PREFIX;
  for (l = 1; l <= PARZ_LL_CODE_MAX; l++)
    kraft += all[l] << (PARZ_LL_CODE_MAX - l);
  if (kraft > 1u << PARZ_LL_CODE_MAX)
    return PARZ_LL_BAD_PREFIX;
  /* huffman_decode.h's decoder with no table of its own: its one entry 0, then the symbols */
  d->max_len = PARZ_LL_CODE_MAX;
  d->table_bits = 0;
  d->table = mem;
  d->sorted = mem + 1;
  mem[0] = 0;
  d->first[0] = 0;
  d->count[0] = all[0];
  next[0] = ns - all[0];
  for (l = 1, k = 0; l <= PARZ_LL_CODE_MAX; l++) {
    if (l > 1)
      code = (code + all[l - 1]) << 1;
    d->first[l] = code;
    d->count[l] = all[l];
    d->index[l] = k;
    next[l] = k;
    k += all[l];
  }
  for (k = 0; k < ns; k++)
    d->sorted[next[len[k]]++] = k;
  /* the fast table by doubling, as the plain set-up fills it; from 8 entries on, 32 bytes
   * a step in two 16-byte copies (vector loads and stores: gcc makes a memcpy of a whole half
   * `rep movsq`, whose start costs more than these copies) */
  fast[0] = 0;
  for (l = 1; l <= PARZ_LL_TABLE_BITS; l++) {
    const uint32_t half = 1u << (l - 1);
    if (half < 8)
      for (k = 0; k < half; k++)
        fast[half + k] = fast[k];
    else
      for (k = 0; k < half; k += 8) {
        memcpy(fast + half + k, fast + k, 16);
        memcpy(fast + half + k + 4, fast + k + 4, 16);
      }
    for (k = 0; k < all[l]; k++) {
      const unsigned s = d->sorted[d->index[l] + k], advance = l + (s >= 2 ? s - 1 : 0);
      fast[parz_huff_reverse(d->first[l] + k, l)] =
          advance <= PARZ_LL_FAST_MOST
              ? advance | (63u - s) << 8 | parz_ll_next_context(s, nc) << PARZ_LL_TABLE_BITS << 16
              : s << 8 | l << 16;
    }
  }
  return PARZ_LL_OK;
}

/* Segment u's coder read and its codes set up over u->fast (PARZ_LL_UNCODE_WORDS words, NULL:
 * allocated here; u->coded says whether to free it), or a raw segment's residuals read;
 * PARZ_OK or PARZ_ERR_STREAM naming it. */
static int uncode_begin(uncoding* u, unsigned w, parz_error* err) {
  static const char* what = "lossless segment";
  const uint8_t* src = u->src;
  u->coded = 0;
  u->bad = PARZ_LL_OK;
  u->runs = 0;
  if (!src || u->bytes < 1)
    return parz_fail(err, PARZ_ERR_STREAM, "%s %zu: empty", what, u->segment);
  if (src[0] == PARZ_LL_CODER_RAW) {
    size_t i, need = parz_ll_residual_bound(u->n, w);
    if (u->bytes != need)
      return parz_fail(err, PARZ_ERR_STREAM, "%s %zu: raw, %zu bytes where %zu are needed", what,
                       u->segment, u->bytes, need);
    for (i = 0; i < u->n; i++)
      u->z[i] = parz_ll_raw_residual(src + 1, i, w);
    return PARZ_OK;
  }
  if (src[0] == PARZ_LL_CODER_LENGTHS || src[0] == PARZ_LL_CODER_CONTEXT ||
      src[0] == PARZ_LL_CODER_RUNS || src[0] == PARZ_LL_CODER_ZERO_RUNS) {
    unsigned c, coder = src[0], nc;
    const uint8_t* lengths = src + 1;
    size_t lengths_bytes = u->bytes - 1;
    uint32_t* mem;
    if (coder == PARZ_LL_CODER_RUNS || coder == PARZ_LL_CODER_ZERO_RUNS) {
      const int bad = parz_ll_runs_layout(src, u->bytes, u->n, w, &coder, &u->q, &lengths_bytes,
                                          &u->runs, &u->at);
      if (bad != PARZ_LL_OK) /* the code's coder and q name a bad layout, where there are any */
        return refuse(bad, u->segment, u->bytes,
                      u->bytes >= PARZ_LL_RUN_HEAD ? (uint64_t)src[1] << 8 | src[2] : 0, u->n, err);
      lengths = src + PARZ_LL_RUN_HEAD;
      u->lengths_bytes = lengths_bytes;
      u->coder = coder;
      u->run = 0;
    }
    nc = parz_ll_contexts(w, coder);
    u->contexts = nc;
    if (lengths_bytes * 8 < 4u * (w + 1) * nc)
      return refuse(PARZ_LL_BAD_LENGTHS, u->segment, u->bytes, 0, u->n, err);
    if (!u->fast) {
      u->fast = (uint32_t*)malloc((size_t)nc * PARZ_LL_CONTEXT_WORDS * sizeof *u->fast);
      if (!u->fast)
        return parz_fail(err, PARZ_ERR_NOMEM, "%s %zu: no room for its code", what, u->segment);
      u->coded = 2; /* the tables are ours to free */
    } else {
      u->coded = 1;
    }
    /* A context no residual takes has no code word: its table refuses every bit. */
    mem = u->fast + (size_t)nc * PARZ_LL_TABLE_SIZE;
    for (c = 0; c < nc; c++)
      if (context_setup(lengths, w, c, nc, &u->code[c], mem + (size_t)c * PARZ_LL_CODE_WORDS,
                        u->fast + (size_t)c * PARZ_LL_TABLE_SIZE) != PARZ_LL_OK)
        return parz_fail(err, PARZ_ERR_STREAM,
                         "%s %zu: code lengths of context %u are not a prefix code", what,
                         u->segment, c);
    if (!u->runs) /* coder 3's and 4's runs: each its own reader (uncode_runs) */
      parz_ll_reader_init(&u->rd, src, u->bytes, w, coder, u->code, u->fast);
    return PARZ_OK;
  }
  return parz_fail(err, PARZ_ERR_STREAM, "%s %zu: unknown coder %u", what, u->segment,
                   (unsigned)src[0]);
}

/* Runs of coder 3 a reader takes side by side (four, spelled out below): their chains of
 * dependent loads overlap. */
#define RUNS_SIDE 4u

/* The most bits one residual takes: a word of PARZ_LL_CODE_MAX bits and 63 bits below the
 * leading one. */
#define RESIDUAL_MOST_BITS (PARZ_LL_CODE_MAX + 63u)

/* The 64 bits of src from bit pos on, low bits first (at least 57 of them the stream's); the
 * caller checks that src[pos / 8 .. pos / 8 + 8) lie inside the bytes it owns. */
static uint64_t bits_at(const uint8_t* src, uint64_t pos) {
  uint64_t x;
  memcpy(&x, src + (pos >> 3), 8);
  return x >> (pos & 7u);
}

/* The 64 bits of memory from bit p on (p counted from address 0), low bits first: a runs'
 * reader's window (take_fast, take_window). */
PARZ_HD uint64_t window_at(uint64_t p) {
  uint64_t x;
  memcpy(&x, (const uint8_t*)(uintptr_t)(p >> 3), 8);
  return x >> (p & 7u);
}

/* The value of the residual whose bits start window x, of fast entry e: the bits below its
 * leading one to the top under an implicit one, then down to its bits (parz_ll_residual_fast). */
PARZ_HD uint64_t window_value(uint64_t x, uint64_t e) {
  /* 63 - a as ~e's low 6 bits (a < 64), which is all a shift reads */
  return (x << (~e & 63u) | 0x8000000000000000u) >> PARZ_LL_FAST_SHIFT(e) >> 1;
}

/* The residual of a reader at bit p of memory (its position counted from address 0) through its
 * context's fast table *t (of the tables at fast): parz_ll_residual_fast's steps on 64-bit
 * variables. The reader holds its table's place rather than its offset, so that the chain of
 * loads from one residual to the next has no addition in it. Its bits (p and *t moved on, its
 * value into *z), or 0 where the table does not take it. */
PARZ_HD uint64_t take_fast(const uint32_t* fast, uint64_t* p, const uint32_t** t, uint64_t* z) {
  const uint64_t x = window_at(*p), e = (*t)[x & (PARZ_LL_TABLE_SIZE - 1)],
                 a = PARZ_LL_FAST_ADVANCE(e);
  if (!a)
    return 0;
  *z = window_value(x, e);
  *t = fast + PARZ_LL_FAST_NEXT(e);
  *p += a;
  return a;
}

/* Bytes of zeros after each run's copy (uncode_runs): a reader near its run's end loads them as
 * the window reader reads past its bytes, and each stretch of runs_side's loop takes at least
 * (RUNS_PAD - 8) * 8 / RESIDUAL_MOST_BITS residuals. */
#define RUNS_PAD 512u
/* The longest run copied: 512 residuals (q = 9, the writers') of the most bits each. */
#define RUNS_COPY (512u * RESIDUAL_MOST_BITS / 8u + 1u)

/* The four runs' state in the loop below: the bytes they are read from, each reader's next bit
 * (from those bytes' first) and table, and the last bit from which 64 bits can be loaded. */
typedef struct {
  const uint8_t* bytes;
  uint64_t pos[RUNS_SIDE], last[RUNS_SIDE];
  unsigned ctx[RUNS_SIDE], contexts; /* contexts: the segment's */
  size_t done[RUNS_SIDE];            /* residuals each reader has read */
  int bad, failed;                   /* a reader's refusal, and which reader */
} runs_state;

/* Residual j of readers k..RUNS_SIDE-1, one reader at a time, once reader k's fast table did
 * not take it: each through the fast table where it takes it, else through a bit reader of its
 * run's bytes st->bytes[at, at + len). PARZ_LL_OK, or the first refusal (st->failed: whose).
 * Kept out of the loop of runs_side, so that the readers' state there stays in registers. */
static PARZ_NOINLINE int runs_rest(const uncoding* u, runs_state* st, unsigned k,
                                   const size_t at[RUNS_SIDE], const size_t len[RUNS_SIDE],
                                   uint64_t* const z[RUNS_SIDE], size_t j) {
  for (; k < RUNS_SIDE; k++) {
    const unsigned a =
        parz_ll_residual_fast(u->fast, bits_at(st->bytes, st->pos[k]), &st->ctx[k], &z[k][j]);
    parz_bitr r;
    int bad;
    if (a) {
      st->pos[k] += a;
      continue;
    }
    parz_bitr_init(&r, st->bytes + at[k], len[k], 0, (uint64_t)len[k] * 8);
    r.pos = st->pos[k] - (uint64_t)at[k] * 8;
    bad = parz_ll_residual_slow(&r, u->code, u->fast, st->contexts, &st->ctx[k], &z[k][j]);
    st->pos[k] = (uint64_t)at[k] * 8 + r.pos;
    if (bad != PARZ_LL_OK) {
      st->failed = (int)k;
      return bad;
    }
  }
  return PARZ_LL_OK;
}

/* Four runs' residuals [j, end) side by side, the readers' positions (bits from src's first),
 * tables and residuals' places in p, t and z: the loop of runs_side. Returns where the four
 * stopped; *k: the reader whose fast table did not take residual j (the readers after it have
 * not read it either), RUNS_SIDE where none. */
PARZ_HD size_t runs_stretch(const uint8_t* src, const uint32_t* fast, uint64_t p[RUNS_SIDE],
                            const uint32_t* t[RUNS_SIDE], uint64_t* const z[RUNS_SIDE], size_t j,
                            size_t end, unsigned* k) {
  /* the readers' state in locals of their own, which the compiler keeps in registers, their
   * positions counted from address 0 (src's address times 8 fits in 64 bits: the caller checks,
   * bits_fit), so that a load needs no base register: one more register for the four readers */
  const uint64_t base = (uint64_t)(uintptr_t)src << 3;
  uint64_t p0 = p[0] + base, p1 = p[1] + base, p2 = p[2] + base, p3 = p[3] + base;
  const uint32_t *t0 = t[0], *t1 = t[1], *t2 = t[2], *t3 = t[3];
  uint64_t *z0 = z[0], *z1 = z[1], *z2 = z[2], *z3 = z[3];
  *k = RUNS_SIDE;
  for (; j < end; j++) {
    if (!take_fast(fast, &p0, &t0, &z0[j])) {
      *k = 0;
      break;
    }
    if (!take_fast(fast, &p1, &t1, &z1[j])) {
      *k = 1;
      break;
    }
    if (!take_fast(fast, &p2, &t2, &z2[j])) {
      *k = 2;
      break;
    }
    if (!take_fast(fast, &p3, &t3, &z3[j])) {
      *k = 3;
      break;
    }
  }
  p[0] = p0 - base, p[1] = p1 - base, p[2] = p2 - base, p[3] = p3 - base;
  t[0] = t0, t[1] = t1, t[2] = t2, t[3] = t3;
  return j;
}

#if RUNS_SPLIT
/* Residuals per reader that runs_split reads before their values are computed: the windows and
 * entries of the four readers' (12 bytes each) stay in the first-level cache beside the tables
 * and the runs' copies. */
#define SPLIT_STEP 64u

/* take_fast's lookup alone: the window at bit p and its entry into *x and *e, p and *t moved
 * on; the residual's bits, or 0 where the table does not take it (nothing stored, nothing
 * moved). Its value is left to split_flush. */
PARZ_HD uint64_t take_window(const uint32_t* fast, uint64_t* p, const uint32_t** t, uint64_t* x,
                             uint32_t* e) {
  const uint64_t w = window_at(*p);
  const uint32_t* at = *t + (w & (PARZ_LL_TABLE_SIZE - 1));
  const uint32_t f = *at;
  /* the advance as the entry's low byte, loaded beside the entry rather than masked out of it:
   * one step less in the chain from one position to the next (little-endian: RUNS_SPLIT) */
  const uint64_t a = *(const uint8_t*)(const void*)at;
  if (!a)
    return 0;
  *x = w;
  *e = f;
  *t = fast + PARZ_LL_FAST_NEXT(f);
  *p += a;
  return a;
}

/* The windows and entries of the four readers' residuals [from, from + fill) that runs_split
 * has read and whose values split_flush has not yet computed. */
typedef struct {
  uint64_t x[RUNS_SIDE][SPLIT_STEP];
  uint32_t e[RUNS_SIDE][SPLIT_STEP];
  size_t from, fill;
} split_buffer;

/* take_fast's second half for the windows and entries held: the readers' residuals into z (and
 * residual from + fill of the readers before reader k, where k < RUNS_SIDE stopped there), four
 * at a time in AVX2's 64-bit lanes, which shift each lane by its own count; the buffer emptied,
 * its next residual the one after them. */
__attribute__((target("avx2"))) static void split_flush(split_buffer* b,
                                                        uint64_t* const z[RUNS_SIDE], unsigned k) {
  const __m256i low6 = _mm256_set1_epi64x(63);
  const __m256i top = _mm256_set1_epi64x((long long)0x8000000000000000u);
  unsigned r;
  for (r = 0; r < RUNS_SIDE; r++) {
    const uint64_t* x = b->x[r];
    const uint32_t* e = b->e[r];
    uint64_t* out = z[r] + b->from;
    const size_t n = b->fill + (r < k && k < RUNS_SIDE);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
      const __m256i w = _mm256_loadu_si256((const __m256i*)(const void*)(x + i));
      const __m256i f =
          _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i*)(const void*)(e + i)));
      /* window_value's shifts, 63 - a as ~f's low 6 bits */
      const __m256i up = _mm256_or_si256(_mm256_sllv_epi64(w, _mm256_andnot_si256(f, low6)), top);
      const __m256i down = _mm256_srlv_epi64(up, _mm256_and_si256(_mm256_srli_epi64(f, 8), low6));
      _mm256_storeu_si256((__m256i*)(void*)(out + i), _mm256_srli_epi64(down, 1));
    }
    for (; i < n; i++)
      out[i] = window_value(x[i], e[i]);
  }
  b->from += b->fill + (k < RUNS_SIDE);
  b->fill = 0;
}

/* runs_stretch in two passes: the four readers' loop keeps only each residual's window and
 * entry in b (the chain of loads from one residual to the next and the position's step; no
 * shifts by counts of the entry, no stores through the runs' pointers), and split_flush computes
 * their values, each time b is full and where a reader stops. The same contract as
 * runs_stretch; residual j is b's next (b->from + b->fill). */
static size_t runs_split(const uint8_t* src, const uint32_t* fast, uint64_t p[RUNS_SIDE],
                         const uint32_t* t[RUNS_SIDE], uint64_t* const z[RUNS_SIDE], size_t j,
                         size_t end, unsigned* k, split_buffer* b) {
  const uint64_t base = (uint64_t)(uintptr_t)src << 3;
  uint64_t p0 = p[0] + base, p1 = p[1] + base, p2 = p[2] + base, p3 = p[3] + base;
  const uint32_t *t0 = t[0], *t1 = t[1], *t2 = t[2], *t3 = t[3];
  *k = RUNS_SIDE;
  while (j < end) {
    const size_t room = SPLIT_STEP - b->fill, n = end - j < room ? end - j : room;
    size_t i = b->fill;
    const size_t stop = i + n;
    for (; i < stop; i++) {
      if (!take_window(fast, &p0, &t0, &b->x[0][i], &b->e[0][i])) {
        *k = 0;
        break;
      }
      if (!take_window(fast, &p1, &t1, &b->x[1][i], &b->e[1][i])) {
        *k = 1;
        break;
      }
      if (!take_window(fast, &p2, &t2, &b->x[2][i], &b->e[2][i])) {
        *k = 2;
        break;
      }
      if (!take_window(fast, &p3, &t3, &b->x[3][i], &b->e[3][i])) {
        *k = 3;
        break;
      }
    }
    j += i - b->fill;
    b->fill = i;
    if (*k < RUNS_SIDE || i == SPLIT_STEP)
      split_flush(b, z, *k);
    if (*k < RUNS_SIDE)
      break;
  }
  p[0] = p0 - base, p[1] = p1 - base, p[2] = p2 - base, p[3] = p3 - base;
  t[0] = t0, t[1] = t1, t[2] = t2, t[3] = t3;
  return j;
}

#endif

/* Whether the bit positions of the bytes at src (far fewer than 2^60 of them) counted from
 * address 0 fit in 64 bits: runs_stretch's positions. */
static int bits_fit(const uint8_t* src) { return (uint64_t)(uintptr_t)src < (uint64_t)1 << 60; }

/* Four runs' residuals [0, common) side by side, while each load stays below st->last: the
 * readers' positions and tables in registers, a load of 64 bits per residual, the bounds checked
 * once per stretch of residuals that cannot pass them. Returns where the four stopped
 * (st->done: each reader's count, which differ where reader st->failed refused). */
static size_t runs_side(const uncoding* u, runs_state* st, const size_t at[RUNS_SIDE],
                        const size_t len[RUNS_SIDE], uint64_t* const z[RUNS_SIDE], size_t common) {
  const uint8_t* src = st->bytes;
  const uint32_t* fast = u->fast;
  uint64_t p[RUNS_SIDE];
  const uint32_t* t[RUNS_SIDE]; /* each reader's table */
  unsigned k;
  size_t j = 0;
#if RUNS_SPLIT
  split_buffer b;
  b.from = 0;
  b.fill = 0;
#endif
  for (k = 0; k < RUNS_SIDE; k++) {
    p[k] = st->pos[k];
    t[k] = fast + st->ctx[k];
  }
  st->bad = PARZ_LL_OK;
  st->failed = 0;
  for (;;) {
    /* residuals every reader can take before a load could pass its run's bytes */
    size_t m = common - j;
    for (k = 0; k < RUNS_SIDE; k++) {
      const uint64_t room = p[k] <= st->last[k] ? (st->last[k] - p[k]) / RESIDUAL_MOST_BITS + 1 : 0;
      if (room < m)
        m = (size_t)room;
    }
    if (!m)
      break;
#if RUNS_SPLIT
    if (u->split)
      j = runs_split(src, fast, p, t, z, j, j + m, &k, &b);
    else
#endif
      j = runs_stretch(src, fast, p, t, z, j, j + m, &k);
    if (k == RUNS_SIDE)
      continue;
    /* residual j of reader k and of the later ones through runs_rest, the state in memory */
    {
      unsigned i;
      for (i = 0; i < RUNS_SIDE; i++) {
        st->pos[i] = p[i];
        st->ctx[i] = (unsigned)(t[i] - fast);
      }
      st->bad = runs_rest(u, st, k, at, len, z, j);
      for (i = 0; i < RUNS_SIDE; i++) {
        p[i] = st->pos[i];
        t[i] = fast + st->ctx[i];
      }
      if (st->bad != PARZ_LL_OK)
        break;
      j++;
    }
  }
#if RUNS_SPLIT
  if (u->split && b.fill) /* the values of the residuals read last */
    split_flush(&b, z, RUNS_SIDE);
#endif
  for (k = 0; k < RUNS_SIDE; k++) {
    st->pos[k] = p[k];
    st->ctx[k] = (unsigned)(t[k] - fast);
    /* a refusal at residual j: the readers before the failed one have read it */
    st->done[k] = j + (st->bad != PARZ_LL_OK && k < (unsigned)st->failed);
  }
  return j;
}

/* Coder 3 or 4: from run u->run on, RUNS_SIDE runs at a time, each reader on its own bytes;
 * coder 4's empty runs are zeros at once and take no reader. Where a run fails (its length past
 * the bytes, a bad word, bytes left over), u holds that run and its reader and outcome as the
 * runs one after the other would: the first failing run in order. */
static void uncode_runs(uncoding* u) {
  const size_t per = (size_t)1 << u->q;
  uint8_t copy[RUNS_SIDE * (RUNS_COPY + RUNS_PAD)];
  while (u->run < u->runs && u->bad == PARZ_LL_OK) {
    parz_ll_residual_reader rd[RUNS_SIDE];
    size_t run[RUNS_SIDE], at[RUNS_SIDE], len[RUNS_SIDE], end[RUNS_SIDE], from[RUNS_SIDE],
        common = per, i;
    size_t r = u->run, pos = u->at, l = 0;
    int bad[RUNS_SIDE], past = 0, copied;
    unsigned k, m = 0;
    uint64_t* z[RUNS_SIDE];
    while (m < RUNS_SIDE && r < u->runs) {
      const size_t i0 = r << u->q, i1 = u->n - i0 > per ? i0 + per : u->n;
      l = r + 1 < u->runs ? parz_ll_run_bytes(u->src, u->lengths_bytes, r) : u->bytes - pos;
      if (l > u->bytes - pos) {
        past = 1; /* the runs before it decode; it fails */
        break;
      }
      r++;
      if (parz_ll_run_zero(u->src[0], l)) {
        memset(u->z + i0, 0, (i1 - i0) * sizeof *u->z);
        continue;
      }
      parz_ll_reader_init_at(&rd[m], u->src + pos, l, 0, u->coder, u->code, u->fast);
      run[m] = r - 1;
      at[m] = pos;
      len[m] = l;
      z[m] = u->z + i0;
      end[m] = i1 - i0;
      if (end[m] < common)
        common = end[m];
      bad[m] = PARZ_LL_OK;
      pos += l;
      m++;
    }
    for (k = 0; k < m; k++)
      from[k] = 0;
    /* runs of fewer than 16 bits a residual copied: there the last 8 bytes hold many residuals
     * and the stretches are short; a denser run's copy costs more than it saves */
    for (k = 0; k < m && len[k] <= RUNS_COPY && len[k] < 2 * per; k++)
      ;
    copied = k == m;
    for (k = 0; k < m && (copied || len[k] >= 8); k++)
      ;
    if (PARZ_BITIO_LE && m >= 2 && k == m && bits_fit(copied ? copy : u->src)) {
      /* the runs read from copies with zeros after them where they fit, else where they are;
       * fewer runs than readers: the spare readers read the last run again, the same bits into
       * the same residuals (it refuses first where they would) */
      size_t sat[RUNS_SIDE], slen[RUNS_SIDE], off[RUNS_SIDE], o = 0;
      uint64_t* sz[RUNS_SIDE];
      runs_state st;
      st.contexts = u->contexts;
      st.bytes = copied ? copy : u->src;
      for (k = 0; k < m; k++) {
        off[k] = copied ? o : at[k];
        if (copied) {
          memcpy(copy + o, u->src + at[k], len[k]);
          memset(copy + o + len[k], 0, RUNS_PAD);
          o += len[k] + RUNS_PAD;
        }
      }
      for (k = 0; k < RUNS_SIDE; k++) {
        const unsigned t = k < m ? k : m - 1;
        sat[k] = off[t];
        slen[k] = len[t];
        sz[k] = z[t];
        st.pos[k] = (uint64_t)off[t] * 8;
        st.ctx[k] = 0;
        st.last[k] = (uint64_t)(off[t] + len[t] + (copied ? RUNS_PAD : 0) - 8) * 8;
      }
      runs_side(u, &st, sat, slen, sz, common);
      for (k = 0; k < m; k++) {
        const uint64_t bit = st.pos[k] - (uint64_t)off[k] * 8;
        from[k] = st.done[k];
        parz_ll_reader_init_at(&rd[k], u->src + at[k], len[k], bit, u->coder, u->code, u->fast);
        rd[k].ctx = st.ctx[k];
        if (st.bad != PARZ_LL_OK && k == (unsigned)st.failed) {
          bad[k] = st.bad;
          rd[k].r.pos = bit;
        }
      }
    }
    /* each run's rest, then its end; the first run in order that fails stops the segment */
    for (k = 0; k < m; k++) {
      for (i = from[k]; i < end[k] && bad[k] == PARZ_LL_OK; i++)
        bad[k] = parz_ll_residual_next(&rd[k], &z[k][i]);
      if (bad[k] == PARZ_LL_OK)
        bad[k] = parz_ll_reader_end(&rd[k]);
    }
    for (k = 0; k < m && bad[k] == PARZ_LL_OK; k++)
      ;
    if (k < m) {
      u->run = run[k];
      u->at = at[k];
      u->len = len[k];
      u->rd = rd[k];
      u->bad = bad[k];
    } else {
      u->run = r;
      u->at = pos;
      if (past) {
        u->len = l;
        u->bad = PARZ_LL_BAD_RUNS;
      }
    }
  }
}

/* A coded segment's residuals from i on, while it decodes. */
static size_t uncode_run(uncoding* u, size_t i) {
  if (u->runs) {
    uncode_runs(u);
    return u->n;
  }
  for (; i < u->n && u->bad == PARZ_LL_OK; i++)
    u->bad = parz_ll_residual_next(&u->rd, &u->z[i]);
  return i;
}

/* A coded segment's outcome once its residuals are read: PARZ_OK or its refusal. */
static int uncode_end(uncoding* u, parz_error* err) {
  if (u->bad == PARZ_LL_OK && !u->runs) /* each run's end is checked as it is read */
    u->bad = parz_ll_reader_end(&u->rd);
  if (u->bad == PARZ_LL_OK)
    return PARZ_OK;
  if (u->bad == PARZ_LL_BAD_RUNS) /* a run length past the bytes */
    return parz_fail(err, PARZ_ERR_STREAM,
                     "lossless segment %zu: run %zu of %zu bytes from byte %zu passes its %zu "
                     "bytes",
                     u->segment, u->run, u->len, u->at, u->bytes);
  /* in a run, the run's bytes stand for the segment's in the message */
  return refuse(u->bad, u->segment, u->runs ? u->len + 1 : u->bytes, u->rd.r.pos, u->n, err);
}

static void uncode_free(uncoding* u) {
  if (u->coded == 2)
    free(u->fast);
}

/* Segment `segment`'s bytes (src, bytes long) to be decoded into its n residuals z, its tables
 * in fast (NULL: allocated by uncode_begin). */
static void uncode_init(uncoding* u, const uint8_t* src, size_t bytes, size_t n, uint64_t* z,
                        uint32_t* fast, size_t segment) {
  u->src = src;
  u->bytes = bytes;
  u->n = n;
  u->z = z;
  u->fast = fast;
  u->segment = segment;
#if RUNS_SPLIT
  u->split = PARZ_CPU_HAS("avx2");
#else
  u->split = 0;
#endif
}

int parz_ll_uncode_residuals(const uint8_t* src, size_t src_bytes, size_t n, unsigned w,
                             uint64_t* z, uint32_t* work, size_t segment, parz_error* err) {
  uncoding u;
  int rc;
  uncode_init(&u, src, src_bytes, n, z, work, segment);
  rc = uncode_begin(&u, w, err);
  if (rc == PARZ_OK && u.coded) {
    uncode_run(&u, 0);
    rc = uncode_end(&u, err);
  }
  uncode_free(&u);
  return rc;
}

int parz_ll_uncode_pair(const uint8_t* const src[2], const size_t src_bytes[2], const size_t n[2],
                        unsigned w, uint64_t* const z[2], uint32_t* work, size_t segment,
                        unsigned* decoded, parz_error* err) {
  uncoding u[2];
  int rc[2];
  unsigned k;
  for (k = 0; k < 2; k++)
    uncode_init(&u[k], src[k], src_bytes[k], n[k], z[k],
                work ? work + k * PARZ_LL_UNCODE_WORDS : NULL, segment + k);
  /* the second's refusal first, so that the first's, where it has one, is the message left */
  rc[1] = uncode_begin(&u[1], w, err);
  rc[0] = uncode_begin(&u[0], w, err);
  if (rc[0] == PARZ_OK && rc[1] == PARZ_OK && u[0].coded && u[1].coded && !u[0].runs &&
      !u[1].runs) {
    /* both readers side by side: their chains of dependent loads overlap on one core */
    size_t i, m = n[0] < n[1] ? n[0] : n[1];
    for (i = 0; i < m && (u[0].bad | u[1].bad) == PARZ_LL_OK; i++) {
      u[0].bad = parz_ll_residual_next(&u[0].rd, &u[0].z[i]);
      u[1].bad = parz_ll_residual_next(&u[1].rd, &u[1].z[i]);
    }
    uncode_run(&u[0], i);
    uncode_run(&u[1], i);
  } else {
    for (k = 0; k < 2; k++)
      if (rc[k] == PARZ_OK && u[k].coded)
        uncode_run(&u[k], 0);
  }
  for (k = 2; k-- > 0;)
    if (rc[k] == PARZ_OK && u[k].coded)
      rc[k] = uncode_end(&u[k], err);
  uncode_free(&u[0]);
  uncode_free(&u[1]);
  *decoded = rc[0] != PARZ_OK ? 0u : rc[1] != PARZ_OK ? 1u : 2u;
  return rc[0] != PARZ_OK ? rc[0] : rc[1];
}
