/* zfp's entry in the codec registry (codecs.h): blocks of 4^d values, its parameters and the
 * bounds they give, its coders of runs of segments, the values it cannot code within a mode and
 * its check of the accuracy bound. The payload is a libzfp stream. */
#include "codec_modes.h"
#include "codecs.h"
#include "decode_segments.h"
#include "encode_segments.h"
#include "risk.h"
#include "zfp_rules.h"

static void block_sides(const parz_chunk_view* v, uint32_t side[4]) {
  parz_block_sides_cube(v, 4, side);
}

/* The header's codec parameters are zfp's four, validated as zfp_stream_set_params does. */
static int read_params(parz_chunk_view* v, parz_error* err) {
  parz_params p;
  parz_codec_params_get4(v->codec_params, &p);
  return parz_params_expert(&v->params, p.minbits, p.maxbits, p.maxprec, p.minexp, err);
}

static int configure(const parz_chunk_config* cfg, parz_chunk_view* v, parz_error* err) {
  const parz_params* p = &cfg->params;
  int rc = parz_params_expert(&v->params, p->minbits, p->maxbits, p->maxprec, p->minexp, err);
  parz_codec_params_put4(v->codec_params, &v->params);
  return rc;
}

static int encode_segments(const parz_array* a, const void* data, const parz_chunk_view* v,
                           size_t first, size_t count, size_t seg_blocks, void* dst,
                           size_t dst_bytes, uint64_t* bits, uint32_t* seg_bits, parz_error* err) {
  return parz_encode_segments(a, data, &v->params, first, count, seg_blocks, dst, dst_bytes, bits,
                              seg_bits, err);
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
    0,                        /* exact: lossy modes, NaN and infinities kept apart */
    0,                        /* contiguous: reads strided arrays */
    0,                        /* segment_blocks: auto C */
    block_sides,              /* block_sides: 4^d values */
    read_params,              /* read_params */
    configure,                /* configure */
    NULL,                     /* prepare: the parameters alone */
    parz_params_fixed_rate,   /* fixed_length */
    NULL,                     /* check: zfp's parameters are read_params' */
    parz_block_max_bits,      /* block_bits_bound */
    parz_stream_bound,        /* stream_bound */
    parz_params_check_encode, /* check_encode */
    encode_segments,          /* encode_segments */
    parz_decode_segments,     /* decode_segments */
    NULL,                     /* decode_to: a stream codec */
    NULL,                     /* meets */
    &parz_zfp_modes,          /* modes */
    exception_rules,          /* exception_rules */
    parz_risk_find,           /* check_bound */
    1,                        /* min_block_bits: a block's one bit says it is all zero */
    NULL                      /* scratch: a stream codec */
};
