/* ParZ chunk format: header + hybrid offset table + exceptions + optional sections (payload
 * checksums, mask) + codec payload.
 *
 * A chunk is self-describing: it decodes without the HDF5 dataset's cd_values. The byte-exact
 * layout is specified in codec/FORMAT.md; this header is the C interface to it.
 *
 * Vocabulary: a block is the codec's unit (4^d values for zfp); a segment is C consecutive blocks (one
 * decoder thread's work); a partition is P consecutive segments and opens with an absolute 64-bit
 * bit offset, so partitions decode independently of each other.
 *
 * Table records (all little-endian, each partition record padded to a multiple of 8 bytes):
 *   OFFSETS: one u64 absolute payload bit offset per segment.
 *   LENGTHS: one length per segment (u16 or u32, see length_bytes); offsets are a prefix sum.
 *   HYBRID : per partition, one u64 absolute bit offset of its first segment, then the lengths
 *            (u16 or u32) of all P segments in it (the last partition may hold fewer).
 *   NONE   : fixed-rate chunks; segment s starts at bit s * C * maxbits.
 */
#ifndef PARZ_CHUNK_H
#define PARZ_CHUNK_H

#include "parz.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The newest chunk format version this library writes (FORMAT.md); it reads every version up
 * to it, and writes version 1 for chunks that use nothing of version 2. */
#define PARZ_CHUNK_FORMAT_VERSION 2

/* Codec ids of the chunk header (FORMAT.md, "Header"): a zfp stream, the values as they are
 * ("Stored chunks"), or the lossless codec's segments. */
#define PARZ_CODEC_ZFP 1u
#define PARZ_CODEC_STORED 2u
#define PARZ_CODEC_LOSSLESS 3u /* every bit pattern exact (FORMAT.md, "Lossless chunks") */
#define PARZ_CODEC_BOUNDED 4u  /* error-bounded (FORMAT.md, "Error-bounded chunks (codec 4)") */

/* The header's codec parameters: 16 bytes whose meaning the chunk's codec defines (FORMAT.md,
 * "Codec parameters"); zfp's and the stored codec's are minbits, maxbits, maxprec, minexp. */
#define PARZ_CODEC_PARAM_BYTES 16u

typedef enum {
  PARZ_TABLE_AUTO = 0, /* HYBRID for variable-rate, NONE for fixed-rate */
  PARZ_TABLE_NONE = 1,
  PARZ_TABLE_OFFSETS = 2,
  PARZ_TABLE_LENGTHS = 3,
  PARZ_TABLE_HYBRID = 4
} parz_table_kind;

/* Defaults (codec/FORMAT.md, "Defaults and table overhead", says why). C = 0
 * (auto) gives variable-rate chunks the smallest power of two C whose table is at most 2% of the
 * payload, picked per chunk once it is encoded; fixed rate takes PARZ_DEFAULT_SEGMENT_BLOCKS. */
#define PARZ_DEFAULT_SEGMENT_BLOCKS 32u
#define PARZ_DEFAULT_PARTITION_SEGMENTS 64u

/* Payload checksums: one per partition, verified by every decoder before it trusts the values
 * of that partition (FORMAT.md, "Payload checksums"). Off writes none; chunks without them
 * are exactly what format version 1 wrote. */
typedef enum {
  PARZ_CHECKSUM_DEFAULT = 0, /* on */
  PARZ_CHECKSUM_ON = 1,
  PARZ_CHECKSUM_OFF = 2
} parz_checksum_mode;

/* Masked values: NaN (any bit pattern), values bit-equal to the fill value when one is given,
 * and those bit-equal to a value the accuracy bound's check took out (FORMAT.md, "The accuracy
 * bound"). They come back bit for bit from a compact mask section, and the payload encodes
 * smooth stand-ins in their place, so they cost next to nothing and leave the error bound of the
 * other values intact (FORMAT.md, "Mask"). Off stores NaN and taken values as exceptions and
 * encodes fill values like any other value, as format version 1 did. */
typedef enum {
  PARZ_MASK_DEFAULT = 0, /* on */
  PARZ_MASK_ON = 1,
  PARZ_MASK_OFF = 2
} parz_mask_mode;

/* Stored chunks: a chunk its encoding would make larger than the chunk of its values as they are
 * (FORMAT.md, "Stored chunks") is written as the latter, so that no chunk is much larger than
 * its values and parz_chunk_bound is the stored chunk's size. Off by default in the codec, whose
 * tests look at zfp streams of any size; the HDF5 filter and the dataset writers turn it on. */
typedef enum { PARZ_STORED_NEVER = 0, PARZ_STORED_WHEN_SMALLER = 1 } parz_stored_mode;

/* A keep: chunk-wide blocks of memory (a scratch codec's codes and quantized values, in
 * codec/bounded/) held between chunks for a caller that encodes or decodes many. A block the size
 * of a chunk's values, allocated anew, costs a page fault and the clearing of a page for every
 * 4 KiB on its first write and the unmapping at its free, work a team of threads waits for; the
 * next chunk of a size no larger takes the kept block instead. The caller owns the keep: it
 * creates one for a run of chunks (a dataset read or write), names it in the configurations
 * (parz_chunk_config.keep) and views (parz_chunk_view.keep) of those chunks, and frees it after
 * the last. Threads may share one keep (each block goes to one chunk at a time) or each have
 * their own. No byte of a chunk and no decoded value depends on it.
 *
 * parz_keep_new: a keep holding blocks of at most `limit` bytes together (0:
 * PARZ_KEEP_DEFAULT_BYTES; a larger block is freed when its chunk is done), NULL without memory.
 * parz_keep_free frees it and every block it holds (NULL: nothing); no chunk may be using it. */
typedef struct parz_keep parz_keep;
#define PARZ_KEEP_DEFAULT_BYTES ((size_t)256 << 20)
parz_keep* parz_keep_new(size_t limit);
void parz_keep_free(parz_keep* keep);

/* A codec's own settings in a chunk configuration, for the codecs whose choices are not zfp's
 * four parameters: each codec reads what it defines and says so in its modes (codec_modes.h). */
typedef struct {
  double error_bound; /* an absolute error bound, > 0 (error-bounded codecs) */
  unsigned predictor; /* the codec's predictor by its number; 0: the codec's default */
  /* The lossless codec's runs of 2^run_q residuals (4..12), which its decoders read from each
   * segment; 0: the writers' own (9). For tests and benchmarks of the decoders: no mode or
   * cd_values sets it, and the GPU encoder refuses any other. */
  unsigned run_q;
} parz_codec_settings;

typedef struct {
  parz_params params; /* zfp's parameters (codec 0 or PARZ_CODEC_ZFP) */
  parz_table_kind table;
  uint32_t segment_blocks;     /* C, blocks per segment; 0 = auto */
  uint32_t partition_segments; /* P, segments per partition (HYBRID only); 0 = default */
  parz_checksum_mode checksum;
  parz_mask_mode mask;
  int fill;           /* nonzero: values bit-equal to fill_bits are masked too */
  uint64_t fill_bits; /* the fill value's bit pattern; 32-bit types: the low 32 bits */
  parz_stored_mode stored;
  /* The codec of the payload, a header codec id: 0 (what a zeroed configuration holds) or
   * PARZ_CODEC_ZFP writes zfp's stream; the encoders refuse an id this library does not know
   * and PARZ_CODEC_STORED, which only the rule of stored chunks writes. The GPU encoder writes
   * zfp and the error-bounded codec. */
  unsigned codec;
  parz_codec_settings settings; /* the other codecs' choices */
  /* Where the encoder takes its codec's chunk-wide blocks (parz_keep above), NULL: allocated for
   * the chunk and freed. Not a setting: the chunk's bytes are the same either way. */
  parz_keep* keep;
} parz_chunk_config;

/* Nonzero when chunks of `type` under cfg may hold a mask section: the mask is not off and the
 * type has NaN (float32, float64) or a fill value is given. Whether a chunk gets one depends on
 * its values. */
int parz_chunk_config_masks(const parz_chunk_config* cfg, parz_type type);

/* A chunk's mask section, parsed (FORMAT.md, "Mask"); nvalues is 0 when the chunk has none. */
typedef struct {
  const unsigned char* values;  /* nvalues u64 bit patterns */
  const unsigned char* starts;  /* ngroups u64: where each group's records start */
  const unsigned char* records; /* record_bytes bytes */
  uint64_t record_bytes;
  uint64_t section_bytes; /* the whole section */
  uint64_t ngroups;       /* ceil(nblocks / group_blocks) */
  uint32_t group_blocks;  /* G, blocks per mask group */
  uint32_t nvalues;
} parz_chunk_mask;

/* A parsed and validated chunk. Pointers point into the caller's chunk bytes. After a successful
 * parz_chunk_parse every segment offset is inside the payload and offsets are monotone, so
 * decoders may trust them (the payload bits themselves may still be corrupt: the bit reader is
 * bounded anyway). */
typedef struct {
  unsigned version; /* format version, 1 or 2 */
  unsigned codec; /* PARZ_CODEC_ZFP, PARZ_CODEC_STORED: the codec table's (codec/frame/codecs.h) */
  parz_array array;   /* contiguous; type, rank and shape from the header */
  parz_params params; /* zfp's and the stored codec's reading of the codec parameters */
  unsigned char codec_params[PARZ_CODEC_PARAM_BYTES]; /* as the header holds them */
  uint32_t block_side[4]; /* the codec's block: values along each dimension (1 past the rank) */
  const unsigned char* codec_data; /* the codec data section's bytes, NULL without one */
  uint64_t codec_data_bytes;
  parz_table_kind table;       /* never AUTO here */
  unsigned length_bytes;       /* 2 or 4 (LENGTHS, HYBRID), else 0 */
  uint32_t segment_blocks;     /* C */
  uint32_t partition_segments; /* P (HYBRID), else 0 */
  uint64_t nblocks;
  uint64_t nsegments;   /* ceil(nblocks / C) */
  uint64_t npartitions; /* ceil(nsegments / P) for HYBRID, else 0 */
  const unsigned char* table_data;
  size_t table_bytes;
  const unsigned char* exceptions; /* nexceptions records, see FORMAT.md */
  uint64_t nexceptions;
  const unsigned char* checksums; /* nchecksums u64 payload checksums, or NULL */
  uint32_t checksum_segments;     /* segments per checksummed partition (P for HYBRID) */
  uint64_t nchecksums;            /* ceil(nsegments / checksum_segments), 0 without them */
  parz_chunk_mask mask;           /* masked values (mask.nvalues 0: none) */
  const unsigned char* payload;   /* little-endian 64-bit words */
  size_t payload_bytes;           /* multiple of 8 */
  uint64_t payload_bits;          /* bits used, <= 8 * payload_bytes */
  size_t chunk_bytes;             /* header + sections + payload */
  size_t raw_bytes;               /* size of the decoded array */
  /* Where the decoders take the codec's chunk-wide blocks (parz_keep above): NULL after
   * parz_chunk_parse (allocated for the chunk and freed); a caller decoding many chunks sets it. */
  parz_keep* keep;
  /* Encoders: the configuration's codec settings, for what a codec's encoder reads beyond the
   * header's parameters; zeros after parz_chunk_parse. */
  parz_codec_settings settings;
} parz_chunk_view;

/* Where an encoder that finds a chunk's size as it encodes puts the chunk: a buffer of at least
 * `bytes` from the caller, or NULL when there is none. The encoders that take one (OpenMP, GPU,
 * the plugin's dispatcher) say when they ask and what becomes of the buffer. */
typedef void* (*parz_chunk_alloc)(void* arg, size_t bytes);

/* Upper bound on the encoded size of any array of a's type and shape under cfg; NULL-safe, 0 on
 * invalid input. With stored chunks on, at most the stored chunk's size: the array's size and
 * a head of 136 bytes and 8 per MiB. Without, it reserves a 16-byte exception record for every
 * value that could need one (for float32: 5x the array), so size buffers with
 * parz_chunk_bound_data, which counts them. */
size_t parz_chunk_bound(const parz_array* a, const parz_chunk_config* cfg);
/* Upper bound on the chunk of these very values: with stored chunks on, parz_chunk_bound (no
 * read of the array); without, the exceptions, masked values and values the accuracy bound's
 * check may take out counted (one read of the array), so about the array's size plus the table
 * in the usual case. */
size_t parz_chunk_bound_data(const parz_array* a, const void* data, const parz_chunk_config* cfg);

/* A caller's threads for the reads of the whole array that encoding begins with (the scan for
 * masked values and exceptions, the cleaned copy, the mask): run(ctx, n, job, arg) calls
 * job(arg, i) once for every i in [0, n), in any order, at once if it likes, and returns when
 * all have returned. Each read is cut into at most `parts` pieces (and at most 4096: runs of
 * values in C order, runs of blocks); the results are those of the uncut read. A NULL
 * parz_jobs, or parts <= 1, reads on the calling thread. */
typedef struct {
  void (*run)(void* ctx, uint64_t n, void (*job)(void* arg, uint64_t i), void* arg);
  void* ctx;
  uint64_t parts;
} parz_jobs;

/* parz_chunk_bound_data with its read of the array on jobs. */
size_t parz_chunk_bound_data_jobs(const parz_array* a, const void* data,
                                  const parz_chunk_config* cfg, const parz_jobs* jobs);

/* Validates header, header checksum, sections, table and exceptions against src_bytes before
 * anything is decoded (the payload checksums are checked by the decoders, partition by
 * partition). A chunk from an unknown format or codec version, or with a section this reader
 * must understand but does not, gives PARZ_ERR_VERSION. */
int parz_chunk_parse(const void* src, size_t src_bytes, parz_chunk_view* view, parz_error* err);

/* Whether the chunk's whole array fits in dst: PARZ_ERR_BUFFER, naming both sizes, when dst is
 * NULL or shorter than raw_bytes. */
int parz_chunk_fits(const parz_chunk_view* v, const void* dst, size_t dst_bytes, parz_error* err);

/* Bit offset in the payload where segment s starts (s <= nsegments; s == nsegments gives the end
 * of the payload bits). O(P) for HYBRID, O(s) for LENGTHS, O(1) otherwise. */
uint64_t parz_chunk_segment_offset(const parz_chunk_view* v, uint64_t s);

/* A LENGTHS table gives a segment's offset only as the sum of every earlier length (O(s)), so
 * a driver that splits a chunk into many work units would sum the table once per unit. Instead
 * it writes every segment's offset once, in one pass, into `table` (parz_chunk_offsets_bytes
 * long) and decodes with `out`: a copy of v that reads them as an OFFSETS table, with the same
 * offsets, lengths and errors. Other views need no room (0) and are copied unchanged. */
size_t parz_chunk_offsets_bytes(const parz_chunk_view* v);
void parz_chunk_offsets_view(const parz_chunk_view* v, void* table, parz_chunk_view* out);

/* Where a chunk's decoded values go: the window lo[k] <= x[k] < hi[k] of the chunk's array
 * (k over its rank, C order; 0 < hi[k] - lo[k], hi[k] <= shape[k]) is stored at data, the value
 * at x landing at data + sum_k (x[k] - lo[k]) * stride[k] elements, so that a chunk writes its
 * part of a larger array in place (a box of a dataset, clipped at the box's and the dataset's
 * edges). Strides are >= 0; the caller makes sure the window's places lie in its memory. */
typedef struct {
  void* data;
  ptrdiff_t stride[4];
  size_t lo[4], hi[4];
} parz_chunk_dest;

/* The destination of the whole chunk in dst, contiguous in C order (raw_bytes long). */
void parz_chunk_dest_whole(const parz_chunk_view* v, void* dst, parz_chunk_dest* d);

/* Checks a destination against the chunk's shape: PARZ_ERR_ARG when its window is empty or
 * leaves the array, or data is NULL. */
int parz_chunk_dest_check(const parz_chunk_view* v, const parz_chunk_dest* d, parz_error* err);

/* Decodes segments [first, first + count) into the destination d (parz_chunk_dest_check'ed by
 * the caller): values outside its window are not stored, and segments that hold none of the
 * window's blocks are neither decoded nor checked. Masked values are stored with the others.
 * First verifies the payload checksums of the partitions that hold the segments it decodes
 * (PARZ_ERR_CHECKSUM naming the first bad one; a partition whose segments all lie outside the
 * window is not verified, so a window clear of a corrupt partition decodes), then checks that
 * each segment ends exactly where the next begins; a mismatch is PARZ_ERR_STREAM. Does not
 * patch exceptions. Thread-safe for disjoint segment ranges of one destination. */
int parz_chunk_decode_segments_to(const parz_chunk_view* v, const parz_chunk_dest* d,
                                  uint64_t first, uint64_t count, parz_error* err);
/* The same into the whole chunk's contiguous array dst (raw_bytes long). */
int parz_chunk_decode_segments(const parz_chunk_view* v, void* dst, uint64_t first, uint64_t count,
                               parz_error* err);
/* The same without the checksums, for drivers that verify them with parz_chunk_verify_to (in
 * parallel, by partition, while other threads decode). */
int parz_chunk_decode_segments_unverified(const parz_chunk_view* v, const parz_chunk_dest* d,
                                          uint64_t first, uint64_t count, parz_error* err);

/* Verifies the payload checksums of checksummed partitions [first, first + count) (each of
 * v->checksum_segments segments; v->nchecksums in all): PARZ_ERR_CHECKSUM naming the first
 * partition whose payload bits do not match, PARZ_OK when they all do or the chunk has none. */
int parz_chunk_verify(const parz_chunk_view* v, uint64_t first, uint64_t count, parz_error* err);
/* The same for those of them that hold a block of d's window: exactly the partitions that
 * parz_chunk_decode_segments_to verifies when it decodes their segments into d. */
int parz_chunk_verify_to(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t first,
                         uint64_t count, parz_error* err);

/* Writes the exceptions recorded in the chunk back into the decoded array (after the segments:
 * an exception overrides whatever a segment stored at its position). */
int parz_chunk_patch_exceptions(const parz_chunk_view* v, void* dst, parz_error* err);
/* The same into a destination: only those inside its window. */
int parz_chunk_patch_exceptions_to(const parz_chunk_view* v, const parz_chunk_dest* d,
                                   parz_error* err);

/* Serial decode of a whole chunk: parse + decode all segments + patch exceptions. */
int parz_chunk_decode(const void* src, size_t src_bytes, void* dst, size_t dst_bytes,
                      parz_error* err);

/* Encoding in steps, so that parallel drivers (omp/) produce the same bytes as the serial one:
 * begin (layout, exceptions, cleaned input), encode segments in any order into scratch
 * buffers, write the head (header, directory, table, exceptions), join the payload at the
 * segments' offsets, compute the payload checksums (any partitions in any order), seal. */
typedef struct parz_chunk_encoder parz_chunk_encoder;

int parz_chunk_encoder_begin(parz_chunk_encoder** enc, const parz_array* a, const void* data,
                             const parz_chunk_config* cfg, parz_error* err);
/* The same with its reads of the array on jobs. */
int parz_chunk_encoder_begin_jobs(parz_chunk_encoder** enc, const parz_array* a, const void* data,
                                  const parz_chunk_config* cfg, const parz_jobs* jobs,
                                  parz_error* err);
uint64_t parz_chunk_encoder_segments(const parz_chunk_encoder* enc);
/* Bytes in front of the payload in the largest layout the chunk may get: its head, or with
 * auto C the head of C = 1. A payload encoded after it never meets the head write_head writes. */
size_t parz_chunk_encoder_head_bytes(const parz_chunk_encoder* enc);
/* Bytes of scratch that always hold the stream of `count` segments. */
size_t parz_chunk_encoder_scratch_bound(const parz_chunk_encoder* enc, uint64_t count);
/* Encodes segments [first, first + count) as one stream at bit 0 of scratch; records each
 * segment's length in the encoder; bits (may be NULL) receives the stream's length. Thread-safe
 * for disjoint ranges. */
int parz_chunk_encode_segments(parz_chunk_encoder* enc, uint64_t first, uint64_t count,
                               void* scratch, size_t scratch_bytes, uint64_t* bits,
                               parz_error* err);
/* Total chunk size once every segment has been encoded. */
size_t parz_chunk_encoder_size(const parz_chunk_encoder* enc);
/* Writes header, directory, table and exceptions into dst and returns (in payload_offset) where
 * the payload starts; the caller then places each encoded range at the bit offset returned by
 * parz_chunk_encoder_bit_offset (with parz_bits_copy, or by encoding in place). */
int parz_chunk_encoder_write_head(parz_chunk_encoder* enc, void* dst, size_t dst_bytes,
                                  size_t* payload_offset, parz_error* err);
uint64_t parz_chunk_encoder_bit_offset(const parz_chunk_encoder* enc, uint64_t segment);
/* Once the payload is in place in dst: the number of partitions that get a payload checksum (0
 * without checksums), the checksums of partitions [first, first + count) written into dst
 * (thread-safe for disjoint ranges), and the seal, the header's CRC-32C over everything in
 * front of the payload (checksums included): the chunk is complete after it. */
uint64_t parz_chunk_encoder_partitions(const parz_chunk_encoder* enc);
void parz_chunk_encoder_checksum(const parz_chunk_encoder* enc, void* dst, uint64_t first,
                                 uint64_t count);
void parz_chunk_encoder_seal(const parz_chunk_encoder* enc, void* dst);
/* Whether the chunk is written as a stored chunk, its values as they are (FORMAT.md, "Stored
 * chunks"), because it would be larger encoded: known after begin when the exceptions and the
 * mask alone outgrow the values, else once every segment is encoded (0 before). Such a chunk is
 * written, parz_chunk_encoder_stored_bytes long, by write_stored in place of the steps after the
 * segments. */
int parz_chunk_encoder_stores(const parz_chunk_encoder* enc);
size_t parz_chunk_encoder_stored_bytes(const parz_chunk_encoder* enc);
int parz_chunk_encoder_write_stored(const parz_chunk_encoder* enc, void* dst, size_t dst_bytes,
                                    size_t* written, parz_error* err);
void parz_chunk_encoder_free(parz_chunk_encoder* enc);

/* Serial encode of a whole chunk. dst_bytes = parz_chunk_bound() always suffices; a smaller
 * destination works when the chunk fits, else PARZ_ERR_BUFFER (nothing is written past
 * dst_bytes; what was written before is unspecified). Every encoder holds a chunk whose
 * parameters promise an absolute bound (parz_params_bounded) to it, whatever the values: every
 * finite value decodes within 2^minexp (FORMAT.md, "The accuracy bound"). */
int parz_chunk_encode(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                      void* dst, size_t dst_bytes, size_t* written, parz_error* err);
/* The same with its reads of the array (parz_jobs, above) on the caller's threads. */
int parz_chunk_encode_jobs(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                           const parz_jobs* jobs, void* dst, size_t dst_bytes, size_t* written,
                           parz_error* err);

#ifdef __cplusplus
}
#endif

#endif
