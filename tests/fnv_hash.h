/* FNV-1a, 64 bits: the tests' fingerprint of bytes a codec wrote, the same on every host (values
 * wider than a byte are fed least significant byte first). */
#ifndef PARZ_TEST_FNV_HASH_H
#define PARZ_TEST_FNV_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* A fingerprint pinned by name (a real array's): fnv_pinned_differs says whether name is listed
 * with another fingerprint than h (0 when it matches or is not listed). */
typedef struct {
  const char* name;
  uint64_t hash;
} fnv_pinned;

static inline int fnv_pinned_differs(const fnv_pinned* list, size_t count, const char* name,
                                     uint64_t h) {
  for (size_t i = 0; i < count; i++)
    if (strcmp(list[i].name, name) == 0)
      return list[i].hash != h;
  return 0;
}

#endif
