/* ParZ codec: a zfp 1.0-compatible block transform codec with per-block bit lengths.
 *
 * Plain C99, no dependencies, no global mutable state: every function is safe to call from many
 * threads at once as long as they do not write the same output buffer.
 *
 * Streams are exactly what libzfp 1.0.x's zfp_compress() writes for the same array and the same
 * four expert parameters (64-bit stream words, no header), stored as little-endian 64-bit words on
 * every host. Block order is C order over the grid of 4^d blocks (zfp's x = last dimension varies
 * fastest). Every block's encoded length in bits can be recorded while encoding, and decoding can
 * start at any block given its bit offset: the parallel decoders are built on that.
 */
#ifndef PARZ_H
#define PARZ_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PARZ_VERSION_MAJOR 0
#define PARZ_VERSION_MINOR 1
#define PARZ_VERSION_PATCH 0

/* Scalar types; the numbers equal zfp_type's so that tests can pass them through. */
typedef enum { PARZ_INT32 = 1, PARZ_INT64 = 2, PARZ_FLOAT = 3, PARZ_DOUBLE = 4 } parz_type;

/* Status codes returned by every function that can fail (0 = success). */
typedef enum {
  PARZ_OK = 0,
  PARZ_ERR_ARG,      /* NULL pointer, zero size, inconsistent argument */
  PARZ_ERR_TYPE,     /* unknown or unsupported scalar type */
  PARZ_ERR_DIMS,     /* rank outside 1..4 or a zero extent */
  PARZ_ERR_PARAM,    /* codec parameter out of range */
  PARZ_ERR_BUFFER,   /* output buffer too small */
  PARZ_ERR_STREAM,   /* compressed stream truncated or corrupt */
  PARZ_ERR_FORMAT,   /* chunk header or table malformed */
  PARZ_ERR_VERSION,  /* chunk written by an unknown format or codec version */
  PARZ_ERR_CHECKSUM, /* chunk header/table checksum mismatch */
  PARZ_ERR_NOMEM,    /* allocation failed, or a size is too large to allocate */
  PARZ_ERR_DEVICE,   /* GPU error (no device, launch failure, ...) */
  PARZ_ERR_UNSUPPORTED
} parz_status;

/* Where a failing call explains itself. Every function taking a parz_error* accepts NULL. */
typedef struct {
  int code;          /* a parz_status */
  char message[256]; /* human-readable, names the offending value */
} parz_error;

const char* parz_status_name(int code);

/* Sets err (if not NULL) and returns code; message is printf-style. */
int parz_fail(parz_error* err, int code, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* zfp's limits, with the same values. */
#define PARZ_MIN_BITS 1u
#define PARZ_MAX_BITS 16658u
#define PARZ_MAX_PREC 64u
#define PARZ_MIN_EXP (-1074)

/* The four expert parameters that fully determine the stream (zfp's minbits, maxbits, maxprec,
 * minexp). Reversible (lossless) mode is minexp < PARZ_MIN_EXP, exactly as in zfp 1.0. */
typedef struct {
  unsigned minbits;
  unsigned maxbits;
  unsigned maxprec;
  int minexp;
} parz_params;

/* The compression modes, numbered as the first of the filter's cd_values numbers them (H5Z-ZFP's
 * numbering, which files store: these numbers never change). */
typedef enum {
  PARZ_MODE_RATE = 1,
  PARZ_MODE_PRECISION = 2,
  PARZ_MODE_ACCURACY = 3,
  PARZ_MODE_EXPERT = 4,
  PARZ_MODE_REVERSIBLE = 5
} parz_mode;

/* Mode setters that produce the same parameters as zfp_stream_set_rate (align = false),
 * zfp_stream_set_precision, zfp_stream_set_accuracy and zfp_stream_set_reversible.
 * Invalid values (rate <= 0 or not finite, precision 0 or > 64, tolerance <= 0 or NaN) are
 * refused with PARZ_ERR_PARAM. `actual` (may be NULL) receives what zfp would return. */
int parz_params_rate(parz_params* p, double rate, parz_type type, unsigned dims, double* actual,
                     parz_error* err);
int parz_params_precision(parz_params* p, unsigned precision, parz_error* err);
int parz_params_accuracy(parz_params* p, double tolerance, double* actual, parz_error* err);
void parz_params_reversible(parz_params* p);
/* Validates the combination the same way zfp_stream_set_params does. */
int parz_params_expert(parz_params* p, unsigned minbits, unsigned maxbits, unsigned maxprec,
                       int minexp, parz_error* err);
/* Whether the parameters may be used to encode values of this type and rank: zfp's reversible
 * transform (minexp < PARZ_MIN_EXP) with fewer bit planes than the type has or fewer bits than
 * its blocks can take returns arbitrary bit patterns (NaN and Inf among them) with no error
 * bound, so it is refused (PARZ_ERR_PARAM, with the values it needs). Decoding takes any
 * parameters zfp takes. */
int parz_params_check_encode(const parz_params* p, parz_type type, unsigned dims, parz_error* err);
/* Whether p promises an absolute error bound of 2^minexp on every finite value of an array of
 * this type and rank: floating-point values (zfp ignores minexp for integers), a lossy minexp
 * above PARZ_MIN_EXP (PARZ_MIN_EXP itself is zfp's default, which asks for no bound: precision
 * mode), maxprec at least the type's bits and maxbits at least any block's (parz_block_max_bits),
 * so that only minexp ends a block's bit planes. That is accuracy mode (a tolerance of 2^-1073
 * or more), and the expert settings that amount to it. The chunk encoders hold such chunks to
 * the bound whatever the data (codec/FORMAT.md, "The accuracy bound"). */
int parz_params_bounded(const parz_params* p, parz_type type, unsigned dims);
/* Classifies parameters the way zfp_stream_compression_mode does. */
parz_mode parz_params_mode(const parz_params* p);
/* Fixed-rate streams have minbits == maxbits: every block has the same length, no table needed. */
int parz_params_fixed_rate(const parz_params* p);

/* An array in memory. Shapes and strides are in C order: shape[0] varies slowest and
 * shape[dims-1] fastest (zfp's x). Strides count elements; all zero means contiguous C order. */
typedef struct {
  parz_type type;
  unsigned dims; /* 1..4 */
  size_t shape[4];
  ptrdiff_t stride[4];
} parz_array;

/* Checks type, rank and extents; returns PARZ_OK or an error. */
int parz_array_check(const parz_array* a, parz_error* err);
size_t parz_type_size(parz_type type);        /* 4 or 8, 0 for an unknown type */
const char* parz_type_name(parz_type type);   /* "float", "int32", ...; "unknown" */
size_t parz_array_count(const parz_array* a); /* number of values */
size_t parz_block_count(const parz_array* a); /* number of 4^d blocks, partial ones included */

/* Upper bound, in bits, on the encoded length of any one block of this type and rank under p
 * (never more than maxbits). Chunk tables size their length fields from it. */
unsigned parz_block_max_bits(parz_type type, unsigned dims, const parz_params* p);

/* Upper bound, in bytes, on the stream of `blocks` blocks (a multiple of 8). */
size_t parz_stream_bound(parz_type type, unsigned dims, const parz_params* p, size_t blocks);

/* Encodes blocks [first, first + count) as one bit stream starting at bit 0 of dst, then pads it
 * with zero bits to a whole 64-bit word, as zfp_compress does at the end of a stream.
 * dst_bytes must hold the padded stream (parz_stream_bound is always enough).
 * bits (may be NULL) receives the unpadded length; block_bits (may be NULL) receives `count`
 * entries, the length of each block. Blocks of fixed-rate streams all have length maxbits. */
int parz_encode_blocks(const parz_array* a, const void* data, const parz_params* p, size_t first,
                       size_t count, void* dst, size_t dst_bytes, uint64_t* bits,
                       uint32_t* block_bits, parz_error* err);

/* Decodes blocks [first, first + count) from src, starting at bit offset `bit`, into their places
 * in `data` (the whole array described by a). The reader never touches src beyond src_bytes: a
 * stream that ends early or is corrupt gives PARZ_ERR_STREAM. end_bit (may be NULL) receives the
 * bit offset just after the last decoded block. */
int parz_decode_blocks(const parz_array* a, void* data, const parz_params* p, const void* src,
                       size_t src_bytes, uint64_t bit, size_t first, size_t count,
                       uint64_t* end_bit, parz_error* err);

/* Whole-array convenience: the same bytes as zfp_compress / zfp_decompress. */
int parz_compress(const parz_array* a, const void* data, const parz_params* p, void* dst,
                  size_t dst_bytes, size_t* written, parz_error* err);
int parz_decompress(const parz_array* a, void* data, const parz_params* p, const void* src,
                    size_t src_bytes, parz_error* err);

/* Copies nbits bits from src (starting at its bit 0) to dst starting at bit dst_bit, both
 * little-endian 64-bit word streams. Bits of dst before dst_bit are kept; the rest of the last
 * word written is cleared. Used to join streams encoded separately into one. */
void parz_bits_copy(void* dst, uint64_t dst_bit, const void* src, uint64_t nbits);

#ifdef __cplusplus
}
#endif

#endif
