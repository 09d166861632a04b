/* The parser's validation of a mask section (internal to the codec; codec/FORMAT.md, "Mask"). */
#ifndef PARZ_MASK_PARSE_H
#define PARZ_MASK_PARSE_H

#include "parz_chunk.h"

/* Validates the mask section of `bytes` bytes at s against the chunk v describes (shape and
 * type) and sets v->mask. O(bytes). */
int parz_mask_parse(parz_chunk_view* v, const unsigned char* s, uint64_t bytes, parz_error* err);

#endif
