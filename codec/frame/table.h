/* The offset table of a chunk (internal to the codec library). Every function takes the chunk's
 * view, whose layout fields (table, length_bytes, segment_blocks, partition_segments, nblocks,
 * params) say how the table is shaped; codec/FORMAT.md gives the byte layout. */
#ifndef PARZ_TABLE_H
#define PARZ_TABLE_H

#include "parz_chunk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sane upper limits for C and P. 65536 keeps C * (worst block) below 2^32 for every type and
 * rank, so a 32-bit length field can never overflow. */
#define PARZ_MAX_SEGMENT_BLOCKS 65536u
#define PARZ_MAX_PARTITION_SEGMENTS 65536u

/* Width in bytes of a segment length field for segments of at most max_segment_bits bits:
 * 2 when it fits in 16 bits, else 4. */
unsigned parz_table_length_width(uint64_t max_segment_bits);

/* From v->table, v->length_bytes, v->segment_blocks, v->partition_segments and v->nblocks,
 * checks the layout and fills v->nsegments, v->npartitions and v->table_bytes (overflow-checked:
 * PARZ_ERR_FORMAT when the sizes do not fit in memory). */
int parz_table_layout(parz_chunk_view* v, parz_error* err);

/* Writes the table (v->table_bytes bytes, padding zeroed) for segments made of `per` units
 * each, unit u being unit_bits[u] bits long (nunits in all; the last segment may have fewer):
 * the encoder's units are its segments, or single blocks with auto C. PARZ_ERR_PARAM if a
 * length does not fit its field (never silently truncated). */
int parz_table_write(const parz_chunk_view* v, const uint32_t* unit_bits, uint64_t per,
                     uint64_t nunits, unsigned char* dst, parz_error* err);

/* Checks v->table_data against v->payload_bits: offsets start at 0 and are monotone, each
 * partition's lengths sum exactly to the next partition's offset, the last segment ends exactly
 * at payload_bits, padding is zero. O(table). */
int parz_table_validate(const parz_chunk_view* v, parz_error* err);

/* Length in bits of segment s < v->nsegments, O(1). Only for validated views. */
uint64_t parz_table_segment_bits(const parz_chunk_view* v, uint64_t s);

/* ---- Chunk layout shared by the parser (chunk_parse.c) and the encoder (chunk_encode.c) ---- */

/* Size of the fixed header in bytes (every format version). */
#define PARZ_HEADER_BYTES 112u
/* Format version 2 lists its optional sections in a directory after the header: 16 bytes per
 * entry (u16 kind, u16 flags, u32 reserved, u64 bytes), kinds strictly increasing. */
#define PARZ_SECTION_ENTRY_BYTES 16u
#define PARZ_MAX_SECTIONS 16u
#define PARZ_SECTION_REQUIRED 1u    /* flag: a reader that does not know the kind must refuse */
#define PARZ_SECTION_CHECKSUMS 1u   /* kind: payload checksums */
#define PARZ_SECTION_MASK 2u        /* kind: masked values (required) */
#define PARZ_SECTION_CODEC_DATA 3u  /* kind: bytes the chunk's codec defines (required) */
#define PARZ_CHECKSUM_HEAD_BYTES 8u /* the checksum section's own header: u32 P, u32 reserved */

/* Byte offsets, from the start of the chunk, of the sections of a layout (v's version, table
 * bytes, exceptions, checksums, mask and codec data): where the table, exceptions, checksum
 * values, mask section, codec data section and payload start. Sections of kinds this codec does
 * not write are not part of a layout. */
typedef struct {
  size_t table, exceptions, checksums, mask, payload, codec_data;
} parz_chunk_offsets;
void parz_chunk_section_offsets(const parz_chunk_view* v, parz_chunk_offsets* o);

/* Fills v's array (contiguous copy of a's type and shape), params, table kind (AUTO resolved),
 * C, P, length width, nblocks, nsegments, npartitions and table_bytes from an array and a
 * configuration, validating both (PARZ_ERR_ARG/DIMS/TYPE/PARAM). */
int parz_chunk_layout(parz_chunk_view* v, const parz_array* a, const parz_chunk_config* cfg,
                      parz_error* err);

/* v's layout again once the codec's choices from the values (prepare) are in its codec
 * parameters, which may cut other blocks (the lossless codec's row predictor): the block sides,
 * nblocks and what follows from them (nsegments, npartitions, table_bytes, nchecksums); the table
 * kind, C, P and the length width stay. */
int parz_chunk_recut(parz_chunk_view* v, parz_error* err);

/* Whether a layout (from parz_chunk_layout with C = 0) gets its C from
 * parz_chunk_layout_auto: variable-rate parameters with a table. */
int parz_chunk_auto_c(const parz_chunk_view* v);

/* Auto C: the layout of parz_chunk_layout with the smallest power of two C up to
 * PARZ_AUTO_MAX_SEGMENT_BLOCKS whose table takes at most 1 / PARZ_AUTO_TABLE_SHARE of a payload
 * of payload_bytes (or, when none does, the smallest table among them). Smaller segments decode
 * faster on the GPU (gpu/README.md); the table pays for them. The cap bounds the GPU's serial
 * walk of a segment, at least one step per block, in chunks that compress so well that only a
 * huge C would bring their table under the share (FORMAT.md, "Defaults"). */
#define PARZ_AUTO_TABLE_SHARE 50u
#define PARZ_AUTO_MAX_SEGMENT_BLOCKS 32u
int parz_chunk_layout_auto(parz_chunk_view* v, const parz_array* a, const parz_chunk_config* cfg,
                           uint64_t payload_bytes, parz_error* err);

/* The layout of a chunk whose payload is encoded (payload_bits bits) with nexceptions
 * exception records and a mask section of mask_bytes (0: none), its codec parameters
 * codec_params as the encoder chose them (NULL: the configuration's), its blocks cut under them:
 * parz_chunk_layout's, or with
 * auto C (cfg C = 0, parz_chunk_auto_c) the one parz_chunk_layout_auto picks for this payload;
 * payload, exception and mask sizes filled, the format version at least `version` (2 where the
 * exceptions or a mask need it, parz_exceptions_v1). Every encoder (serial, OpenMP, GPU) settles
 * its chunks here, so they agree on C. */
int parz_chunk_settle(parz_chunk_view* v, const parz_array* a, const parz_chunk_config* cfg,
                      const unsigned char* codec_params, uint64_t payload_bits,
                      uint64_t nexceptions, size_t mask_bytes, unsigned version, parz_error* err);

/* Bytes in front of the payload: header, section directory, table, exceptions, checksums. */
size_t parz_chunk_head_bytes(const parz_chunk_view* v);

/* Writes the header of v (sizes from v's table_bytes, nexceptions, payload_bytes, payload_bits)
 * without its checksum field, then (version 2) the section directory and the checksum
 * section's own header; the table, exceptions, checksum values and mask section are the
 * caller's. */
void parz_chunk_header_write(const parz_chunk_view* v, unsigned char* dst);
/* The same parts apart, for an encoder that lays the head out itself (the GPU's): the header and
 * the directory into front (the section offsets' `table` bytes), and, with checksums, the
 * checksum section's own header into sums_head (PARZ_CHECKSUM_HEAD_BYTES). */
void parz_chunk_head_fixed(const parz_chunk_view* v, unsigned char* front,
                           unsigned char* sums_head);

/* Stores the CRC-32C of dst[0..head_bytes) (all in front of the payload) into the header. */
void parz_chunk_header_seal(unsigned char* dst, size_t head_bytes);

/* Checksum of payload bits [begin, end) (payload_checksum.h); begin < end. */
uint64_t parz_payload_checksum(const unsigned char* payload, uint64_t begin, uint64_t end);

#ifdef __cplusplus
}
#endif

#endif
