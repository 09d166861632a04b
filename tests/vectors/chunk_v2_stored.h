/* ParZ chunk format version 2 test vector of a stored chunk (codec 2), written out field by
 * field from codec/FORMAT.md, "Stored chunks": the header CRC-32C and the payload checksum
 * computed from the format's definitions by a program independent of the codec. If an encoder
 * change alters any byte of this, the format has changed: add a new vector instead of editing
 * this one.
 *
 * Array: float32, rank 2, shape {2, 3}: a NaN with a payload, -0.0, +Inf, the least subnormal,
 * FLT_MAX and 1.5, stored as they are (the encoder stores any chunk its encoding would make
 * larger; this one it stores whatever the mode).
 * One segment (C = 4096 values), one checksummed partition (P = 64), payload 192 bits. */
#ifndef PARZ_CHUNK_V2_STORED_H
#define PARZ_CHUNK_V2_STORED_H

#include <stdint.h>

static const unsigned char chunk_v2_stored[168] = {
    /* ---- header, 112 bytes ---- */
    0x50, 0x41, 0x52, 0x5a,                          /*   0 magic "PARZ" */
    0x02, 0x00,                                      /*   4 format version 2 */
    0x02, 0x00,                                      /*   6 codec id 2 (stored values) */
    0x01, 0x00,                                      /*   8 codec version 1 */
    0x03,                                            /*  10 type 3 = float32 */
    0x02,                                            /*  11 rank 2 */
    0x01,                                            /*  12 table kind 1 = NONE */
    0x00,                                            /*  13 length field width 0 */
    0x00, 0x00,                                      /*  14 flags 0 */
    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  16 shape[0] = 2 */
    0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  24 shape[1] = 3 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  32 shape[2] unused = 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  40 shape[3] unused = 0 */
    0x20, 0x00, 0x00, 0x00,                          /*  48 minbits 32 (bits of a value) */
    0x20, 0x00, 0x00, 0x00,                          /*  52 maxbits 32 */
    0x00, 0x00, 0x00, 0x00,                          /*  56 maxprec 0 */
    0x00, 0x00, 0x00, 0x00,                          /*  60 minexp 0 */
    0x00, 0x10, 0x00, 0x00,                          /*  64 segment_blocks C = 4096 values */
    0x00, 0x00, 0x00, 0x00,                          /*  68 partition_segments P = 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  72 table bytes 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  80 exceptions 0 */
    0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  88 payload bytes 24 */
    0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  96 payload bits 192 */
    0x01, 0x00, 0x00, 0x00,                          /* 104 sections 1 */
    0x0b, 0xfd, 0xc0, 0x11,                          /* 108 CRC-32C of bytes 0..107 and 112..143 */
    /* ---- section directory: 1 entry of 16 bytes ---- */
    0x01, 0x00,                                      /* 112 kind 1 = payload checksums */
    0x00, 0x00,                                      /* 114 flags 0 */
    0x00, 0x00, 0x00, 0x00,                          /* 116 reserved 0 */
    0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 120 section bytes 16 */
    /* ---- payload checksums: P, reserved, one sum ---- */
    0x40, 0x00, 0x00, 0x00,                          /* 128 P = 64 segments per partition */
    0x00, 0x00, 0x00, 0x00,                          /* 132 reserved 0 */
    0xdc, 0x88, 0x5e, 0x1b, 0x05, 0xa6, 0xe9, 0xe3,  /* 136 partition 0 (payload bits 0..191) */
    /* ---- payload: the six values, little-endian ---- */
    0x01, 0x00, 0xc0, 0x7f,                          /* 144 NaN with payload 1 (0x7fc00001) */
    0x00, 0x00, 0x00, 0x80,                          /* 148 -0.0 (0x80000000) */
    0x00, 0x00, 0x80, 0x7f,                          /* 152 +Inf (0x7f800000) */
    0x01, 0x00, 0x00, 0x00,                          /* 156 the least subnormal (0x00000001) */
    0xff, 0xff, 0x7f, 0x7f,                          /* 160 FLT_MAX (0x7f7fffff) */
    0x00, 0x00, 0xc0, 0x3f,                          /* 164 1.5 (0x3fc00000) */
};

/* The decoded values' bit patterns. */
static const uint32_t chunk_v2_stored_values[6] = {0x7fc00001u, 0x80000000u, 0x7f800000u,
                                                   0x00000001u, 0x7f7fffffu, 0x3fc00000u};

#endif
