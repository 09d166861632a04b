/* ParZ chunk format version 2 test vector of a lossless chunk with the value dictionary (codec 3,
 * transform 128), written out field by field from codec/FORMAT.md, "Lossless chunks": the
 * dictionary, the ranks' residuals, the segment's bits and the header CRC-32C computed from the
 * format's definitions by a program independent of the codec. If an encoder change alters any
 * byte of this, the format has changed: add a new vector instead of editing this one.
 *
 * Array: float32, rank 1, shape {32}, the levels -0.0, 0.1 and 2.7 in the order 0 1 2 1 repeated,
 * without payload checksums (version 2 for its codec data section). -0.0 fits no scale, so the
 * values' own integers (transform 0) are u = 0x7fffffff, 0xbdcccccd and 0xc02ccccd, whose
 * differences take about 31 bits each: a raw segment of 129 bytes. The dictionary holds those
 * three u; its list (u_0 and two differences) is raw (13 bytes; a code would take 29), its
 * section 32 bytes. The ranks 0 1 2 1 ... through predictor 0 give the residuals 0 1 1 -1 -1
 * 1 1 -1 ..., zigzagged 0 2 2 1 1 2 2 1 ...: k = 0 once, 1 fifteen times, 2 sixteen times;
 * coder 1 with lengths 2, 2, 1 for k = 0, 1, 2 (words 10, 11, 0): 132 bits of lengths, 2 + 30
 * + 16 of words, 16 below leading ones: 196 bits, 25 bytes, 26 with the coder byte. 58 bytes
 * against 129: the encoder writes the dictionary. */
#ifndef PARZ_CHUNK_V2_LOSSLESS_DICT_H
#define PARZ_CHUNK_V2_LOSSLESS_DICT_H

#include <stdint.h>

static const unsigned char chunk_v2_lossless_dict[208] = {
    /* ---- header, 112 bytes ---- */
    0x50, 0x41, 0x52, 0x5a,                         /*   0 magic "PARZ" */
    0x02, 0x00,                                     /*   4 format version 2 (a section) */
    0x03, 0x00,                                     /*   6 codec id 3 (lossless) */
    0x01, 0x00,                                     /*   8 codec version 1 */
    0x03,                                           /*  10 type 3 = float32 */
    0x01,                                           /*  11 rank 1 */
    0x04,                                           /*  12 table kind 4 = HYBRID */
    0x04,                                           /*  13 length field width 4 */
    0x00, 0x00,                                     /*  14 flags 0 */
    0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  16 shape[0] = 32 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  24 shape[1] unused = 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  32 shape[2] unused = 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  40 shape[3] unused = 0 */
    0x80,                                           /*  48 transform 128: the dictionary */
    0x00,                                           /*  49 predictor 0: Lorenzo (the delta) */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00,             /*  50 gains 0, reserved 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  56 reserved codec parameters 0 */
    0x04, 0x00, 0x00, 0x00,                         /*  64 segment_blocks C = 4 */
    0x40, 0x00, 0x00, 0x00,                         /*  68 partition_segments P = 64 */
    0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  72 table bytes 16 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  80 exceptions 0 */
    0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  88 payload bytes 32 */
    0xd0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  96 payload bits 208 (26 bytes) */
    0x01, 0x00, 0x00, 0x00,                         /* 104 sections 1 */
    0x74, 0x78, 0x35, 0xc3,                         /* 108 CRC-32C of bytes 0..107 and 112..175 */
    /* ---- section directory: 1 entry of 16 bytes ---- */
    0x03, 0x00,                                     /* 112 kind 3 = codec data */
    0x01, 0x00,                                     /* 114 flags 1: required */
    0x00, 0x00, 0x00, 0x00,                         /* 116 reserved 0 */
    0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 120 section bytes 32 */
    /* ---- table: partition 0 ---- */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 128 offset of segment 0: bit 0 */
    0xd0, 0x00, 0x00, 0x00,                         /* 136 segment 0: 208 bits */
    0x00, 0x00, 0x00, 0x00,                         /* 140 padding to 8 bytes */
    /* ---- codec data: the dictionary ---- */
    0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 144 D = 3 values */
    0x0d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 152 B = 13 bytes of list */
    0x00,                                           /* 160 coder 0: raw */
    0xff, 0xff, 0xff, 0x7f,                         /* 161 u_0 = 0x7fffffff (-0.0f) */
    0xce, 0xcc, 0xcc, 0x3d,                         /* 165 u_1 - u_0 = 0x3dccccce (0.1f) */
    0x00, 0x00, 0x60, 0x02,                         /* 169 u_2 - u_1 = 0x02600000 (2.7f) */
    0x00, 0x00, 0x00,                               /* 173 padding to 8 bytes */
    /* ---- payload: segment 0, then zero bytes to 8 ---- */
    0x01,                                           /* 176 coder 1: code of the bit lengths */
    0x22,                                           /* 177 lengths of k = 0, 1: 2 2 */
    0x01,                                           /* 178 k = 2, 3: 1 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 179 k = 4..19: 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x3c, /* 187 k = 20..32: 0; z 0: 10, z 2: 0 0, .. */
    0x3c, 0x3c, 0x3c, 0x3c, 0x3c, 0x3c, 0x0c,       /* 195 z 2 2 1 1 repeated: 0 0 0 0 11 11 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00,             /* 202 payload padding to 8 bytes */

};

/* The decoded values: the levels -0.0, 0.1 and 2.7 in the order 0 1 2 1, repeated. */
static const float chunk_v2_lossless_dict_values[32] = {
    -0.0f, 0.1f,  2.7f,  0.1f, -0.0f, 0.1f,  2.7f,  0.1f, -0.0f, 0.1f,  2.7f,
    0.1f,  -0.0f, 0.1f,  2.7f, 0.1f,  -0.0f, 0.1f,  2.7f, 0.1f,  -0.0f, 0.1f,
    2.7f,  0.1f,  -0.0f, 0.1f, 2.7f,  0.1f,  -0.0f, 0.1f, 2.7f,  0.1f};

#endif
