/* ParZ chunk format version 2 test vector of an error-bounded chunk (codec 4), written out field
 * by field from codec/FORMAT.md, "Error-bounded chunks (codec 4)" (its worked example): the
 * header CRC-32C, the payload checksum, the grid step and the codebook computed from the format's
 * definitions by a program independent of the codec. If an encoder change alters any byte of
 * this, the format has changed: add a new vector instead of editing this one.
 *
 * Array: float32, rank 1, shape {8}: 0, 1, 2, 3, +Inf, 3, 3, NaN; error bound 0.5, Lorenzo asked
 * for. +Inf is an exception, NaN masked; both are holes whose codes are the prediction (0).
 * One segment of 8 codes (C = 4096), one partition (P = 64), payload 8 bits. */
#ifndef PARZ_CHUNK_V2_BOUNDED_H
#define PARZ_CHUNK_V2_BOUNDED_H

#include <stdint.h>

static const unsigned char chunk_v2_bounded[280] = {
    /* ---- header, 112 bytes ---- */
    0x50, 0x41, 0x52, 0x5a,                         /*   0 magic "PARZ" */
    0x02, 0x00,                                     /*   4 format version 2 */
    0x04, 0x00,                                     /*   6 codec id 4 (error-bounded) */
    0x01, 0x00,                                     /*   8 codec version 1 */
    0x03,                                           /*  10 type 3 = float32 */
    0x01,                                           /*  11 rank 1 */
    0x04,                                           /*  12 table kind 4 = HYBRID */
    0x04,                                           /*  13 length field width 4 */
    0x00, 0x00,                                     /*  14 flags 0 */
    0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  16 shape[0] = 8 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  24 shape[1] unused = 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  32 shape[2] unused = 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  40 shape[3] unused = 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe0, 0x3f, /*  48 codec parameter: error bound 0.5 */
    0x01, 0x00, 0x00, 0x00,                         /*  56 predictor asked for: 1 (Lorenzo) */
    0x00, 0x00, 0x00, 0x00,                         /*  60 reserved 0 */
    0x00, 0x10, 0x00, 0x00,                         /*  64 segment_blocks C = 4096 codes */
    0x40, 0x00, 0x00, 0x00,                         /*  68 partition_segments P = 64 */
    0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  72 table bytes 16 */
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  80 exceptions 1 */
    0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  88 payload bytes 8 */
    0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  96 payload bits 8 */
    0x03, 0x00, 0x00, 0x00,                         /* 104 sections 3 */
    0xdb, 0xf3, 0xfc, 0xb0,                         /* 108 CRC-32C of bytes 0..107 and 112..271 */
    /* ---- section directory: 3 entries of 16 bytes ---- */
    0x01, 0x00,                                     /* 112 kind 1 = payload checksums */
    0x00, 0x00,                                     /* 114 flags 0 */
    0x00, 0x00, 0x00, 0x00,                         /* 116 reserved 0 */
    0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 120 section bytes 16 */
    0x02, 0x00,                                     /* 128 kind 2 = mask */
    0x01, 0x00,                                     /* 130 flags 1 = required */
    0x00, 0x00, 0x00, 0x00,                         /* 132 reserved 0 */
    0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 136 section bytes 40 */
    0x03, 0x00,                                     /* 144 kind 3 = codec data */
    0x01, 0x00,                                     /* 146 flags 1 = required */
    0x00, 0x00, 0x00, 0x00,                         /* 148 reserved 0 */
    0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 152 section bytes 24 */
    /* ---- HYBRID table: one partition record ---- */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 160 partition 0 starts at payload bit 0 */
    0x08, 0x00, 0x00, 0x00,                         /* 168 len(segment 0) = 8 bits */
    0x00, 0x00, 0x00, 0x00,                         /* 172 zero padding to 8 bytes */
    /* ---- exception records ---- */
    0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 176 position 4 */
    0x00, 0x00, 0x80, 0x7f, 0x00, 0x00, 0x00, 0x00, /* 184 bits 0x7f800000 (+Inf) */
    /* ---- payload checksums: P, reserved, one sum ---- */
    0x40, 0x00, 0x00, 0x00,                         /* 192 P = 64 segments per partition */
    0x00, 0x00, 0x00, 0x00,                         /* 196 reserved 0 */
    0x1c, 0x77, 0x4c, 0x0a, 0xbf, 0x03, 0x20, 0xba, /* 200 partition 0 (payload bits 0..63) */
    /* ---- mask: G, V, R, value, start, records ---- */
    0x00, 0x10, 0x00, 0x00,                         /* 208 G = 4096 blocks per group */
    0x01, 0x00, 0x00, 0x00,                         /* 212 V = 1 value */
    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 216 R = 2 bytes of records */
    0x00, 0x00, 0xc0, 0x7f, 0x00, 0x00, 0x00, 0x00, /* 224 value[0] = 0x7fc00000 (NaN) */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 232 start[0] = 0 */
    0x03,                                           /* 240 record: varint 3 = skip 1, bitmap */
    0x08,                                           /* 241 bitmap: block 1, position 3 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00,             /* 242 zero padding to 8 bytes */
    /* ---- codec data: step, predictor, runs, reserved, B, codebook ---- */
    0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xef, 0x3f, /* 248 step = 1 - 2^-21 (f64) */
    0x01,                                           /* 256 predictor 1 (Lorenzo) */
    0x00,                                           /* 257 runs 0 */
    0x00, 0x00,                                     /* 258 reserved 0 */
    0x07, 0x00, 0x00, 0x00,                         /* 260 B = 7 codebook bytes */
    0x9a, 0x80, 0x02,                               /* 264 span 32794 (varint) */
    0x7f, 0x18, 0x80, 0x00,                         /* 267 lengths: 32792 unused, then 1, 1 */
    0x00,                                           /* 271 zero padding to 8 bytes */
    /* ---- payload: the 8 codes 0 1 1 1 0 0 0 0, one bit each ---- */
    0x0e,                                     /* 272 bits 0,1,1,1,0,0,0,0 (LSB first) */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 273 zero padding to a 64-bit word */
};

/* The values it was written from (bit patterns); every finite one decodes within 0.5 of its own
 * (to (float)(q * step): 0, 0.9999995, 1.999999, 2.9999986), +Inf and NaN bit for bit. */
static const uint32_t chunk_v2_bounded_values[8] = {0x00000000u, 0x3f800000u, 0x40000000u,
                                                    0x40400000u, 0x7f800000u, 0x40400000u,
                                                    0x40400000u, 0x7fc00000u};

#endif
