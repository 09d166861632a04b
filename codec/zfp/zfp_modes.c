/* zfp's modes (codec_modes.h), numbered as H5Z-ZFP numbers them, and the parameters each gives:
 * zfp 1.0's mode setters (params.c). */
#include "codec_modes.h"

static int rate(parz_chunk_config* c, const uint32_t* w, parz_type type, unsigned dims,
                parz_error* err) {
  return parz_params_rate(&c->params, parz_mode_double(w[0], w[1]), type, dims, NULL, err);
}

static int precision(parz_chunk_config* c, const uint32_t* w, parz_type type, unsigned dims,
                     parz_error* err) {
  (void)type;
  (void)dims;
  return parz_params_precision(&c->params, w[0], err);
}

static int accuracy(parz_chunk_config* c, const uint32_t* w, parz_type type, unsigned dims,
                    parz_error* err) {
  (void)dims;
  if (type != PARZ_FLOAT && type != PARZ_DOUBLE)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: accuracy mode needs floating-point data; for %s datasets use "
                     "precision, rate or reversible mode",
                     parz_type_name(type));
  return parz_params_accuracy(&c->params, parz_mode_double(w[0], w[1]), NULL, err);
}

/* zfp's rules plus a cap on minbits. zfp pads every block to minbits bits, so minbits above the
 * largest block any type and rank can produce (PARZ_MAX_BITS, the cap rate mode has too) only
 * adds zeros, and a hostile or mistyped value would make a 16-byte block take half a gigabyte:
 * the chunk bound (and the allocation made for encoding) must stay proportional to the chunk. */
static int stored(parz_chunk_config* c, const uint32_t w[4], parz_error* err) {
  if (w[0] > PARZ_MAX_BITS)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: expert minbits %u above the maximum %u (bits no block can use)",
                     (unsigned)w[0], PARZ_MAX_BITS);
  return parz_params_expert(&c->params, w[0], w[1], w[2], (int32_t)w[3], err);
}

/* What an internal form keeps: the four parameters. */
static void keep(const parz_chunk_config* c, uint32_t w[4]) {
  parz_mode_params_words(&c->params, w);
}

static int expert(parz_chunk_config* c, const uint32_t* w, parz_type type, unsigned dims,
                  parz_error* err) {
  (void)type;
  (void)dims;
  return stored(c, w, err);
}

static int reversible(parz_chunk_config* c, const uint32_t* w, parz_type type, unsigned dims,
                      parz_error* err) {
  (void)w;
  (void)type;
  (void)dims;
  (void)err;
  parz_params_reversible(&c->params);
  return PARZ_OK;
}

static unsigned mode_of(const parz_chunk_view* v) { return (unsigned)parz_params_mode(&v->params); }

/* clang-format off */
static const parz_codec_mode modes[] = {
  {PARZ_MODE_RATE,       "rate",       "d",    "",  "bits per value (fixed rate)",                0, rate},
  {PARZ_MODE_PRECISION,  "precision",  "u",    "",  "bit planes, 1..64",                          0, precision},
  {PARZ_MODE_ACCURACY,   "accuracy",   "d",    "",  "absolute error bound (floating-point data)", 0, accuracy},
  {PARZ_MODE_EXPERT,     "expert",     "uuui", "minbits,maxbits,maxprec,minexp",
                                                    "zfp's parameters",                           0, expert},
  {PARZ_MODE_REVERSIBLE, "reversible", "",     "",  "lossless",                                   1, reversible},
};
/* clang-format on */

const parz_codec_modes parz_zfp_modes = {
    modes, sizeof modes / sizeof modes[0], stored, keep, mode_of, NULL};
