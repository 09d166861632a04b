/* Shared by the ParZ fuzz harnesses (tests/fuzz/README.md).
 *
 * Every harness input starts with one control byte. Bit 0 of it asks the harness to recompute
 * the chunk's CRC-32C before use: without that, almost every mutation of the header or table
 * would stop at the checksum and the fuzzer would never reach the validation and decoding code
 * behind it. Bit 7 also recomputes the payload checksums of a version 2 chunk (then the CRC
 * again), so that payload mutations get past the verification into the decoders. Seeds come
 * every way, so both checks themselves are exercised too. */
#ifndef PARZ_FUZZ_COMMON_H
#define PARZ_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "parz_chunk.h"
#include "table.h"
#include "table_endian.h"

#define PARZ_FUZZ_HEADER_BYTES 112u
#define PARZ_FUZZ_FIX_CHECKSUM 1u
#define PARZ_FUZZ_FIX_PAYLOAD_CHECKSUMS 0x80u

/* Larger decoded sizes are skipped: a few kilobytes of chunk may legally claim megabytes of
 * values (FORMAT.md allows 256 values per payload bit) and the fuzzer must stay fast. */
#define PARZ_FUZZ_MAX_RAW_BYTES ((size_t)8 << 20)

static inline uint64_t parz_fuzz_rd64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

static inline uint32_t parz_fuzz_rd32(const unsigned char* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Rewrites the checksum field (bytes 108..111) so that it matches everything in front of the
 * payload as the header's payload size (bytes 88..95) describes it, when that lies inside the
 * buffer. */
static inline void parz_fuzz_fix_checksum(unsigned char* c, size_t size) {
  if (size < PARZ_FUZZ_HEADER_BYTES)
    return;
  uint64_t payload = parz_fuzz_rd64(c + 88);
  if (payload > size - PARZ_FUZZ_HEADER_BYTES)
    return;
  uint32_t crc = parz_crc32c(0, c, 108);
  crc = parz_crc32c(crc, c + PARZ_FUZZ_HEADER_BYTES,
                    (size_t)(size - payload - PARZ_FUZZ_HEADER_BYTES));
  for (int i = 0; i < 4; i++)
    c[108 + i] = (unsigned char)(crc >> (8 * i));
}

/* Rewrites the payload checksums of a chunk that parses to match its payload, then the CRC. */
static inline void parz_fuzz_fix_payload_checksums(unsigned char* c, size_t size) {
  parz_chunk_view v;
  parz_fuzz_fix_checksum(c, size);
  if (parz_chunk_parse(c, size, &v, NULL) != PARZ_OK || !v.nchecksums)
    return;
  unsigned char* sums = c + (v.checksums - c);
  uint64_t begin = 0, P = v.checksum_segments;
  for (uint64_t p = 0; p < v.nchecksums; p++) {
    uint64_t end = p + 1 == v.nchecksums ? 8u * (uint64_t)v.payload_bytes
                                         : parz_chunk_segment_offset(&v, (p + 1) * P);
    parz_store64(sums + 8 * p, parz_payload_checksum(v.payload, begin, end));
    begin = end;
  }
  parz_fuzz_fix_checksum(c, size);
}

/* A heap copy of exactly `size` bytes (so AddressSanitizer sees any read past the chunk), with
 * the checksum fixed when the control byte asks for it. Never NULL for size 0: malloc(1). */
static inline unsigned char* parz_fuzz_chunk_copy(const uint8_t* data, size_t size, unsigned ctl) {
  unsigned char* c = (unsigned char*)malloc(size ? size : 1);
  if (!c)
    abort();
  if (size)
    memcpy(c, data, size);
  if (ctl & PARZ_FUZZ_FIX_CHECKSUM)
    parz_fuzz_fix_checksum(c, size);
  if (ctl & PARZ_FUZZ_FIX_PAYLOAD_CHECKSUMS)
    parz_fuzz_fix_payload_checksums(c, size);
  return c;
}

/* A broken invariant is a finding: print it and abort so libFuzzer saves the input. */
#define PARZ_FUZZ_CHECK(cond)                                                      \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      abort();                                                                     \
    }                                                                              \
  } while (0)

/* Every failure must say what went wrong: code set to the status, a non-empty message. */
static inline void parz_fuzz_check_error(int rc, const parz_error* e) {
  PARZ_FUZZ_CHECK(rc > PARZ_OK && rc <= PARZ_ERR_UNSUPPORTED);
  PARZ_FUZZ_CHECK(e->code == rc);
  PARZ_FUZZ_CHECK(memchr(e->message, 0, sizeof e->message) != NULL);
  PARZ_FUZZ_CHECK(e->message[0] != 0);
}

/* The invariants parz_chunk_parse promises (parz_chunk.h, FORMAT.md "Validation"): every section
 * inside the chunk, segment offsets monotone and inside the payload bits. */
static inline void parz_fuzz_check_view(const parz_chunk_view* v, const unsigned char* c,
                                        size_t size) {
  PARZ_FUZZ_CHECK(v->chunk_bytes == size);
  PARZ_FUZZ_CHECK(v->version == 1 || v->version == 2);
  PARZ_FUZZ_CHECK(v->array.dims >= 1 && v->array.dims <= 4);
  PARZ_FUZZ_CHECK(parz_type_size(v->array.type) != 0);
  PARZ_FUZZ_CHECK(v->table != PARZ_TABLE_AUTO);
  PARZ_FUZZ_CHECK(v->segment_blocks >= 1);
  /* a stored chunk's block is one value, and it has no exception, mask nor table; an
   * error-bounded chunk's block is one value too (one code), and it has its codec data */
  PARZ_FUZZ_CHECK(v->codec == PARZ_CODEC_ZFP || v->codec == PARZ_CODEC_STORED ||
                  v->codec == PARZ_CODEC_LOSSLESS || v->codec == PARZ_CODEC_BOUNDED);
  PARZ_FUZZ_CHECK(v->nblocks == (v->codec == PARZ_CODEC_ZFP        ? parz_block_count(&v->array)
                                 : v->codec == PARZ_CODEC_LOSSLESS ? v->nblocks
                                                                   : parz_array_count(&v->array)));
  {
    uint64_t blocks = 1;
    for (unsigned k = 0; k < 4; k++) {
      PARZ_FUZZ_CHECK(v->block_side[k] >= 1 && (k < v->array.dims || v->block_side[k] == 1));
      if (k < v->array.dims)
        blocks *= (v->array.shape[k] + v->block_side[k] - 1) / v->block_side[k];
    }
    PARZ_FUZZ_CHECK(v->nblocks == blocks);
  }
  /* a lossless chunk carries every value in its payload, in whole bytes, its segments' lengths
   * in a table; its codec parameters are a transform, a predictor, Holt's gains (a series' only)
   * and zeros; a series may carry a dictionary of its values as codec data; the row predictor's
   * blocks are rows */
  if (v->codec == PARZ_CODEC_LOSSLESS) {
    unsigned long_dims = 0;
    const int dictionary = v->codec_params[0] == 128;
    PARZ_FUZZ_CHECK(!v->nexceptions && !v->mask.nvalues && !v->codec_data == !dictionary &&
                    v->table != PARZ_TABLE_NONE && v->payload_bits % 8 == 0);
    /* at most 256 values a payload bit (coder 4's empty runs) */
    PARZ_FUZZ_CHECK(v->payload_bits >= parz_array_count(&v->array) / 256);
    PARZ_FUZZ_CHECK((v->codec_params[0] <= 37 || dictionary) && v->codec_params[1] <= 3);
    PARZ_FUZZ_CHECK(v->codec_params[2] <= 8 && v->codec_params[3] <= 8);
    for (unsigned k = 0; k < v->array.dims; k++)
      long_dims += v->array.shape[k] > 1;
    if (dictionary)
      PARZ_FUZZ_CHECK(long_dims <= 1 && v->codec_data_bytes >= 24);
    if (v->codec_params[1] == 3) { /* rows: side 4096 along the last long dimension, else 1 */
      unsigned last = v->array.dims;
      while (last > 0 && v->array.shape[last - 1] == 1)
        last--;
      for (unsigned k = 0; k < v->array.dims; k++)
        PARZ_FUZZ_CHECK(v->block_side[k] == (k + 1 == last ? 4096u : 1u));
    }
    if (v->codec_params[1] == 2)
      PARZ_FUZZ_CHECK(long_dims <= 1);
    else
      PARZ_FUZZ_CHECK(v->codec_params[2] == 0 && v->codec_params[3] == 0);
    for (unsigned k = 4; k < PARZ_CODEC_PARAM_BYTES; k++)
      PARZ_FUZZ_CHECK(v->codec_params[k] == 0);
  }
  if (v->codec == PARZ_CODEC_BOUNDED) {
    PARZ_FUZZ_CHECK(v->version == 2 && v->codec_data && v->codec_data_bytes >= 16 &&
                    v->codec_data_bytes % 8 == 0 && v->codec_data > c &&
                    v->codec_data + v->codec_data_bytes <= v->payload);
    PARZ_FUZZ_CHECK(v->array.type == PARZ_FLOAT || v->array.type == PARZ_DOUBLE);
    PARZ_FUZZ_CHECK(v->payload_bits >= v->nsegments && v->table != PARZ_TABLE_NONE);
  }
  if (v->codec == PARZ_CODEC_STORED) {
    PARZ_FUZZ_CHECK(v->version == 2 && v->table == PARZ_TABLE_NONE && !v->nexceptions &&
                    !v->mask.nvalues && !v->table_bytes);
    PARZ_FUZZ_CHECK(v->payload_bits == 8 * (uint64_t)v->raw_bytes);
  }
  PARZ_FUZZ_CHECK(v->nsegments == (v->nblocks + v->segment_blocks - 1) / v->segment_blocks);
  PARZ_FUZZ_CHECK(v->raw_bytes == parz_array_count(&v->array) * parz_type_size(v->array.type));
  PARZ_FUZZ_CHECK(v->payload_bytes % 8 == 0);
  PARZ_FUZZ_CHECK(v->payload_bits <= 8 * (uint64_t)v->payload_bytes);
  PARZ_FUZZ_CHECK(v->payload >= c && v->payload_bytes <= size &&
                  (size_t)(v->payload - c) <= size - v->payload_bytes);
  if (v->table_bytes) {
    PARZ_FUZZ_CHECK(v->table_data >= c && v->table_bytes <= size &&
                    (size_t)(v->table_data - c) <= size - v->table_bytes);
  }
  if (v->nexceptions) {
    PARZ_FUZZ_CHECK(v->exceptions >= c && v->nexceptions <= size / 16 &&
                    (size_t)(v->exceptions - c) <= size - 16 * v->nexceptions);
  }
  /* payload checksums: version 2 only, one per partition of P segments, in front of the
   * payload */
  if (v->nchecksums) {
    PARZ_FUZZ_CHECK(v->version == 2 && v->checksum_segments >= 1);
    PARZ_FUZZ_CHECK(v->nchecksums ==
                    (v->nsegments + v->checksum_segments - 1) / v->checksum_segments);
    PARZ_FUZZ_CHECK(v->checksums >= c && v->checksums <= v->payload &&
                    (size_t)(v->payload - v->checksums) >= 8 * v->nchecksums);
    if (v->table == PARZ_TABLE_HYBRID)
      PARZ_FUZZ_CHECK(v->checksum_segments == v->partition_segments);
  } else {
    PARZ_FUZZ_CHECK(v->checksums == NULL);
  }
  /* mask: version 2 only, in front of the payload, its parts inside the section, every record
   * readable within its group's bytes (the parser's promise to the decoders' cursors) */
  if (v->mask.nvalues) {
    const parz_chunk_mask* m = &v->mask;
    PARZ_FUZZ_CHECK(v->version == 2 && m->nvalues <= 256 && m->group_blocks >= 1);
    /* the mask's blocks are 4^d values whatever the codec's */
    PARZ_FUZZ_CHECK(m->ngroups ==
                    (parz_block_count(&v->array) + m->group_blocks - 1) / m->group_blocks);
    PARZ_FUZZ_CHECK(m->values > c && m->values + m->section_bytes <= v->payload + 16);
    PARZ_FUZZ_CHECK(m->starts == m->values + 8 * m->nvalues &&
                    m->records == m->starts + 8 * m->ngroups &&
                    m->records + m->record_bytes <= v->payload);
    for (uint64_t g = 0; g < m->ngroups && g < 4096; g++) {
      uint64_t at = parz_fuzz_rd64(m->starts + 8 * g);
      uint64_t stop =
          g + 1 < m->ngroups ? parz_fuzz_rd64(m->starts + 8 * (g + 1)) : m->record_bytes;
      PARZ_FUZZ_CHECK(at <= stop && stop <= m->record_bytes);
    }
  } else {
    PARZ_FUZZ_CHECK(v->mask.section_bytes == 0);
  }
  /* Offsets: all of them for small tables, a sample for big ones (O(P) each for HYBRID). */
  uint64_t step = v->nsegments > 4096 ? v->nsegments / 4096 : 1, prev = 0;
  for (uint64_t s = 0; s <= v->nsegments; s += step) {
    uint64_t off = parz_chunk_segment_offset(v, s);
    PARZ_FUZZ_CHECK(off >= prev && off <= v->payload_bits);
    prev = off;
  }
  PARZ_FUZZ_CHECK(parz_chunk_segment_offset(v, 0) == 0);
  PARZ_FUZZ_CHECK(parz_chunk_segment_offset(v, v->nsegments) == v->payload_bits);
}

#endif
