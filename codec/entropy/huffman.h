/* Canonical Huffman codes shared by the codecs (internal): code lengths limited to a maximum,
 * canonical code words, and a table-driven decoder.
 *
 * Lengths: an optimal prefix code among those whose words have at most max_len bits, built in
 * integer arithmetic with every tie broken by the symbol's number, so that every platform and
 * compiler gives the same lengths. Huffman's two-queue merge when its code fits max_len,
 * package-merge (optimal under the limit) when it does not.
 *
 * Code words: canonical, shorter words first and, within one length, lower symbols first; each
 * is stored bit-reversed, so that an LSB-first stream (bitio.h) carries the word's first bit
 * first and the decoder finds it in the low bits of its window. */
#ifndef PARZ_ENTROPY_HUFFMAN_H
#define PARZ_ENTROPY_HUFFMAN_H

#include <stddef.h>
#include <stdint.h>

#include "huffman_decode.h"
#include "parz.h"

#define PARZ_HUFF_MAX_SYMBOLS ((size_t)1 << 17) /* alphabet sizes 1..2^17; max_len 1..24 */

/* len[s] = the length of symbol s's code word (0 when freq[s] == 0) in an optimal code of at
 * most max_len bits for the n frequencies; a single used symbol gets length 1. Refuses
 * (PARZ_ERR_ARG, naming the value) n or max_len out of range, more used symbols than 2^max_len,
 * and frequencies summing to 2^56 or more. With no used symbol every length is 0. */
int parz_huff_lengths(const uint64_t* freq, size_t n, unsigned max_len, uint8_t* len,
                      parz_error* err);

/* parz_huff_lengths in two steps, for a caller that may leave the second out: _build makes
 * Huffman's code with no limit on its lengths into len (each at most 255) and keeps its sorted
 * leaves; _limit cuts it to max_len where it is longer (package-merge), giving
 * parz_huff_lengths' lengths. For any max_len, Huffman's code costs no more than the limited
 * one (the sum of freq[s] * len[s]: no prefix code costs less), a bound that can rule a code
 * out before its package-merge. _build refuses what parz_huff_lengths refuses; _free frees the
 * leaves (of a tree _build failed on too). */
typedef struct {
  size_t m;         /* used symbols */
  unsigned max_len; /* the limit */
  unsigned longest; /* the code's longest length, 0 with no used symbol */
  void* mem;        /* the sorted leaves and the merges' lists */
} parz_huff_tree;
int parz_huff_tree_build(parz_huff_tree* t, const uint64_t* freq, size_t n, unsigned max_len,
                         uint8_t* len, parz_error* err);
int parz_huff_tree_limit(parz_huff_tree* t, uint8_t* len, parz_error* err);
void parz_huff_tree_free(parz_huff_tree* t);

/* Sum over the used symbols of 2^(max_len - len[s]): 2^max_len for a complete code, more for
 * one that is not a prefix code; UINT64_MAX when a length exceeds max_len. */
uint64_t parz_huff_kraft(const uint8_t* len, size_t n, unsigned max_len);

/* code[s] = symbol s's canonical code word, bit-reversed (0 for unused symbols). Refuses
 * (PARZ_ERR_STREAM) lengths over max_len and lengths that make no prefix code. */
int parz_huff_codes(const uint8_t* len, size_t n, unsigned max_len, uint32_t* code,
                    parz_error* err);

/* The decoder of one code (parz_huff_decoder) is huffman_decode.h's. */

/* uint32_t words of memory a decoder with this table needs for a code of `used` symbols of
 * nonzero length (at most its alphabet's size). */
size_t parz_huff_decoder_words(size_t used, unsigned table_bits);

/* Sets d up for the lengths (at most max_len, a prefix code) in mem (parz_huff_decoder_words
 * long for the symbols the lengths use; d points into it). table_bits is cut to max_len.
 * PARZ_ERR_STREAM for lengths that are no prefix code. */
int parz_huff_decoder_init(parz_huff_decoder* d, const uint8_t* len, size_t n, unsigned max_len,
                           unsigned table_bits, uint32_t* mem, parz_error* err);

/* The symbol whose code word starts at the low bits of window (which holds at least max_len
 * valid bits) and its length in *len; -1 when those bits start no word of the book. */
static inline int32_t parz_huff_decode(const parz_huff_decoder* d, uint64_t window, unsigned* len) {
  uint32_t e = d->table[window & ((1u << d->table_bits) - 1u)];
  if (PARZ_HUFF_ENTRY_LEN(e)) {
    *len = PARZ_HUFF_ENTRY_LEN(e);
    return (int32_t)PARZ_HUFF_ENTRY_SYM(e);
  }
  return parz_huff_decode_long(d, window, len);
}

#endif
