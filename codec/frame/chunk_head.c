/* The chunk's head: where its sections lie, its header and directory written, the header's
 * CRC-32C, and the payload checksum of a range of bits (codec/FORMAT.md). */
#include <string.h>

#include "checksum.h"
#include "exceptions.h"
#include "header.h"
#include "payload_checksum.h"
#include "table.h"
#include "table_endian.h"

/* Sections a layout has: payload checksums, a mask, codec data. */
static unsigned section_count(const parz_chunk_view* v) {
  return (v->nchecksums != 0) + (v->mask.section_bytes != 0) + (v->codec_data_bytes != 0);
}

void parz_chunk_section_offsets(const parz_chunk_view* v, parz_chunk_offsets* o) {
  size_t at = PARZ_HEADER_BYTES + section_count(v) * PARZ_SECTION_ENTRY_BYTES;
  o->table = at;
  o->exceptions = at += v->table_bytes;
  at += (size_t)v->nexceptions * PARZ_EXCEPTION_BYTES;
  o->checksums = v->nchecksums ? at + PARZ_CHECKSUM_HEAD_BYTES : at;
  if (v->nchecksums)
    at = o->checksums + (size_t)(8u * v->nchecksums);
  o->mask = at;
  o->codec_data = at += (size_t)v->mask.section_bytes;
  o->payload = at + (size_t)v->codec_data_bytes;
}

void parz_chunk_head_fixed(const parz_chunk_view* v, unsigned char* h, unsigned char* sums_head) {
  unsigned k;
  memset(h, 0, PARZ_HEADER_BYTES);
  h[H_MAGIC] = MAGIC0;
  h[H_MAGIC + 1] = MAGIC1;
  h[H_MAGIC + 2] = MAGIC2;
  h[H_MAGIC + 3] = MAGIC3;
  parz_store16(h + H_CODEC, (uint16_t)(v->codec ? v->codec : PARZ_CODEC_ZFP));
  parz_store16(h + H_CODEC_VERSION, CODEC_VERSION);
  h[H_TYPE] = (unsigned char)v->array.type;
  h[H_RANK] = (unsigned char)v->array.dims;
  h[H_TABLE] = (unsigned char)v->table;
  h[H_WIDTH] = (unsigned char)v->length_bytes;
  for (k = 0; k < v->array.dims; k++)
    parz_store64(h + H_SHAPE + 8 * k, v->array.shape[k]);
  memcpy(h + H_CODEC_PARAMS, v->codec_params, PARZ_CODEC_PARAM_BYTES);
  parz_store32(h + H_SEGMENT_BLOCKS, v->segment_blocks);
  parz_store32(h + H_PARTITION_SEGMENTS, v->partition_segments);
  parz_store64(h + H_TABLE_BYTES, v->table_bytes);
  parz_store64(h + H_NEXCEPTIONS, v->nexceptions);
  parz_store64(h + H_PAYLOAD_BYTES, v->payload_bytes);
  parz_store64(h + H_PAYLOAD_BITS, v->payload_bits);
  parz_store16(h + H_FORMAT, (uint16_t)v->version);
  if (section_count(v)) { /* the directory, in order of kind */
    unsigned char* e = h + PARZ_HEADER_BYTES;
    parz_store32(h + H_SECTIONS, section_count(v));
    memset(e, 0, section_count(v) * PARZ_SECTION_ENTRY_BYTES);
    if (v->nchecksums) { /* the entry, then the section's own header */
      parz_store16(e + E_KIND, PARZ_SECTION_CHECKSUMS);
      parz_store64(e + E_BYTES, PARZ_CHECKSUM_HEAD_BYTES + 8u * v->nchecksums);
      parz_store32(sums_head, v->checksum_segments);
      parz_store32(sums_head + 4, 0);
      e += PARZ_SECTION_ENTRY_BYTES;
    }
    if (v->mask.section_bytes) {
      parz_store16(e + E_KIND, PARZ_SECTION_MASK);
      parz_store16(e + E_FLAGS, PARZ_SECTION_REQUIRED);
      parz_store64(e + E_BYTES, v->mask.section_bytes);
      e += PARZ_SECTION_ENTRY_BYTES;
    }
    if (v->codec_data_bytes) {
      parz_store16(e + E_KIND, PARZ_SECTION_CODEC_DATA);
      parz_store16(e + E_FLAGS, PARZ_SECTION_REQUIRED);
      parz_store64(e + E_BYTES, v->codec_data_bytes);
    }
  }
}

void parz_chunk_header_write(const parz_chunk_view* v, unsigned char* h) {
  parz_chunk_offsets o;
  parz_chunk_section_offsets(v, &o);
  parz_chunk_head_fixed(v, h, h + o.checksums - PARZ_CHECKSUM_HEAD_BYTES);
}

void parz_chunk_header_seal(unsigned char* h, size_t head_bytes) {
  uint32_t crc = parz_crc32c(0, h, H_CHECKSUM);
  crc = parz_crc32c(crc, h + PARZ_HEADER_BYTES, head_bytes - PARZ_HEADER_BYTES);
  parz_store32(h + H_CHECKSUM, crc);
}

/* The mix's two 64-bit multiplies per word bound the checksum on the CPU. Compilers vectorize
 * the loop for AVX2 (4 words at once, the multiplies built from 32-bit ones), which outruns the
 * scalar loop. One build serves every x86-64 machine: the AVX2
 * clone is picked at load time where the CPU has it. (Clang before 16 names the dispatcher
 * apart from the function, which leaves callers in other files unresolved: not there.) */
#if defined(__x86_64__) && defined(__ELF__) && defined(__has_attribute) && \
    (!defined(__clang__) || __clang_major__ >= 16)
#if __has_attribute(target_clones)
#define PARZ_CHECKSUM_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef PARZ_CHECKSUM_CLONES
#define PARZ_CHECKSUM_CLONES
#endif

PARZ_CHECKSUM_CLONES
uint64_t parz_payload_checksum(const unsigned char* payload, uint64_t begin, uint64_t end) {
  return parz_checksum_lane(payload, begin, end, 0, 1);
}

size_t parz_chunk_head_bytes(const parz_chunk_view* v) {
  parz_chunk_offsets o;
  parz_chunk_section_offsets(v, &o);
  return o.payload;
}
