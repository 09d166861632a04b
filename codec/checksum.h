/* CRC-32C (Castagnoli), the checksum of a chunk's header, table and exceptions.
 * Reflected polynomial 0x82F63B78, initial value 0xFFFFFFFF, final XOR 0xFFFFFFFF: the CRC used by
 * iSCSI, ext4 and Btrfs, so any independent implementation can check a chunk (codec/FORMAT.md).
 * CRC-32C("123456789") == 0xE3069283. */
#ifndef PARZ_CHECKSUM_H
#define PARZ_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Continues a CRC: crc = parz_crc32c(0, a, na); crc = parz_crc32c(crc, b, nb) gives the CRC of the
 * concatenation a || b. Start with 0. */
uint32_t parz_crc32c(uint32_t crc, const void* data, size_t bytes);
/* The same, always with the portable table loop (parz_crc32c uses the CPU's CRC instruction
 * where it has one): the reference the tests compare it with. */
uint32_t parz_crc32c_bytewise(uint32_t crc, const void* data, size_t bytes);

/* The CRC of a || b from the CRCs of a and of b (bytes_b long), without reading either: lets a
 * message checksummed in pieces, on the host or the GPU, give the CRC of the whole. */
uint32_t parz_crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t bytes_b);

#ifdef __cplusplus
}
#endif

#endif
