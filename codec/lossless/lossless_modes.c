/* The lossless codec's modes (codec_modes.h): its predictors, numbered 1 (lorenzo) and 2
 * (stack) in cd_values, neither with a value, so that Parz(codec="lossless") names the first.
 * The filter's internal form keeps the predictor and three zero words. */
#include "lossless_codec.h"

#include <stdio.h>

#include "dictionary.h"
#include "lossless.h"
#include "table_endian.h"
#include "transform.h"

static int lorenzo_params(parz_chunk_config* c, const uint32_t* words, parz_type type,
                          unsigned dims, parz_error* err) {
  (void)words;
  (void)type;
  (void)dims;
  (void)err;
  c->settings.predictor = PARZ_LL_PREDICT_ALL;
  return PARZ_OK;
}

static int stack_params(parz_chunk_config* c, const uint32_t* words, parz_type type, unsigned dims,
                        parz_error* err) {
  (void)words;
  (void)type;
  (void)dims;
  (void)err;
  c->settings.predictor = PARZ_LL_PREDICT_STACK;
  return PARZ_OK;
}

/* An internal form keeps the predictor, then three zero words. */
static int stored_settings(parz_chunk_config* c, const uint32_t words[4], parz_error* err) {
  if (words[0] > PARZ_LL_PREDICT_STACK || words[1] || words[2] || words[3])
    return parz_fail(
        err, PARZ_ERR_PARAM, "parz: lossless settings %u %u %u %u (predictor 0 or 1, then 0 0 0)",
        (unsigned)words[0], (unsigned)words[1], (unsigned)words[2], (unsigned)words[3]);
  c->settings.predictor = words[0];
  return PARZ_OK;
}

static void keep(const parz_chunk_config* c, uint32_t words[4]) {
  words[0] = c->settings.predictor;
  words[1] = words[2] = words[3] = 0;
}

/* Holt's predictor (for series) and the row predictor (for more dimensions) are the encoder's
 * choices under mode lorenzo. */
static unsigned mode_of(const parz_chunk_view* v) {
  const unsigned p = v->codec_params[PARZ_LL_PARAM_PREDICTOR];
  return p == PARZ_LL_PREDICT_HOLT || p == PARZ_LL_PREDICT_ROWS ? 1u : p + 1u;
}

/* clang-format off */
static const parz_codec_mode modes[] = {
  {1, "lorenzo", "", "", "exact; Lorenzo prediction over every dimension (Holt's for a series, along rows for independent rows, where it stores less)", 1, lorenzo_params},
  {2, "stack",   "", "", "exact; a 4D array as a stack of 3D fields (ensemble members)", 1, stack_params},
};
/* clang-format on */

/* The transform (and the dictionary's size) and the predictor (with Holt's gains). */
static void describe(const parz_chunk_view* v, char* out, size_t bytes) {
  const unsigned char* b = v->codec_params;
  const unsigned t = b[PARZ_LL_PARAM_TRANSFORM], p = b[PARZ_LL_PARAM_PREDICTOR];
  char what[48], how[32];
  if (t == PARZ_LL_DICTIONARY)
    snprintf(what, sizeof what, "dictionary of %llu",
             v->codec_data_bytes >= 8 ? (unsigned long long)parz_load64(v->codec_data) : 0ull);
  else if (t)
    snprintf(what, sizeof what, "scale %g", parz_ll_scale_of(t));
  else
    snprintf(what, sizeof what, "images");
  if (p == PARZ_LL_PREDICT_HOLT)
    snprintf(how, sizeof how, "holt %u/8 %u/8", b[PARZ_LL_PARAM_ALPHA], b[PARZ_LL_PARAM_BETA]);
  else
    snprintf(how, sizeof how, "%s",
             p == PARZ_LL_PREDICT_STACK  ? "stack"
             : p == PARZ_LL_PREDICT_ROWS ? "rows"
                                         : "lorenzo");
  snprintf(out, bytes, "%s, %s", what, how);
}

const parz_codec_modes parz_lossless_modes = {
    modes, sizeof modes / sizeof modes[0], stored_settings, keep, mode_of, describe};
