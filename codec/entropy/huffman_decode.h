/* The table decoder of canonical Huffman codes (internal, header-only): compiled as C99 for the
 * CPU decoders and as CUDA C++ for the GPU's (block_common.h's contract), so that both build a
 * code's tables and decode its words with this very code. huffman.h is its interface for host
 * code (parz_huff_decoder_init, parz_huff_decode); the code words' layout is described there. */
#ifndef PARZ_ENTROPY_HUFFMAN_DECODE_H
#define PARZ_ENTROPY_HUFFMAN_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "block_common.h"

#define PARZ_HUFF_LEN_LIMIT 24u /* max_len 1..24 */

/* The decoder of one code: a table of 2^table_bits entries (symbol << 5 | length, 0 where no
 * word of at most table_bits bits starts) and, for longer words, the canonical code's limits per
 * length. Incomplete codes are allowed: bits that start no word of the book are refused. A
 * codec's inner loop may read the table itself, with the macros below, and call
 * parz_huff_decode_long where the length is 0. */
#define PARZ_HUFF_ENTRY_LEN(e) ((e)&31u)
#define PARZ_HUFF_ENTRY_SYM(e) ((e) >> 5)
typedef struct parz_huff_decoder {
  uint32_t* table;  /* [1 << table_bits] */
  uint32_t* sorted; /* the used symbols by (length, symbol) */
  unsigned table_bits, max_len;
  uint32_t first[PARZ_HUFF_LEN_LIMIT + 1]; /* first[l]: the first word of length l */
  uint32_t count[PARZ_HUFF_LEN_LIMIT + 1]; /* words of length l */
  uint32_t index[PARZ_HUFF_LEN_LIMIT + 1]; /* where length l's symbols begin in sorted */
} parz_huff_decoder;

/* The l low bits of c in reverse order. */
PARZ_HD uint32_t parz_huff_reverse(uint32_t c, unsigned l) {
#if defined(__CUDA_ARCH__)
  return l ? __brev(c) >> (32u - l) : 0u;
#else
  /* the 32 bits reversed by swapping halves of ever smaller fields, then the l wanted moved down */
  c = (c >> 16) | (c << 16);
  c = ((c >> 8) & 0x00FF00FFu) | ((c & 0x00FF00FFu) << 8);
  c = ((c >> 4) & 0x0F0F0F0Fu) | ((c & 0x0F0F0F0Fu) << 4);
  c = ((c >> 2) & 0x33333333u) | ((c & 0x33333333u) << 2);
  c = ((c >> 1) & 0x55555555u) | ((c & 0x55555555u) << 1);
  return l ? c >> (32u - l) : 0u;
#endif
}

/* The first symbol from s on (below n) with a length, n when none. Runs of 16 unused symbols
 * are passed at once: a codec's alphabet may be mostly unused (the error-bounded codec's 65,560
 * symbols around its few dozen), and a decoder is built for every chunk. */
PARZ_HD size_t parz_huff_next_used(const uint8_t* len, size_t n, size_t s) {
  while (s + 16 <= n) {
    uint64_t lo = 0, hi = 0;
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
    __builtin_memcpy(&lo, len + s, 8); /* two loads */
    __builtin_memcpy(&hi, len + s + 8, 8);
#else
    for (unsigned k = 0; k < 8; k++) {
      lo |= (uint64_t)len[s + k] << (8 * k);
      hi |= (uint64_t)len[s + 8 + k] << (8 * k);
    }
#endif
    if (lo | hi)
      break;
    s += 16;
  }
  while (s < n && !len[s])
    s++;
  return s;
}

/* first[l], count[l] for l = 1..max_len (<= PARZ_HUFF_LEN_LIMIT; count[0]: the unused symbols)
 * from one pass over the n lengths; 0, or 1 when they make no prefix code of at most max_len
 * bits. */
PARZ_HD int parz_huff_limits(const uint8_t* len, size_t n, unsigned max_len, uint32_t* first,
                             uint32_t* count) {
  uint32_t all[PARZ_HUFF_LEN_LIMIT + 1];
  size_t used = 0;
  for (unsigned l = 0; l <= max_len; l++)
    all[l] = 0;
  for (size_t s = parz_huff_next_used(len, n, 0); s < n; s = parz_huff_next_used(len, n, s + 1)) {
    if (len[s] > max_len)
      return 1;
    all[len[s]]++;
    used++;
  }
  all[0] = (uint32_t)(n - used);
  uint64_t kraft = 0;
  for (unsigned l = 1; l <= max_len; l++)
    kraft += (uint64_t)all[l] << (max_len - l);
  if (kraft > ((uint64_t)1 << max_len))
    return 1;
  uint32_t code = 0;
  first[0] = 0;
  count[0] = all[0];
  for (unsigned l = 1; l <= max_len; l++) {
    count[l] = all[l];
    if (l > 1)
      code = (code + count[l - 1]) << 1;
    first[l] = code;
  }
  return 0;
}

/* Sets d up for the n lengths (max_len in 1..PARZ_HUFF_LEN_LIMIT) in mem, 2^table_bits words of
 * table and then one word per used symbol (d points into it); table_bits is cut to max_len. 0,
 * or 1 for lengths that are no prefix code. */
PARZ_HD int parz_huff_decoder_setup(parz_huff_decoder* d, const uint8_t* len, size_t n,
                                    unsigned max_len, unsigned table_bits, uint32_t* mem) {
  if (max_len < 1 || max_len > PARZ_HUFF_LEN_LIMIT ||
      parz_huff_limits(len, n, max_len, d->first, d->count))
    return 1;
  d->max_len = max_len;
  d->table_bits = table_bits < max_len ? table_bits : max_len;
  d->table = mem;
  d->sorted = mem + ((size_t)1 << table_bits);
  for (uint32_t i = 0; i < (1u << d->table_bits); i++)
    d->table[i] = 0;
  uint32_t at = 0, next[PARZ_HUFF_LEN_LIMIT + 1], word[PARZ_HUFF_LEN_LIMIT + 1];
  for (unsigned l = 1; l <= max_len; l++) {
    d->index[l] = at;
    next[l] = at;
    word[l] = d->first[l];
    at += d->count[l];
  }
  for (size_t s = parz_huff_next_used(len, n, 0); s < n; s = parz_huff_next_used(len, n, s + 1)) {
    unsigned l = len[s];
    d->sorted[next[l]++] = (uint32_t)s;
    uint32_t c = parz_huff_reverse(word[l]++, l);
    if (l <= d->table_bits)
      for (uint32_t i = c; i < (1u << d->table_bits); i += 1u << l)
        d->table[i] = (uint32_t)s << 5 | l;
  }
  return 0;
}

/* The word longer than the table's bits at the low bits of window: its symbol, or -1. */
PARZ_HD int32_t parz_huff_decode_long(const parz_huff_decoder* d, uint64_t window, unsigned* len) {
  /* no word of at most table_bits bits starts the window: the search starts past them */
  uint32_t code =
      parz_huff_reverse((uint32_t)(window & ((1u << d->table_bits) - 1u)), d->table_bits);
  for (unsigned l = d->table_bits + 1; l <= d->max_len; l++) {
    code = code << 1 | (uint32_t)((window >> (l - 1)) & 1u);
    if (code - d->first[l] < d->count[l]) {
      *len = l;
      return (int32_t)d->sorted[d->index[l] + code - d->first[l]];
    }
  }
  return -1;
}

#endif
