/* The table of this library's codecs (codecs.h). Nothing else lives in this file: a program
 * that defines the table itself (a test's own codecs) links instead of this file. */
#include "codecs.h"

const parz_codec* const parz_codec_table[] = {&parz_codec_zfp, &parz_codec_stored,
                                              &parz_codec_lossless, &parz_codec_bounded};
const unsigned parz_codec_count = sizeof parz_codec_table / sizeof parz_codec_table[0];
