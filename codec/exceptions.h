/* Non-finite exceptions (internal). zfp cannot carry NaN or Inf through its lossy modes, so the
 * encoder replaces each one by a finite stand-in, encodes that "cleaned" array (the payload stays
 * a plain libzfp stream), and keeps the exact bit patterns beside the payload as records:
 *   u64 position (C-order index of the value in the chunk's array), u64 bit pattern
 *   (binary32: in the low 32 bits, the high 32 bits zero), both little-endian.
 * Positions are strictly increasing; integer arrays never have exceptions. */
#ifndef PARZ_EXCEPTIONS_H
#define PARZ_EXCEPTIONS_H

#include "parz_chunk.h"

#define PARZ_EXCEPTION_BYTES 16u

/* Number of NaN and Inf values in the (possibly strided) array; 0 for integer types. Reads the
 * array once and allocates nothing. */
uint64_t parz_exceptions_count(const parz_array* a, const void* data);

/* Copies the array into `cleaned` (contiguous C order, parz_array_count(a) values), replacing
 * every non-finite value by the mean of the finite values of its 4^d block (0 when the block has
 * none), and writes one record per non-finite value into `records` (n records, n from
 * parz_exceptions_count). Deterministic, so every driver encodes the same cleaned array. */
void parz_exceptions_clean(const parz_array* a, const void* data, void* cleaned,
                           unsigned char* records);

/* Checks v->exceptions: positions strictly increasing and inside the array, bit patterns
 * non-finite values of the chunk's type. O(nexceptions). */
int parz_exceptions_validate(const parz_chunk_view* v, parz_error* err);

#endif
