#!/usr/bin/env python3
"""Writes tests/vectors/chunk_v1_lossless_rows.h: a lossless chunk (codec 3) under the row
predictor (predictor 3), built field by field from codec/FORMAT.md ("Lossless chunks (codec 3)")
without the codec: the blocks (one per row), the residuals along each row, a Huffman code of
their bit lengths, the segment's bits, the table and the header's CRC-32C. Run it again only to
check that it writes the same file; a change of format is a new vector.

Array: int32, rank 2, shape {3, 6}: rows 7 8 9 10 11 12 / 50 48 46 44 42 40 / -5 x 6, three
independent records; transform 0, predictor 3, no payload checksums (version 1)."""
import struct
import sys

from vector_bits import Bits, crc32c, delta_zigzag, length_code, opening, rows

W, SHAPE, NAME = 32, (3, 6), "chunk_v1_lossless_rows"
values = [[7 + x for x in range(6)], [50 - 2 * x for x in range(6)], [-5] * 6]
# blocks of side 1 x 4096: one per row, in C order; each value predicted by the one before it in
# its row, the row's first by 0
z = [r for row in values for r in delta_zigzag(row, W)]
k, lengths, words = length_code(z, W)
bits = Bits()
for L in lengths:
    bits.put(L, 4)
for x in range(len(z)):
    bits.word(words[k[x]], lengths[k[x]])
    if k[x] >= 2:
        bits.put(z[x] & ((1 << (k[x] - 1)) - 1), k[x] - 1)
nbits = len(bits.bits)
segment = bytes([1]) + bits.bytes()  # coder 1: one code of the bit lengths
assert len(segment) < 1 + 4 * len(z)  # below the raw segment
seg_bits = 8 * len(segment)
payload = segment + bytes(-len(segment) % 8)
table = struct.pack("<QI", 0, seg_bits) + bytes(4)
header = b"PARZ" + struct.pack("<HHHBBBBH", 1, 3, 1, 1, 2, 4, 4, 0)
header += struct.pack("<4Q", SHAPE[0], SHAPE[1], 0, 0)
header += bytes([0, 3]) + bytes(14)  # transform 0, predictor 3 (rows), gains 0, reserved
header += struct.pack("<IIQQQQI", 4, 64, len(table), 0, len(payload), seg_bits, 0)
header += struct.pack("<I", crc32c(header + table))
assert len(header) == 112
chunk = header + table + payload

used = [(s, L) for s, L in enumerate(lengths) if L]
lines = [
    "/* ParZ chunk format version 1 test vector of a lossless chunk under the row predictor (codec",
    " * 3, predictor 3), written by tests/vectors/gen_chunk_v1_lossless_rows.py from",
    " * codec/FORMAT.md without the codec. If an encoder change alters any byte of this, the format",
    " * has changed: add a new vector instead of editing this one.",
    " *",
    " * Array: int32, rank 2, shape {3, 6}: rows 7 8 9 10 11 12 / 50 48 46 44 42 40 / -5 x 6;",
    " * transform 0, predictor 3, no payload checksums (version 1). Blocks of side 1 x 4096: three,",
    " * one per row; one segment (C = 4), a HYBRID table (P = 64, 4-byte lengths). Each row's first",
    " * value is predicted as 0, each later one as the value before it: residuals 7 1 1 1 1 1 /",
    " * 50 -2 -2 -2 -2 -2 / -5 0 0 0 0 0, zigzagged %s /" % " ".join(str(v) for v in z[:6]),
    " * %s / %s; coder 1 with lengths %s for k = %s" % (
        " ".join(str(v) for v in z[6:12]), " ".join(str(v) for v in z[12:]),
        ", ".join(str(L) for _, L in used), ", ".join(str(s) for s, _ in used)),
    " * (words %s): %d bits, %d bytes with the coder byte. */" % (
        ", ".join(format(words[s], "0%db" % L) for s, L in used), nbits, len(segment)),
] + opening(NAME, len(chunk))
lines += rows(header, 0, "header (112 bytes), predictor 3 at 49")
lines += rows(table, 112, "table: offset 0, length %d bits" % seg_bits)
lines += rows(payload, 128, "payload: coder 1, lengths, words, bits")
lines += [
    "};",
    "",
    "/* The decoded values, row after row. */",
    "static const int32_t %s_values[18] = {" % NAME,
    "    " + ", ".join(str(v) for v in values[0] + values[1]) + ",",
    "    " + ", ".join(str(v) for v in values[2]) + "};",
    "",
    "#endif",
]
sys.stdout.write("\n".join(lines) + "\n")
