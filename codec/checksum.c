/* CRC-32C: the x86-64 instruction for it where the CPU has it (SSE4.2), else table-driven one
 * byte at a time (the table and the combine arithmetic in crc32c.h, shared with the GPU encoder).
 * The table is a constant (no lazy initialisation, so no shared mutable state). The checksummed
 * head of a chunk grows as C shrinks (its table: up to 2% of the payload with auto C, more with a
 * small C given), and every reader sums it before decoding, the filter on the calling thread
 * alone: the instruction takes 8 bytes a step where the table takes one. */
#include "checksum.h"

#include <string.h>

#include "cpu_has.h"
#include "crc32c.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define PARZ_CRC32C_SSE42 1

/* The same CRC (no pre- or post-inversion) 8 bytes per instruction: the instruction consumes a
 * little-endian word's bytes in memory order, as the table loop does. */
__attribute__((target("sse4.2"))) static uint32_t crc32c_sse42(uint32_t crc, const unsigned char* p,
                                                               size_t bytes) {
  uint64_t c = crc;
  for (; bytes >= 8; bytes -= 8, p += 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    c = _mm_crc32_u64(c, w);
  }
  for (; bytes; bytes--)
    c = _mm_crc32_u8((uint32_t)c, *p++);
  return (uint32_t)c;
}

#endif

uint32_t parz_crc32c_bytewise(uint32_t crc, const void* data, size_t bytes) {
  const unsigned char* p = (const unsigned char*)data;
  crc = ~crc;
  while (bytes--)
    crc = parz_crc32c_step(crc, *p++);
  return ~crc;
}

uint32_t parz_crc32c(uint32_t crc, const void* data, size_t bytes) {
#ifdef PARZ_CRC32C_SSE42
  if (PARZ_CPU_HAS("sse4.2"))
    return ~crc32c_sse42(~crc, (const unsigned char*)data, bytes);
#endif
  return parz_crc32c_bytewise(crc, data, bytes);
}

uint32_t parz_crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t bytes_b) {
  /* b's register started from ~0 where a || b's goes on from ~crc_a: they differ by
   * ~0 ^ ~crc_a = crc_a, carried over b's bytes */
  return crc_b ^ parz_crc32c_shift(crc_a, bytes_b);
}
