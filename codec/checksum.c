/* CRC-32C, table-driven one byte at a time (crc32c.h). The table is a constant (no lazy
 * initialisation, so no shared mutable state); the checksummed part of a chunk (header, table,
 * exceptions) is a small fraction of its size, so byte-wise speed is plenty. */
#include "checksum.h"

#include "crc32c.h"

uint32_t parz_crc32c(uint32_t crc, const void* data, size_t bytes) {
  const unsigned char* p = (const unsigned char*)data;
  crc = ~crc;
  while (bytes--)
    crc = parz_crc32c_step(crc, *p++);
  return ~crc;
}

uint32_t parz_crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t bytes_b) {
  /* b's register started from ~0 where a || b's goes on from ~crc_a: they differ by
   * ~0 ^ ~crc_a = crc_a, carried over b's bytes */
  return crc_b ^ parz_crc32c_shift(crc_a, bytes_b);
}
