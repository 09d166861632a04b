/* The residual coder (residual_coder.h): the codes, their words and the LSB-first bit streams
 * are the codecs' shared ones (codec/entropy/). */
#include "residual_coder.h"

#include <stdlib.h>
#include <string.h>

#include "bitio.h"
#include "block_common.h"
#include "huffman.h"

/* Code words of up to TABLE_BITS bits take one lookup, longer ones the canonical walk: a small
 * table, since each context of each segment builds its own. */
#define TABLE_BITS 9
#define TABLE_SIZE (1u << TABLE_BITS)

/* The decoding loop's table per context: for a code word of at most TABLE_BITS bits, its
 * residual's bit length k, the word's length and the bits both take (the word, then k - 1 bits
 * below the leading one when k >= 2); 0 where the window starts a longer word or none. */
#define FAST_ADVANCE(e) ((e)&255u)
#define FAST_K(e) (((e) >> 8) & 255u)
#define FAST_LEN(e) ((e) >> 16)

static void fast_table(const parz_huff_decoder* d, uint32_t* fast) {
  unsigned i;
  for (i = 0; i < TABLE_SIZE; i++) {
    uint32_t e = d->table[i];
    unsigned l = PARZ_HUFF_ENTRY_LEN(e), k = PARZ_HUFF_ENTRY_SYM(e);
    fast[i] = l ? (l + (k >= 2 ? k - 1 : 0)) | k << 8 | l << 16 : 0;
  }
}

size_t parz_ll_residual_bound(size_t n, unsigned w) { return 1 + n * (w / 8); }

void parz_ll_huffman_lengths(const uint64_t* freq, unsigned ns, unsigned max_len, uint8_t* len) {
  /* ns <= 256 symbols fit any max_len >= 8, and a segment's counts are far below 2^56 */
  if (parz_huff_lengths(freq, ns, max_len, len, NULL) != PARZ_OK)
    memset(len, 0, ns);
}

/* The context of a residual: the bit length of the one before it, in buckets of four. */
static unsigned context_of(unsigned previous) { return (previous + 3) >> 2; }
static unsigned contexts(unsigned w, unsigned coder) {
  return coder == PARZ_LL_CODER_CONTEXT ? w / 4 + 1 : 1;
}

/* The codes of a coder for the residuals' bit-length counts per context (freq): lengths and
 * codes per context; returns the stream's bits with its lengths. */
static uint64_t plan(uint64_t freq[][65], unsigned w, unsigned coder, uint8_t len[][65],
                     uint32_t code[][65]) {
  unsigned c, k, ns = w + 1, nc = contexts(w, coder);
  uint64_t bits = 4u * ns * nc;
  for (c = 0; c < nc; c++) {
    parz_ll_huffman_lengths(freq[c], ns, PARZ_LL_CODE_MAX, len[c]);
    parz_huff_codes(len[c], ns, PARZ_LL_CODE_MAX, code[c], NULL);
    for (k = 0; k < ns; k++)
      bits += freq[c][k] * (len[c][k] + (k >= 2 ? k - 1 : 0));
  }
  return bits;
}

size_t parz_ll_code_residuals(const uint64_t* z, size_t n, unsigned w, uint8_t* dst) {
  static const unsigned coders[2] = {PARZ_LL_CODER_LENGTHS, PARZ_LL_CODER_CONTEXT};
  uint8_t len[2][PARZ_LL_CONTEXTS][65];
  uint32_t code[2][PARZ_LL_CONTEXTS][65];
  uint64_t bits[2], freq[PARZ_LL_CONTEXTS][65], odd[PARZ_LL_CONTEXTS][65], all[1][65];
  unsigned k, c, pick, ns = w + 1, previous = 0;
  size_t i, raw = parz_ll_residual_bound(n, w);
  /* one pass counts per context; the single code's counts are their sums */
  memset(freq, 0, sizeof freq);
  memset(all, 0, sizeof all);
  /* two counts, even and odd residuals, so that runs of one bit length do not wait on their
   * own increments */
  memset(odd, 0, sizeof odd);
  for (i = 0; i + 1 < n; i += 2) {
    unsigned k1;
    k = parz_bitlen64(z[i]);
    k1 = parz_bitlen64(z[i + 1]);
    freq[context_of(previous)][k]++;
    odd[context_of(k)][k1]++;
    previous = k1;
  }
  if (i < n) {
    k = parz_bitlen64(z[i]);
    freq[context_of(previous)][k]++;
  }
  for (c = 0; c < contexts(w, PARZ_LL_CODER_CONTEXT); c++)
    for (k = 0; k < ns; k++) {
      freq[c][k] += odd[c][k];
      all[0][k] += freq[c][k];
    }
  bits[0] = plan(all, w, coders[0], len[0], code[0]);
  bits[1] = plan(freq, w, coders[1], len[1], code[1]);
  previous = 0;
  pick = bits[1] < bits[0];
  if (1 + (bits[pick] + 7) / 8 >= raw) {
    dst[0] = PARZ_LL_CODER_RAW;
    for (i = 0; i < n; i++) {
      unsigned b;
      for (b = 0; b < w / 8; b++)
        dst[1 + i * (w / 8) + b] = (uint8_t)(z[i] >> (8 * b));
    }
    return raw;
  }
  {
    parz_bitw wr;
    unsigned coder = coders[pick], nc = contexts(w, coder);
    dst[0] = (uint8_t)coder;
    parz_bitw_init(&wr, dst, raw, 1);
    for (c = 0; c < nc; c++)
      for (k = 0; k < ns; k++)
        parz_bitw_put(&wr, len[pick][c][k], 4);
    parz_bitw_flush_bytes(&wr);
    for (i = 0; i < n; i++) {
      unsigned l, below;
      c = coder == PARZ_LL_CODER_CONTEXT ? context_of(previous) : 0;
      k = parz_bitlen64(z[i]);
      l = len[pick][c][k];
      below = k >= 2 ? k - 1 : 0;
      if (l + below <= 56) {
        /* the code word and the bits below the leading one in one call */
        uint64_t low = k ? z[i] & (((uint64_t)1 << (k - 1)) - 1) : 0;
        parz_bitw_put56(&wr, code[pick][c][k] | low << l, l + below);
      } else {
        parz_bitw_put(&wr, code[pick][c][k], l);
        parz_bitw_put64(&wr, z[i] & (((uint64_t)1 << (k - 1)) - 1), below);
        parz_bitw_flush_bytes(&wr);
      }
      previous = k;
    }
    return parz_bitw_finish(&wr);
  }
}

/* The reader of the decoding loop: a 64-bit buffer of the bits from position at * 8 - cnt on,
 * refilled before each residual so that it holds at least 56 (bits past the stream read as
 * zeros, never a byte outside it); bits of the buffer above cnt are stream bits or zeros. */
typedef struct {
  const uint8_t* p;
  size_t bytes, at;
  uint64_t buf;
  unsigned cnt;
} window;

static void window_fill_end(window* v) {
  for (; v->cnt <= 56; v->cnt += 8, v->at++)
    v->buf |= (uint64_t)(v->at < v->bytes ? v->p[v->at] : 0) << v->cnt;
}

PARZ_HD void window_fill(window* v) {
  if (PARZ_BITIO_LE && v->at + 8 <= v->bytes) {
    uint64_t x;
    memcpy(&x, v->p + v->at, 8);
    v->buf |= x << v->cnt;
    v->at += (63 - v->cnt) >> 3;
    v->cnt |= 56;
  } else {
    window_fill_end(v);
  }
}

static uint64_t window_pos(const window* v) { return (uint64_t)v->at * 8 - v->cnt; }

static void window_seek(window* v, uint64_t pos) {
  v->at = (size_t)(pos >> 3);
  v->buf = 0;
  v->cnt = 0;
  window_fill(v);
  v->buf >>= pos & 7;
  v->cnt -= (unsigned)(pos & 7);
}

/* Decodes n residuals from r's bits with the contexts' codes (fast: their tables) and leaves r
 * at the end of the last; PARZ_ERR_STREAM, naming segment, for bits that are no code word or
 * residuals that run past the stream. */
static int residuals(parz_bitr* r, const parz_huff_decoder* code, const uint32_t* fast,
                     unsigned ctx_mask, size_t n, uint64_t* z, size_t segment, parz_error* err) {
  window v = {r->p, r->bytes, 0, 0, 0};
  unsigned ctx = 0, k;
  size_t i;
  window_seek(&v, r->pos);
  for (i = 0; i < n; i++) {
    uint32_t e;
    window_fill(&v);
    e = fast[(ctx << TABLE_BITS) | (unsigned)(v.buf & (TABLE_SIZE - 1))];
    if (e && FAST_ADVANCE(e) <= 56) {
      /* the code word and the bits below the leading one, in the buffer */
      uint64_t below;
      k = FAST_K(e);
      below = (((uint64_t)1 << k) - 1) >> 1;
      z[i] = (below + (k != 0)) | ((v.buf >> FAST_LEN(e)) & below);
      v.buf >>= FAST_ADVANCE(e);
      v.cnt -= FAST_ADVANCE(e);
    } else {
      /* a word longer than the table's, a wide residual, or bits that are no word */
      unsigned l = FAST_LEN(e);
      int32_t sym;
      r->pos = window_pos(&v);
      sym = e ? (int32_t)FAST_K(e) : parz_huff_decode_long(&code[ctx], parz_bitr_peek(r), &l);
      if (sym < 0)
        return parz_fail(err, PARZ_ERR_STREAM, "lossless segment %zu: no code at bit %llu", segment,
                         (unsigned long long)r->pos);
      k = (unsigned)sym;
      parz_bitr_skip(r, l);
      if (k < 2) {
        z[i] = k;
      } else {
        uint64_t low = parz_bitr_get(r, k - 1 < 32 ? k - 1 : 32);
        if (k - 1 > 32)
          low |= parz_bitr_get(r, k - 33) << 32;
        z[i] = ((uint64_t)1 << (k - 1)) | low;
      }
      if (parz_bitr_over(r))
        break;
      window_seek(&v, r->pos);
    }
    ctx = context_of(k) & ctx_mask;
  }
  if (i == n)
    r->pos = window_pos(&v);
  if (parz_bitr_over(r))
    return parz_fail(err, PARZ_ERR_STREAM,
                     "lossless segment %zu: its %zu values pass its %zu bytes", segment, n,
                     r->bytes);
  return PARZ_OK;
}

int parz_ll_uncode_residuals(const uint8_t* src, size_t src_bytes, size_t n, unsigned w,
                             uint64_t* z, size_t segment, parz_error* err) {
  static const char* what = "lossless segment";
  if (!src || src_bytes < 1)
    return parz_fail(err, PARZ_ERR_STREAM, "%s %zu: empty", what, segment);
  if (src[0] == PARZ_LL_CODER_RAW) {
    size_t i, need = parz_ll_residual_bound(n, w);
    if (src_bytes != need)
      return parz_fail(err, PARZ_ERR_STREAM, "%s %zu: raw, %zu bytes where %zu are needed", what,
                       segment, src_bytes, need);
    for (i = 0; i < n; i++) {
      uint64_t v = 0;
      unsigned b;
      for (b = 0; b < w / 8; b++)
        v |= (uint64_t)src[1 + i * (w / 8) + b] << (8 * b);
      z[i] = v;
    }
    return PARZ_OK;
  }
  if (src[0] == PARZ_LL_CODER_LENGTHS || src[0] == PARZ_LL_CODER_CONTEXT) {
    parz_huff_decoder code[PARZ_LL_CONTEXTS];
    uint8_t len[65];
    unsigned k, c, ns = w + 1, coder = src[0], nc = contexts(w, coder);
    /* the context of the next residual: (k + 3) / 4 with context coding, else always 0 */
    unsigned ctx_mask = coder == PARZ_LL_CODER_CONTEXT ? ~0u : 0u;
    size_t words = parz_huff_decoder_words(ns, TABLE_BITS);
    uint32_t *mem, *fast;
    int rc = PARZ_OK;
    parz_bitr r;
    parz_bitr_init(&r, src + 1, src_bytes - 1, 0, (uint64_t)(src_bytes - 1) * 8);
    if ((src_bytes - 1) * 8 < 4u * ns * nc)
      return parz_fail(err, PARZ_ERR_STREAM, "%s %zu: %zu bytes end inside its code", what, segment,
                       src_bytes);
    mem = (uint32_t*)malloc((size_t)nc * (words + TABLE_SIZE) * sizeof *mem);
    if (!mem)
      return parz_fail(err, PARZ_ERR_NOMEM, "%s %zu: no room for its code", what, segment);
    fast = mem + (size_t)nc * words;
    /* Context c's decoder lives at mem + c * words. A context no residual takes has no code
     * word: its table refuses every bit. */
    for (c = 0; c < nc && rc == PARZ_OK; c++) {
      for (k = 0; k < ns; k++)
        len[k] = (uint8_t)parz_bitr_get(&r, 4);
      if (parz_huff_decoder_init(&code[c], len, ns, PARZ_LL_CODE_MAX, TABLE_BITS,
                                 mem + (size_t)c * words, NULL) != PARZ_OK)
        rc =
            parz_fail(err, PARZ_ERR_STREAM,
                      "%s %zu: code lengths of context %u are not a prefix code", what, segment, c);
      else
        fast_table(&code[c], fast + ((size_t)c << TABLE_BITS));
    }
    if (rc == PARZ_OK)
      rc = residuals(&r, code, fast, ctx_mask, n, z, segment, err);
    free(mem);
    if (rc == PARZ_OK && (r.pos + 7) / 8 != r.bytes)
      rc = parz_fail(err, PARZ_ERR_STREAM, "%s %zu: %zu bytes after its last value", what, segment,
                     r.bytes - (size_t)((r.pos + 7) / 8));
    return rc;
  }
  return parz_fail(err, PARZ_ERR_STREAM, "%s %zu: unknown coder %u", what, segment,
                   (unsigned)src[0]);
}
