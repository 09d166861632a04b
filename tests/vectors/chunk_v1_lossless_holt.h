/* ParZ chunk format version 1 test vector of a lossless chunk with Holt's predictor (codec 3,
 * predictor 2), written out field by field from codec/FORMAT.md, "Lossless chunks": the
 * residuals, the segment's bits and the header CRC-32C computed from the format's definitions by
 * a program independent of the codec. If an encoder change alters any byte of this, the format
 * has changed: add a new vector instead of editing this one.
 *
 * Array: int32, rank 1, shape {8}, v[x] = 5 + 3x, without payload checksums (so version 1, no
 * section). One block, one segment (C = 4), a HYBRID table (P = 64, 4-byte lengths). Holt with
 * gains 8/8 and 8/8: value 0 is predicted as 0 (residual 5) and sets l = 5, b = 0; value 1 as 5
 * (residual 3), then l = 8, b = 3; every later value as l + b exactly (residual 0). Zigzagged:
 * 10 6 0 0 0 0 0 0, of bit lengths 4 3 0 0 0 0 0 0; coder 1, whose code gives the lengths
 * 0: 1 bit, 3: 2, 4: 2 (words 0, 10, 11): 132 bits of lengths, 10 of words, 5 below leading
 * ones: 147 bits, 19 bytes, 20 with the coder byte. The delta (predictor 0) would take 21, so
 * the encoder writes Holt's. */
#ifndef PARZ_CHUNK_V1_LOSSLESS_HOLT_H
#define PARZ_CHUNK_V1_LOSSLESS_HOLT_H

#include <stdint.h>

static const unsigned char chunk_v1_lossless_holt[152] = {
    /* ---- header, 112 bytes ---- */
    0x50, 0x41, 0x52, 0x5a,                         /*   0 magic "PARZ" */
    0x01, 0x00,                                     /*   4 format version 1 (no section) */
    0x03, 0x00,                                     /*   6 codec id 3 (lossless) */
    0x01, 0x00,                                     /*   8 codec version 1 */
    0x01,                                           /*  10 type 1 = int32 */
    0x01,                                           /*  11 rank 1 */
    0x04,                                           /*  12 table kind 4 = HYBRID */
    0x04,                                           /*  13 length field width 4 */
    0x00, 0x00,                                     /*  14 flags 0 */
    0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  16 shape[0] = 8 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  24 shape[1] unused = 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  32 shape[2] unused = 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  40 shape[3] unused = 0 */
    0x00,                                           /*  48 transform 0: two's complement */
    0x02,                                           /*  49 predictor 2: Holt */
    0x08,                                           /*  50 alpha 8/8 */
    0x08,                                           /*  51 beta 8/8 */
    0x00, 0x00, 0x00, 0x00,                         /*  52 reserved codec parameters 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  56 reserved codec parameters 0 */
    0x04, 0x00, 0x00, 0x00,                         /*  64 segment_blocks C = 4 */
    0x40, 0x00, 0x00, 0x00,                         /*  68 partition_segments P = 64 */
    0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  72 table bytes 16 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  80 exceptions 0 */
    0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  88 payload bytes 24 */
    0xa0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  96 payload bits 160 (20 bytes) */
    0x00, 0x00, 0x00, 0x00,                         /* 104 reserved 0 (version 1) */
    0x71, 0xd5, 0x55, 0x23,                         /* 108 CRC-32C of bytes 0..107 and 112..127 */
    /* ---- table: partition 0 ---- */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 112 offset of segment 0: bit 0 */
    0xa0, 0x00, 0x00, 0x00,                         /* 120 segment 0: 160 bits */
    0x00, 0x00, 0x00, 0x00,                         /* 124 padding to 8 bytes */
    /* ---- payload: segment 0, then zero bytes to 8 ---- */
    0x01,                                           /* 128 coder 1: code of the bit lengths */
    0x01, 0x20, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, /* 129 lengths of k = 0..15: 1 0 0 2 2 0.. */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 137 lengths of k = 16..31: 0 */
    0xb0,                                           /* 145 k = 32: 0; z 10: word 11, bits 0 1 */
    0x12, 0x00,                                     /* 146 0; z 6: 10, 0 1; z 0 x 6: 0; pad */
    0x00, 0x00, 0x00, 0x00,                         /* 148 payload padding to 8 bytes */

};

/* The decoded values: v[x] = 5 + 3x. */
static const int32_t chunk_v1_lossless_holt_values[8] = {5, 8, 11, 14, 17, 20, 23, 26};

#endif
