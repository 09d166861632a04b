/* The lossless codec's core (its entry in the codec table: lossless_codec.c): values of any bit pattern coded
 * exactly, in segments that decode on their own.
 *
 * Pipeline: a value transform (the integer images of the bit patterns, a monotone map exact for
 * every pattern; or, when every value of a float array is an integer divided by one of the
 * scales of transform.h, those integers), an exact integer Lorenzo predictor in wrap-around
 * arithmetic restarted per block (lorenzo.h), and per segment a Huffman code of the residuals'
 * bit lengths followed by the bits below each leading one, or the residuals raw when that is
 * smaller (residual_coder.h).
 *
 * Geometry: blocks are hypercubes of 4096 values (4096, 64 x 64, 16^3, 8^4; cut at the array's
 * edges), in C order of the block grid; a segment is C consecutive blocks (the last one may be
 * short). Each segment's bytes stand alone: the caller keeps their sizes (the frame's table will
 * hold them).
 *
 * Predictor: PARZ_LL_PREDICT_ALL runs the Lorenzo predictor over every dimension;
 * PARZ_LL_PREDICT_STACK takes a 4D array as a stack of 3D fields (blocks of 1 x 16^3, nothing
 * predicted across the slowest dimension), for stacks whose fields are not smooth neighbours of
 * each other, such as ensemble members; for fewer dimensions it is PARZ_LL_PREDICT_ALL.
 * PARZ_LL_HOLT(alpha, beta), for arrays of one dimension of extent above 1 (series) only: the same
 * blocks as PARZ_LL_PREDICT_ALL, each predicted by Holt's smoothing with those gains (holt.h);
 * gains 8 and 0 give PARZ_LL_PREDICT_ALL's residuals. PARZ_LL_PREDICT_ROWS takes each row of the
 * last dimension as a series of its own (blocks of 1 x ... x 4096 values, each value predicted
 * by the one before it in its row), for arrays whose rows are independent records, such as the
 * channels of a recording; for a series it is PARZ_LL_PREDICT_ALL. */
#ifndef PARZ_LOSSLESS_H
#define PARZ_LOSSLESS_H

#include <stddef.h>
#include <stdint.h>

#include "parz.h"
#include "parz_chunk.h" /* parz_jobs */

#ifdef __cplusplus
extern "C" {
#endif

#define PARZ_LL_PREDICT_ALL 0u
#define PARZ_LL_PREDICT_STACK 1u
#define PARZ_LL_PREDICT_HOLT 2u
#define PARZ_LL_PREDICT_ROWS 3u
/* The predictor argument of Holt's with gains alpha and beta (eighths, 0..8), and its parts. */
#define PARZ_LL_HOLT(alpha, beta) \
  (PARZ_LL_PREDICT_HOLT | (unsigned)(alpha) << 8 | (unsigned)(beta) << 16)
#define PARZ_LL_PREDICTOR_KIND(p) ((p)&255u)
#define PARZ_LL_HOLT_ALPHA(p) ((p) >> 8 & 255u)
#define PARZ_LL_HOLT_BETA(p) ((p) >> 16 & 255u)

/* Number of blocks of a (contiguous, C order) under the predictor, 0 for an invalid array or
 * predictor. */
size_t parz_ll_block_count(const parz_array* a, unsigned predictor);

/* Number of segments of C blocks. */
size_t parz_ll_segment_count(const parz_array* a, unsigned predictor, size_t c);

/* Bytes a segment of C blocks can take at most (its values raw, plus its header). */
size_t parz_ll_segment_bound(const parz_array* a, unsigned predictor, size_t c);

/* The transform every segment of the array will use: 0 for integer images, else the scale's
 * number (transform.h). Reads every value once, cut into parts on jobs (NULL: on the calling
 * thread; parz_chunk.h), with the same outcome. */
unsigned parz_ll_choose_transform(const parz_array* a, const void* values, const parz_jobs* jobs);

/* The predictor to write for predictor (PARZ_LL_PREDICT_ALL asks the encoder's choice): for a
 * series, Holt's with the gains of fewest residual bits where its segments of C blocks take
 * fewer bytes than PARZ_LL_PREDICT_ALL's (reads the values 15 times and codes them twice); for
 * more dimensions, PARZ_LL_PREDICT_ROWS where parz_ll_rows_measure favours it and
 * parz_ll_rows_smaller holds for the segments of both (codes the values twice only then); else
 * predictor itself. */
unsigned parz_ll_choose_predictor(const parz_array* a, const void* values, unsigned transform,
                                  unsigned predictor, size_t c);

/* An array's segments coded one after the other and kept, so that the encoder copies them
 * rather than coding them again: segment s is bytes [s ? ends[s - 1] : 0, ends[s]) of bytes;
 * count 0 and NULL pointers for none. */
typedef struct {
  uint8_t* bytes;
  size_t* ends;
  size_t count;
} parz_ll_segments;

/* Frees k's memory and leaves it empty. */
void parz_ll_segments_free(parz_ll_segments* k);

/* The same, its reads and codings cut into parts on jobs (NULL: on the calling thread), and the
 * bytes of the array's segments under the predictor it returns (0 where one cannot be encoded)
 * into *bytes (NULL: not asked), coded once where the choice coded them already. With keep
 * (NULL: none kept), the segments of the predictor it returns into *keep wherever it coded them,
 * under coder 3's runs of PARZ_LL_RUN_Q (empty where it did not: a choice asked for no bytes
 * that codes nothing). */
unsigned parz_ll_choose_predictor_bytes(const parz_array* a, const void* values, unsigned transform,
                                        unsigned predictor, size_t c, const parz_jobs* jobs,
                                        size_t* bytes, parz_ll_segments* keep);

/* Blocks of PARZ_LL_PREDICT_ALL whose values the encoder's measure of the row predictor reads:
 * those of number b with b % PARZ_LL_ROWS_SAMPLE == PARZ_LL_ROWS_SAMPLE / 2 where there are
 * PARZ_LL_ROWS_ALL_BELOW blocks or more, else every block. */
#define PARZ_LL_ROWS_SAMPLE 16u
#define PARZ_LL_ROWS_ALL_BELOW 64u
#define PARZ_LL_ROWS_SAMPLED(b, blocks) \
  ((blocks) < PARZ_LL_ROWS_ALL_BELOW || (b) % PARZ_LL_ROWS_SAMPLE == PARZ_LL_ROWS_SAMPLE / 2)

/* The encoder's measure of the row predictor against PARZ_LL_PREDICT_ALL: over the values of
 * PARZ_LL_PREDICT_ALL's sampled blocks, the sums of their residuals' bit lengths (the position
 * of a zigzagged residual's leading one, 0 for 0) under each, bits[0] and bits[1]. 0, or 1 where
 * the array is no array of two dimensions of extent above 1 or more, or memory ran out. */
int parz_ll_rows_measure(const parz_array* a, const void* values, unsigned transform,
                         uint64_t bits[2]);
/* The same over the sampled blocks among blocks [first, end) alone: the measure's sums are those
 * of its parts. */
int parz_ll_rows_measure_blocks(const parz_array* a, const void* values, unsigned transform,
                                size_t first, size_t end, uint64_t bits[2]);

/* The most bytes a segment adds to a chunk's head: a table record of 16 (a partition of one
 * segment: its offset and its length padded to 8 bytes) and a payload checksum of 8. */
#define PARZ_LL_SEGMENT_HEAD_MAX 24u

/* Whether the row predictor's segments, rows bytes in nseg_rows segments, make a smaller chunk
 * than PARZ_LL_PREDICT_ALL's, all bytes in nseg_all: fewer bytes even where each segment it adds
 * takes PARZ_LL_SEGMENT_HEAD_MAX, so that its chunk never outgrows predictor 0's (nor
 * parz_chunk_bound, which is predictor 0's when the encoder chooses). */
int parz_ll_rows_smaller(size_t all, size_t nseg_all, size_t rows, size_t nseg_rows);

/* Bytes of all the array's segments of C blocks under the transform and predictor; 0 where one
 * cannot be encoded. */
size_t parz_ll_coded_bytes(const parz_array* a, const void* values, unsigned transform,
                           unsigned predictor, size_t c);

/* The same, the segments kept into *keep (emptied first; left empty where one cannot be encoded
 * or memory ran out, and then 0). */
size_t parz_ll_code_segments(const parz_array* a, const void* values, unsigned transform,
                             unsigned predictor, size_t c, parz_ll_segments* keep);

/* Encodes segment s (of C blocks) of the contiguous array into dst (at least
 * parz_ll_segment_bound bytes): *written receives its size. */
int parz_ll_encode_segment(const parz_array* a, const void* values, unsigned transform,
                           unsigned predictor, size_t c, size_t s, uint8_t* dst, size_t dst_bytes,
                           size_t* written, parz_error* err);
/* The same with coder 3's runs of 2^q residuals, q in PARZ_LL_RUN_QMIN..PARZ_LL_RUN_QMAX
 * (residual_coder.h; the writers' q is PARZ_LL_RUN_Q). */
int parz_ll_encode_segment_q(const parz_array* a, const void* values, unsigned transform,
                             unsigned predictor, size_t c, size_t s, unsigned q, uint8_t* dst,
                             size_t dst_bytes, size_t* written, parz_error* err);

/* Decodes segment s from src (exactly its src_bytes) into its place in values. A segment that
 * ends early, runs past src_bytes or holds an impossible code is refused with PARZ_ERR_STREAM,
 * naming it; values outside segment s are never written. */
int parz_ll_decode_segment(const parz_array* a, unsigned transform, unsigned predictor, size_t c,
                           size_t s, const uint8_t* src, size_t src_bytes, void* values,
                           parz_error* err);

#ifdef __cplusplus
}
#endif

#endif
