/* The configuration of the lossless chunks the tests write: the predictor and the segment's blocks
 * C they ask for (C = 0: the codec's own), the library's defaults otherwise. C and CUDA tests. */
#ifndef PARZ_TEST_LOSSLESS_CONFIG_H
#define PARZ_TEST_LOSSLESS_CONFIG_H

#include <stdint.h>
#include <string.h>

#include "parz_chunk.h"

static inline parz_chunk_config test_lossless_config(unsigned predictor, uint32_t C) {
  parz_chunk_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.codec = PARZ_CODEC_LOSSLESS;
  cfg.settings.predictor = predictor;
  cfg.segment_blocks = C;
  return cfg;
}

#endif
