/* The GPU encoders' host tests' comparison: a chunk their emulated steps built against
 * parz_chunk_encode's, byte for byte, and their refusals. */
#ifndef PARZ_TEST_GPU_ENCODE_COMPARE_H
#define PARZ_TEST_GPU_ENCODE_COMPARE_H

#include <string.h>

#include <vector>

#include "check.h"
#include "parz_chunk.h"

/* The emulated encoder's answer for chunk a (values at data) under cfg: its status rc and error
 * e, its chunk got, *stored where it stores the chunk. refused: the answer must be
 * PARZ_ERR_UNSUPPORTED saying to encode on the CPU. Otherwise the CPU must encode it too, store
 * it where stored is set, else write got byte for byte. Returns 1 where got is to be decoded
 * (both encoded it, neither stored it). */
static inline int gpu_encode_same_as_cpu(const char* name, const parz_array& a, const void* data,
                                         const parz_chunk_config& cfg, int refused, int rc,
                                         const parz_error& e, int stored,
                                         const std::vector<unsigned char>& got) {
  parz_error ce = {0, ""};
  if (refused) {
    CHECK(rc == PARZ_ERR_UNSUPPORTED && strstr(e.message, "GPU encode") &&
              strstr(e.message, "on the CPU"),
          ": %s: refused with status %d, \"%s\"", name, rc, e.message);
    return 0;
  }
  std::vector<unsigned char> want(parz_chunk_bound(&a, &cfg));
  size_t written = 0;
  const int crc = parz_chunk_encode(&a, data, &cfg, want.data(), want.size(), &written, &ce);
  CHECK(rc == PARZ_OK && crc == PARZ_OK, ": %s: %d \"%s\", CPU %d \"%s\"", name, rc, e.message, crc,
        ce.message);
  if (rc != PARZ_OK || crc != PARZ_OK)
    return 0;
  want.resize(written);
  if (stored) {
    parz_chunk_view v;
    CHECK(parz_chunk_parse(want.data(), want.size(), &v, &ce) == PARZ_OK &&
              v.codec == PARZ_CODEC_STORED,
          ": %s: stored, the CPU did not", name);
    return 0;
  }
  size_t at = 0;
  while (at < got.size() && at < want.size() && got[at] == want[at])
    at++;
  CHECK(got.size() == want.size() && at == want.size(),
        ": %s: %zu bytes against the CPU's %zu, first difference at %zu", name, got.size(),
        want.size(), at);
  return 1;
}

#endif
