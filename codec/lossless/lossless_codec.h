/* The lossless codec as an entry of the table of codecs (lossless_codec.c) and its modes
 * (lossless_modes.c): what the codec's folder shares between those two files. */
#ifndef PARZ_LOSSLESS_CODEC_H
#define PARZ_LOSSLESS_CODEC_H

#include "codec_modes.h"

/* Where the codec parameters sit among the header's 16 bytes (FORMAT.md, "Lossless chunks"):
 * the value transform, the predictor, Holt's two gains (0 for the other predictors), then
 * zeros. */
#define PARZ_LL_PARAM_TRANSFORM 0
#define PARZ_LL_PARAM_PREDICTOR 1
#define PARZ_LL_PARAM_ALPHA 2
#define PARZ_LL_PARAM_BETA 3
#define PARZ_LL_PARAM_RESERVED 4

extern const parz_codec_modes parz_lossless_modes;

#endif
