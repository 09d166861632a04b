/* Little-endian loads and stores for the chunk header, table and exception records. Written
 * byte by byte so they are correct on any host and never do an unaligned access; compilers turn
 * them into single moves on little-endian machines. */
#ifndef PARZ_TABLE_ENDIAN_H
#define PARZ_TABLE_ENDIAN_H

#include <stdint.h>

static inline uint16_t parz_load16(const unsigned char* p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t parz_load32(const unsigned char* p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t parz_load64(const unsigned char* p) {
  return (uint64_t)parz_load32(p) | ((uint64_t)parz_load32(p + 4) << 32);
}
static inline void parz_store16(unsigned char* p, uint16_t v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
}
static inline void parz_store32(unsigned char* p, uint32_t v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
  p[2] = (unsigned char)(v >> 16);
  p[3] = (unsigned char)(v >> 24);
}
static inline void parz_store64(unsigned char* p, uint64_t v) {
  parz_store32(p, (uint32_t)v);
  parz_store32(p + 4, (uint32_t)(v >> 32));
}

#endif
