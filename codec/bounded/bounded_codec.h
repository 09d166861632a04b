/* The error-bounded codec as an entry of the table of codecs (bounded_codec.c) and its modes
 * (bounded_modes.c): what the codec's folder shares between those two files. */
#ifndef PARZ_BOUNDED_CODEC_H
#define PARZ_BOUNDED_CODEC_H

#include "codec_modes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Codes per segment when the configuration leaves C to the codec: a table entry of 4 bytes per
 * 4096 codes is 0.1% of a payload at 1 bit per code, and 4096 codes decode in microseconds. */
#define PARZ_BOUNDED_SEGMENT_CODES 4096u

/* The bound a chunk's codec parameters promise. */
double parz_bounded_params_eb(const unsigned char* params);

extern const parz_codec_modes parz_bounded_modes;

#ifdef __cplusplus
}
#endif

#endif
