/* The GPU encoders' host tests' comparison: a chunk their emulated steps built against
 * parz_chunk_encode's, byte for byte, and their refusals; a head as the GPU seals it in a call's
 * one chunk's place against the host's. */
#ifndef PARZ_TEST_GPU_ENCODE_COMPARE_H
#define PARZ_TEST_GPU_ENCODE_COMPARE_H

#include <string.h>

#include <vector>

#include "check.h"
#include "encode_whole.h"
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

/* The head of a call's one chunk as the GPU seals it in its place (parz_gpu_seal): unsealed
 * (parz_gpu_whole_unsealed, from the segments' bits, the exceptions' positions and bits and the
 * codec data), the host's part of its CRC taken, the sums then written into it, the seal
 * kernel's lanes in reverse; it must be want's head (head bytes, sealed on the host). 1 where
 * checked: fin has sums and its head and sums are aligned to their words, as a chunk placed at
 * once has them; else 0. */
static inline int gpu_seal_same_as_host(const parz_chunk_view& fin,
                                        const unsigned long long* seg_bits,
                                        const unsigned long long* pos, const uint64_t* bits,
                                        const unsigned char* codec_data, const uint64_t* sums,
                                        const unsigned char* want, size_t head) {
  parz_chunk_offsets o;
  parz_chunk_section_offsets(&fin, &o);
  if (!fin.nchecksums || head % 8 || o.checksums % 8)
    return 0;
  std::vector<unsigned char> got(head, 0xA5);
  parz_error e = {0, ""};
  parz_gpu_seal s;
  CHECK(parz_gpu_whole_unsealed(&fin, seg_bits, pos, bits, codec_data, got.data(), head, &e) ==
            PARZ_OK,
        ": the unsealed head: %s", e.message);
  parz_gpu_seal_of(&fin, got.data(), head, &s);
  for (size_t k = 0; k < fin.nchecksums; k++)
    parz_store64(got.data() + s.at + 8 * k, sums[k]);
  uint32_t shares = 0;
  for (unsigned lane = PARZ_GPU_SEAL_LANES; lane-- > 0;)
    shares ^= parz_gpu_seal_share(s, got.data() + s.at, lane);
  parz_store32(got.data() + PARZ_HEADER_BYTES - 4, parz_gpu_seal_crc(s, shares));
  CHECK(memcmp(got.data(), want, head) == 0,
        ": the head sealed as on the GPU differs from the host's (%llu sums, %llu bytes after)",
        (unsigned long long)fin.nchecksums, s.after);
  return 1;
}

#endif
