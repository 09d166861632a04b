/* The codec interface (internal to the codec library): what the chunk's frame asks of the codec
 * that turns values into payload bits, and the table of codecs by the id in the header.
 *
 * The frame (header and directory, table, payload checksums, masks, exceptions, destination
 * windows, the encoder's steps) calls a codec only through its entry here; a codec is one folder
 * (zfp/, stored/) and one entry in the table (codec_table.c), and knows nothing of the frame but
 * the view it is handed. A codec defines the header's 16 bytes of codec parameters, its block
 * (values along each dimension, which may depend on the rank and on those parameters) and, if it
 * needs one, the bytes of a codec data section. Two kinds of codecs:
 * - stream codecs (zfp) write a bit stream of blocks cut into segments whose lengths the table
 *   holds: they give encode_segments and decode_segments, and the frame walks the table, the
 *   window and the checksums for them; the encoders write the one the chunk configuration
 *   names (parz_chunk_config.codec);
 * - direct codecs (stored) place every value at a position known from the shape: they give
 *   decode_to and meets, and the frame hands them whole ranges of segments; the encoders write
 *   one only where the rule of stored chunks says so;
 * - scratch codecs (bounded) code the whole chunk at once: their segments hold codes in the
 *   codec's own order, not a region of the array, and the values come from a chunk-wide inverse
 *   pass. They give the scratch entries below. A decoder (chunk_scratch.h) reads the codec data
 *   into a state with a chunk-wide scratch, decodes the segments into it (decode_segments, with
 *   run->scratch the state; any ranges, in parallel), runs the inverse passes in order (the
 *   units of one pass in parallel), stores the values of the destination's window, then the
 *   frame restores the masked values and the exceptions. An encoder runs the codec's forward pass
 *   once (code), adds the values it cannot carry to the exceptions, writes its codec data, and
 *   encodes the segments from the state (encode_codes; any ranges, in parallel). */
#ifndef PARZ_CODECS_H
#define PARZ_CODECS_H

#include "parz_chunk.h"
#include "standin.h"
#include "table_endian.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A run of consecutive segments to decode: blocks [first, first + count) of the chunk's array,
 * cut into segments of seg_blocks blocks (the last may be shorter), from bit `bit` of the
 * payload src (src_bytes bytes); after segment k the stream must be at bit ends[k]. Each block
 * gets its masked values (mask: a validated section; nvalues 0 for none) before it is stored
 * into dest's window (checked by the caller). */
typedef struct {
  const parz_chunk_view* view; /* the chunk: its codec parameters and codec data */
  const parz_array* array;
  const parz_params* params;
  const parz_chunk_dest* dest;
  const parz_chunk_mask* mask;
  const void* src;
  size_t src_bytes;
  uint64_t bit;
  size_t first, count, seg_blocks;
  const uint64_t* ends;
  void* scratch; /* scratch codecs: the state their segments decode into; else NULL */
} parz_segment_run;

struct parz_codec_scratch; /* a scratch codec's state: its own */

/* Segments a codec's encoder coded while it chose its parameters from the values (prepare),
 * kept so that the frame copies them into the payload rather than have them coded again: the
 * chunk's segments of seg_blocks blocks, each of whole bytes, segment s at bytes
 * [s ? ends[s - 1] : 0, ends[s]) of bytes, as encode_segments would write them. Empty (count 0,
 * NULL pointers) where the codec kept none. */
typedef struct {
  unsigned char* bytes;
  size_t* ends;
  uint64_t count;
  uint32_t seg_blocks;
} parz_kept_segments;

struct parz_mask_palette; /* mask.h */

/* A scratch codec's entries (codecs.h, file comment). Its block is one code, C codes per segment;
 * its segment_blocks (parz_codec) is the C a configuration's 0 (auto) stands for. */
typedef struct parz_scratch_codec {
  /* Decoding: the state of a parsed chunk (its codec data read, its scratch allocated), or an
   * error naming the value. Its segments then decode through decode_segments, with run->scratch
   * the state. */
  int (*begin)(const parz_chunk_view* v, struct parz_codec_scratch** state, parz_error* err);
  void (*free)(struct parz_codec_scratch* state);
  /* The inverse: passes in order; pass k is inverse_units units, run in any order and at once. */
  unsigned (*inverse_passes)(const struct parz_codec_scratch* state);
  uint64_t (*inverse_units)(const struct parz_codec_scratch* state, unsigned pass);
  /* The values pass k writes: drivers run passes of few values together on one thread. */
  uint64_t (*inverse_values)(const struct parz_codec_scratch* state, unsigned pass);
  /* The codes passes 0 to k read lie before this one (blocks in code order): passes that read
   * only the first segments' codes may run while later segments decode. */
  uint64_t (*inverse_codes)(const struct parz_codec_scratch* state, unsigned pass);
  int (*inverse)(struct parz_codec_scratch* state, unsigned pass, uint64_t first, uint64_t count,
                 parz_error* err);
  /* Stores the values of rows [first, first + count) of d's window (a row: the window's values
   * along the last dimension at one place of the others, rows in C order). */
  void (*store)(const struct parz_codec_scratch* state, const parz_chunk_dest* d, uint64_t first,
                uint64_t count);
  /* Encoding: the forward pass over the whole of a (contiguous, C order) under v's codec
   * parameters and C; hole, when not NULL, marks with a nonzero byte per value the values the
   * frame restores itself (masked values, exceptions), which need no bound and are never read:
   * data holds there what the array held, no stand-in (mask.h). jobs (NULL: none) are the
   * caller's threads for it; the state is the same on any. Sets *state. */
  int (*code)(const parz_chunk_view* v, const parz_array* a, const void* data, const uint8_t* hole,
              const parz_jobs* jobs, struct parz_codec_scratch** state, parz_error* err);
  /* The values the codes do not carry (*pos: their positions, increasing; owned by the state). */
  size_t (*coded_exceptions)(const struct parz_codec_scratch* state, const uint64_t** pos);
  /* The codec data section's bytes (a multiple of 8), written at out when out is not NULL. */
  size_t (*codec_data)(const struct parz_codec_scratch* state, unsigned char* out);
  /* The most bytes codec_data gives an array of a's type and shape. */
  size_t (*codec_data_bound)(const parz_array* a);
  /* encode_segments for codes [first, first + count) of the state. */
  int (*encode_codes)(const struct parz_codec_scratch* state, size_t first, size_t count,
                      size_t seg_blocks, void* dst, size_t dst_bytes, uint64_t* bits,
                      uint32_t* seg_bits, parz_error* err);
} parz_scratch_codec;

typedef struct parz_codec {
  unsigned id;      /* the header's codec field: PARZ_CODEC_* */
  unsigned version; /* the newest version of it this reader decodes (and the one written) */
  const char* name;
  /* Nonzero when the codec carries every bit pattern of every value: the frame then takes no
   * value out of its payload (no exception, no mask), and the parser refuses a chunk of it that
   * holds either. */
  int exact;
  /* Nonzero when the codec's encoder (encode_segments, or a scratch codec's forward pass) reads
   * contiguous arrays only: the frame hands it a contiguous copy of a strided one. */
  int contiguous;
  /* The C a configuration's 0 (auto) gives a codec whose segments' bytes depend on C (each
   * segment coded as a whole): it is fixed before encoding. 0: the frame's auto C, chosen once
   * the payload is encoded, for codecs whose blocks' bits do not depend on C. */
  unsigned segment_blocks;
  /* The block's values along each dimension of v's array (v->array and v->codec_params set):
   * the blocks of an extent n are ceil(n / side[k]), numbered in C order of that grid; side[k]
   * is 1 from the rank on. */
  void (*block_sides)(const parz_chunk_view* v, uint32_t side[4]);
  /* The header's codec parameters (v->codec_params) read: what the codec keeps of them in
   * v->params and checked; PARZ_OK, or an error naming them (err may be NULL). */
  int (*read_params)(parz_chunk_view* v, parz_error* err);
  /* Encoders: the codec parameters that the configuration gives arrays of v's type and rank,
   * written into v->codec_params and read as read_params does; PARZ_OK or PARZ_ERR_PARAM naming
   * the value refused. */
  int (*configure)(const parz_chunk_config* cfg, parz_chunk_view* v, parz_error* err);
  /* Encoders, once the values to encode are known (a: v's array, maybe strided, or the cleaned
   * copy): the choices that depend on them written into v->codec_params, the codec data section,
   * *data (malloc'd, v->codec_data_bytes bytes, a multiple of 8; NULL and 0 for none), and the
   * segments the choice coded under them, *kept (its pointers malloc'd; left empty for none);
   * its reads and codings may be cut into parts on jobs (NULL: none), with the same outcome.
   * NULL: no such choice. */
  int (*prepare)(parz_chunk_view* v, const parz_array* a, const void* values, const parz_jobs* jobs,
                 unsigned char** data, parz_kept_segments* kept, parz_error* err);
  /* Whether every block takes the same number of bits (a table of kind NONE serves). */
  int (*fixed_length)(const parz_params* p);
  /* The codec's rules for a chunk's header beyond the frame's, once the frame has read its
   * array, parameters, table fields and section sizes (v->codec_data: the codec data section,
   * which only a codec with this check may accept); may set nblocks and nsegments. NULL: none. */
  int (*check)(parz_chunk_view* v, parz_error* err);

  /* Stream codecs. The most bits one block of the type and rank takes under p. */
  unsigned (*block_bits_bound)(parz_type type, unsigned dims, const parz_params* p);
  /* The most bytes a stream of `blocks` blocks takes (whole 64-bit words); 0 when too large. */
  size_t (*stream_bound)(parz_type type, unsigned dims, const parz_params* p, size_t blocks);
  /* Whether p can be encoded for the type and rank: PARZ_OK or an error naming the value. */
  int (*check_encode)(const parz_params* p, parz_type type, unsigned dims, parz_error* err);
  /* Encodes blocks [first, first + count) of a (the chunk v's values) into dst: *bits the
   * stream's length, seg_bits one entry per run of seg_blocks blocks (the last may be shorter),
   * its bits capped at UINT32_MAX. PARZ_ERR_BUFFER when dst_bytes is too small. */
  int (*encode_segments)(const parz_array* a, const void* data, const parz_chunk_view* v,
                         size_t first, size_t count, size_t seg_blocks, void* dst, size_t dst_bytes,
                         uint64_t* bits, uint32_t* seg_bits, parz_error* err);
  /* Decodes a run of segments; the first segment that does not end where run->ends says sets
   * *bad = its index in the run and *bad_end = where it ended, and decoding stops there
   * (PARZ_OK; *bad = SIZE_MAX when all do). */
  int (*decode_segments)(const parz_segment_run* run, size_t* bad, uint64_t* bad_end,
                         parz_error* err);

  /* Direct codecs. Stores the values of segments [first, first + count) that lie in d's window
   * at their places, reading nothing outside the payload. */
  void (*decode_to)(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t first,
                    uint64_t count);
  /* Whether segments [first, first + count) hold a value of d's window. */
  int (*meets)(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t first, uint64_t count);

  /* The modes a user chooses the codec's parameters by (codec_modes.h); NULL for a codec no
   * encoder is asked for (stored). */
  const struct parz_codec_modes* modes;
  /* Exceptions (exceptions.h): the values of an array of the type and rank that the codec cannot
   * carry under p (*rule, which the frame starts as parz_nonfinite_rule: NaN and the infinities
   * are exceptions under every codec), and those that put their block at risk of missing the
   * absolute bound p promises (*high, which the frame starts as none). NULL: the frame's rules
   * alone. */
  void (*exception_rules)(parz_type type, unsigned dims, const parz_params* p,
                          parz_exception_rule* rule, parz_exception_rule* high);
  /* The check of the blocks at risk (high), for codecs that set it: appends to *found (malloc'd,
   * *nfound of them) the bit patterns that blocks [0, nblocks) of the cleaned copy of a (`whole`
   * its shape; pal the palette whose holes they leave) give up so that the bound holds; with
   * `all` every pattern at risk, unchecked. The blocks may be cut into parts on jobs. */
  int (*check_bound)(const struct parz_mask_palette* pal, const parz_array* a, const void* data,
                     const parz_array* whole, const void* cleaned, const parz_params* p, int all,
                     const parz_jobs* jobs, uint64_t** found, size_t* nfound, parz_error* err);
  /* Stream codecs: the fewest bits any block of a stream takes, which bounds the array a small
   * payload may claim to decode to (0: no such bound). */
  unsigned min_block_bits;

  /* Scratch codecs: their entries (below); NULL for the others. */
  const struct parz_scratch_codec* scratch;
} parz_codec;

/* The codecs this library reads and writes, by the header's codec id: a table fixed at link
 * time, never changed at run time, so any number of threads and plugins share it. It is defined
 * alone in codec_table.c (zfp, stored, bounded), so a program that defines parz_codec_table and
 * parz_codec_count itself (tests/codec_raw/codec_table.c) gets its own table instead: the
 * linker takes an archive member only for a symbol still undefined, and never takes that one. */
extern const parz_codec* const parz_codec_table[];
extern const unsigned parz_codec_count;

/* The codec of that id, or NULL when this reader knows none. */
const parz_codec* parz_codec_find(unsigned id);

/* The codecs this reader knows, for messages: "1 (zfp), 2 (stored)", cut to `bytes`. */
void parz_codec_names(char* out, size_t bytes);

/* The codec parameters of the codecs that take zfp's four (zfp, stored): minbits, maxbits,
 * maxprec, minexp, each a little-endian 32-bit field (minexp two's complement). Inline, so that
 * a codec's entry uses them without calling into the frame. */
static inline void parz_codec_params_put4(unsigned char* bytes, const parz_params* p) {
  parz_store32(bytes, p->minbits);
  parz_store32(bytes + 4, p->maxbits);
  parz_store32(bytes + 8, p->maxprec);
  parz_store32(bytes + 12, (uint32_t)p->minexp);
}
static inline void parz_codec_params_get4(const unsigned char* bytes, parz_params* p) {
  p->minbits = parz_load32(bytes);
  p->maxbits = parz_load32(bytes + 4);
  p->maxprec = parz_load32(bytes + 8);
  p->minexp = (int32_t)parz_load32(bytes + 12);
}

/* Blocks of `side` values along every dimension of v's array (side^d values). */
static inline void parz_block_sides_cube(const parz_chunk_view* v, unsigned side, uint32_t out[4]) {
  unsigned k;
  for (k = 0; k < 4; k++)
    out[k] = k < v->array.dims ? side : 1u;
}

/* The codecs of this library (zfp/, stored/, lossless/, bounded/). */
extern const parz_codec parz_codec_zfp;
extern const parz_codec parz_codec_stored;
extern const parz_codec parz_codec_lossless;
extern const parz_codec parz_codec_bounded;

#ifdef __cplusplus
}
#endif

#endif
