/* The raw copy codec of the tests (raw_codec.c): not part of the library. */
#ifndef PARZ_TEST_RAW_CODEC_H
#define PARZ_TEST_RAW_CODEC_H

#include "codecs.h"

/* An id no chunk format version gives a codec. */
#define PARZ_CODEC_RAW 200u

extern const parz_codec parz_codec_raw;

#endif
