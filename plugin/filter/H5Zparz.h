/* ParZ HDF5 filter: public constants and cd_values helpers for C programs. Registering the
 * filter from the program itself, without HDF5's plugin path: H5Zparz_register.h.
 *
 * Header-only: include it and call H5Pset_filter; nothing to link (the filter itself is the
 * dynamically loaded plugin libH5Zparz.so). Example, fixed accuracy 1e-3:
 *
 *   unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
 *   size_t n = H5Z_parz_accuracy_cdata(1e-3, cd);
 *   H5Pset_filter(dcpl, H5Z_FILTER_PARZ, H5Z_FLAG_MANDATORY, n, cd);
 *
 * or every value within 1e-3 through the error-bounded codec: H5Z_parz_bounded_cdata(1e-3, cd).
 *
 * User cd_values layout (docs/cd_values.md): cd[0] = the mode (zfp's numbered as H5Z-ZFP numbers
 * them; plus 65536 times the codec's id for a codec other than zfp, the default), then the mode's
 * values, then optionally segment_blocks C, partition_segments P, table kind, payload checksums
 * and the mask (with a fill value after it).
 * Doubles are given as the high and then the low 32 bits of their IEEE-754 binary64 bit pattern,
 * so the values mean the same on every host. */
#ifndef H5Z_PARZ_H
#define H5Z_PARZ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define H5Z_FILTER_PARZ 37050

/* ParZ's version; the same numbers as PARZ_VERSION_* in codec/parz.h (the build checks it). */
#define H5Z_PARZ_VERSION_MAJOR 0
#define H5Z_PARZ_VERSION_MINOR 1
#define H5Z_PARZ_VERSION_PATCH 0
#define H5Z_PARZ_VERSION_STRING "0.1.0"

/* The filter's name begins with this; after it the plugin names the stream and chunk format it
 * writes: "ParZ-0.1.0 (zfp-1.0 stream, format 1)". HDF5 stores the name with the filter in each
 * file, and h5dump -p and h5ls -v show it. */
#define H5Z_PARZ_NAME "ParZ-" H5Z_PARZ_VERSION_STRING

/* Codecs, by the chunk header's codec ids (codec/FORMAT.md): those a user chooses. zfp is the
 * default: cd_values without a codec are zfp's. */
#define H5Z_PARZ_CODEC_ZFP 1
#define H5Z_PARZ_CODEC_LOSSLESS 3
#define H5Z_PARZ_CODEC_BOUNDED 4                 /* error-bounded (docs/cd_values.md) */
#define H5Z_PARZ_CODECS "zfp, lossless, bounded" /* their names, for messages */
/* The error-bounded codec's one mode: an absolute error bound. */
#define H5Z_PARZ_BOUNDED_MODE_ERROR_BOUND 1
/* cd[0] carries the id of a codec other than zfp in units of this. */
#define H5Z_PARZ_CODEC_UNIT 65536u

/* zfp's modes. */
#define H5Z_PARZ_MODE_RATE 1
#define H5Z_PARZ_MODE_PRECISION 2
#define H5Z_PARZ_MODE_ACCURACY 3
#define H5Z_PARZ_MODE_EXPERT 4
#define H5Z_PARZ_MODE_REVERSIBLE 5

/* Most user values: mode + 4 expert values + C + P + table kind + payload checksums + mask +
 * a fill value (2). */
#define H5Z_PARZ_USER_NELMTS_MAX 12

/* Payload checksums (one per partition, verified on every read): on unless turned off. */
#define H5Z_PARZ_CHECKSUM_DEFAULT 0
#define H5Z_PARZ_CHECKSUM_ON 1
#define H5Z_PARZ_CHECKSUM_OFF 2

/* Masks: NaN, and values equal to the dataset's fill value when it has one, come back bit for
 * bit from a compact mask and cost the payload next to nothing (codec/FORMAT.md, "Mask"); on
 * unless turned off. MASK_FILL names the fill value itself (H5Z_parz_fill_cdata). */
#define H5Z_PARZ_MASK_DEFAULT 0
#define H5Z_PARZ_MASK_ON 1
#define H5Z_PARZ_MASK_OFF 2
#define H5Z_PARZ_MASK_FILL 3

/* High and low words of the binary64 bit pattern of x. memcpy into a uint64_t reads the bit
 * pattern as a number (IEEE-754 hosts keep float and integer byte order the same), and the
 * split by shifts then does not depend on the host's byte order. */
static inline void H5Z_parz_double_words(double x, unsigned* hi, unsigned* lo) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  *hi = (unsigned)(bits >> 32);
  *lo = (unsigned)(bits & 0xffffffffu);
}

static inline size_t H5Z_parz_rate_cdata(double rate, unsigned* cd) {
  cd[0] = H5Z_PARZ_MODE_RATE;
  H5Z_parz_double_words(rate, &cd[1], &cd[2]);
  return 3;
}

static inline size_t H5Z_parz_precision_cdata(unsigned precision, unsigned* cd) {
  cd[0] = H5Z_PARZ_MODE_PRECISION;
  cd[1] = precision;
  return 2;
}

static inline size_t H5Z_parz_accuracy_cdata(double tolerance, unsigned* cd) {
  cd[0] = H5Z_PARZ_MODE_ACCURACY;
  H5Z_parz_double_words(tolerance, &cd[1], &cd[2]);
  return 3;
}

static inline size_t H5Z_parz_expert_cdata(unsigned minbits, unsigned maxbits, unsigned maxprec,
                                           int minexp, unsigned* cd) {
  cd[0] = H5Z_PARZ_MODE_EXPERT;
  cd[1] = minbits;
  cd[2] = maxbits;
  cd[3] = maxprec;
  cd[4] = (unsigned)minexp; /* two's complement, read back as int32 */
  return 5;
}

static inline size_t H5Z_parz_reversible_cdata(unsigned* cd) {
  cd[0] = H5Z_PARZ_MODE_REVERSIBLE;
  return 1;
}

/* The lossless codec (codec/FORMAT.md, "Lossless chunks"): every value of every type comes back
 * bit for bit (NaN payloads, -0.0, subnormals, infinities). Its modes are its predictors:
 * LORENZO over every dimension, or STACK, a 4D array as a stack of 3D fields (ensemble members,
 * whose fields are no smooth neighbours of each other). Neither takes a value. */
#define H5Z_PARZ_LOSSLESS_LORENZO 1
#define H5Z_PARZ_LOSSLESS_STACK 2

static inline size_t H5Z_parz_lossless_cdata(unsigned mode, unsigned* cd) {
  cd[0] = mode + H5Z_PARZ_CODEC_UNIT * H5Z_PARZ_CODEC_LOSSLESS;
  return 1;
}

/* The error-bounded codec (codec 4): every finite value of float and double datasets within
 * error_bound of its own, NaN, infinities and fill values bit for bit. */
static inline size_t H5Z_parz_bounded_cdata(double error_bound, unsigned* cd) {
  cd[0] = H5Z_PARZ_BOUNDED_MODE_ERROR_BOUND + H5Z_PARZ_CODEC_UNIT * H5Z_PARZ_CODEC_BOUNDED;
  H5Z_parz_double_words(error_bound, &cd[1], &cd[2]);
  return 3;
}

/* The id of the codec named `name` ("zfp", "lossless", "bounded"), or 0 for a name this header does not
 * know, with a message in why naming it and the known ones. */
static inline unsigned H5Z_parz_codec_id(const char* name, char* why, size_t why_size) {
  if (name && !strcmp(name, "zfp"))
    return H5Z_PARZ_CODEC_ZFP;
  if (name && !strcmp(name, "lossless"))
    return H5Z_PARZ_CODEC_LOSSLESS;
  if (name && !strcmp(name, "bounded"))
    return H5Z_PARZ_CODEC_BOUNDED;
  if (why && why_size)
    snprintf(why, why_size, "parz: unknown codec '%.60s'; this header knows " H5Z_PARZ_CODECS,
             name ? name : "(null)");
  return 0;
}

/* Names the codec of cd (n = what a helper above returned): cd[0] is a mode of that codec.
 * Returns n, or 0 for an id this header does not know (cd unchanged). zfp, the default, adds
 * nothing, so its cd_values stay those every ParZ plugin reads. */
static inline size_t H5Z_parz_codec_cdata(unsigned codec, size_t n, unsigned* cd) {
  if (codec != H5Z_PARZ_CODEC_ZFP && codec != H5Z_PARZ_CODEC_LOSSLESS &&
      codec != H5Z_PARZ_CODEC_BOUNDED)
    return 0;
  cd[0] = cd[0] % H5Z_PARZ_CODEC_UNIT +
          (codec == H5Z_PARZ_CODEC_ZFP ? 0u : H5Z_PARZ_CODEC_UNIT * codec);
  return n;
}

/* Appends the optional offset-table settings after any of the above (n = what it returned):
 * segment_blocks C, partition_segments P and table kind (parz_table_kind numbers); 0 = default. */
static inline size_t H5Z_parz_table_cdata(size_t n, unsigned segment_blocks,
                                          unsigned partition_segments, unsigned table_kind,
                                          unsigned* cd) {
  cd[n] = segment_blocks;
  cd[n + 1] = partition_segments;
  cd[n + 2] = table_kind;
  return n + 3;
}

/* Fills cd with default (0) optional settings up to the k-th after the mode's values (zfp's
 * modes' values; the lossless codec's modes take none). */
static inline size_t H5Z_parz_pad_cdata(size_t n, size_t k, unsigned* cd) {
  static const size_t mode_values[] = {0, 2, 1, 2, 4, 0};
  const unsigned codec = cd[0] / H5Z_PARZ_CODEC_UNIT, mode = cd[0] % H5Z_PARZ_CODEC_UNIT;
  size_t values = codec <= H5Z_PARZ_CODEC_ZFP ? (mode <= 5 ? mode_values[mode] : 0)
                  : codec == H5Z_PARZ_CODEC_BOUNDED && mode == H5Z_PARZ_BOUNDED_MODE_ERROR_BOUND
                      ? 2
                      : 0;
  size_t end = 1 + values + k;
  while (n < end)
    cd[n++] = 0;
  return n;
}

/* Appends the payload checksum setting (H5Z_PARZ_CHECKSUM_*) after any of the above (n = what it
 * returned), with default table settings in front of it when they are not there yet. */
static inline size_t H5Z_parz_checksum_cdata(size_t n, unsigned checksum, unsigned* cd) {
  n = H5Z_parz_pad_cdata(n, 3, cd);
  cd[n] = checksum;
  return n + 1;
}

/* Appends the mask setting (H5Z_PARZ_MASK_*; MASK_FILL through H5Z_parz_fill_cdata) after any of
 * the above, with default table and checksum settings in front of it. */
static inline size_t H5Z_parz_mask_cdata(size_t n, unsigned mask, unsigned* cd) {
  n = H5Z_parz_pad_cdata(n, 4, cd);
  cd[n] = mask;
  return n + 1;
}

/* Appends a fill value to mask, instead of the dataset's own (its nearest value of the dataset's
 * type: integer datasets need an integer within their range). */
static inline size_t H5Z_parz_fill_cdata(size_t n, double fill, unsigned* cd) {
  n = H5Z_parz_mask_cdata(n, H5Z_PARZ_MASK_FILL, cd);
  H5Z_parz_double_words(fill, &cd[n], &cd[n + 1]);
  return n + 2;
}

#endif
