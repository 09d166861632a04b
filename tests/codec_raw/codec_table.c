/* The codec table of test_codec_raw: the library's codecs and the raw one. Defining
 * parz_codec_table here keeps the library's codec_table.o out of the link (codecs.h), so the
 * library's frame and drivers, unchanged, read and write codec 200 in this program only. */
#include "raw_codec.h"

const parz_codec* const parz_codec_table[] = {&parz_codec_zfp, &parz_codec_stored, &parz_codec_raw};
const unsigned parz_codec_count = sizeof parz_codec_table / sizeof parz_codec_table[0];
