/* The error-bounded codec's core (internal; not yet in the frame's table of codecs): dual
 * quantization to the 2*eb grid, prediction on the quantized integers (Lorenzo or multilevel
 * interpolation), and the prediction residuals ("codes") Huffman-coded in segments of S codes,
 * each segment decodable alone.
 *
 * Every value of a chunk is one of: known (its code reconstructs it within eb, checked with the
 * decoder's arithmetic), an exception (stored exactly by the caller: NaN, Inf, out of the grid's
 * range or missing the bound by rounding) or masked (the fill value, restored by the caller).
 * Exceptions and masked values get the prediction itself as their quantized value, so their code
 * is 0 and they cost the payload almost nothing. */
#ifndef PARZ_BOUNDED_H
#define PARZ_BOUNDED_H

#include <stddef.h>
#include <stdint.h>

#include "parz.h"
#include "parz_chunk.h" /* parz_jobs */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  PARZ_BOUNDED_LORENZO = 1,     /* n-D Lorenzo, codes in C order; inverse = n-D prefix sum */
  PARZ_BOUNDED_LINEAR = 2,      /* multilevel interpolation, linear, axes slowest first */
  PARZ_BOUNDED_CUBIC = 3,       /* the same, cubic (quadratic or linear at edges) */
  PARZ_BOUNDED_LINEAR_FAST = 4, /* linear, each level's axes fastest first */
  PARZ_BOUNDED_CUBIC_FAST = 5   /* cubic, each level's axes fastest first */
} parz_bounded_predictor;

#define PARZ_BOUNDED_PREDICTORS 5 /* predictors 1..5 */

/* Quantized values are held to |q| <= PARZ_BOUNDED_QMAX so that every residual of every
 * predictor fits an int32 (a 4-D Lorenzo residual sums 16 of them). */
#define PARZ_BOUNDED_QMAX ((int32_t)1 << 26)

/* The interpolation predicts with error feedback on a grid FINE times finer than 2*eb: a value's
 * code is its residual from the prediction in grid steps, its reconstruction the prediction plus
 * FINE times the code, in units of step/FINE, held to +-QMAX_FINE. */
#define PARZ_BOUNDED_FINE 16
#define PARZ_BOUNDED_QMAX_FINE ((int32_t)1 << 30)

/* Hole kinds (per value, from the quantizer). */
enum { PARZ_BOUNDED_KNOWN = 0, PARZ_BOUNDED_EXCEPTION = 1, PARZ_BOUNDED_MASKED = 2 };

/* The array of one chunk: contiguous, C order. */
typedef struct {
  parz_type type; /* PARZ_FLOAT or PARZ_DOUBLE */
  unsigned dims;  /* 1..4 */
  size_t shape[4];
} parz_bounded_shape;

/* Checks the type, rank, extents and eb (finite, > 0, and 2*eb finite). */
int parz_bounded_check(const parz_bounded_shape* s, double eb, parz_error* err);
size_t parz_bounded_count(const parz_bounded_shape* s);

/* --- quantization (bounded_quant.c) --- */

/* The encoder's passes (parz_bounded_step, _quantize, _predict) run on jobs (parz_jobs; NULL: the
 * calling thread), cut into parts of independent units: their results are those of the serial
 * pass for any jobs. */

/* The grid's step: 2*eb, shrunk by the margin that the rounding of a reconstruction to the type
 * can take at the chunk's largest finite value (at most by a quarter), so that values halfway
 * between two grid points still fit. The chunk stores it. */
double parz_bounded_step(const parz_bounded_shape* s, const void* src, double eb,
                         const uint8_t* hole, const parz_jobs* jobs);

/* The same from the chunk's largest finite magnitude among the values not in hole (top, 0 when
 * none), for an encoder that finds it elsewhere (the GPU's). */
double parz_bounded_step_of(parz_type type, double top, double eb);

/* The size of one quantization unit: step for Lorenzo, step/FINE for the interpolation. */
double parz_bounded_unit(int predictor, double step);

/* (The decoder's reconstruction of one quantized value, parz_bounded_dequant_one, is in
 * bounded_inverse.h, compiled for the GPU too.) */

/* q[i] = nearest integer to src[i] / step (or the next, when only it fits), hole[i] as above;
 * with q NULL only the holes that need no grid (values not finite). On input hole[i] nonzero is a
 * value the caller restores itself (the fill value, the frame's masked values and exceptions):
 * it becomes MASKED. Any other value that is not finite, lies outside +-QMAX steps or whose
 * reconstruction misses eb is an exception (q[i] = 0 until the predictor sets it). Returns the
 * number of exceptions. */
size_t parz_bounded_quantize(const parz_bounded_shape* s, const void* src, double eb, double step,
                             int32_t* q, uint8_t* hole, const parz_jobs* jobs);

/* dst[i] = reconstruction of q[i] for every i (holes included: the caller overwrites them). */
void parz_bounded_dequantize(const parz_bounded_shape* s, const int32_t* q, double unit, void* dst);
/* The same for n values of the type, the i-th stored at element i * stride of dst. */
void parz_bounded_dequantize_run(parz_type type, const int32_t* q, size_t n, double unit, void* dst,
                                 ptrdiff_t stride);

/* --- prediction (bounded_predict.c) --- */

/* Writes the residuals in code order into codes (one per value). Lorenzo: of q as the quantizer
 * left it, its holes replaced by their prediction. Interpolation: q ignored on input and set to
 * the fine reconstruction; each known value's code chosen with error feedback from src, a value
 * that would miss eb made an exception in hole; holes get the prediction. */
void parz_bounded_predict(const parz_bounded_shape* s, int predictor, const void* src, double eb,
                          double step, int32_t* q, uint8_t* hole, int32_t* codes,
                          const parz_jobs* jobs);

/* The shape as four extents (leading 1s) and C-order strides. */
void parz_bounded_shape4(const parz_bounded_shape* s, size_t n[4], size_t st[4]);

/* One pass of the interpolation: the values of level s along axis k, visited in code order as
 * lines along the last axis (i0, i1, i2 slowest first, then i3); pos is the code of its first
 * value. Every value of a pass is predicted from values of earlier passes only. */
typedef struct {
  size_t s;
  unsigned k;
  size_t start[4], step[4], cnt[4];
  size_t pos;
} parz_bounded_pass;

/* Passes of a shape: one per level and axis, at most 4 per bit of the largest extent. */
#define PARZ_BOUNDED_PASSES_MAX (4 * 65)

/* The interpolation's passes for extents n (parz_bounded_shape4) in code order, into out
 * (PARZ_BOUNDED_PASSES_MAX long); returns their number. */
unsigned parz_bounded_interp_passes(const size_t n[4], int predictor, parz_bounded_pass* out);

/* The inverse: q from the codes. Fails (PARZ_ERR_STREAM) when a quantized value leaves the
 * range that keeps every later residual and reconstruction finite. */
int parz_bounded_unpredict(const parz_bounded_shape* s, int predictor, const int32_t* codes,
                           int32_t* q, parz_error* err);

/* The same in passes, for decoders on many threads: passes run in order, 0 to passes - 1, and
 * pass k is parz_bounded_pass_units units, which may run in any order and at once (each writes
 * values of q no other unit of its pass reads or writes). Lorenzo: a prefix sum per axis longer
 * than 1, the first reading the codes, the last (along the last axis) checking the range of the
 * lines it makes; a pass of its own checks them where the last axis is 1 long, and copies the
 * code of a single value. Interpolation: one pass per level and axis, its units runs of a line
 * along the last axis. The passes of a shape and predictor are found once, into a plan: finding
 * them walks every level and axis, and a decoder on many threads asks for a pass at every range
 * of it. */
typedef struct {
  int predictor;
  size_t n[4], st[4];
  unsigned passes;
  unsigned axes[4], m; /* Lorenzo's axes longer than 1 and their number */
  parz_bounded_pass pass[PARZ_BOUNDED_PASSES_MAX]; /* the interpolation's */
} parz_bounded_plan;

/* The plan of shape s and a predictor 1..PARZ_BOUNDED_PREDICTORS. */
void parz_bounded_plan_init(parz_bounded_plan* p, const parz_bounded_shape* s, int predictor);
size_t parz_bounded_pass_units(const parz_bounded_plan* p, unsigned pass);
/* The values pass k writes: every value for Lorenzo's passes, a level and axis's for the
 * interpolation's. */
size_t parz_bounded_pass_values(const parz_bounded_plan* p, unsigned pass);
/* The codes passes 0 to k read lie before this one, in code order: every code for Lorenzo's,
 * those of the levels and axes up to pass k's for the interpolation's (its codes come in the
 * order of its passes). */
size_t parz_bounded_pass_codes(const parz_bounded_plan* p, unsigned pass);
int parz_bounded_unpredict_pass(const parz_bounded_plan* p, unsigned pass, size_t first,
                                size_t count, const int32_t* codes, int32_t* q, parz_error* err);

/* --- Huffman coding of the codes (bounded_huff.c) --- */

/* Symbols: 0 escape (32 raw bits follow: the zig-zagged residual), 1..PARZ_BOUNDED_RUNS a run of
 * 2^k..2^(k+1)-1 zero codes (k raw bits follow: the length minus 2^k), then the residuals
 * -R..R, R = PARZ_BOUNDED_RADIUS. */
#define PARZ_BOUNDED_RUNS 24
#define PARZ_BOUNDED_RADIUS 32767
#define PARZ_BOUNDED_SYMBOLS (1 + PARZ_BOUNDED_RUNS + 2 * PARZ_BOUNDED_RADIUS + 1)
#define PARZ_BOUNDED_MAX_LEN 20 /* longest code word */

typedef struct {
  uint8_t* len;   /* [PARZ_BOUNDED_SYMBOLS], 0 = unused */
  uint32_t* code; /* [PARZ_BOUNDED_SYMBOLS], canonical, bit-reversed for LSB-first writing */
} parz_bounded_book;

/* The symbols codes can use, in the alphabet's order: the escape and the run symbols (the head),
 * then the residuals from the least code to the greatest (parz_bounded_code_range). A table over
 * them has m entries, symbol s at s below the head and at s - shift past it; since the order is
 * the alphabet's, a code built on these counts is the one built on the whole alphabet's (Huffman's
 * ties go by the order). The whole alphabet is the range {0, PARZ_BOUNDED_SYMBOLS}. */
#define PARZ_BOUNDED_HEAD (1u + PARZ_BOUNDED_RUNS)
typedef struct {
  uint32_t shift;
  size_t m;
} parz_bounded_range;

/* The range of n codes, read in parts on jobs (NULL: the calling thread). */
void parz_bounded_code_range(const int32_t* codes, size_t n, parz_bounded_range* r,
                             const parz_jobs* jobs);

/* Counts the symbols the codes make into tables over r, segment by segment of seg codes, in one
 * pass both ways (either may be NULL): plain every zero a zero symbol, runs the runs of zeros as
 * run symbols (a run never crosses a segment's end). On jobs (NULL: the calling thread) the
 * segments are counted in parts, each into histograms of its own, a block of keep (chunk_keep.h;
 * NULL: allocated and freed here). */
void parz_bounded_count_symbols(const int32_t* codes, size_t n, size_t seg,
                                const parz_bounded_range* r, uint64_t* plain, uint64_t* runs,
                                const parz_jobs* jobs, parz_keep* keep);

/* The bytes of the serialized codebook and of the payload (rounded up) of a code built from the
 * codes' symbols with zero runs on, segments of seg codes: what parz_bounded_count_symbols (runs),
 * parz_huff_lengths, parz_bounded_book_write and parz_bounded_coded_bits give over the codes'
 * range, read on jobs (NULL: the calling thread). SIZE_MAX when no code is built. */
size_t parz_bounded_estimate_bytes(const int32_t* codes, size_t n, size_t seg,
                                   const parz_jobs* jobs);
/* The same from the symbols' counts with zero runs over the range r (parz_bounded_count_symbols'
 * runs), for a caller that counted them itself (the GPU encoder's trials). */
size_t parz_bounded_estimate_counted(const uint64_t* runs, const parz_bounded_range* r);

/* Length-limited canonical Huffman code: the lengths of a table of m counts (refused when no
 * symbol is used); the whole alphabet's lengths of a range's (unused between them); the whole
 * alphabet's canonical code words (0 for unused symbols) of a range's lengths, built over the
 * range alone (its symbols keep the alphabet's order, so the words are those of the expanded
 * lengths). */
int parz_bounded_book_lengths(const uint64_t* freq, size_t m, uint8_t* len, parz_error* err);
void parz_bounded_book_expand(const uint8_t* len, const parz_bounded_range* r, uint8_t* all);
int parz_bounded_range_codes(const uint8_t* len, const parz_bounded_range* r, uint32_t* code,
                             parz_error* err);

/* The payload bits a code of a table of m symbol counts and lengths takes: code words and the
 * raw bits after them. */
uint64_t parz_bounded_coded_bits(const uint64_t* freq, const uint8_t* len, size_t m);

/* The longest serialized codebook (bounded_huff.c's grammar, every symbol with a length). */
#define PARZ_BOUNDED_BOOK_BYTES_MAX ((size_t)PARZ_BOUNDED_SYMBOLS * 4 + 8)

/* Serialized codebook of the lengths of a table over r (the grammar is in bounded_huff.c):
 * returns bytes written, 0 when cap is short. */
size_t parz_bounded_book_write(const uint8_t* len, const parz_bounded_range* r, uint8_t* out,
                               size_t cap);

/* Parses a codebook from in[0..size) (book->code NULL: its lengths alone, all a decoder needs),
 * hostile input refused (PARZ_ERR_STREAM, naming the value):
 * a span or run past the alphabet, lengths over MAX_LEN or stepping out of 1..MAX_LEN, no symbol,
 * an over-subscribed code, an incomplete one (except a single symbol of length 1), bits missing.
 * *used = bytes consumed. */
int parz_bounded_book_read(const uint8_t* in, size_t size, parz_bounded_book* book, size_t* used,
                           parz_error* err);

/* The payload: segment i holds codes [i*seg, min(n, (i+1)*seg)), its bits start where segment
 * i-1's end (no padding), seg_bits[i] its length. Returns the payload's bits, or (size_t)-1 when
 * out (cap bytes) is short. */
size_t parz_bounded_encode(const int32_t* codes, size_t n, size_t seg, int runs,
                           const parz_bounded_book* book, uint8_t* out, size_t cap,
                           uint64_t* seg_bits);

/* Decoder state for a codebook: lookup table and canonical code limits. */
typedef struct parz_bounded_decoder parz_bounded_decoder;
parz_bounded_decoder* parz_bounded_decoder_new(const parz_bounded_book* book, parz_error* err);
void parz_bounded_decoder_free(parz_bounded_decoder* d);
/* The decoder's Huffman table decoder, whose table and symbols lie in one block of
 * parz_bounded_decoder_words(d) words from huff->table (a GPU copies them as they are). */
const struct parz_huff_decoder* parz_bounded_decoder_huff(const parz_bounded_decoder* d);
size_t parz_bounded_decoder_words(const parz_bounded_decoder* d);
/* The words of a decoder of a codebook that uses `used` symbols. */
size_t parz_bounded_decoder_words_for(size_t used);

/* Decodes one segment of count codes from bits [bit0, bit0 + nbits) of payload (payload_bytes
 * long); with `zeroed` the codes are zero already and runs of zeros leave them as they are (a
 * decoder whose codes start as fresh zeroed memory never writes, and so never faults in, the
 * pages of a long run). Refuses (PARZ_ERR_STREAM, naming the segment) a segment that reads past its bits or the
 * payload, a code word not in the book, a run past the segment's end, or a segment that does not
 * end exactly at its last bit. */
int parz_bounded_decode_segment(const parz_bounded_decoder* d, const uint8_t* payload,
                                size_t payload_bytes, uint64_t bit0, uint64_t nbits, int32_t* codes,
                                size_t count, int zeroed, size_t index, parz_error* err);

#ifdef __cplusplus
}
#endif

#endif
