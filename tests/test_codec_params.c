/* Mode setters and mode classification equal libzfp's; invalid values are refused with a
 * message; the fixed-rate predicate holds exactly when every block has maxbits bits. */
#include <math.h>
#include <string.h>

#include "test_codec_common.h"

/* zfp_mode numbering -> ours */
static int from_zfp_mode(int m) {
  switch (m) {
    case 1: return PARZ_MODE_EXPERT;
    case 2: return PARZ_MODE_RATE;
    case 3: return PARZ_MODE_PRECISION;
    case 4: return PARZ_MODE_ACCURACY;
    case 5: return PARZ_MODE_REVERSIBLE;
    default: return -1;
  }
}

static int same(const parz_params* a, const parz_params* b) {
  return a->minbits == b->minbits && a->maxbits == b->maxbits && a->maxprec == b->maxprec &&
         a->minexp == b->minexp;
}

int main(void) {
  parz_type types[4] = {PARZ_INT32, PARZ_INT64, PARZ_FLOAT, PARZ_DOUBLE};
  double rates[] = {0.01, 0.1, 0.5, 1, 1.49, 2.5, 3.3, 7.99, 8, 16, 31.7, 32, 60, 64};
  unsigned precs[] = {1, 2, 7, 16, 31, 32, 33, 63, 64};
  double tols[] = {1e-300, 1e-30, 1e-9, 1e-3, 0.01, 0.1, 0.5, 1, 1.5, 3, 1e6, 1e300, 4.9e-324};
  parz_params ours, ref, p;
  parz_error err;
  size_t i;
  int t;
  unsigned d;
  for (t = 0; t < 4; t++)
    for (d = 1; d <= 4; d++)
      for (i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        double a1 = 0, a2 = 0;
        int s = parz_params_rate(&ours, rates[i], types[t], d, &a1, &err);
        int zero = floor(rates[i] * (1 << (2 * d)) + 0.5) == 0 &&
                   (types[t] == PARZ_INT32 || types[t] == PARZ_INT64);
        if (rates[i] * (1 << (2 * d)) > PARZ_MAX_BITS || zero) {
          CHECK(s == PARZ_ERR_PARAM, "rate %g %uD accepted", rates[i], d);
          continue;
        }
        tc_zfp_rate(&ref, rates[i], types[t], d, &a2);
        CHECK(s == PARZ_OK && same(&ours, &ref) && a1 == a2,
              "rate %g %s %uD: ours %u/%u, zfp %u/%u", rates[i], parz_type_name(types[t]), d,
              ours.minbits, ours.maxbits, ref.minbits, ref.maxbits);
        CHECK((int)parz_params_mode(&ours) == from_zfp_mode(tc_zfp_mode(&ours)), "rate mode");
      }
  for (i = 0; i < sizeof precs / sizeof precs[0]; i++) {
    CHECK(parz_params_precision(&ours, precs[i], &err) == PARZ_OK, "precision %u", precs[i]);
    tc_zfp_precision(&ref, precs[i]);
    CHECK(same(&ours, &ref), "precision %u differs", precs[i]);
    CHECK((int)parz_params_mode(&ours) == from_zfp_mode(tc_zfp_mode(&ours)), "precision mode %u",
          precs[i]);
  }
  for (i = 0; i < sizeof tols / sizeof tols[0]; i++) {
    double a1 = 0, a2 = 0;
    CHECK(parz_params_accuracy(&ours, tols[i], &a1, &err) == PARZ_OK, "tolerance %g", tols[i]);
    tc_zfp_accuracy(&ref, tols[i], &a2);
    CHECK(same(&ours, &ref) && a1 == a2, "tolerance %g: minexp %d vs %d", tols[i], ours.minexp,
          ref.minexp);
    CHECK(a1 <= tols[i], "tolerance %g: actual %g above it", tols[i], a1);
    CHECK((int)parz_params_mode(&ours) == from_zfp_mode(tc_zfp_mode(&ours)), "accuracy mode");
  }
  parz_params_reversible(&ours);
  tc_zfp_reversible(&ref);
  CHECK(same(&ours, &ref), "reversible differs");
  CHECK(parz_params_mode(&ours) == PARZ_MODE_REVERSIBLE && tc_zfp_mode(&ours) == 5,
        "reversible mode");
  /* expert combinations classified like zfp_stream_compression_mode */
  {
    unsigned mins[] = {0, 1, 9, 100, 16658};
    unsigned maxs[] = {1, 9, 100, 16658, 20000};
    unsigned mps[] = {1, 32, 64};
    int mes[] = {-2000, -1075, -1074, -10, 0, 5};
    size_t a, b, c, e;
    for (a = 0; a < 5; a++)
      for (b = 0; b < 5; b++)
        for (c = 0; c < 3; c++)
          for (e = 0; e < 6; e++) {
            int s = parz_params_expert(&p, mins[a], maxs[b], mps[c], mes[e], &err);
            if (mins[a] > maxs[b]) {
              CHECK(s == PARZ_ERR_PARAM && strlen(err.message) > 0, "minbits > maxbits");
              continue;
            }
            CHECK(s == PARZ_OK, "expert rejected: %s", err.message);
            CHECK((int)parz_params_mode(&p) == from_zfp_mode(tc_zfp_mode(&p)),
                  "expert %u %u %u %d: mode %d vs zfp %d", p.minbits, p.maxbits, p.maxprec,
                  p.minexp, (int)parz_params_mode(&p), tc_zfp_mode(&p));
          }
  }
  /* invalid values: an error and a message naming the value */
  err.message[0] = 0;
  CHECK(parz_params_rate(&p, 0, PARZ_FLOAT, 2, NULL, &err) == PARZ_ERR_PARAM &&
            strstr(err.message, "rate"),
        "rate 0");
  CHECK(parz_params_rate(&p, -1, PARZ_FLOAT, 2, NULL, &err) == PARZ_ERR_PARAM, "rate -1");
  CHECK(parz_params_rate(&p, NAN, PARZ_FLOAT, 2, NULL, &err) == PARZ_ERR_PARAM, "rate NaN");
  CHECK(parz_params_rate(&p, INFINITY, PARZ_FLOAT, 2, NULL, &err) == PARZ_ERR_PARAM, "inf");
  CHECK(parz_params_rate(&p, 4, (parz_type)9, 2, NULL, &err) == PARZ_ERR_TYPE, "type 9");
  CHECK(parz_params_rate(&p, 4, PARZ_FLOAT, 5, NULL, &err) == PARZ_ERR_DIMS, "dims 5");
  CHECK(parz_params_rate(&p, 4, PARZ_FLOAT, 0, NULL, &err) == PARZ_ERR_DIMS, "dims 0");
  CHECK(parz_params_precision(&p, 0, &err) == PARZ_ERR_PARAM, "precision 0");
  CHECK(parz_params_precision(&p, 65, &err) == PARZ_ERR_PARAM && strstr(err.message, "65"),
        "precision 65");
  CHECK(parz_params_accuracy(&p, 0, NULL, &err) == PARZ_ERR_PARAM, "tolerance 0");
  CHECK(parz_params_accuracy(&p, -1e-3, NULL, &err) == PARZ_ERR_PARAM, "tolerance < 0");
  CHECK(parz_params_accuracy(&p, NAN, NULL, &err) == PARZ_ERR_PARAM, "tolerance NaN");
  CHECK(parz_params_expert(&p, 1, 100, 0, 0, &err) == PARZ_ERR_PARAM, "maxprec 0");
  CHECK(parz_params_expert(&p, 1, 100, 65, 0, &err) == PARZ_ERR_PARAM, "maxprec 65");
  CHECK(parz_params_rate(NULL, 4, PARZ_FLOAT, 2, NULL, NULL) == PARZ_ERR_ARG, "NULL params");
  /* fixed rate: every block exactly maxbits */
  parz_params_rate(&p, 4, PARZ_FLOAT, 2, NULL, NULL);
  CHECK(parz_params_fixed_rate(&p), "rate mode is fixed rate");
  parz_params_precision(&p, 20, NULL);
  CHECK(!parz_params_fixed_rate(&p), "precision mode is not fixed rate");
  parz_params_expert(&p, 200, 200, 64, PARZ_MIN_EXP - 1, NULL);
  CHECK(!parz_params_fixed_rate(&p), "reversible is never fixed rate");
  return test_finish("test_codec_params");
}
