/* FNV-1a, 64 bits: the tests' fingerprint of bytes a codec wrote, the same on every host (values
 * wider than a byte are fed least significant byte first). */
#ifndef PARZ_TEST_FNV_HASH_H
#define PARZ_TEST_FNV_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FNV_START 0xcbf29ce484222325ull

static inline uint64_t fnv_bytes(uint64_t h, const void* p, size_t n) {
  for (size_t i = 0; i < n; i++)
    h = (h ^ ((const uint8_t*)p)[i]) * 0x100000001b3ull;
  return h;
}

static inline uint64_t fnv_u64(uint64_t h, uint64_t v) {
  for (int i = 0; i < 8; i++)
    h = (h ^ ((v >> (8 * i)) & 0xffu)) * 0x100000001b3ull;
  return h;
}

#endif
