/* The lossless codec's residual coder (internal): one segment's zigzagged residuals (n values of
 * w bits) as bytes that stand alone.
 *
 * Byte 0 names the coder. 0, raw: the residuals follow as w/8-byte little-endian words, exactly
 * n of them. 1, bit lengths: an LSB-first bit stream of the w + 1 code lengths (4 bits each,
 * 0 = unused, at most PARZ_LL_CODE_MAX) of a canonical Huffman code of the residuals' bit
 * lengths k (0..w), then per residual the code of its k and, when k >= 2, its k - 1 bits below
 * the leading one, low bits first; the last byte is padded with zero bits. 2, bit lengths in
 * context: the same with w / 4 + 1 codes, their lengths one code after the other; residual i
 * takes the code of context (k(i - 1) + 3) / 4, k(-1) = 0, so that runs of small and of large
 * residuals each get their own statistics. The encoder writes whichever is smallest, so no
 * segment exceeds its raw size by more than one byte. 3, runs: byte 1 names the code's coder
 * (1 or 2), byte 2 q; then that coder's code lengths, padded to a byte; then the u16 byte
 * lengths of all runs but the last; then the runs of 2^q residuals (the last one the rest),
 * each coded as that coder codes a segment's residuals, its first in context 0, and padded to a
 * byte: so that runs decode side by side. 4, runs with empty runs: coder 3's bytes, but a run
 * of no bytes holds only zero residuals. The writers write coder 3 with q = PARZ_LL_RUN_Q for a
 * coded segment of more than 2^q residuals, or coder 4 where a run of them is all zeros, with
 * no bytes for such runs. */
#ifndef PARZ_LL_RESIDUAL_CODER_H
#define PARZ_LL_RESIDUAL_CODER_H

#include <stddef.h>
#include <stdint.h>

#include "parz.h"
#include "residual_decode.h" /* the coders' numbers, the decoding loop */
#include "residual_encode.h" /* the encoding's steps, coder 3's runs (PARZ_LL_RUN_Q) */

/* Bytes of n raw residuals with their coder byte: the most a segment takes. */
size_t parz_ll_residual_bound(size_t n, unsigned w);

/* Code lengths (at most max_len bits, 0 for symbols of frequency 0) of a Huffman code for the
 * ns <= 256 frequencies. */
void parz_ll_huffman_lengths(const uint64_t* freq, unsigned ns, unsigned max_len, uint8_t* len);

/* Codes z[0..n) into dst (at least parz_ll_residual_bound bytes); returns the bytes written. */
size_t parz_ll_code_residuals(const uint64_t* z, size_t n, unsigned w, uint8_t* dst);
/* The same with coder 3's runs of 2^q residuals, q in PARZ_LL_RUN_QMIN..PARZ_LL_RUN_QMAX (the
 * writers' is PARZ_LL_RUN_Q). */
size_t parz_ll_code_residuals_q(const uint64_t* z, size_t n, unsigned w, unsigned q, uint8_t* dst);

/* Words of working memory parz_ll_uncode_residuals takes for its codes' tables. */
#define PARZ_LL_UNCODE_WORDS ((size_t)PARZ_LL_CONTEXTS * PARZ_LL_CONTEXT_WORDS)

/* Decodes n residuals from exactly src_bytes of src, building its codes' tables in work
 * (PARZ_LL_UNCODE_WORDS words; NULL: allocated for this call); PARZ_ERR_STREAM, naming segment,
 * when the bytes end early, run on, or hold an impossible code. */
int parz_ll_uncode_residuals(const uint8_t* src, size_t src_bytes, size_t n, unsigned w,
                             uint64_t* z, uint32_t* work, size_t segment, parz_error* err);

/* Decodes two segments, numbered segment and segment + 1, as parz_ll_uncode_residuals decodes
 * each (src[k], src_bytes[k], n[k] residuals into z[k]), their residuals read side by side where
 * both are coded; work holds 2 * PARZ_LL_UNCODE_WORDS words (NULL: allocated for this call).
 * *decoded: the segments from the first on that decoded (0, 1 or 2); the error returned, and
 * its message, are those of the first segment that did not. */
int parz_ll_uncode_pair(const uint8_t* const src[2], const size_t src_bytes[2], const size_t n[2],
                        unsigned w, uint64_t* const z[2], uint32_t* work, size_t segment,
                        unsigned* decoded, parz_error* err);

#endif
