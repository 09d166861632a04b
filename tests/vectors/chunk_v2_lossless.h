/* ParZ chunk format version 2 test vector of a lossless chunk (codec 3), written out field by
 * field from codec/FORMAT.md, "Lossless chunks" (its worked example): the segment's bits, the
 * header CRC-32C and the payload checksum computed from the format's definitions by a program
 * independent of the codec. If an encoder change alters any byte of this, the format has
 * changed: add a new vector instead of editing this one.
 *
 * Array: float32, rank 2, shape {3, 4}, v[y][x] = 1 + x/4 + y/2: every value is an integer over
 * 4, so the transform is 3 (scale 4) and the integers are i = 4 + x + 2y. One block (64 x 64 cut
 * to 3 x 4), one segment (C = 4), a HYBRID table (P = 64, 4-byte lengths), one checksummed
 * partition. The 2-D Lorenzo residuals 4 1 1 1 / 2 0 0 0 / 2 0 0 0 zigzag to 8 2 2 2 / 4 0 0 0
 * / 4 0 0 0, of bit lengths 4 2 2 2 / 3 0 0 0 / 3 0 0 0; coder 1 (bit lengths), whose code gives
 * the lengths 0: 1 bit, 2: 2, 3: 3, 4: 3 (words 0, 10, 110, 111): 163 bits after the coder
 * byte, 22 bytes in all. In the payload's comments each residual is its word, then its k - 1
 * bits below the leading one (low bit first). */
#ifndef PARZ_CHUNK_V2_LOSSLESS_H
#define PARZ_CHUNK_V2_LOSSLESS_H

#include <stdint.h>

static const unsigned char chunk_v2_lossless[184] = {
    /* ---- header, 112 bytes ---- */
    0x50, 0x41, 0x52, 0x5a,                          /*   0 magic "PARZ" */
    0x02, 0x00,                                      /*   4 format version 2 */
    0x03, 0x00,                                      /*   6 codec id 3 (lossless) */
    0x01, 0x00,                                      /*   8 codec version 1 */
    0x03,                                            /*  10 type 3 = float32 */
    0x02,                                            /*  11 rank 2 */
    0x04,                                            /*  12 table kind 4 = HYBRID */
    0x04,                                            /*  13 length field width 4 */
    0x00, 0x00,                                      /*  14 flags 0 */
    0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  16 shape[0] = 3 */
    0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  24 shape[1] = 4 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  32 shape[2] unused = 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  40 shape[3] unused = 0 */
    0x03,                                            /*  48 transform 3: integers over scale 4 */
    0x00,                                            /*  49 predictor 0: Lorenzo, every dimension */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00,              /*  50 reserved codec parameters 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  56 reserved codec parameters 0 */
    0x04, 0x00, 0x00, 0x00,                          /*  64 segment_blocks C = 4 */
    0x40, 0x00, 0x00, 0x00,                          /*  68 partition_segments P = 64 */
    0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  72 table bytes 16 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  80 exceptions 0 */
    0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  88 payload bytes 24 */
    0xb0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /*  96 payload bits 176 (22 bytes) */
    0x01, 0x00, 0x00, 0x00,                          /* 104 sections 1 */
    0xd2, 0x4d, 0x03, 0x38,                          /* 108 CRC-32C of bytes 0..107 and 112..159 */
    /* ---- section directory: 1 entry of 16 bytes ---- */
    0x01, 0x00,                                      /* 112 kind 1 = payload checksums */
    0x00, 0x00,                                      /* 114 flags 0 */
    0x00, 0x00, 0x00, 0x00,                          /* 116 reserved 0 */
    0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 120 section bytes 16 */
    /* ---- table: partition 0 ---- */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 128 offset of segment 0: bit 0 */
    0xb0, 0x00, 0x00, 0x00,                          /* 136 segment 0: 176 bits */
    0x00, 0x00, 0x00, 0x00,                          /* 140 padding to 8 bytes */
    /* ---- payload checksums: P, reserved, one sum ---- */
    0x40, 0x00, 0x00, 0x00,                          /* 144 P = 64 segments per partition */
    0x00, 0x00, 0x00, 0x00,                          /* 148 reserved 0 */
    0x99, 0x8f, 0x01, 0xb1, 0xb0, 0x93, 0xea, 0x64,  /* 152 partition 0 (payload bits 0..191) */
    /* ---- payload: segment 0, then zero bytes to 8 ---- */
    0x01,                                            /* 160 coder 1: code of the bit lengths */
    0x01, 0x32, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 161 lengths of k = 0..15: 1 0 2 3 3 0.. */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 169 lengths of k = 16..31: 0 */
    0x70, 0x24, 0x19,                                /* 177 k = 32: 0; 111 000, 10 0, 10 0, */
    0x18, 0x00,                                      /* 180 10 0, 110 00, 0 0 0, 110 00, 0 0 0 */
    0x00, 0x00,                                      /* 182 payload padding to 8 bytes */
};

/* The decoded values: v[y][x] = 1 + x/4 + y/2. */
static const float chunk_v2_lossless_values[12] = {1.0f, 1.25f, 1.5f, 1.75f, 1.5f, 1.75f,
                                                     2.0f, 2.25f, 2.0f, 2.25f, 2.5f, 2.75f};

#endif
