/* zfp's entry in the codec registry (codecs.h): blocks of 4^d values, its parameters and the
 * bounds they give, its coders of runs of segments, the values it cannot code within a mode and
 * its check of the accuracy bound. The payload is a libzfp stream. */
#include "codec_modes.h"
#include "codecs.h"
#include "decode_segments.h"
#include "encode_segments.h"
#include "risk.h"
#include "zfp_rules.h"

static int read_params(parz_params* p, uint32_t minbits, uint32_t maxbits, uint32_t maxprec,
                       int32_t minexp, parz_error* err) {
  return parz_params_expert(p, minbits, maxbits, maxprec, minexp, err);
}

static void exception_rules(parz_type type, unsigned dims, const parz_params* p,
                            parz_exception_rule* rule, parz_exception_rule* high) {
  *rule = parz_exception_rule_of(type, p);
  *high = parz_risk_rule_of(type, dims, p, parz_params_bounded(p, type, dims));
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
    &parz_zfp_modes,          /* modes */
    exception_rules,          /* exception_rules */
    parz_risk_find,           /* check_bound */
    1                         /* min_block_bits: a block's one bit says it is all zero */
};
