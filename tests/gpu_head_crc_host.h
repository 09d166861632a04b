/* The GPU's part of a head's CRC-32C (gpu/head_crc.h) as its kernel takes it, on the host: each
 * span's pieces joined pairwise as a CTA's tree joins them, the spans' shares XORed from the
 * last span to the first. For the host tests of the GPU encoders. */
#ifndef PARZ_TEST_GPU_HEAD_CRC_HOST_H
#define PARZ_TEST_GPU_HEAD_CRC_HOST_H

#include "head_crc.h"

/* The join tables (parz_gpu_crc_join_entry), made once. */
static inline const uint32_t (*gpu_crc_joins(void))[32] {
  static uint32_t joins[PARZ_GPU_CRC_JOIN_TABLES][32];
  static int made;
  if (!made) {
    for (unsigned k = 0; k < PARZ_GPU_CRC_JOIN_TABLES; k++)
      for (unsigned i = 0; i < 32; i++)
        joins[k][i] = parz_gpu_crc_join_entry(k, i);
    made = 1;
  }
  return joins;
}

/* The raw register of s's bytes as the spans' CTAs leave it in *s.raw. */
static inline uint32_t gpu_crc_raw(const parz_gpu_head_crc& s) {
  const uint32_t(*joins)[32] = gpu_crc_joins();
  uint32_t raw = 0;
  for (unsigned long long span = parz_gpu_crc_spans(s); span-- > 0;) {
    uint32_t v[PARZ_GPU_CRC_THREADS];
    for (unsigned t = 0; t < PARZ_GPU_CRC_THREADS; t++)
      v[t] = parz_gpu_crc_piece(s, span * PARZ_GPU_CRC_THREADS + t, parz_crc32c_table);
    for (unsigned k = 0; (1u << k) < PARZ_GPU_CRC_THREADS; k++)
      for (unsigned t = 0; t < PARZ_GPU_CRC_THREADS; t += 2u << k)
        v[t] = parz_gpu_crc_join(v[t], v[t + (1u << k)], joins[k]);
    raw ^= parz_gpu_crc_span(s, span, v[0], joins);
  }
  return raw;
}

#endif
