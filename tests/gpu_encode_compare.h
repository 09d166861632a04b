/* The GPU encoders' host tests' comparison: a chunk their emulated steps built against
 * parz_chunk_encode's, byte for byte, and their refusals; a head as the GPU seals it in a call's
 * one chunk's place against the host's. */
#ifndef PARZ_TEST_GPU_ENCODE_COMPARE_H
#define PARZ_TEST_GPU_ENCODE_COMPARE_H

#include <string.h>

#include <vector>

#include "check.h"
#include "encode_whole.h"
#include "gpu_head_crc_host.h"
#include "head_table.h"
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

/* The head of a chunk as the GPU writes and seals it (whole_memory.h, head_crc.h): the host's
 * part as its encoder writes it (gpu_table: the bounded encoder's parz_gpu_whole_fixed, the GPU
 * then writing the exception records, pos and bits, and after them, as its stream orders the
 * kernels, the table's entries from the segments' bits, parz_gpu_table_entry, the segments last
 * to first and again first to last, as threads may run; else the lossless encoder's
 * parz_gpu_whole_unsealed), the sums written into it, the header's CRC-32C taken in two parts,
 * the GPU's as its kernel takes it; it must be want's head (head bytes, sealed on the host), in
 * either order of the table's entries. 1 where checked: the GPU writes part of
 * the head, and (without gpu_table, a call's one chunk only) the head and sums are aligned to
 * their words, as a chunk placed at once has them; else 0. */
static inline int gpu_seal_same_as_host(const parz_chunk_view& fin, int gpu_table,
                                        const unsigned long long* seg_bits,
                                        const unsigned long long* pos, const uint64_t* bits,
                                        const unsigned char* codec_data, const uint64_t* sums,
                                        const unsigned char* want, size_t head) {
  parz_chunk_offsets o;
  parz_chunk_section_offsets(&fin, &o);
  const size_t from = gpu_table ? o.table : o.checksums, to = o.mask;
  if (from == to || (!gpu_table && (head % 8 || o.checksums % 8)))
    return 0;
  std::vector<unsigned char> got(head, 0xA5);
  parz_error e = {0, ""};
  if (gpu_table) {
    parz_gpu_whole_fixed(&fin, codec_data, got.data(), head);
  } else {
    CHECK(parz_gpu_whole_unsealed(&fin, seg_bits, pos, bits, codec_data, got.data(), head, &e) ==
              PARZ_OK,
          ": the unsealed head: %s", e.message);
  }
  uint32_t raw = 0;
  parz_gpu_head_crc s;
  parz_gpu_whole_crc_of(got.data(), head, from, to, got.data(), &raw, &s);
  for (uint64_t k = 0; gpu_table && k < fin.nexceptions; k++) {
    parz_store64(got.data() + o.exceptions + 16 * k, pos[k]);
    parz_store64(got.data() + o.exceptions + 16 * k + 8, bits[k]);
  }
  /* the CRC's state s reads the head where it lies, in got, so each order starts from a copy */
  const std::vector<unsigned char> before(got);
  for (int forward = 0; forward <= gpu_table; forward++) {
    memcpy(got.data(), before.data(), head);
    if (gpu_table) {
      const parz_gpu_table t = parz_gpu_table_of(&fin, got.data() + o.table);
      std::vector<unsigned long long> at((size_t)fin.nsegments + 1, 0);
      for (uint64_t k = 0; k < fin.nsegments; k++)
        at[k + 1] = at[k] + seg_bits[k];
      for (uint64_t j = 0; j < fin.nsegments; j++) {
        const uint64_t k = forward ? j : fin.nsegments - 1 - j;
        parz_gpu_table_entry(t, k, at[k], seg_bits[k]);
      }
    }
    for (size_t k = 0; k < fin.nchecksums; k++)
      parz_store64(got.data() + o.checksums + 8 * k, sums[k]);
    raw = gpu_crc_raw(s);
    parz_store32(got.data() + PARZ_HEADER_BYTES - 4, parz_gpu_head_crc_value(s, raw));
    CHECK(memcmp(got.data(), want, head) == 0,
          ": the head sealed as on the GPU differs from the host's (GPU bytes %zu to %zu of %zu%s)",
          from, to, head,
          gpu_table ? (forward ? ", table first to last" : ", table last to first") : "");
  }
  return 1;
}

#endif
