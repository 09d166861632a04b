/* cd_values rules of the filter (plugin/cd_values/filter_config.c), without HDF5: user forms of every mode,
 * the internal form round trip (what h5repack re-applies), squeezing, and refusals with clear
 * messages. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "H5Zparz.h"
#include "filter_config.h"

#include "check.h"

static const size_t shape2[4] = {100, 128, 0, 0};

/* Configures user values for a float 100x128 chunk; returns the status and the message. */
static int configure(size_t n, const unsigned* cd, parz_type type, parz_filter_config* cfg,
                     parz_error* e) {
  parz_filter_request req;
  int rc = parz_cd_parse_request(n, cd, &req, e);
  if (rc != PARZ_OK)
    return rc;
  return parz_cd_configure(&req, type, 0, 2, shape2, cfg, e);
}

static void expect_refusal(size_t n, const unsigned* cd, parz_type type, const char* needle) {
  parz_filter_config cfg;
  parz_error e = {0, ""};
  int rc = configure(n, cd, type, &cfg, &e);
  CHECK(rc != PARZ_OK);
  if (rc != PARZ_OK && strstr(e.message, needle) == NULL) {
    fprintf(stderr, "message \"%s\" lacks \"%s\"\n", e.message, needle);
    failures++;
  }
}

/* Every mode gives the setter's parameters, and the stored internal form loads back to the same
 * configuration and is recognised again by set_local (h5repack). */
static void test_modes_round_trip(void) {
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t counts[5];
  unsigned forms[5][H5Z_PARZ_USER_NELMTS_MAX];
  counts[0] = H5Z_parz_rate_cdata(8.0, forms[0]);
  counts[1] = H5Z_parz_precision_cdata(20, forms[1]);
  counts[2] = H5Z_parz_accuracy_cdata(0.01, forms[2]);
  counts[3] = H5Z_parz_expert_cdata(1, 4000, 30, -20, forms[3]);
  counts[4] = H5Z_parz_reversible_cdata(forms[4]);
  parz_params expect[5];
  CHECK(parz_params_rate(&expect[0], 8.0, PARZ_FLOAT, 2, NULL, NULL) == PARZ_OK);
  CHECK(parz_params_precision(&expect[1], 20, NULL) == PARZ_OK);
  CHECK(parz_params_accuracy(&expect[2], 0.01, NULL, NULL) == PARZ_OK);
  CHECK(parz_params_expert(&expect[3], 1, 4000, 30, -20, NULL) == PARZ_OK);
  parz_params_reversible(&expect[4]);
  for (int m = 0; m < 5; m++) {
    parz_filter_config cfg, back, again;
    parz_error e = {0, ""};
    CHECK(configure(counts[m], forms[m], PARZ_FLOAT, &cfg, &e) == PARZ_OK);
    CHECK(memcmp(&cfg.config.params, &expect[m], sizeof expect[m]) == 0);
    CHECK(cfg.config.table == (m == 0 ? PARZ_TABLE_NONE : PARZ_TABLE_HYBRID));
    CHECK(cfg.config.segment_blocks == 0); /* auto, per chunk */
    unsigned stored[PARZ_CD_INTERNAL_NELMTS];
    parz_cd_store(&cfg, stored);
    CHECK(stored[PARZ_CD_FORM] == PARZ_CD_INTERNAL_V1);
    CHECK(stored[PARZ_CD_V1_MODE] == forms[m][0]);
    CHECK(parz_cd_load(PARZ_CD_INTERNAL_NELMTS, stored, &back, &e) == PARZ_OK);
    CHECK(memcmp(&back.config, &cfg.config, sizeof cfg.config) == 0);
    CHECK(back.chunk.type == PARZ_FLOAT && back.chunk.dims == 2);
    CHECK(back.chunk.shape[0] == 100 && back.chunk.shape[1] == 128);
    /* Re-applying the stored form, as h5repack does, gives the same stored form. */
    CHECK(configure(PARZ_CD_INTERNAL_NELMTS, stored, PARZ_FLOAT, &again, &e) == PARZ_OK);
    unsigned stored2[PARZ_CD_INTERNAL_NELMTS];
    parz_cd_store(&again, stored2);
    CHECK(memcmp(stored, stored2, sizeof stored) == 0);
    (void)cd;
  }
  /* The example of docs/cd_values.md: accuracy 0.01 = 0x3F847AE147AE147B. */
  CHECK(forms[2][1] == 1065646817u && forms[2][2] == 1202590843u);
}

static void test_table_settings(void) {
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = H5Z_parz_accuracy_cdata(1e-3, cd);
  n = H5Z_parz_table_cdata(n, 16, 8, PARZ_TABLE_LENGTHS, cd);
  parz_filter_config cfg;
  parz_error e = {0, ""};
  CHECK(configure(n, cd, PARZ_FLOAT, &cfg, &e) == PARZ_OK);
  CHECK(cfg.config.table == PARZ_TABLE_LENGTHS);
  CHECK(cfg.config.segment_blocks == 16);
  CHECK(cfg.config.partition_segments == 0); /* only hybrid tables have partitions */
  n = H5Z_parz_accuracy_cdata(1e-3, cd);
  cd[n++] = 0; /* C default: auto */
  cd[n++] = 4; /* P */
  CHECK(configure(n, cd, PARZ_FLOAT, &cfg, &e) == PARZ_OK);
  CHECK(cfg.config.table == PARZ_TABLE_HYBRID && cfg.config.partition_segments == 4);
  CHECK(cfg.config.segment_blocks == 0);
}

static void test_refusals(void) {
  unsigned cd[16];
  size_t n;
  cd[0] = 9;
  expect_refusal(1, cd, PARZ_FLOAT, "unknown mode 9");
  expect_refusal(0, cd, PARZ_FLOAT, "mode");
  n = H5Z_parz_accuracy_cdata(-1.0, cd);
  expect_refusal(n, cd, PARZ_FLOAT, "");
  n = H5Z_parz_accuracy_cdata(NAN, cd);
  expect_refusal(n, cd, PARZ_FLOAT, "");
  expect_refusal(2, cd, PARZ_FLOAT, "accuracy mode needs 2 values");
  n = H5Z_parz_accuracy_cdata(1e-3, cd);
  expect_refusal(n, cd, PARZ_INT32, "floating-point");
  n = H5Z_parz_precision_cdata(0, cd);
  expect_refusal(n, cd, PARZ_FLOAT, "");
  n = H5Z_parz_precision_cdata(65, cd);
  expect_refusal(n, cd, PARZ_FLOAT, "");
  n = H5Z_parz_rate_cdata(0.0, cd);
  expect_refusal(n, cd, PARZ_FLOAT, "");
  n = H5Z_parz_reversible_cdata(cd);
  n = H5Z_parz_table_cdata(n, 0, 0, 7, cd);
  expect_refusal(n, cd, PARZ_FLOAT, "table kind 7");
  n = H5Z_parz_reversible_cdata(cd);
  n = H5Z_parz_table_cdata(n, 0, 0, PARZ_TABLE_NONE, cd);
  expect_refusal(n, cd, PARZ_FLOAT, "fixed-rate");
  n = H5Z_parz_reversible_cdata(cd);
  n = H5Z_parz_table_cdata(n, 1u << 30, 0, 0, cd);
  expect_refusal(n, cd, PARZ_FLOAT, "segment_blocks");
  n = H5Z_parz_reversible_cdata(cd);
  n = H5Z_parz_checksum_cdata(n, 3, cd);
  expect_refusal(n, cd, PARZ_FLOAT, "payload checksum setting 3");
  n = H5Z_parz_reversible_cdata(cd);
  n = H5Z_parz_mask_cdata(n, H5Z_PARZ_MASK_OFF, cd);
  cd[n++] = 0;
  expect_refusal(n, cd, PARZ_FLOAT, "at most");
  { /* payload checksums off: +32 in the stored type word, and back */
    parz_filter_config cfg, back;
    parz_error e = {0, ""};
    unsigned stored[PARZ_CD_INTERNAL_NELMTS];
    n = H5Z_parz_accuracy_cdata(1e-3, cd);
    n = H5Z_parz_checksum_cdata(n, H5Z_PARZ_CHECKSUM_OFF, cd);
    CHECK(n == 7 && cd[3] == 0 && cd[5] == 0 && cd[6] == H5Z_PARZ_CHECKSUM_OFF);
    CHECK(configure(n, cd, PARZ_FLOAT, &cfg, &e) == PARZ_OK);
    CHECK(cfg.config.checksum == PARZ_CHECKSUM_OFF);
    parz_cd_store(&cfg, stored);
    CHECK(stored[PARZ_CD_V1_TYPE] == PARZ_FLOAT + PARZ_CD_NO_CHECKSUM);
    CHECK(parz_cd_load(PARZ_CD_INTERNAL_NELMTS, stored, &back, &e) == PARZ_OK &&
          back.config.checksum == PARZ_CHECKSUM_OFF);
    n = H5Z_parz_accuracy_cdata(1e-3, cd);
    CHECK(configure(n, cd, PARZ_FLOAT, &cfg, &e) == PARZ_OK);
    parz_cd_store(&cfg, stored);
    CHECK(stored[PARZ_CD_V1_TYPE] == PARZ_FLOAT && cfg.config.checksum == PARZ_CHECKSUM_DEFAULT);
  }
  cd[0] = 1004; /* a future internal form */
  expect_refusal(PARZ_CD_INTERNAL_NELMTS, cd, PARZ_FLOAT, "upgrade");
  /* The filter refuses user forms where it expects the stored form. */
  parz_filter_config cfg;
  parz_error e = {0, ""};
  n = H5Z_parz_reversible_cdata(cd);
  CHECK(parz_cd_load(n, cd, &cfg, &e) != PARZ_OK);
  CHECK(strstr(e.message, "internal form") != NULL);
}

/* cd_values in H5Z-ZFP's layout (mode, 0, values; a double punned into two native words, as its
 * H5Pset_zfp_*_cdata macros write them) are refused with the ParZ values of the same settings,
 * and those values give the settings H5Z-ZFP's would. ParZ forms that merely start with a 0
 * value (expert minbits 0) still pass. */
static void test_zfp_layout(void) {
  unsigned zfp[6] = {3, 0, 0, 0, 0, 0};
  double tol = 1e-3;
  memcpy(&zfp[2], &tol, sizeof tol);
  expect_refusal(4, zfp, PARZ_FLOAT, "H5Z-ZFP");
  expect_refusal(4, zfp, PARZ_FLOAT, "accuracy 0.001 is 3,1062232653,3539053052");
  unsigned ours[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = H5Z_parz_accuracy_cdata(1e-3, ours);
  CHECK(n == 3 && ours[1] == 1062232653u && ours[2] == 3539053052u);

  double rate = 8.0;
  zfp[0] = 1;
  memcpy(&zfp[2], &rate, sizeof rate);
  expect_refusal(4, zfp, PARZ_FLOAT, "rate 8 is 1,1075838976,0");
  n = H5Z_parz_rate_cdata(8.0, ours);
  CHECK(ours[1] == 1075838976u && ours[2] == 0u);

  unsigned precision[3] = {2, 0, 20};
  expect_refusal(3, precision, PARZ_FLOAT, "precision 20 is 2,20");

  unsigned expert[6] = {4, 0, 1, 4000, 30, (unsigned)-1074};
  expect_refusal(6, expert, PARZ_DOUBLE, "expert 1,4000,30,-1074 is 4,1,4000,30,4294966222");
  unsigned parz_expert[6] = {4, 0, 4000, 30, (unsigned)-20, 16}; /* minbits 0, C = 16 */
  parz_filter_config cfg;
  parz_error e = {0, ""};
  CHECK(configure(6, parz_expert, PARZ_FLOAT, &cfg, &e) == PARZ_OK);
  CHECK(cfg.config.segment_blocks == 16 && cfg.config.params.maxbits == 4000);
}

/* Mask settings: off, a fill value of the user's or the dataset's, stored in internal form
 * version 2 only then (version 1 otherwise, as before masks), loaded and re-applied unchanged;
 * fill values converted to the dataset's type or refused. */
static void test_mask(void) {
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX], stored[PARZ_CD_INTERNAL_NELMTS],
      again[PARZ_CD_INTERNAL_NELMTS];
  parz_filter_config cfg, back;
  parz_filter_request req;
  parz_error e = {0, ""};
  float f = -1e10f;
  uint32_t fbits;
  size_t n;
  memcpy(&fbits, &f, 4);
  /* the default: version 1, mask on, no fill value */
  n = H5Z_parz_accuracy_cdata(1e-3, cd);
  CHECK(configure(n, cd, PARZ_FLOAT, &cfg, &e) == PARZ_OK);
  CHECK(cfg.config.mask == PARZ_MASK_DEFAULT && !cfg.config.fill);
  parz_cd_store(&cfg, stored);
  CHECK(stored[0] == PARZ_CD_INTERNAL_V1);
  /* off */
  n = H5Z_parz_mask_cdata(n, H5Z_PARZ_MASK_OFF, cd);
  CHECK(n == 8 && cd[7] == H5Z_PARZ_MASK_OFF);
  CHECK(configure(n, cd, PARZ_FLOAT, &cfg, &e) == PARZ_OK && cfg.config.mask == PARZ_MASK_OFF);
  parz_cd_store(&cfg, stored);
  CHECK(stored[0] == PARZ_CD_INTERNAL_V2 &&
        stored[1] == PARZ_FLOAT + PARZ_CD_NO_MASK + 256 * 3 + 4096 * 4);
  CHECK(parz_cd_load(PARZ_CD_INTERNAL_NELMTS, stored, &back, &e) == PARZ_OK);
  CHECK(memcmp(&back.config, &cfg.config, sizeof cfg.config) == 0);
  CHECK(configure(PARZ_CD_INTERNAL_NELMTS, stored, PARZ_FLOAT, &back, &e) == PARZ_OK);
  parz_cd_store(&back, again);
  CHECK(memcmp(again, stored, sizeof stored) == 0);
  /* a fill value of the user's, converted to float */
  n = H5Z_parz_fill_cdata(H5Z_parz_accuracy_cdata(1e-3, cd), -1e10, cd);
  CHECK(n == 10 && cd[7] == H5Z_PARZ_MASK_FILL);
  CHECK(configure(n, cd, PARZ_FLOAT, &cfg, &e) == PARZ_OK && cfg.config.fill &&
        cfg.config.fill_bits == fbits && cfg.config.mask == PARZ_MASK_DEFAULT);
  parz_cd_store(&cfg, stored);
  CHECK(stored[0] == PARZ_CD_INTERNAL_V2 && stored[4] == 0 && stored[5] == fbits &&
        (stored[1] & PARZ_CD_FILL));
  CHECK(parz_cd_load(PARZ_CD_INTERNAL_NELMTS, stored, &back, &e) == PARZ_OK);
  CHECK(memcmp(&back.config, &cfg.config, sizeof cfg.config) == 0);
  CHECK(configure(PARZ_CD_INTERNAL_NELMTS, stored, PARZ_FLOAT, &back, &e) == PARZ_OK);
  parz_cd_store(&back, again);
  CHECK(memcmp(again, stored, sizeof stored) == 0);
  /* the stored form re-applied to a float64 dataset: the same value as a double */
  CHECK(configure(PARZ_CD_INTERNAL_NELMTS, stored, PARZ_DOUBLE, &back, &e) == PARZ_OK &&
        back.config.fill_bits == 0xc202a05f20000000ull);
  /* integers: integral values within range, else refused */
  n = H5Z_parz_fill_cdata(H5Z_parz_precision_cdata(20, cd), -9999, cd);
  CHECK(configure(n, cd, PARZ_INT32, &cfg, &e) == PARZ_OK &&
        cfg.config.fill_bits == (uint32_t)(int32_t)-9999);
  n = H5Z_parz_fill_cdata(H5Z_parz_precision_cdata(20, cd), -9223372036854775808.0, cd);
  CHECK(configure(n, cd, PARZ_INT64, &cfg, &e) == PARZ_OK &&
        cfg.config.fill_bits == 0x8000000000000000ull);
  n = H5Z_parz_fill_cdata(H5Z_parz_precision_cdata(20, cd), 1.5, cd);
  expect_refusal(n, cd, PARZ_INT32, "fill value 1.5 is not a value");
  n = H5Z_parz_fill_cdata(H5Z_parz_precision_cdata(20, cd), 3e9, cd);
  expect_refusal(n, cd, PARZ_INT32, "int32");
  /* the dataset's fill value: masked unless masking is off or the user named one */
  n = H5Z_parz_accuracy_cdata(1e-3, cd);
  CHECK(parz_cd_parse_request(n, cd, &req, &e) == PARZ_OK);
  parz_cd_dataset_fill(&req, PARZ_FLOAT, fbits);
  CHECK(parz_cd_configure(&req, PARZ_FLOAT, 0, 2, shape2, &cfg, &e) == PARZ_OK && cfg.config.fill &&
        cfg.config.fill_bits == fbits);
  n = H5Z_parz_fill_cdata(H5Z_parz_accuracy_cdata(1e-3, cd), 7.0, cd);
  CHECK(parz_cd_parse_request(n, cd, &req, &e) == PARZ_OK);
  parz_cd_dataset_fill(&req, PARZ_FLOAT, fbits);
  CHECK(parz_cd_configure(&req, PARZ_FLOAT, 0, 2, shape2, &cfg, &e) == PARZ_OK &&
        cfg.config.fill_bits == 0x40e00000u);
  n = H5Z_parz_mask_cdata(H5Z_parz_accuracy_cdata(1e-3, cd), H5Z_PARZ_MASK_OFF, cd);
  CHECK(parz_cd_parse_request(n, cd, &req, &e) == PARZ_OK);
  parz_cd_dataset_fill(&req, PARZ_FLOAT, fbits);
  CHECK(parz_cd_configure(&req, PARZ_FLOAT, 0, 2, shape2, &cfg, &e) == PARZ_OK &&
        !cfg.config.fill && cfg.config.mask == PARZ_MASK_OFF);
  /* refusals */
  n = H5Z_parz_mask_cdata(H5Z_parz_accuracy_cdata(1e-3, cd), 4, cd);
  expect_refusal(n, cd, PARZ_FLOAT, "mask setting 4");
  n = H5Z_parz_mask_cdata(H5Z_parz_accuracy_cdata(1e-3, cd), H5Z_PARZ_MASK_FILL, cd);
  expect_refusal(n, cd, PARZ_FLOAT, "fill value after it");
  /* corrupt stored forms */
  n = H5Z_parz_fill_cdata(H5Z_parz_accuracy_cdata(1e-3, cd), -1e10, cd);
  CHECK(configure(n, cd, PARZ_FLOAT, &cfg, &e) == PARZ_OK);
  parz_cd_store(&cfg, stored);
  memcpy(again, stored, sizeof again);
  again[1] |= PARZ_CD_NO_MASK;
  CHECK(parz_cd_load(PARZ_CD_INTERNAL_NELMTS, again, &back, &e) != PARZ_OK);
  memcpy(again, stored, sizeof again);
  again[1] |= 1u << 20;
  CHECK(parz_cd_load(PARZ_CD_INTERNAL_NELMTS, again, &back, &e) != PARZ_OK);
  memcpy(again, stored, sizeof again);
  again[4] = 1; /* 33 bits for a float32 fill value */
  CHECK(parz_cd_load(PARZ_CD_INTERNAL_NELMTS, again, &back, &e) != PARZ_OK &&
        strstr(e.message, "more bits"));
  memcpy(again, stored, sizeof again);
  again[1] &= ~PARZ_CD_FILL; /* fill words without the flag */
  CHECK(parz_cd_load(PARZ_CD_INTERNAL_NELMTS, again, &back, &e) != PARZ_OK);
}

/* The codec in cd_values: zfp is the default and may be named by its id; an id this build does
 * not know, or stored (which no encoder is asked for), is refused naming it and the known ones,
 * in user and internal forms; the helpers of H5Zparz.h refuse names and ids they do not know. */
static void test_codec_choice(void) {
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX], stored[PARZ_CD_INTERNAL_NELMTS], again[16];
  parz_filter_config cfg, back;
  parz_error e = {0, ""};
  char why[200] = "", text[64];
  size_t n = H5Z_parz_accuracy_cdata(1e-3, cd);
  CHECK(configure(n, cd, PARZ_FLOAT, &cfg, &e) == PARZ_OK && cfg.request.codec == PARZ_CODEC_ZFP &&
        cfg.config.codec == PARZ_CODEC_ZFP);
  parz_cd_store(&cfg, stored);
  CHECK(H5Z_parz_codec_cdata(H5Z_PARZ_CODEC_ZFP, n, cd) == n && cd[0] == H5Z_PARZ_MODE_ACCURACY);
  cd[0] += PARZ_CD_CODEC_UNIT * PARZ_CODEC_ZFP; /* zfp by its id: the same settings */
  CHECK(configure(n, cd, PARZ_FLOAT, &back, &e) == PARZ_OK);
  parz_cd_store(&back, again);
  CHECK(memcmp(stored, again, sizeof stored) == 0 && stored[0] == PARZ_CD_INTERNAL_V1);
  parz_cd_describe(&back.request, text, sizeof text);
  CHECK(!strcmp(text, "accuracy 0.001"), ": %s", text);
  cd[0] = H5Z_PARZ_MODE_ACCURACY + PARZ_CD_CODEC_UNIT * 77;
  expect_refusal(
      n, cd, PARZ_FLOAT,
      "names codec 77, unknown to this plugin (it knows zfp (1), lossless (3), bounded (4))");
  cd[0] = H5Z_PARZ_MODE_ACCURACY + PARZ_CD_CODEC_UNIT * PARZ_CODEC_STORED;
  expect_refusal(n, cd, PARZ_FLOAT, "names codec 2, unknown");
  memcpy(again, stored, sizeof again); /* version 3 naming zfp, or a codec not known */
  again[0] = PARZ_CD_INTERNAL_V3;
  again[1] = PARZ_FLOAT + 256u * PARZ_MODE_ACCURACY + 4096u * PARZ_TABLE_HYBRID +
             PARZ_CD_CODEC_UNIT * PARZ_CODEC_ZFP;
  CHECK(parz_cd_load(PARZ_CD_INTERNAL_NELMTS, again, &back, &e) == PARZ_ERR_PARAM &&
            strstr(e.message, "corrupt"),
        ": %s", e.message);
  again[1] += PARZ_CD_CODEC_UNIT * 76;
  CHECK(
      parz_cd_load(PARZ_CD_INTERNAL_NELMTS, again, &back, &e) != PARZ_OK &&
          strstr(e.message,
                 "codec 77, unknown to this plugin (it knows zfp (1), lossless (3), bounded (4))"),
      ": %s", e.message);
  CHECK(H5Z_parz_codec_id("zfp", why, sizeof why) == H5Z_PARZ_CODEC_ZFP);
  CHECK(H5Z_parz_codec_id("zfpp", why, sizeof why) == 0 && strstr(why, "'zfpp'") &&
            strstr(why, "knows zfp"),
        ": %s", why);
  n = H5Z_parz_reversible_cdata(cd);
  CHECK(H5Z_parz_codec_cdata(77, n, cd) == 0 && cd[0] == H5Z_PARZ_MODE_REVERSIBLE);
  /* the error-bounded codec: its helper, its name, its id on another codec's mode, its internal
   * form, integers refused naming the type, the optional settings after its two words */
  CHECK(H5Z_parz_codec_id("bounded", why, sizeof why) == PARZ_CODEC_BOUNDED);
  n = H5Z_parz_bounded_cdata(0.25, cd);
  CHECK(n == 3 && cd[0] == 1u + PARZ_CD_CODEC_UNIT * 4u && cd[1] == 0x3FD00000u && cd[2] == 0);
  CHECK(configure(n, cd, PARZ_DOUBLE, &cfg, &e) == PARZ_OK &&
            cfg.config.codec == PARZ_CODEC_BOUNDED && cfg.config.settings.error_bound == 0.25,
        ": %s", e.message);
  parz_cd_store(&cfg, stored);
  CHECK(stored[0] == PARZ_CD_INTERNAL_V3 && stored[1] / PARZ_CD_CODEC_UNIT == 4u);
  CHECK(parz_cd_load(PARZ_CD_INTERNAL_NELMTS, stored, &back, &e) == PARZ_OK &&
            back.config.codec == PARZ_CODEC_BOUNDED && back.config.settings.error_bound == 0.25,
        ": %s", e.message);
  parz_cd_describe(&back.request, text, sizeof text);
  CHECK(!strcmp(text, "bounded error_bound 0.25"), ": %s", text);
  expect_refusal(n, cd, PARZ_INT32, "int32 datasets choose the lossless codec");
  n = H5Z_parz_checksum_cdata(n, 2, cd);
  CHECK(n == 7 && cd[3] == 0 && cd[4] == 0 && cd[5] == 0 && cd[6] == 2);
  CHECK(
      configure(n, cd, PARZ_FLOAT, &cfg, &e) == PARZ_OK && cfg.config.checksum == PARZ_CHECKSUM_OFF,
      ": %s", e.message);
  n = H5Z_parz_reversible_cdata(cd);
  CHECK(H5Z_parz_codec_cdata(PARZ_CODEC_BOUNDED, n, cd) == n &&
        cd[0] == H5Z_PARZ_MODE_REVERSIBLE + PARZ_CD_CODEC_UNIT * 4u);
  /* the lossless codec: named, its modes take no value, internal form 3 keeps its predictor */
  CHECK(H5Z_parz_codec_id("lossless", why, sizeof why) == H5Z_PARZ_CODEC_LOSSLESS);
  n = H5Z_parz_lossless_cdata(H5Z_PARZ_LOSSLESS_STACK, cd);
  CHECK(n == 1 && configure(n, cd, PARZ_DOUBLE, &cfg, &e) == PARZ_OK &&
            cfg.config.codec == PARZ_CODEC_LOSSLESS && cfg.config.settings.predictor == 1,
        ": %s", e.message);
  parz_cd_store(&cfg, stored);
  CHECK(stored[0] == PARZ_CD_INTERNAL_V3 && stored[PARZ_CD_MINBITS] == 1 &&
        !stored[PARZ_CD_MAXBITS] && !stored[PARZ_CD_MAXPREC] && !stored[PARZ_CD_MINEXP]);
  CHECK(parz_cd_load(PARZ_CD_INTERNAL_NELMTS, stored, &back, &e) == PARZ_OK &&
            back.config.codec == PARZ_CODEC_LOSSLESS && back.config.settings.predictor == 1,
        ": %s", e.message);
  stored[PARZ_CD_MINBITS] = 2; /* no predictor 2 */
  CHECK(parz_cd_load(PARZ_CD_INTERNAL_NELMTS, stored, &back, &e) == PARZ_ERR_PARAM &&
            strstr(e.message, "lossless settings 2 0 0 0"),
        ": %s", e.message);
  n = H5Z_parz_reversible_cdata(cd);
  CHECK(H5Z_parz_codec_cdata(H5Z_PARZ_CODEC_LOSSLESS, n, cd) == n &&
        cd[0] == H5Z_PARZ_MODE_REVERSIBLE + PARZ_CD_CODEC_UNIT * PARZ_CODEC_LOSSLESS);
  expect_refusal(n, cd, PARZ_FLOAT, "mode 5");
  /* the checks made before a dataset is known: its mode's values, its table kind */
  parz_filter_request req;
  n = H5Z_parz_precision_cdata(65, cd);
  CHECK(parz_cd_parse_request(n, cd, &req, &e) == PARZ_OK &&
        parz_cd_check_request(&req, &e) == PARZ_ERR_PARAM && strstr(e.message, "precision 65"));
  n = H5Z_parz_table_cdata(H5Z_parz_accuracy_cdata(1e-3, cd), 0, 0, PARZ_TABLE_NONE, cd);
  CHECK(parz_cd_parse_request(n, cd, &req, &e) == PARZ_OK &&
        parz_cd_check_request(&req, &e) == PARZ_ERR_PARAM && strstr(e.message, "fixed-rate") &&
        parz_cd_check_mode(&req, &e) == PARZ_OK);
}

static void test_squeeze(void) {
  size_t out[4];
  uint64_t a[5] = {1, 3, 16, 1, 16};
  CHECK(parz_cd_squeeze(5, a, out) == 3);
  CHECK(out[0] == 3 && out[1] == 16 && out[2] == 16 && out[3] == 0);
  uint64_t b[5] = {2, 3, 4, 5, 6};
  CHECK(parz_cd_squeeze(5, b, out) == -1);
  uint64_t c[3] = {1, 1, 1};
  CHECK(parz_cd_squeeze(3, c, out) == 1 && out[0] == 1);
  uint64_t d[6] = {1, 2, 1, 3, 4, 5};
  CHECK(parz_cd_squeeze(6, d, out) == 4);
  CHECK(out[0] == 2 && out[1] == 3 && out[2] == 4 && out[3] == 5);
}

int main(void) {
  test_modes_round_trip();
  test_table_settings();
  test_refusals();
  test_zfp_layout();
  test_mask();
  test_squeeze();
  test_codec_choice();
  if (failures)
    fprintf(stderr, "%d failure(s)\n", failures);
  else
    printf("test_plugin_config: all passed\n");
  return failures ? 1 : 0;
}
