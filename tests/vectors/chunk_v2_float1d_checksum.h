/* ParZ chunk format version 2 test vector, written out field by field from codec/FORMAT.md:
 * payload and block lengths from libzfp 1.0 (zfp_encode_block_float_1 on the cleaned
 * array), the header CRC-32C and the payload checksums computed from the format's definitions
 * by a program independent of the codec. If an encoder change alters any byte of this, the
 * format has changed: add a new vector instead of editing this one.
 *
 * Array: float32, rank 1, shape {10}: 0 1 2 3 NaN 5 6 FLT_MAX 8 9
 * Codec: accuracy 0.0625 (minbits 1, maxbits 16658, maxprec 64, minexp -4)
 * Table: HYBRID, C = 1 block per segment, P = 2 segments per partition, 16-bit lengths
 * Exceptions: the NaN (every mode) and FLT_MAX (at least 2^126: a lossy mode could decode it
 * to Inf), a finite exception, so the chunk needs version 2 even without its checksums. Both
 * are replaced in the cleaned array by the mean of block 1's other values, (5 + 6) / 2 = 5.5.
 * Block lengths 38, 45 and 48 bits; payload 131 bits in 3 words.
 * Payload checksums: partition 0 covers payload bits 0..82, partition 1 bits 83..191 (up to
 * the end of the payload's last word). */
#ifndef PARZ_CHUNK_V2_FLOAT1D_CHECKSUM_H
#define PARZ_CHUNK_V2_FLOAT1D_CHECKSUM_H

#include <stdint.h>

static const unsigned char chunk_v2_float1d_checksum[240] = {
    /* ---- header, 112 bytes ---- */
    0x50, 0x41, 0x52, 0x5a,                         /*   0 magic "PARZ" */
    0x02, 0x00,                                     /*   4 format version 2 */
    0x01, 0x00,                                     /*   6 codec id 1 (zfp 1.0 stream) */
    0x01, 0x00,                                     /*   8 codec version 1 */
    0x03,                                           /*  10 type 3 = float32 */
    0x01,                                           /*  11 rank 1 */
    0x04,                                           /*  12 table kind 4 = HYBRID */
    0x02,                                           /*  13 length field width 2 bytes */
    0x00, 0x00,                                     /*  14 flags 0 */
    0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  16 shape[0] = 10 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  24 shape[1] unused = 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  32 shape[2] unused = 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  40 shape[3] unused = 0 */
    0x01, 0x00, 0x00, 0x00,                         /*  48 minbits 1 */
    0x12, 0x41, 0x00, 0x00,                         /*  52 maxbits 16658 */
    0x40, 0x00, 0x00, 0x00,                         /*  56 maxprec 64 */
    0xfc, 0xff, 0xff, 0xff,                         /*  60 minexp -4 (accuracy 2^-4) */
    0x01, 0x00, 0x00, 0x00,                         /*  64 segment_blocks C = 1 */
    0x02, 0x00, 0x00, 0x00,                         /*  68 partition_segments P = 2 */
    0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  72 table bytes 32 */
    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  80 exceptions 2 */
    0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  88 payload bytes 24 */
    0x83, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  96 payload bits 131 */
    0x01, 0x00, 0x00, 0x00,                         /* 104 sections 1 */
    0x8f, 0x48, 0x8e, 0x23,                         /* 108 CRC-32C of bytes 0..107 and 112..215 */
    /* ---- section directory: 1 entry of 16 bytes ---- */
    0x01, 0x00,                                     /* 112 kind 1 = payload checksums */
    0x00, 0x00,                                     /* 114 flags 0 (a reader may skip it) */
    0x00, 0x00, 0x00, 0x00,                         /* 116 reserved 0 */
    0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 120 section bytes 24 */
    /* ---- table: 2 partition records, 16 bytes each ---- */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 128 partition 0 starts at bit 0 */
    0x26, 0x00, 0x2d, 0x00,                         /* 136 segment lengths 38, 45 */
    0x00, 0x00, 0x00, 0x00,                         /* 140 padding to 8 bytes */
    0x53, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 144 partition 1 starts at bit 83 */
    0x30, 0x00,                                     /* 152 segment length 48 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00,             /* 154 padding */
    /* ---- exceptions: 2 records of 16 bytes ---- */
    0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 160 position 4 */
    0x00, 0x00, 0xc0, 0x7f, 0x00, 0x00, 0x00, 0x00, /* 168 bits 0x7fc00000 (quiet NaN) */
    0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 176 position 7 */
    0xff, 0xff, 0x7f, 0x7f, 0x00, 0x00, 0x00, 0x00, /* 184 bits 0x7f7fffff (FLT_MAX) */
    /* ---- payload checksum section, 24 bytes ---- */
    0x02, 0x00, 0x00, 0x00, /* 192 P = 2 segments per checksummed partition */
    0x00, 0x00, 0x00, 0x00, /* 196 reserved 0 */
    0x5b, 0xfe, 0x5e, 0x0d, 0xbd, 0x77, 0x8d, 0x2e, /* 200 partition 0: 0x2e8d77bd0d5efe5b */
    0x46, 0x24, 0x0f, 0x60, 0x2b, 0xe9, 0x57, 0x00, /* 208 partition 1: 0x0057e92b600f2446 */
    /* ---- payload: zfp stream of 0 1 2 3 5.5 5 6 5.5 8 9, 131 bits in 3 words ---- */
    0x03, 0xed, 0x14, 0x00, 0x40, 0x41, 0xab, 0x49, /* 216 */
    0x40, 0x01, 0x38, 0x68, 0xc1, 0x2a, 0x00, 0x00, /* 224 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 232 */
};

/* Bit patterns of the decoded array: exact at this tolerance, the exceptions restored. */
static const uint32_t chunk_v2_float1d_checksum_values[10] = {
    0x00000000u, 0x3f800000u, 0x40000000u, 0x40400000u, 0x7fc00000u,
    0x40a00000u, 0x40c00000u, 0x7f7fffffu, 0x41000000u, 0x41100000u,
};

#endif
