/* ParZ chunk format version 2 test vector with a mask section, written out field by field from
 * codec/FORMAT.md: the payload is libzfp 1.0's zfp_compress of the cleaned array (given below),
 * the header CRC-32C and the payload checksums computed from the format's definitions by a
 * program independent of the codec. If an encoder change alters any byte of this, the format
 * has changed: add a new vector instead of editing this one.
 *
 * Array: float32, rank 2, shape {4, 12}, fill value -9999; value (r, c) = 1 + c / 2 + r but
 *   NaN (0x7fc00000) at (0, 0) and (1, 1), the fill value at (2, 2) and (3, 3), +Inf at (0, 3),
 *   and the fill value in every column from 4 on (blocks 1 and 2).
 * Codec: accuracy 0.0625 (minbits 1, maxbits 16658, maxprec 64, minexp -4)
 * Table: HYBRID, C = 1 block per segment, P = 2 segments per partition, 16-bit lengths
 * Exceptions: +Inf at position 3 (infinities are never masked).
 * Mask: values -9999 (the fill value, first) and the NaN; a bitmap record for block 0 with a
 *   value index per masked value, a run record for blocks 1 and 2 (wholly the fill value).
 * Cleaned array: block 0 rows 1.5 1.5 2 2 / 2 2 3 3.5 / 3 3.5 3.5 4.5 / 4 4.5 5 5 (each hole
 *   takes the nearest known value of its row, the lower one on a tie), blocks 1 and 2 zero.
 * Block lengths 141, 1 and 1 bits; payload 143 bits in 3 words.
 * Payload checksums: partition 0 covers payload bits 0..141, partition 1 bits 142..191. */
#ifndef PARZ_CHUNK_V2_FLOAT2D_MASK_H
#define PARZ_CHUNK_V2_FLOAT2D_MASK_H

#include <stdint.h>

static const unsigned char chunk_v2_float2d_mask[296] = {
    /* ---- header, 112 bytes ---- */
    0x50, 0x41, 0x52, 0x5a,                         /*   0 magic "PARZ" */
    0x02, 0x00,                                     /*   4 format version 2 */
    0x01, 0x00,                                     /*   6 codec id 1 (zfp 1.0 stream) */
    0x01, 0x00,                                     /*   8 codec version 1 */
    0x03,                                           /*  10 type 3 = float32 */
    0x02,                                           /*  11 rank 2 */
    0x04,                                           /*  12 table kind 4 = HYBRID */
    0x02,                                           /*  13 length field width 2 bytes */
    0x00, 0x00,                                     /*  14 flags 0 */
    0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  16 shape[0] = 4 */
    0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  24 shape[1] = 12 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  32 shape[2] unused = 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  40 shape[3] unused = 0 */
    0x01, 0x00, 0x00, 0x00,                         /*  48 minbits 1 */
    0x12, 0x41, 0x00, 0x00,                         /*  52 maxbits 16658 */
    0x40, 0x00, 0x00, 0x00,                         /*  56 maxprec 64 */
    0xfc, 0xff, 0xff, 0xff,                         /*  60 minexp -4 (accuracy 2^-4) */
    0x01, 0x00, 0x00, 0x00,                         /*  64 segment_blocks C = 1 */
    0x02, 0x00, 0x00, 0x00,                         /*  68 partition_segments P = 2 */
    0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  72 table bytes 32 */
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  80 exceptions 1 */
    0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  88 payload bytes 24 */
    0x8f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  96 payload bits 143 */
    0x02, 0x00, 0x00, 0x00,                         /* 104 sections 2 */
    0xb9, 0x22, 0x3a, 0x15,                         /* 108 CRC-32C of bytes 0..107 and 112..271 */
    /* ---- section directory: 2 entries of 16 bytes ---- */
    0x01, 0x00,                                     /* 112 kind 1 = payload checksums */
    0x00, 0x00,                                     /* 114 flags 0 (a reader may skip it) */
    0x00, 0x00, 0x00, 0x00,                         /* 116 reserved 0 */
    0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 120 section bytes 24 */
    0x02, 0x00,                                     /* 128 kind 2 = mask */
    0x01, 0x00,                                     /* 130 flags 1 = required */
    0x00, 0x00, 0x00, 0x00,                         /* 132 reserved 0 */
    0x38, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 136 section bytes 56 */
    /* ---- table: 2 partition records, 16 bytes each ---- */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 144 partition 0 starts at bit 0 */
    0x8d, 0x00, 0x01, 0x00,                         /* 152 segment lengths 141, 1 */
    0x00, 0x00, 0x00, 0x00,                         /* 156 padding to 8 bytes */
    0x8e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 160 partition 1 starts at bit 142 */
    0x01, 0x00,                                     /* 168 segment length 1 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00,             /* 170 padding */
    /* ---- exceptions: 1 record of 16 bytes ---- */
    0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 176 position 3 */
    0x00, 0x00, 0x80, 0x7f, 0x00, 0x00, 0x00, 0x00, /* 184 bits 0x7f800000 (+Inf) */
    /* ---- payload checksum section, 24 bytes ---- */
    0x02, 0x00, 0x00, 0x00,                         /* 192 P = 2 */
    0x00, 0x00, 0x00, 0x00,                         /* 196 reserved 0 */
    0xd7, 0xb9, 0xc6, 0xa0, 0xcd, 0x60, 0xd0, 0xf6, /* 200 partition 0: 0xf6d060cda0c6b9d7 */
    0xd7, 0x3d, 0x13, 0x65, 0x42, 0x05, 0x0b, 0xd3, /* 208 partition 1: 0xd30b054265133dd7 */
    /* ---- mask section, 56 bytes ---- */
    0x00, 0x01, 0x00, 0x00,                         /* 216 G = 256 blocks per group */
    0x02, 0x00, 0x00, 0x00,                         /* 220 V = 2 values */
    0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 224 R = 10 bytes of records */
    0x00, 0x3c, 0x1c, 0xc6, 0x00, 0x00, 0x00,
    0x00, /* 232 value 0: 0xc61c3c00 (-9999, the fill value) */
    0x00, 0x00, 0xc0, 0x7f, 0x00, 0x00, 0x00, 0x00, /* 240 value 1: 0x7fc00000 (quiet NaN) */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 248 group 0: records from byte 0 */
    0x01,                               /* 256 record: skip 0, kind 1 (bitmap): block 0 */
    0x21, 0x84,                         /* 257 bitmap: positions 0, 5, 10, 15 */
    0x01, 0x01, 0x00, 0x00,             /* 259 their values: NaN, NaN, fill, fill */
    0x00,                               /* 263 record: skip 0, kind 0 (run): block 1 on */
    0x01,                               /* 264 m = 1: blocks 1 and 2 */
    0x00,                               /* 265 their value: 0 (fill) */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 266 padding to 8 bytes */
    /* ---- payload: zfp stream of the cleaned array, 143 bits in 3 words ---- */
    0x05, 0x2d, 0x3e, 0x41, 0x98, 0x61, 0x91, 0x14, /* 272 */
    0x2f, 0xa7, 0xae, 0x4b, 0x69, 0xdf, 0x18, 0x13, /* 280 */
    0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 288 */
};

/* Bit patterns of the decoded array, row by row: the masked values and the exception exact,
 * the others within the tolerance. */
static const uint32_t chunk_v2_float2d_mask_values[48] = {
    0x7fc00000u, 0x3fbfd000u, 0x40001800u, 0x7f800000u, 0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u,
    0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u, 0x3fffd000u, 0x7fc00000u,
    0x40400800u, 0x40601800u, 0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u,
    0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u, 0x40401800u, 0x40600800u, 0xc61c3c00u, 0x408ff400u,
    0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u,
    0xc61c3c00u, 0x40802400u, 0x40900c00u, 0x409ff400u, 0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u,
    0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u, 0xc61c3c00u,
};

#endif
