/* The chunk's header and directory entries field by field (codec/FORMAT.md, "Header" and
 * "Sections"), internal to the frame: its writer (chunk_head.c) and its parser (chunk_parse.c). */
#ifndef PARZ_FRAME_HEADER_H
#define PARZ_FRAME_HEADER_H

#include <stdint.h>

#include "parz_chunk.h"

#define MAGIC0 0x50u /* 'P' */
#define MAGIC1 0x41u /* 'A' */
#define MAGIC2 0x52u /* 'R' */
#define MAGIC3 0x5Au /* 'Z' */
#define FORMAT_VERSION ((unsigned)PARZ_CHUNK_FORMAT_VERSION)
#define CODEC_VERSION 1u /* the version every codec writes */

/* Header field offsets (FORMAT.md, "Header"). H_SECTIONS is version 1's reserved field. */
enum {
  H_MAGIC = 0,
  H_FORMAT = 4,
  H_CODEC = 6,
  H_CODEC_VERSION = 8,
  H_TYPE = 10,
  H_RANK = 11,
  H_TABLE = 12,
  H_WIDTH = 13,
  H_FLAGS = 14,
  H_SHAPE = 16,
  H_CODEC_PARAMS = 48, /* PARZ_CODEC_PARAM_BYTES, the codec's */
  H_SEGMENT_BLOCKS = 64,
  H_PARTITION_SEGMENTS = 68,
  H_TABLE_BYTES = 72,
  H_NEXCEPTIONS = 80,
  H_PAYLOAD_BYTES = 88,
  H_PAYLOAD_BITS = 96,
  H_SECTIONS = 104,
  H_CHECKSUM = 108
};

/* Directory entry field offsets (FORMAT.md, "Sections"). */
enum { E_KIND = 0, E_FLAGS = 2, E_RESERVED = 4, E_BYTES = 8 };

/* Blocks of side `side` along an extent n: ceil(n / side) without overflow. */
static inline uint64_t parz_blocks_along(uint64_t n, unsigned side) {
  return n / side + (n % side != 0);
}

/* Payload checksums of a chunk of nsegments segments: one per P segments, the last over those
 * left. */
static inline uint64_t parz_checksum_count(uint64_t nsegments, uint64_t P) {
  return nsegments / P + (nsegments % P != 0);
}

#endif
