/* cd_values of the ParZ filter: user form -> codec settings -> internal (stored) form, and back.
 *
 * Pure C, no HDF5: the HDF5 callbacks (H5Zparz.c) only gather the dataset's type and chunk shape
 * and hand them here, so every rule about cd_values is testable without a file. The codecs and
 * their modes come from the codec table (codec/frame/codec_modes.h): nothing here names a
 * codec's mode.
 *
 * User form: cd[0] = the mode, plus PARZ_CD_CODEC_UNIT (65536) times the codec's header id for a
 * codec other than zfp (zfp's modes are numbered as H5Z-ZFP numbers them: 1 rate, 2 precision,
 * 3 accuracy, 4 expert, 5 reversible), then the mode's values, then the optional settings
 * (docs/cd_values.md).
 *
 * Internal form, version 1 (what set_local stores with H5Pmodify_filter and what h5dump shows),
 * PARZ_CD_INTERNAL_NELMTS = 16 unsigned values (h5py reads at most 16 per filter):
 *   [0]      1001 = internal form, version 1 (user forms start with a mode 1..5)
 *   [1]      mode (1 rate, 2 precision, 3 accuracy, 4 expert, 5 reversible)
 *   [2..3]   the user's values of a mode of at most two words (rate / accuracy: binary64 high,
 *            low word; precision: precision, 0); 0 0 for a mode without values or of more words
 *            (expert: its values are the parameters [12..15]). Kept so set_local can redo the
 *            conversion, e.g. when h5repack changes the chunk shape (rate mode depends on the
 *            rank).
 *   [4]      table kind (resolved, never 0 = auto)
 *   [5]      segment_blocks C (resolved)
 *   [6]      partition_segments P (resolved; 0 unless the table is hybrid)
 *   [7]      scalar type (parz_type: 1 int32, 2 int64, 3 float, 4 double), plus 16 when the
 *            dataset's values are big-endian, plus 32 when payload checksums are off
 *   [8..11]  squeezed chunk shape, slowest dimension first, unused entries 0 (rank = number
 *            of non-zero entries)
 *   [12..15] codec parameters minbits, maxbits, maxprec, minexp (minexp as 32-bit two's
 *            complement)
 * Internal form, version 2, the same 16 values where masking is off or a fill value is masked
 * (version 1 is written otherwise, so that files read with plugins that know only it):
 *   [0]      1002
 *   [1]      scalar type, plus 16 when big-endian, 32 when payload checksums are off, 64 when
 *            masking is off, 128 when a fill value is masked, plus 256 * mode, plus 4096 *
 *            table kind
 *   [2..3]   as version 1
 *   [4..5]   the fill value's bit pattern in the scalar type (high, low word; 0 0 without one)
 *   [6]      segment_blocks C;  [7] partition_segments P
 *   [8..15]  as version 1
 * Internal form, version 3, written only where the codec is not zfp (zfp's datasets keep the
 * forms older plugins read): version 2's values, with [0] = 1003 and the codec's header id
 * added to [1] as 65536 * id; [12..15] hold the four words the codec keeps of its settings
 * (parz_codec_modes.keep).
 */
#ifndef PARZ_FILTER_CONFIG_H
#define PARZ_FILTER_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "parz_chunk.h"

/* Positions in the internal forms (the layouts above). */
enum {
  PARZ_CD_FORM = 0,                  /* PARZ_CD_INTERNAL_V1 or _V2 */
  PARZ_CD_USER_VALUES = 2,           /* 2 values: the user's rate, accuracy or precision */
  PARZ_CD_V1_MODE = 1,               /* parz_mode */
  PARZ_CD_V1_TABLE = 4,              /* parz_table_kind */
  PARZ_CD_V1_SEGMENT_BLOCKS = 5,     /* C */
  PARZ_CD_V1_PARTITION_SEGMENTS = 6, /* P */
  PARZ_CD_V1_TYPE = 7,               /* parz_type + PARZ_CD_BIG_ENDIAN + PARZ_CD_NO_CHECKSUM */
  PARZ_CD_V2_PACKED = 1,             /* type + flags, mode << 8, table << 12, codec << 16 (v3) */
  PARZ_CD_V2_FILL_HIGH = 4,          /* the fill value's bit pattern, high word */
  PARZ_CD_V2_FILL_LOW = 5,
  PARZ_CD_V2_SEGMENT_BLOCKS = 6,     /* C */
  PARZ_CD_V2_PARTITION_SEGMENTS = 7, /* P */
  PARZ_CD_SHAPE = 8,                 /* 4 values: the squeezed chunk shape */
  PARZ_CD_MINBITS = 12,
  PARZ_CD_MAXBITS = 13,
  PARZ_CD_MAXPREC = 14,
  PARZ_CD_MINEXP = 15 /* 32-bit two's complement */
};

#define PARZ_CD_INTERNAL_V1 1001u
#define PARZ_CD_INTERNAL_V2 1002u
#define PARZ_CD_INTERNAL_V3 1003u
/* cd[0] of a user form and [1] of version 3 carry the codec's id in units of this. */
#define PARZ_CD_CODEC_UNIT 65536u
#define PARZ_CD_INTERNAL_NELMTS 16u
#define PARZ_CD_BIG_ENDIAN 16u
#define PARZ_CD_NO_CHECKSUM 32u
#define PARZ_CD_NO_MASK 64u
#define PARZ_CD_FILL 128u
#define PARZ_CD_USER_NELMTS_MAX 12u

/* The user's mask setting (after the payload checksum setting): NaN and, where the dataset has
 * one, its fill value masked (codec/FORMAT.md, "Mask"); off; or the fill value given in the next
 * two values (a double, high then low word) instead of the dataset's. */
#define PARZ_CD_MASK_DEFAULT 0u
#define PARZ_CD_MASK_ON 1u
#define PARZ_CD_MASK_OFF 2u
#define PARZ_CD_MASK_FILL 3u

/* Accepted table settings: the chunk format's limits (codec/FORMAT.md). */
#define PARZ_CD_MAX_SEGMENT_BLOCKS 65536u
#define PARZ_CD_MAX_PARTITION_SEGMENTS 65536u

/* What the user asked for, independent of the dataset. */
typedef struct {
  unsigned codec;     /* the header's codec id (PARZ_CODEC_ZFP when the user names none) */
  unsigned mode;      /* the codec's mode number */
  uint32_t values[4]; /* the mode's values, zero padded */
  unsigned table;     /* parz_table_kind, 0 = auto */
  uint32_t segment_blocks;
  uint32_t partition_segments;
  unsigned checksum; /* parz_checksum_mode, 0 = default (on) */
  unsigned mask;     /* PARZ_CD_MASK_* */
  uint32_t fill[2];  /* PARZ_CD_MASK_FILL: the fill value, a double (high, low word) */
  int fill_resolved; /* the fill value is fill_bits, a value of fill_type (an internal form
                         * or the dataset's own fill value), not the double */
  parz_type fill_type;
  uint64_t fill_bits;
} parz_filter_request;

/* Everything the filter function needs for one dataset. */
typedef struct {
  parz_filter_request request;
  parz_array chunk; /* type + squeezed chunk shape, contiguous */
  int big_endian;   /* dataset values are big-endian: swap around the codec */
  parz_chunk_config config;
} parz_filter_config;

/* The request's codec and mode (parsed requests name known ones). */
struct parz_codec;
struct parz_codec_mode;
const struct parz_codec* parz_cd_codec(const parz_filter_request* req);
const struct parz_codec_mode* parz_cd_mode(const parz_filter_request* req);
/* The mode and its values as a user gives them: "accuracy 0.001", "expert 1,16658,20,-1074",
 * "reversible"; after the codec's name when it is not zfp, the default: "raw copy". */
void parz_cd_describe(const parz_filter_request* req, char* out, size_t size);
/* The rules a request must follow whatever the dataset: some type and rank take its mode's
 * values, and the table kind the parameters they give (the rest depends on the dataset:
 * parz_cd_configure). PARZ_OK, or the error of one-dimensional doubles. */
int parz_cd_check_request(const parz_filter_request* req, parz_error* err);
/* The same for the mode and its values alone, the table settings left to the dataset. */
int parz_cd_check_mode(const parz_filter_request* req, parz_error* err);
/* The codecs a user chooses and their modes, one line per mode for programs that read it (the
 * Python package): "CODEC ID MODE NUMBER VALUES NAMES LOSSLESS ABOUT", VALUES and NAMES as in
 * codec_modes.h, "-" for an empty one; ABOUT runs to the end of the line. Written into out as
 * far as size allows, NUL-terminated; returns the length of the whole text. */
size_t parz_cd_codec_table(char* out, size_t size);

/* Reads a user form or an internal form (any version this build knows) into req.
 * Clear message in err on a wrong count, unknown mode, or table settings out of range. */
int parz_cd_parse_request(size_t n, const unsigned* cd, parz_filter_request* req, parz_error* err);

/* The dataset's own fill value (its bit pattern, a value of `type`), masked unless the request
 * turns masking off or names a fill value itself. */
void parz_cd_dataset_fill(parz_filter_request* req, parz_type type, uint64_t bits);

/* Squeezes unit dimensions of an HDF5 chunk shape (any rank, slowest first) into out (at most 4
 * entries). Returns the squeezed rank (>= 1: a chunk of one value is rank 1), or -1 when more
 * than 4 dimensions exceed 1. */
int parz_cd_squeeze(unsigned rank, const uint64_t* chunk_dims, size_t out[4]);

/* Turns a request into codec parameters and table settings for this type and chunk shape
 * (shape already squeezed). Invalid values are refused with a message naming them. */
int parz_cd_configure(const parz_filter_request* req, parz_type type, int big_endian, unsigned dims,
                      const size_t shape[4], parz_filter_config* cfg, parz_error* err);

/* Writes the internal form (PARZ_CD_INTERNAL_NELMTS values): version 1, or version 2 where
 * the mask needs it. */
void parz_cd_store(const parz_filter_config* cfg, unsigned* cd);

/* Reads an internal form back, as the filter function does for every chunk; refuses user forms
 * and unknown versions. Checks that the stored parameters are consistent. */
int parz_cd_load(size_t n, const unsigned* cd, parz_filter_config* cfg, parz_error* err);

/* Checks loaded cd_values against the dataset that carries them: its scalar type, byte order and
 * squeezed chunk shape. The cd_values are stored apart from the dataset's datatype and layout
 * messages, so a crafted or damaged file can make them disagree; decoding such a chunk would hand
 * HDF5 a buffer of another size than the chunk it copies out. PARZ_ERR_FORMAT with a message
 * naming both sides when they differ. */
int parz_cd_check_dataset(const parz_filter_config* cfg, parz_type type, int big_endian,
                          unsigned dims, const size_t shape[4], parz_error* err);

#endif
