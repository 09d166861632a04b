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

/* Writes the table (v->table_bytes bytes, padding zeroed) for segments of seg_bits[s] bits.
 * PARZ_ERR_PARAM if a length does not fit its field (never silently truncated). */
int parz_table_write(const parz_chunk_view* v, const uint64_t* seg_bits, unsigned char* dst,
                     parz_error* err);

/* Checks v->table_data against v->payload_bits: offsets start at 0 and are monotone, each
 * partition's lengths sum exactly to the next partition's offset, the last segment ends exactly
 * at payload_bits, padding is zero. O(table). */
int parz_table_validate(const parz_chunk_view* v, parz_error* err);

/* Length in bits of segment s < v->nsegments, O(1). Only for validated views. */
uint64_t parz_table_segment_bits(const parz_chunk_view* v, uint64_t s);

/* ---- Chunk layout shared by the parser (chunk.c) and the encoder (chunk_encode.c) ---- */

/* Size of the fixed header in bytes (format version 1). */
#define PARZ_HEADER_BYTES 112u

/* Fills v's array (contiguous copy of a's type and shape), params, table kind (AUTO resolved),
 * C, P, length width, nblocks, nsegments, npartitions and table_bytes from an array and a
 * configuration, validating both (PARZ_ERR_ARG/DIMS/TYPE/PARAM). */
int parz_chunk_layout(parz_chunk_view* v, const parz_array* a, const parz_chunk_config* cfg,
                      parz_error* err);

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
 * exception records: parz_chunk_layout's, or with auto C (cfg C = 0, parz_chunk_auto_c) the one
 * parz_chunk_layout_auto picks for this payload; payload and exception fields filled. Every
 * encoder (serial, OpenMP, GPU) settles its chunks here, so they agree on C. */
int parz_chunk_settle(parz_chunk_view* v, const parz_array* a, const parz_chunk_config* cfg,
                      uint64_t payload_bits, uint64_t nexceptions, parz_error* err);

/* Bytes before the payload: header, table and exception records. */
size_t parz_chunk_head_bytes(const parz_chunk_view* v);

/* Writes the PARZ_HEADER_BYTES header of v (sizes from v's table_bytes, nexceptions,
 * payload_bytes, payload_bits) without its checksum field. */
void parz_chunk_header_write(const parz_chunk_view* v, unsigned char* dst);

/* Stores the checksum of dst[0..head_bytes) (header, table, exceptions) into the header. */
void parz_chunk_header_seal(unsigned char* dst, size_t head_bytes);

#ifdef __cplusplus
}
#endif

#endif
