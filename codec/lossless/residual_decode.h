/* The lossless codec's residual decoder (internal, header-only): one segment's bytes (coder byte,
 * code lengths, code words and the bits below each residual's leading one; residual_coder.h
 * describes them) back into its residuals, one residual per call. Compiled as C99 for the CPU
 * decoder (residual_coder.c) and as CUDA C++ for the GPU's (gpu/lossless/), so that both run this
 * very code: block_common.h's contract. Callers turn the PARZ_LL_BAD_* codes into messages. */
#ifndef PARZ_LL_RESIDUAL_DECODE_H
#define PARZ_LL_RESIDUAL_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bitio.h"
#include "block_common.h"
#include "huffman_decode.h"

#define PARZ_LL_CODE_MAX 12
#define PARZ_LL_CODER_RAW 0u
#define PARZ_LL_CODER_LENGTHS 1u
#define PARZ_LL_CODER_CONTEXT 2u
#define PARZ_LL_CODER_RUNS 3u
#define PARZ_LL_CODER_ZERO_RUNS 4u /* coder 3's layout, a run of no bytes all zeros */
#define PARZ_LL_CONTEXTS 17        /* w / 4 + 1 for w = 64 */
/* Coder 3's runs: 2^q residuals each, q in [PARZ_LL_RUN_QMIN, PARZ_LL_RUN_QMAX] (a run of 2^12
 * residuals of at most 12 + 63 bits each fits its u16 byte length); its header before the code
 * lengths: the coder byte, the code's coder (1 or 2) and q. */
#define PARZ_LL_RUN_QMIN 4u
#define PARZ_LL_RUN_QMAX 12u
#define PARZ_LL_RUN_HEAD 3u
/* The most values a payload bit carries: coder 4's runs of zeros, 2^12 for a u16 (residual_coder.h) */
#define PARZ_LL_VALUES_PER_BIT 256u

/* Code words of up to PARZ_LL_TABLE_BITS bits take one lookup, longer ones the canonical walk: a
 * small table, since each context of each segment builds its own. A context's memory: its
 * decoder's table and sorted symbols (PARZ_LL_CODE_WORDS), and its fast table
 * (PARZ_LL_TABLE_SIZE), the fast tables of a segment's contexts one after the other (the loop
 * reads nothing else). */
#define PARZ_LL_TABLE_BITS 9
#define PARZ_LL_TABLE_SIZE (1u << PARZ_LL_TABLE_BITS)
#define PARZ_LL_CODE_WORDS (PARZ_LL_TABLE_SIZE + 65u)
#define PARZ_LL_CONTEXT_WORDS (PARZ_LL_CODE_WORDS + PARZ_LL_TABLE_SIZE)

/* What a decode refuses (PARZ_LL_OK: nothing). */
enum {
  PARZ_LL_OK = 0,
  PARZ_LL_BAD_CODER,    /* a coder byte no coder has, or no byte */
  PARZ_LL_BAD_RAW,      /* a raw segment of another size than its values' */
  PARZ_LL_BAD_LENGTHS,  /* the bytes end inside the code lengths */
  PARZ_LL_BAD_PREFIX,   /* code lengths that make no prefix code */
  PARZ_LL_BAD_WORD,     /* bits that start no word of the code */
  PARZ_LL_BAD_PAST,     /* residuals that run past the segment's bytes */
  PARZ_LL_BAD_TRAILING, /* bytes after the last residual */
  PARZ_LL_BAD_RUNS      /* coder 3: another code's coder or q, or runs past the bytes */
};

/* The decoding loop's table per context: for a code word of at most PARZ_LL_TABLE_BITS bits whose
 * residual's bits (the word, then k - 1 bits below the leading one when k >= 2) take at most
 * PARZ_LL_FAST_MOST bits, those bits' count (1..PARZ_LL_FAST_MOST), 63 - k, and the next
 * residual's table (its offset in the fast tables: its context, or 0 without context coding).
 * Where its bits take more, the entry's bits' count is 0 and it holds k and the word's length
 * (PARZ_LL_FAST_K, PARZ_LL_FAST_LEN) for the slow path; 0 where the window starts a longer word
 * or no word. The GPU's reader (gpu/lossless/lossless_runs.cuh) fills tables of its own, whose
 * 16-bit entries hold the bits' count in the low bits, then 33 - k and the next residual's
 * context (parz_gpu_ll_fast_entry). */
#define PARZ_LL_FAST_MOST 56u
#define PARZ_LL_FAST_ADVANCE(e) ((e)&255u)
#define PARZ_LL_FAST_SHIFT(e) (((e) >> 8) & 63u)
#define PARZ_LL_FAST_NEXT(e) ((e) >> 16)
#define PARZ_LL_FAST_K(e) (((e) >> 8) & 255u)
#define PARZ_LL_FAST_LEN(e) ((e) >> 16)

/* The context of a residual: the bit length of the one before it, in buckets of four. */
PARZ_HD unsigned parz_ll_context_of(unsigned previous) { return (previous + 3) >> 2; }
PARZ_HD unsigned parz_ll_contexts(unsigned w, unsigned coder) {
  return coder == PARZ_LL_CODER_CONTEXT ? w / 4 + 1 : 1;
}

/* Residual i of a raw segment (src: its bytes after the coder byte). */
PARZ_HD uint64_t parz_ll_raw_residual(const uint8_t* src, size_t i, unsigned w) {
  uint64_t v = 0;
  for (unsigned b = 0; b < w / 8; b++)
    v |= (uint64_t)src[i * (w / 8) + b] << (8 * b);
  return v;
}

/* The w + 1 code lengths of context c into len, from the code lengths at `lengths` (bytes long:
 * the segment's bytes from its first length on; the caller has checked that they lie inside). */
PARZ_HD void parz_ll_context_lengths(const uint8_t* lengths, size_t bytes, unsigned w, unsigned c,
                                     uint8_t* len) {
  unsigned k, ns = w + 1;
  parz_bitr r;
  parz_bitr_init(&r, lengths, bytes, (uint64_t)4u * ns * c, (uint64_t)4u * ns);
  for (k = 0; k < ns; k++)
    len[k] = (uint8_t)parz_bitr_get(&r, 4);
}

/* The context of the residual after one of bit length k (contexts: 1 without context coding). */
PARZ_HD unsigned parz_ll_next_context(unsigned k, unsigned contexts) {
  return contexts > 1 ? parz_ll_context_of(k) : 0u;
}

/* The reader of the decoding loop: a 64-bit buffer of the bits from position at * 8 - cnt on,
 * refilled before each residual so that it holds at least 56 (bits past the stream read as
 * zeros, never a byte outside it); bits of the buffer above cnt are stream bits or zeros. */
typedef struct {
  const uint8_t* p;
  size_t bytes, at;
  uint64_t buf;
  unsigned cnt;
} parz_ll_window;

PARZ_HD void parz_ll_window_fill(parz_ll_window* v) {
  if (PARZ_BITIO_LE && v->at + 8 <= v->bytes) {
    uint64_t x;
    memcpy(&x, v->p + v->at, 8);
    v->buf |= x << v->cnt;
    v->at += (63 - v->cnt) >> 3;
    v->cnt |= 56;
  } else {
    for (; v->cnt <= 56; v->cnt += 8, v->at++)
      v->buf |= (uint64_t)(v->at < v->bytes ? v->p[v->at] : 0) << v->cnt;
  }
}

PARZ_HD uint64_t parz_ll_window_pos(const parz_ll_window* v) {
  return (uint64_t)v->at * 8 - v->cnt;
}

PARZ_HD void parz_ll_window_seek(parz_ll_window* v, uint64_t pos) {
  v->at = (size_t)(pos >> 3);
  v->buf = 0;
  v->cnt = 0;
  parz_ll_window_fill(v);
  v->buf >>= pos & 7;
  v->cnt -= (unsigned)(pos & 7);
}

/* A coded segment's residuals, one at a time: its bit reader (r, for what the window does not
 * take at once), the window, the contexts' codes (code[c], fast tables at fast + c *
 * PARZ_LL_TABLE_SIZE), where the next residual's context's table begins in fast (context
 * (k + 3) / 4 with context coding, else always 0) and whether there is context coding (contexts
 * above 1). */
typedef struct {
  parz_bitr r;
  parz_ll_window v;
  const parz_huff_decoder* code;
  const uint32_t* fast;
  unsigned ctx, contexts;
} parz_ll_residual_reader;

/* A reader of the residuals coded in bytes p[0..bytes) from bit pos on, whose contexts are set
 * up (coder: 1 or 2, the code's), the first residual in context 0. */
PARZ_HD void parz_ll_reader_init_at(parz_ll_residual_reader* s, const uint8_t* p, size_t bytes,
                                    uint64_t pos, unsigned coder, const parz_huff_decoder* code,
                                    const uint32_t* fast) {
  parz_bitr_init(&s->r, p, bytes, 0, (uint64_t)bytes * 8);
  s->r.pos = pos;
  s->v.p = p;
  s->v.bytes = bytes;
  parz_ll_window_seek(&s->v, pos);
  s->code = code;
  s->fast = fast;
  s->ctx = 0;
  s->contexts = coder == PARZ_LL_CODER_CONTEXT ? PARZ_LL_CONTEXTS : 1u; /* enough to tell */
}

/* A reader of segment src (bytes long, coder byte coder: 1 or 2) whose contexts are set up: from
 * the end of the code lengths on. */
PARZ_HD void parz_ll_reader_init(parz_ll_residual_reader* s, const uint8_t* src, size_t bytes,
                                 unsigned w, unsigned coder, const parz_huff_decoder* code,
                                 const uint32_t* fast) {
  parz_ll_reader_init_at(s, src + 1, bytes - 1, (uint64_t)4u * (w + 1) * parz_ll_contexts(w, coder),
                         coder, code, fast);
}

/* The residual whose bits start the window x (at least PARZ_LL_FAST_MOST + 1 bits of the stream
 * from its first bit on, low bits first) through the fast table at fast + *ctx: its bits taken
 * (then its value into *z and the next residual's table into *ctx), or 0 where the fast table
 * does not take it (parz_ll_residual_slow). */
PARZ_HD unsigned parz_ll_residual_fast(const uint32_t* fast, uint64_t x, unsigned* ctx,
                                       uint64_t* z) {
  const uint32_t e = fast[*ctx + (unsigned)(x & (PARZ_LL_TABLE_SIZE - 1))];
  const unsigned a = PARZ_LL_FAST_ADVANCE(e);
  /* the bits below the leading one to the top, under an implicit leading one there, then down
   * to k bits: the word's bits fall out at the bottom (k = 0: all of them) */
  const uint64_t top = x << (63u - a) | 0x8000000000000000u;
  if (!a)
    return 0;
  *z = top >> PARZ_LL_FAST_SHIFT(e) >> 1;
  *ctx = PARZ_LL_FAST_NEXT(e);
  return a;
}

/* The residual at r->pos that parz_ll_residual_fast did not take, through the code of context
 * *ctx (its fast table at fast + *ctx, its code code[*ctx >> PARZ_LL_TABLE_BITS], of the segment's
 * `contexts`), read through r:
 * PARZ_LL_OK (its value into *z, r past it, the next table into *ctx), PARZ_LL_BAD_WORD (r->pos:
 * where) or PARZ_LL_BAD_PAST once it ran past r's bits. */
PARZ_HD int parz_ll_residual_slow(parz_bitr* r, const parz_huff_decoder* code, const uint32_t* fast,
                                  unsigned contexts, unsigned* ctx, uint64_t* z) {
  const uint64_t x = parz_bitr_peek(r);
  const uint32_t e = fast[*ctx + (unsigned)(x & (PARZ_LL_TABLE_SIZE - 1))];
  unsigned k, l = PARZ_LL_FAST_LEN(e);
  /* a short word of a wide residual, or the canonical walk */
  const int32_t sym = l ? (int32_t)PARZ_LL_FAST_K(e)
                        : parz_huff_decode_long(&code[*ctx >> PARZ_LL_TABLE_BITS], x, &l);
  if (sym < 0)
    return PARZ_LL_BAD_WORD;
  k = (unsigned)sym;
  parz_bitr_skip(r, l);
  if (k < 2) {
    *z = k;
  } else {
    uint64_t low = parz_bitr_get(r, k - 1 < 32 ? k - 1 : 32);
    if (k - 1 > 32)
      low |= parz_bitr_get(r, k - 33) << 32;
    *z = ((uint64_t)1 << (k - 1)) | low;
  }
  if (parz_bitr_over(r))
    return PARZ_LL_BAD_PAST;
  *ctx = parz_ll_next_context(k, contexts) << PARZ_LL_TABLE_BITS;
  return PARZ_LL_OK;
}

/* The next residual into *z: PARZ_LL_OK, PARZ_LL_BAD_WORD (s->r.pos: where), or PARZ_LL_BAD_PAST
 * once a residual ran past the bytes. */
PARZ_HD int parz_ll_residual_next(parz_ll_residual_reader* s, uint64_t* z) {
  parz_ll_window* v = &s->v;
  unsigned a;
  int bad;
  parz_ll_window_fill(v);
  a = parz_ll_residual_fast(s->fast, v->buf, &s->ctx, z);
  if (a) {
    v->buf >>= a;
    v->cnt -= a;
    return PARZ_LL_OK;
  }
  s->r.pos = parz_ll_window_pos(v);
  bad = parz_ll_residual_slow(&s->r, s->code, s->fast, s->contexts, &s->ctx, z);
  if (bad == PARZ_LL_OK)
    parz_ll_window_seek(v, s->r.pos);
  return bad;
}

/* After the segment's last residual: PARZ_LL_OK where it ends exactly with the bytes,
 * PARZ_LL_BAD_PAST or PARZ_LL_BAD_TRAILING. */
PARZ_HD int parz_ll_reader_end(parz_ll_residual_reader* s) {
  s->r.pos = parz_ll_window_pos(&s->v);
  if (parz_bitr_over(&s->r))
    return PARZ_LL_BAD_PAST;
  return (s->r.pos + 7) / 8 != s->r.bytes ? PARZ_LL_BAD_TRAILING : PARZ_LL_OK;
}

/* Coder 3's and 4's layout (residual_coder.h): a segment of n residuals, bytes long, whose header bytes
 * src[0..PARZ_LL_RUN_HEAD) are read. *coder: the code's coder; *lengths_bytes: the code
 * lengths' bytes after the header; *runs: the runs; *first: the byte of run 0 (after the u16
 * byte lengths of runs 0..runs-2). PARZ_LL_OK, PARZ_LL_BAD_RUNS (another code's coder or q) or
 * PARZ_LL_BAD_LENGTHS (the bytes end inside the header). */
PARZ_HD int parz_ll_runs_layout(const uint8_t* src, size_t bytes, size_t n, unsigned w,
                                unsigned* coder, unsigned* q, size_t* lengths_bytes, size_t* runs,
                                size_t* first) {
  if (bytes < PARZ_LL_RUN_HEAD)
    return PARZ_LL_BAD_LENGTHS;
  *coder = src[1];
  *q = src[2];
  if ((*coder != PARZ_LL_CODER_LENGTHS && *coder != PARZ_LL_CODER_CONTEXT) ||
      *q < PARZ_LL_RUN_QMIN || *q > PARZ_LL_RUN_QMAX)
    return PARZ_LL_BAD_RUNS;
  *lengths_bytes = ((size_t)4u * (w + 1) * parz_ll_contexts(w, *coder) + 7) / 8;
  *runs = (n + ((size_t)1 << *q) - 1) >> *q;
  *first = PARZ_LL_RUN_HEAD + *lengths_bytes + 2 * (*runs ? *runs - 1 : 0);
  return *first > bytes ? PARZ_LL_BAD_LENGTHS : PARZ_LL_OK;
}

/* Whether a run of len bytes of a segment of coder byte coder holds only zero residuals: coder 4's
 * empty runs (coder 3 refuses a run of no bytes, whose residuals pass them). */
PARZ_HD int parz_ll_run_zero(unsigned coder, size_t len) {
  return coder == PARZ_LL_CODER_ZERO_RUNS && len == 0;
}

/* The byte length of run r < runs - 1 of a coder 3 or 4 segment (its u16 in the header). */
PARZ_HD size_t parz_ll_run_bytes(const uint8_t* src, size_t lengths_bytes, size_t r) {
  const uint8_t* p = src + PARZ_LL_RUN_HEAD + lengths_bytes + 2 * r;
  return (size_t)p[0] | (size_t)p[1] << 8;
}

#endif
