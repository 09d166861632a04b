/* cd_values of a second codec (the raw copy codec of this folder, in this program's codec table):
 * its user form, cd[0] = mode + 65536 * 200, configures its chunks; the internal form is version 3
 * and reads back to the same settings, with a mask and without; the modes and the codecs known
 * are those of the table, in every message. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "codec_modes.h"
#include "filter_config.h"
#include "raw_codec.h"

static const size_t shape[4] = {16, 32, 0, 0};

static int configure(size_t n, const unsigned* cd, parz_filter_config* cfg, parz_error* e) {
  parz_filter_request req;
  int rc = parz_cd_parse_request(n, cd, &req, e);
  return rc != PARZ_OK ? rc : parz_cd_configure(&req, PARZ_FLOAT, 0, 2, shape, cfg, e);
}

int main(void) {
  const unsigned copy = 1u + PARZ_CD_CODEC_UNIT * PARZ_CODEC_RAW;
  unsigned cd[12] = {copy, 0, 0, 0, 2, 2}, stored[16], again[16];
  parz_filter_config cfg, back;
  parz_error e = {0, ""};
  char text[200];
  for (size_t n = 1; n <= 6; n += 5) { /* mask on (default) and off */
    CHECK(configure(n, cd, &cfg, &e) == PARZ_OK, ": %s", e.message);
    CHECK(cfg.request.codec == PARZ_CODEC_RAW && cfg.config.codec == PARZ_CODEC_RAW &&
          cfg.config.table == PARZ_TABLE_NONE && parz_chunk_bound(&cfg.chunk, &cfg.config) > 0);
    parz_cd_store(&cfg, stored);
    CHECK(stored[PARZ_CD_FORM] == PARZ_CD_INTERNAL_V3 &&
              stored[PARZ_CD_V2_PACKED] / PARZ_CD_CODEC_UNIT == PARZ_CODEC_RAW &&
              (stored[PARZ_CD_V2_PACKED] >> 8 & 15u) == 1u,
          ": form %u, [1] = 0x%x", stored[0], stored[1]);
    CHECK(parz_cd_load(16, stored, &back, &e) == PARZ_OK, ": %s", e.message);
    CHECK(back.config.codec == PARZ_CODEC_RAW && back.config.mask == cfg.config.mask &&
          !memcmp(&back.config.params, &cfg.config.params, sizeof cfg.config.params));
    CHECK(configure(16, stored, &back, &e) == PARZ_OK, ": %s", e.message); /* re-applied */
    parz_cd_store(&back, again);
    CHECK(!memcmp(stored, again, sizeof stored));
  }
  parz_cd_describe(&cfg.request, text, sizeof text);
  CHECK(!strcmp(text, "raw copy"), ": %s", text);
  cd[0] = copy + 1; /* raw has no mode 2 */
  CHECK(configure(1, cd, &cfg, &e) == PARZ_ERR_PARAM &&
            strstr(e.message, "unknown mode 2 of codec raw in cd_values[0] (1 copy)"),
        ": %s", e.message);
  cd[0] = 1 + PARZ_CD_CODEC_UNIT * 77;
  CHECK(configure(1, cd, &cfg, &e) == PARZ_ERR_PARAM &&
            strstr(e.message, "codec 77, unknown to this plugin (it knows zfp (1), raw (200))"),
        ": %s", e.message);
  CHECK(parz_codec_named("raw") == &parz_codec_raw && parz_codec_named("stored") == NULL);
  parz_codec_choices(text, sizeof text, 0);
  CHECK(!strcmp(text, "zfp, raw"), ": %s", text);
  return test_finish("cd_values_raw");
}
