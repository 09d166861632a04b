/* The lossless codec's value dictionary (internal): transform PARZ_LL_DICTIONARY, for series
 * whose values repeat (a sensor's few levels). The chunk's distinct values, as the integers u of
 * transform 0 (transform.h), ascending as unsigned w-bit integers, make the dictionary; each
 * value is coded as its rank there, a w-bit integer that the predictor and the residual coder
 * then take as they take an int32 or int64 array.
 *
 * The dictionary is the chunk's codec data section (FORMAT.md, "Lossless chunks"):
 *
 *     u64 D        distinct values, 1..the chunk's count of values
 *     u64 B        bytes of the coded list, >= 1
 *     u8  list[B]  the D words u_0, u_1 - u_0, ..., u_(D-1) - u_(D-2) through the residual coder
 *                  (residual_coder.h), as one segment of D residuals
 *     zero bytes up to a multiple of 8: 16 + pad8(B) bytes in all
 *
 * Every difference is 1 or more and the sum never passes 2^w - 1 (strictly ascending). */
#ifndef PARZ_LL_DICTIONARY_H
#define PARZ_LL_DICTIONARY_H

#include <stddef.h>
#include <stdint.h>

#include "parz.h"

/* The transform byte of a dictionary chunk. */
#define PARZ_LL_DICTIONARY 128u

/* The distinct u of the n values (type's transform 0), ascending, into a new array *sorted
 * (free it) of *count words; PARZ_OK or PARZ_ERR_NOMEM. */
int parz_ll_dict_build(parz_type type, const void* values, size_t n, uint64_t** sorted,
                       size_t* count, parz_error* err);

/* The codec data of a dictionary of count words (w bits): its size (NULL out), or written into
 * out. */
size_t parz_ll_dict_write(const uint64_t* sorted, size_t count, unsigned w, uint8_t* out);

/* Reads the codec data (bytes long) of a dictionary of at most max_count words of w bits into a
 * new array *sorted (free it; NULL sorted: checks only) of *count words; PARZ_ERR_FORMAT naming
 * what is wrong. */
int parz_ll_dict_read(const uint8_t* data, size_t bytes, unsigned w, size_t max_count,
                      uint64_t** sorted, size_t* count, parz_error* err);

/* The ranks of values [at, at + n) in the dictionary (every value is there), as the w-bit
 * integers of an int32 or int64 array, into ranks. */
void parz_ll_dict_ranks(parz_type type, const void* values, size_t at, size_t n,
                        const uint64_t* sorted, size_t count, void* ranks);

#endif
