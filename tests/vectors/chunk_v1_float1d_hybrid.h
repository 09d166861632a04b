/* ParZ chunk format version 1 test vector, written out field by field from codec/FORMAT.md.
 * If an encoder change alters any byte of this, the format has changed: bump the format version
 * and add a new vector instead of editing this one.
 *
 * Array: float32, rank 1, shape {10}: 0 1 2 3 NaN 5 6 -Inf 8 9
 * Codec: reversible (minbits 1, maxbits 16658, maxprec 64, minexp -1075)
 * Table: HYBRID, C = 1 block per segment, P = 2 segments per partition, 16-bit lengths
 * Blocks: [0 1 2 3] [NaN 5 6 -Inf] [8 9]; the NaN and -Inf are exceptions, replaced in the
 * encoded (cleaned) array by the mean of their block's finite values, (5 + 6) / 2 = 5.5.
 * Block lengths 22, 35 and 32 bits (checked against libzfp's zfp_encode_block_float_1). */
#ifndef PARZ_CHUNK_V1_FLOAT1D_HYBRID_H
#define PARZ_CHUNK_V1_FLOAT1D_HYBRID_H

static const unsigned char chunk_v1_float1d_hybrid[192] = {
    /* ---- header, 112 bytes ---- */
    0x50, 0x41, 0x52, 0x5a,                         /*   0 magic "PARZ" */
    0x01, 0x00,                                     /*   4 format version 1 */
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
    0xcd, 0xfb, 0xff, 0xff,                         /*  60 minexp -1075 (reversible) */
    0x01, 0x00, 0x00, 0x00,                         /*  64 segment_blocks C = 1 */
    0x02, 0x00, 0x00, 0x00,                         /*  68 partition_segments P = 2 */
    0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  72 table bytes 32 */
    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  80 exceptions 2 */
    0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  88 payload bytes 16 */
    0x59, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  96 payload bits 89 */
    0x00, 0x00, 0x00, 0x00,                         /* 104 reserved 0 */
    0x21, 0x8d, 0xdd, 0xb5,                         /* 108 CRC-32C of bytes 0..107 and 112..175 */
    /* ---- table: 2 partition records, 16 bytes each ---- */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 112 partition 0 starts at bit 0 */
    0x16, 0x00, 0x23, 0x00,                         /* 120 segment lengths 22, 35 */
    0x00, 0x00, 0x00, 0x00,                         /* 124 padding to 8 bytes */
    0x39, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 128 partition 1 starts at bit 57 */
    0x20, 0x00,                                     /* 136 segment length 32 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00,             /* 138 padding */
    /* ---- exceptions: 2 records of 16 bytes ---- */
    0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 144 position 4 */
    0x00, 0x00, 0xc0, 0x7f, 0x00, 0x00, 0x00, 0x00, /* 152 bits 0x7fc00000 (quiet NaN) */
    0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 160 position 7 */
    0x00, 0x00, 0x80, 0xff, 0x00, 0x00, 0x00, 0x00, /* 168 bits 0xff800000 (-Inf) */
    /* ---- payload: zfp stream of 0 1 2 3 5.5 5 6 5.5 8 9, 89 bits in 2 words ---- */
    0x05, 0x0e, 0x54, 0x82, 0xc5, 0xa6, 0xff, 0x1a, /* 176 */
    0x2c, 0x16, 0xca, 0x00, 0x00, 0x00, 0x00, 0x00, /* 184 */
};

/* Bit patterns of the decoded array (reversible: the original values exactly). */
static const uint32_t chunk_v1_float1d_hybrid_values[10] = {
    0x00000000u, 0x3f800000u, 0x40000000u, 0x40400000u, 0x7fc00000u,
    0x40a00000u, 0x40c00000u, 0xff800000u, 0x41000000u, 0x41100000u,
};

#endif
