/* The lossless codec's GPU decoder, the steps of one thread (PARZ_HD), so that
 * tests/test_gpu_lossless_host.cpp runs them on the CPU against the serial decoder
 * (codec/lossless/residual_decode.h) where no GPU is; lossless_decode.cu launches them.
 *
 *   codes    each context's code lengths give the canonical code's limits and sorted symbols
 *            (huffman_decode.h's decoder with no table of its own: parz_gpu_ll_code_setup here,
 *            a warp per context in the kernel, warp_code.cuh's parz_gpu_ll_warp_code_setup, the
 *            same fields); then every thread fills entries of the contexts' fast tables
 *            (parz_gpu_ll_fast_entry), each entry the canonical decode of its 9 bits in 16 bits;
 *   reader   a thread per run (or per segment of coders 1 and 2) reads its residuals with
 *            parz_gpu_ll_reader: a 64-bit window refilled from aligned 32-bit words, each word
 *            loaded two refills ahead (a word loaded one refill ahead is waited for at that
 *            refill's move of it; ptxas still copies the loaded word into its register at the
 *            end of the refill's branch and waits there, as bench/results/h200/
 *            bench_gpu_lossless.md shows); on the GPU the run's first lines are prefetched into
 *            L1 and each refill that enters a line prefetches one further on, since a warp
 *            waits for the slowest lane's miss. A word that straddles the run's bytes is read
 *            byte by byte, the bytes outside as zeros, so nothing outside them is read. A word
 *            of the fast table decodes a residual in one lookup (its value by one 64-bit shift
 *            of the window's low word, its next context from the entry); longer words and
 *            wider residuals take the canonical walk. Where the CTA copied the segment into
 *            shared memory, parz_gpu_ll_w2reader reads the copy instead: each window the funnel
 *            shift of two words at the residual's bit, no refill.
 *            The residuals and the refusals are the serial reader's: the same words of the same
 *            bits (zeros past the bytes), and at the end the same check of where the bits end
 *            (parz_ll_reader_end's), which refuses every run the serial reader refuses earlier
 *            (a run past its bytes can only end past them);
 *   blocks   a value's coordinates in its block by multiplications (parz_gpu_ll_div), not
 *            divisions. */
#ifndef PARZ_GPU_LOSSLESS_RUNS_CUH
#define PARZ_GPU_LOSSLESS_RUNS_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "residual_decode.h"

/* A code's memory in words for values of w bits: its decoder's one-word table (table_bits 0)
 * and its sorted symbols, w + 1 at most. */
PARZ_HD unsigned parz_gpu_ll_code_words(unsigned w) { return w + 2; }

/* A segment's layout, read once for its CTA: its coder byte, the code's coder and contexts; its
 * runs (a coder 1 or 2 segment is one run, from the end of its code lengths on, bit pos): the
 * first's byte, their 2^q residuals, and the code lengths' bytes. */
typedef struct {
  unsigned coder, code_coder, nc, q;
  unsigned long long runs, first, lengths_bytes, pos;
} parz_gpu_ll_head;

/* The layout of segment src (bytes long, n residuals of w bits) into *h: whether the serial
 * decoder's checks of it before its residuals pass (unknown coder, raw of another size, coder 3
 * and 4 layouts, code lengths inside the bytes). */
PARZ_HD int parz_gpu_ll_head_read(const uint8_t* src, size_t bytes, unsigned long long n,
                                  unsigned w, parz_gpu_ll_head* h) {
  size_t lengths_bytes = bytes - 1, runs = 1, first = 1;
  unsigned code_coder = src[0], q = 63;
  h->coder = src[0];
  if (h->coder == PARZ_LL_CODER_RAW)
    return bytes == 1 + n * (w / 8);
  if (h->coder == PARZ_LL_CODER_RUNS || h->coder == PARZ_LL_CODER_ZERO_RUNS) {
    if (parz_ll_runs_layout(src, bytes, (size_t)n, w, &code_coder, &q, &lengths_bytes, &runs,
                            &first) != PARZ_LL_OK)
      return 0;
  } else if (h->coder != PARZ_LL_CODER_LENGTHS && h->coder != PARZ_LL_CODER_CONTEXT) {
    return 0;
  }
  h->code_coder = code_coder;
  h->nc = parz_ll_contexts(w, code_coder);
  h->q = q;
  h->runs = runs;
  h->first = first;
  h->lengths_bytes = lengths_bytes;
  h->pos = h->coder == code_coder ? 4ull * (w + 1) * h->nc : 0;
  return (unsigned long long)lengths_bytes * 8 >= 4ull * (w + 1) * h->nc;
}

/* The code lengths of segment src under head h. */
PARZ_HD const uint8_t* parz_gpu_ll_lengths(const uint8_t* src, const parz_gpu_ll_head* h) {
  return src + (h->coder == h->code_coder ? 1 : PARZ_LL_RUN_HEAD);
}

/* The byte length of run r of segment src (bytes long) under head h, the runs but the last
 * taking told bytes (whose check, first + told <= bytes, is the caller's). */
PARZ_HD unsigned long long parz_gpu_ll_run_len(const uint8_t* src, size_t bytes,
                                               const parz_gpu_ll_head* h, unsigned long long r,
                                               unsigned long long told) {
  return r + 1 < h->runs    ? parz_ll_run_bytes(src, (size_t)h->lengths_bytes, (size_t)r)
         : r + 1 == h->runs ? bytes - h->first - told
                            : 0;
}

/* Fast entries, 16 bits each (a segment's tables take half the shared memory of 32-bit ones, so
 * that more segments' CTAs fit an SM): adv | s << 6 | next << 12, only for words of at most
 * PARZ_LL_TABLE_BITS bits whose word and bits below the leading one (adv of them, 1 to
 * PARZ_GPU_LL_FAST_BITS) fit a window refilled to 32 bits: s = 33 - k, so that with t the
 * window's low word shifted up by 32 - adv, the residual is the low word of the 64-bit 1:t
 * shifted right by s (k = 0 gives 0, k = 1 gives 1); next is the context of the residual after
 * it (0 for a code without contexts; at most 8, as k is at most 32). 0 where the window starts a
 * longer word, no word, or a residual of more bits: the canonical walk decodes those. */
#define PARZ_GPU_LL_FAST_BITS 32u
#define PARZ_GPU_LL_FAST_ADV(e) ((unsigned)(e)&63u)
#define PARZ_GPU_LL_FAST_SHIFT(e) (((unsigned)(e) >> 6) & 63u)
/* the next residual's table: its offset in the fast tables */
#define PARZ_GPU_LL_FAST_NEXT(e) (((unsigned)(e) >> 12) << PARZ_LL_TABLE_BITS)

/* The fast entry of a word of l bits for residual bit length k, under `contexts` contexts. */
PARZ_HD uint16_t parz_gpu_ll_fast_of(unsigned l, unsigned k, unsigned contexts) {
  const unsigned adv = l + (k >= 2 ? k - 1 : 0);
  return (uint16_t)(adv <= PARZ_GPU_LL_FAST_BITS
                        ? adv | (33u - k) << 6 | parz_ll_next_context(k, contexts) << 12
                        : 0);
}

/* The residual of fast entry e whose bits start the window x. */
PARZ_HD uint32_t parz_gpu_ll_fast_value(uint32_t x, uint16_t e) {
  const uint32_t t = x << (32u - PARZ_GPU_LL_FAST_ADV(e)); /* adv is 1..32 */
  return (uint32_t)((((uint64_t)1 << 32) | t) >> PARZ_GPU_LL_FAST_SHIFT(e));
}

/* The code of context c from the code lengths at `lengths` (bytes long, checked by the caller to
 * hold them): its canonical limits and sorted symbols into *d over mem (parz_gpu_ll_code_words).
 * PARZ_LL_OK or PARZ_LL_BAD_PREFIX, as the CPU decoder's set-up. */
PARZ_HD int parz_gpu_ll_code_setup(const uint8_t* lengths, size_t bytes, unsigned w, unsigned c,
                                   parz_huff_decoder* d, uint32_t* mem) {
  uint8_t len[65];
  parz_ll_context_lengths(lengths, bytes, w, c, len);
  return parz_huff_decoder_setup(d, len, w + 1, PARZ_LL_CODE_MAX, 0, mem) ? PARZ_LL_BAD_PREFIX
                                                                          : PARZ_LL_OK;
}

/* Entry i (the window's low PARZ_LL_TABLE_BITS bits) of the fast table of code d (set up by
 * parz_gpu_ll_code_setup, one of `contexts`): 0 where no word of at most PARZ_LL_TABLE_BITS bits
 * starts the window, or where its residual's bits would not fit PARZ_GPU_LL_FAST_BITS. */
PARZ_HD uint16_t parz_gpu_ll_fast_entry(const parz_huff_decoder* d, unsigned contexts, uint32_t i) {
  unsigned l = 0;
  const int32_t s = parz_huff_decode_long(d, i, &l);
  if (s < 0 || l > PARZ_LL_TABLE_BITS)
    return 0; /* no word, or one longer than the window's bits (the decode read zeros above) */
  return parz_gpu_ll_fast_of(l, (unsigned)s, contexts);
}

/* Entries i = from, from + step, ... < PARZ_LL_TABLE_SIZE of the fast table of code d (one of
 * `contexts`), each parz_gpu_ll_fast_entry's: the code's limits in registers, so that an entry
 * takes no load but its symbol's. A canonical code's words of length l, read first bit first as
 * 9-bit numbers, lie in [lim[l - 1], lim[l]), lim[l] = (first[l] + count[l]) << (9 - l),
 * intervals one after the other as l grows (so lim never falls); the window's word is the first
 * l whose interval ends above it, found by selects over constant indices (an index by l would
 * put the limits in local memory). */
PARZ_HD void parz_gpu_ll_fast_fill(const parz_huff_decoder* d, unsigned contexts, uint16_t* fast,
                                   unsigned from, unsigned step) {
  uint32_t lim[PARZ_LL_TABLE_BITS + 1], base[PARZ_LL_TABLE_BITS + 1];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (unsigned l = 1; l <= PARZ_LL_TABLE_BITS; l++) {
    lim[l] = (d->first[l] + d->count[l]) << (PARZ_LL_TABLE_BITS - l);
    base[l] = d->index[l] - d->first[l];
  }
  for (unsigned i = from; i < PARZ_LL_TABLE_SIZE; i += step) {
    const uint32_t c = parz_huff_reverse(i, PARZ_LL_TABLE_BITS);
    unsigned l = PARZ_LL_TABLE_BITS;
    uint32_t b = base[PARZ_LL_TABLE_BITS];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (unsigned k = PARZ_LL_TABLE_BITS - 1; k >= 1; k--) {
      const bool in = c < lim[k];
      l = in ? k : l;
      b = in ? base[k] : b;
    }
    fast[i] = c < lim[PARZ_LL_TABLE_BITS]
                  ? parz_gpu_ll_fast_of(l, d->sorted[b + (c >> (PARZ_LL_TABLE_BITS - l))], contexts)
                  : 0;
  }
}

/* The residual reader of a run: bytes p[0..bytes), from bit pos on. */
typedef struct {
  const uint8_t* p;
  size_t bytes;
  unsigned lead;  /* bytes of the first aligned word before p */
  size_t j;       /* the word after `ahead` (words counted from p - lead) */
  uint32_t next;  /* word j - 2, loaded ahead: the next refill's */
  uint32_t ahead; /* word j - 1, the refill after it */
  uint64_t buf;   /* the window: its cnt low bits are the stream's next bits, zeros above */
  unsigned cnt;
  const parz_huff_decoder* code;
  const uint16_t* fast;
  unsigned ctx, ctx_mask;
} parz_gpu_ll_reader;

/* Aligned word j (counted from p - lead) of the run's bytes, the bytes outside them zeros. */
PARZ_HD uint32_t parz_gpu_ll_word(const uint8_t* p, size_t bytes, unsigned lead, size_t j) {
  const size_t at = 4 * j; /* the word's first byte, from p - lead */
  if (at >= lead && at - lead + 4 <= bytes) {
#if defined(__CUDA_ARCH__)
    return __ldg((const unsigned int*)(p + (at - lead)));
#else
    uint32_t v;
    memcpy(&v, p + (at - lead), 4);
    return PARZ_BITIO_LE ? v
                         : (uint32_t)p[at - lead] | (uint32_t)p[at - lead + 1] << 8 |
                               (uint32_t)p[at - lead + 2] << 16 | (uint32_t)p[at - lead + 3] << 24;
#endif
  }
  uint32_t v = 0;
  for (unsigned b = 0; b < 4; b++)
    if (at + b >= lead && at + b - lead < bytes)
      v |= (uint32_t)p[at + b - lead] << (8 * b);
  return v;
}

/* Lines of 128 bytes a walk has prefetched ahead of the word it loads. */
#define PARZ_GPU_LL_PREFETCH_LINES 4u

/* On the GPU, a hint that the line of p + at (at < bytes) will be read: into L1. */
PARZ_HD void parz_gpu_ll_prefetch(const uint8_t* p, size_t bytes, size_t at) {
#if defined(__CUDA_ARCH__)
  if (at < bytes)
    asm volatile("prefetch.L1 [%0];" ::"l"(p + at));
#else
  (void)p;
  (void)bytes;
  (void)at;
#endif
}

/* Adds the word loaded ahead to the window where it holds 32 bits or fewer, and loads the one
 * two refills on: the window then holds at least 32 bits. A load that enters a line of 128
 * bytes prefetches the line PARZ_GPU_LL_PREFETCH_LINES further on. */
PARZ_HD void parz_gpu_ll_refill(parz_gpu_ll_reader* s) {
  if (s->cnt <= 32) {
    s->buf |= (uint64_t)s->next << s->cnt;
    s->cnt += 32;
    s->next = s->ahead;
    const size_t at = 4 * s->j - s->lead; /* the word's first byte, from p */
    if ((((uintptr_t)s->p + at) & 127u) == 0)
      parz_gpu_ll_prefetch(s->p, s->bytes, at + 128u * PARZ_GPU_LL_PREFETCH_LINES);
    s->ahead = parz_gpu_ll_word(s->p, s->bytes, s->lead, s->j++);
  }
}

/* A reader of the residuals coded in p[0..bytes) from bit pos on (pos < 8 * bytes + 8), whose
 * codes are set up (code[c], fast tables at fast + c * PARZ_LL_TABLE_SIZE; coder 1 or 2, the
 * code's), the first residual in context 0. */
PARZ_HD void parz_gpu_ll_reader_init(parz_gpu_ll_reader* s, const uint8_t* p, size_t bytes,
                                     uint64_t pos, unsigned coder, const parz_huff_decoder* code,
                                     const uint16_t* fast) {
  s->p = p;
  s->bytes = bytes;
  s->lead = (unsigned)((uintptr_t)p & 3u);
  const uint64_t bit = 8u * s->lead + pos; /* from the first aligned word */
  const unsigned skip = (unsigned)(bit & 31u);
  s->j = (size_t)(bit >> 5);
  for (unsigned k = 1; k <= PARZ_GPU_LL_PREFETCH_LINES; k++)
    parz_gpu_ll_prefetch(p, bytes, (size_t)(pos / 8) + 128u * k);
  s->buf = parz_gpu_ll_word(p, bytes, s->lead, s->j++) >> skip;
  s->cnt = 32 - skip;
  s->next = parz_gpu_ll_word(p, bytes, s->lead, s->j++);
  s->ahead = parz_gpu_ll_word(p, bytes, s->lead, s->j++);
  parz_gpu_ll_refill(s);
  s->code = code;
  s->fast = fast;
  s->ctx = 0;
  s->ctx_mask = coder == PARZ_LL_CODER_CONTEXT ? ~0u : 0u;
}

/* The next n <= 32 bits. */
PARZ_HD uint64_t parz_gpu_ll_take(parz_gpu_ll_reader* s, unsigned n) {
  parz_gpu_ll_refill(s);
  const uint64_t v = s->buf & ((((uint64_t)1) << n) - 1);
  s->buf >>= n;
  s->cnt -= n;
  return v;
}

/* The next residual into *z: PARZ_LL_OK, or PARZ_LL_BAD_WORD for bits that start no word. */
PARZ_HD int parz_gpu_ll_next(parz_gpu_ll_reader* s, uint64_t* z) {
  parz_gpu_ll_refill(s);
  const uint16_t e = s->fast[s->ctx | (unsigned)(s->buf & (PARZ_LL_TABLE_SIZE - 1))];
  if (e) {
    const unsigned adv = PARZ_GPU_LL_FAST_ADV(e); /* 1..32: the window holds them */
    *z = parz_gpu_ll_fast_value((uint32_t)s->buf, e);
    s->buf >>= adv;
    s->cnt -= adv;
    s->ctx = PARZ_GPU_LL_FAST_NEXT(e);
    return PARZ_LL_OK;
  }
  /* a word longer than the table's, a wide residual, or bits that are no word */
  unsigned l = 0, k;
  const int32_t sym = parz_huff_decode_long(&s->code[s->ctx >> PARZ_LL_TABLE_BITS], s->buf, &l);
  if (sym < 0)
    return PARZ_LL_BAD_WORD;
  k = (unsigned)sym;
  s->buf >>= l;
  s->cnt -= l;
  if (k < 2) {
    *z = k;
  } else {
    uint64_t low = parz_gpu_ll_take(s, k - 1 < 32 ? k - 1 : 32);
    if (k - 1 > 32)
      low |= parz_gpu_ll_take(s, k - 33) << 32;
    *z = ((uint64_t)1 << (k - 1)) | low;
  }
  s->ctx = (parz_ll_context_of(k) & s->ctx_mask) << PARZ_LL_TABLE_BITS;
  return PARZ_LL_OK;
}

/* After the last residual: parz_ll_reader_end's check of where the bits end. */
PARZ_HD int parz_gpu_ll_reader_end(const parz_gpu_ll_reader* s) {
  /* bits consumed from the first aligned word (the two words ahead not yet), less the lead's */
  const uint64_t pos = (uint64_t)32 * (s->j - 2) - s->cnt - 8u * s->lead;
  if (pos > (uint64_t)8 * s->bytes)
    return PARZ_LL_BAD_PAST;
  return (pos + 7) / 8 != s->bytes ? PARZ_LL_BAD_TRAILING : PARZ_LL_OK;
}

/* The reader of a run whose segment is copied into words (the CTA's shared memory on the GPU):
 * words[j] is aligned word j of the segment's bytes (counted from the segment's first byte less
 * its lead, the bytes outside the segment zeros), then two words of zeros, `last` the first of
 * them. Each residual's window is the funnel shift of the two words at its bit, found by its
 * position alone: no refill, no branch but the slow path's, and nothing loaded ahead that a
 * later step waits for. Bits past the run's bytes are the next run's, where the global reader
 * reads zeros: a run that decodes into them ends past its bytes and is refused all the same, and
 * a run that ends inside them read the same bits as the serial reader. Positions past the copy
 * read its zeros. */
typedef struct {
  const uint32_t* words;
  uint32_t pos;        /* the next residual's first bit, from words[0]'s */
  uint32_t last;       /* the first of the two words of zeros */
  uint32_t start, end; /* the run's first and end bit */
  const parz_huff_decoder* code;
  const uint16_t* fast;
  unsigned ctx, ctx_mask;
} parz_gpu_ll_wreader;

/* The 32 bits of the copy from bit pos on. */
PARZ_HD uint32_t parz_gpu_ll_wwindow(const uint32_t* words, uint32_t pos, uint32_t last) {
  const uint32_t i = PARZ_MIN(pos >> 5, last);
#if defined(__CUDA_ARCH__)
  return __funnelshift_r(words[i], words[i + 1], pos);
#else
  return (uint32_t)((((uint64_t)words[i + 1] << 32) | words[i]) >> (pos & 31u));
#endif
}

/* A reader of the run of bytes [start, start + bytes) of the segment copied into words (start
 * counted from the segment's first byte less its lead), from bit pos of the run on, whose codes
 * are set up as parz_gpu_ll_reader_init's; the first residual in context 0. */
PARZ_HD void parz_gpu_ll_wreader_init(parz_gpu_ll_wreader* s, const uint32_t* words, uint32_t last,
                                      uint32_t start, uint32_t bytes, uint32_t pos, unsigned coder,
                                      const parz_huff_decoder* code, const uint16_t* fast) {
  s->words = words;
  s->last = last;
  s->start = 8u * start;
  s->end = 8u * (start + bytes);
  s->pos = s->start + pos;
  s->code = code;
  s->fast = fast;
  s->ctx = 0;
  s->ctx_mask = coder == PARZ_LL_CODER_CONTEXT ? ~0u : 0u;
}

/* The next n <= 32 bits of the copy from bit pos on (n = 0: none). */
PARZ_HD uint32_t parz_gpu_ll_wbits(const parz_gpu_ll_wreader* s, uint32_t pos, unsigned n) {
  return n ? parz_gpu_ll_wwindow(s->words, pos, s->last) & (0xFFFFFFFFu >> (32u - n)) : 0u;
}

/* The next residual into *z: PARZ_LL_OK, or PARZ_LL_BAD_WORD for bits that start no word. */
PARZ_HD int parz_gpu_ll_wnext(parz_gpu_ll_wreader* s, uint64_t* z) {
  const uint32_t x = parz_gpu_ll_wwindow(s->words, s->pos, s->last);
  const uint16_t e = s->fast[s->ctx | (x & (PARZ_LL_TABLE_SIZE - 1))];
  if (e) {
    *z = parz_gpu_ll_fast_value(x, e);
    s->pos += PARZ_GPU_LL_FAST_ADV(e); /* 1..32: the window holds them */
    s->ctx = PARZ_GPU_LL_FAST_NEXT(e);
    return PARZ_LL_OK;
  }
  /* a word longer than the table's, a wide residual, or bits that are no word: the code's
   * words take at most PARZ_LL_CODE_MAX bits, which the window holds */
  unsigned l = 0, k;
  const int32_t sym = parz_huff_decode_long(&s->code[s->ctx >> PARZ_LL_TABLE_BITS], x, &l);
  if (sym < 0)
    return PARZ_LL_BAD_WORD;
  k = (unsigned)sym;
  s->pos += l;
  if (k < 2) {
    *z = k;
  } else {
    const unsigned lo = k - 1 < 32 ? k - 1 : 32;
    uint64_t low = parz_gpu_ll_wbits(s, s->pos, lo);
    low |= (uint64_t)parz_gpu_ll_wbits(s, s->pos + 32, k - 1 - lo) << 32;
    s->pos += k - 1;
    *z = ((uint64_t)1 << (k - 1)) | low;
  }
  s->ctx = (parz_ll_context_of(k) & s->ctx_mask) << PARZ_LL_TABLE_BITS;
  return PARZ_LL_OK;
}

/* After the last residual: parz_ll_reader_end's check of where the bits end. */
PARZ_HD int parz_gpu_ll_wreader_end(const parz_gpu_ll_wreader* s) {
  const uint32_t pos = s->pos - s->start;
  if (pos > s->end - s->start)
    return PARZ_LL_BAD_PAST;
  return (pos + 7) / 8 != (s->end - s->start) / 8 ? PARZ_LL_BAD_TRAILING : PARZ_LL_OK;
}

/* The same reader with the window's words in registers: a and b, the words of the next
 * residual's window, and c the word after them, loaded at every step for the next (its load's
 * wait falls in the next step's lookup); a residual that crosses into b shifts them by one. */
typedef struct {
  parz_gpu_ll_wreader r;
  uint32_t a, b, c;
} parz_gpu_ll_w2reader;

/* a, b and c for the reader's position. */
PARZ_HD void parz_gpu_ll_w2load(parz_gpu_ll_w2reader* s) {
  const uint32_t i = PARZ_MIN(s->r.pos >> 5, s->r.last);
  s->a = s->r.words[i];
  s->b = s->r.words[i + 1];
  s->c = s->r.words[PARZ_MIN(i + 2, s->r.last + 1)];
}

PARZ_HD void parz_gpu_ll_w2reader_init(parz_gpu_ll_w2reader* s, const uint32_t* words,
                                       uint32_t last, uint32_t start, uint32_t bytes, uint32_t pos,
                                       unsigned coder, const parz_huff_decoder* code,
                                       const uint16_t* fast) {
  parz_gpu_ll_wreader_init(&s->r, words, last, start, bytes, pos, coder, code, fast);
  parz_gpu_ll_w2load(s);
}

PARZ_HD int parz_gpu_ll_w2next(parz_gpu_ll_w2reader* s, uint64_t* z) {
  const uint32_t pos = s->r.pos;
#if defined(__CUDA_ARCH__)
  const uint32_t x = __funnelshift_r(s->a, s->b, pos);
#else
  const uint32_t x = (uint32_t)((((uint64_t)s->b << 32) | s->a) >> (pos & 31u));
#endif
  const uint16_t e = s->r.fast[s->r.ctx | (x & (PARZ_LL_TABLE_SIZE - 1))];
  if (e) {
    const unsigned adv = PARZ_GPU_LL_FAST_ADV(e); /* 1..32: at most one word crossed */
    const uint32_t next = pos + adv;
    const bool crossed = (next ^ pos) & 32u;
    *z = parz_gpu_ll_fast_value(x, e);
    s->a = crossed ? s->b : s->a;
    s->b = crossed ? s->c : s->b;
    s->c = s->r.words[PARZ_MIN((next >> 5) + 2, s->r.last + 1)];
    s->r.pos = next;
    s->r.ctx = PARZ_GPU_LL_FAST_NEXT(e);
    return PARZ_LL_OK;
  }
  const int bad = parz_gpu_ll_wnext(&s->r, z);
  parz_gpu_ll_w2load(s);
  return bad;
}

PARZ_HD int parz_gpu_ll_w2reader_end(const parz_gpu_ll_w2reader* s) {
  return parz_gpu_ll_wreader_end(&s->r);
}

/* x / e as a multiplication by m = parz_gpu_ll_magic(e) = ceil(2^32 / e): exact where x * e <
 * 2^32 (a block's values and extents are at most 2^12), since then x * (m * e - 2^32) / (e *
 * 2^32) < 1 / e keeps x / e below its next integer. */
PARZ_HD uint64_t parz_gpu_ll_magic(unsigned e) { return (((uint64_t)1 << 32) + e - 1) / e; }
PARZ_HD unsigned parz_gpu_ll_div(unsigned x, uint64_t m) { return (unsigned)((x * m) >> 32); }

#endif
