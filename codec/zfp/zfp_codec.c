/* zfp's entry in the codec registry (codecs.h): blocks of 4^d values, its parameters and the
 * bounds they give, and its coders of runs of segments. The payload is a libzfp stream. */
#include "codec_modes.h"
#include "codecs.h"
#include "decode_segments.h"
#include "encode_segments.h"

static int read_params(parz_params* p, uint32_t minbits, uint32_t maxbits, uint32_t maxprec,
                       int32_t minexp, parz_error* err) {
  return parz_params_expert(p, minbits, maxbits, maxprec, minexp, err);
}

const parz_codec parz_codec_zfp = {
    PARZ_CODEC_ZFP,           /* id */
    1,                        /* version */
    "zfp",                    /* name */
    4,                        /* block_side */
    read_params,              /* read_params */
    parz_params_fixed_rate,   /* fixed_length */
    NULL,                     /* check: zfp's parameters are read_params' */
    parz_block_max_bits,      /* block_bits_bound */
    parz_stream_bound,        /* stream_bound */
    parz_params_check_encode, /* check_encode */
    parz_encode_segments,     /* encode_segments */
    parz_decode_segments,     /* decode_segments */
    NULL,                     /* decode_to: a stream codec */
    NULL,                     /* meets */
    &parz_zfp_modes           /* modes */
};
