/* A chunk's codebook read straight into its decoder (internal to the error-bounded codec's
 * decoders, host code). */
#ifndef PARZ_BOUNDED_BOOK_READ_H
#define PARZ_BOUNDED_BOOK_READ_H

#include "bounded.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The decoder of the serialized codebook in[0..size), read into its tables with
 * parz_bounded_book_read's checks, the alphabet's lengths never laid out; refused too when the
 * codebook ends before size or, with runs 0, codes a run symbol. PARZ_OK with *out to free, or
 * an error with *out NULL. */
int parz_bounded_decoder_read(const uint8_t* in, size_t size, int runs, parz_bounded_decoder** out,
                              parz_error* err);

#ifdef __cplusplus
}
#endif

#endif
