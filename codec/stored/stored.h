/* Stored chunks (internal): codec 2 of the chunk format, the chunk's values as they are
 * (codec/FORMAT.md, "Stored chunks"). A writer stores a chunk so when zfp's chunk of the same
 * values would be larger, so that no chunk is ever much larger than its values; the frame is the
 * one every chunk has (header, directory, payload checksums), and a stored chunk's "block" is one
 * value, so that segments, partitions and their checksums are those of a NONE table. */
#ifndef PARZ_STORED_H
#define PARZ_STORED_H

#include "parz_chunk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values per segment in the stored chunks this library writes: a decode work unit of 16 KiB of
 * float32, and a checksummed partition (64 segments) of 1 MiB. Readers take any C. */
#define PARZ_STORED_SEGMENT_VALUES 4096u

/* The layout of the stored chunk of an array of a's type and shape under cfg (only its checksum
 * setting counts). */
int parz_stored_layout(parz_chunk_view* v, const parz_array* a, const parz_chunk_config* cfg,
                       parz_error* err);

/* The size of that chunk; 0 for an invalid array or configuration. */
size_t parz_stored_bytes(const parz_array* a, const parz_chunk_config* cfg);

/* Writes the stored chunk of the (possibly strided) array into dst: PARZ_ERR_BUFFER, writing
 * nothing, when dst_bytes is less than parz_stored_bytes. */
int parz_stored_encode(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                       void* dst, size_t dst_bytes, size_t* written, parz_error* err);

/* The header rules of a stored chunk beyond those every chunk obeys (FORMAT.md, "Validation"),
 * on a view whose array, parameters, table fields and section sizes are read: PARZ_ERR_FORMAT
 * naming the field that breaks them. Sets nblocks and nsegments. */
int parz_stored_check(parz_chunk_view* v, parz_error* err);

/* Stores the values of segments [first, first + count) that lie in d's window (checked by the
 * caller) at their places. Reads nothing outside the payload. */
void parz_stored_decode_to(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t first,
                           uint64_t count);

/* Whether segments [first, first + count) hold a value of d's window. */
int parz_stored_meets(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t first,
                      uint64_t count);

#ifdef __cplusplus
}
#endif

#endif
