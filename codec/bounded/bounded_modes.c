/* The error-bounded codec's mode (codec_modes.h): an absolute error bound, for float and double
 * data. The filter's internal form keeps the bound's two words and the predictor asked for. */
#include <math.h>
#include <string.h>

#include "bounded.h"
#include "bounded_codec.h"

/* The settings of a bound and a predictor, checked. */
static int settings(parz_chunk_config* c, double eb, uint32_t predictor, parz_error* err) {
  if (!(eb > 0) || !isfinite(2 * eb))
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: bounded codec's error bound %g is not a finite number > 0 (twice it "
                     "must be finite too)",
                     eb);
  if (predictor > PARZ_BOUNDED_PREDICTORS)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: bounded codec's predictor %u unknown (0: chosen per chunk, 1..%u)",
                     (unsigned)predictor, PARZ_BOUNDED_PREDICTORS);
  c->settings.error_bound = eb;
  c->settings.predictor = predictor;
  return PARZ_OK;
}

static int error_bound(parz_chunk_config* c, const uint32_t* w, parz_type type, unsigned dims,
                       parz_error* err) {
  (void)dims;
  if (type != PARZ_FLOAT && type != PARZ_DOUBLE)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: the bounded codec bounds the error of float and double data; for %s "
                     "datasets choose the lossless codec or zfp's reversible mode",
                     parz_type_name(type));
  return settings(c, parz_mode_double(w[0], w[1]), 0, err);
}

static int stored(parz_chunk_config* c, const uint32_t w[4], parz_error* err) {
  if (w[3])
    return parz_fail(err, PARZ_ERR_PARAM, "parz: bounded codec's reserved word %u, not 0",
                     (unsigned)w[3]);
  return settings(c, parz_mode_double(w[0], w[1]), w[2], err);
}

static void keep(const parz_chunk_config* c, uint32_t w[4]) {
  uint64_t bits;
  memcpy(&bits, &c->settings.error_bound, 8);
  w[0] = (uint32_t)(bits >> 32);
  w[1] = (uint32_t)bits;
  w[2] = c->settings.predictor;
  w[3] = 0;
}

static unsigned mode_of(const parz_chunk_view* v) {
  (void)v;
  return 1;
}

/* clang-format off */
static const parz_codec_mode modes[] = {
  {1, "error_bound", "d", "", "absolute error bound (float and double data)", 0, error_bound},
};
/* clang-format on */

const parz_codec_modes parz_bounded_modes = {modes, 1, stored, keep, mode_of, NULL};
