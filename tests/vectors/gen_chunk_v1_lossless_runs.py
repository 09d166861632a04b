#!/usr/bin/env python3
"""Writes tests/vectors/chunk_v1_lossless_runs.h: a lossless chunk (codec 3) whose segment is
coder 3 (runs), built field by field from codec/FORMAT.md ("Lossless chunks (codec 3)") without
the codec: the residuals, a Huffman code of their bit lengths, the runs' bits, the table and the
header's CRC-32C. Run it again only to check that it writes the same file; a change of format
is a new vector. With --zero-runs it writes tests/vectors/chunk_v1_lossless_zero_runs.h, the
same for coder 4 (runs with empty runs).

Array: int32, rank 1, shape {40}, v[x] = x * x; predictor 0 (the delta), transform 0; one block,
one segment (C = 4), coder 3 with coder 1's single code and q = 4: runs of 16, 16 and 8
residuals. --zero-runs: shape {56}, v[x] = x * x but v[x] = 15 * 15 for x in 16..31 and
47 * 47 for x in 48..55, coder 4: runs 1 and 3 (the last) are all zeros and take no byte."""
import struct
import sys

from vector_bits import Bits, crc32c, delta_zigzag, length_code, opening, rows

ZERO = sys.argv[1:] == ["--zero-runs"]
N, Q, CODER, INNER = (56, 4, 4, 1) if ZERO else (40, 4, 3, 1)
W = 32
NAME = "chunk_v1_lossless_zero_runs" if ZERO else "chunk_v1_lossless_runs"

values = [x * x for x in range(N)]
if ZERO:
    values = [15 * 15 if 16 <= x < 32 else 47 * 47 if x >= 48 else x * x for x in range(N)]
z = delta_zigzag(values, W)
k, lengths, words = length_code(z, W)

head = Bits()
for L in lengths:
    head.put(L, 4)
segment = bytes([CODER, INNER, Q]) + head.bytes()
runs = []
for r0 in range(0, N, 1 << Q):
    run = Bits()
    for x in range(r0, min(N, r0 + (1 << Q))):
        run.word(words[k[x]], lengths[k[x]])
        if k[x] >= 2:
            run.put(z[x] & ((1 << (k[x] - 1)) - 1), k[x] - 1)
    empty = ZERO and not any(z[r0:r0 + (1 << Q)])  # coder 4: a run of zeros takes no byte
    runs.append(b"" if empty else run.bytes())
segment += b"".join(struct.pack("<H", len(r)) for r in runs[:-1]) + b"".join(runs)
seg_bits = 8 * len(segment)
payload = segment + bytes(-len(segment) % 8)
table = struct.pack("<QI", 0, seg_bits) + bytes(4)
header = b"PARZ" + struct.pack("<HHHBBBBH", 1, 3, 1, 1, 1, 4, 4, 0)
header += struct.pack("<4Q", N, 0, 0, 0)
header += bytes(16)  # transform 0, predictor 0, gains 0, reserved
header += struct.pack("<IIQQQQI", 4, 64, len(table), 0, len(payload), seg_bits, 0)
header += struct.pack("<I", crc32c(header + table))
assert len(header) == 112
chunk = header + table + payload


code_text = [
    " * The code's lengths, k = %s:" % "/".join(str(s) for s, L in enumerate(lengths) if L),
    " * %s bits. Runs of 16, 16 and 8 residuals, %s bytes, each from context 0"
    % ("/".join(str(L) for L in lengths if L), ", ".join(str(len(r)) for r in runs)),
    " * and padded to a byte. */",
]
if ZERO:
    about = [
        " * Array: int32, rank 1, shape {56}, v[x] = x * x but 225 for x in 16..31 and 2209 for",
        " * x in 48..55; predictor 0 (the delta), transform 0, no payload checksums (version 1).",
        " * One block, one segment (C = 4), a HYBRID table (P = 64, 4-byte lengths). Coder 4 with",
        " * coder 1's code of the residuals' bit lengths, q = 4: runs 1 and 3 (the last) hold only",
        " * zeros and take no byte.",
    ] + code_text
    about[-2:] = [" * %s bits. Runs of 16, 16, 16 and 8 residuals, %s bytes,"
                  % ("/".join(str(L) for L in lengths if L),
                     ", ".join(str(len(r)) for r in runs)),
                  " * each from context 0 and padded to a byte. */"]
else:
    about = [
        " * Array: int32, rank 1, shape {40}, v[x] = x * x; predictor 0 (the delta), transform 0, no",
        " * payload checksums (version 1). One block, one segment (C = 4), a HYBRID table (P = 64,",
        " * 4-byte lengths). Residuals 0, 1, 3, 5, ..., 77, zigzagged 0, 2, 6, ..., 154; coder 3 with",
        " * coder 1's code of their bit lengths, q = 4." + code_text[0][2:],
    ] + code_text[1:]
lines = [
    "/* ParZ chunk format version 1 test vector of a lossless chunk whose segment is coder 4",
    " * (runs with empty runs), written by tests/vectors/gen_chunk_v1_lossless_runs.py",
    " * --zero-runs from codec/FORMAT.md without the codec. If a decoder change rejects it, the",
    " * format has changed.",
] if ZERO else [
    "/* ParZ chunk format version 1 test vector of a lossless chunk whose segment is coder 3",
    " * (runs), written by tests/vectors/gen_chunk_v1_lossless_runs.py from codec/FORMAT.md",
    " * without the codec. If a decoder change rejects it, the format has changed.",
]
lines += [
    " *",
] + about + opening(NAME, len(chunk))
lines += rows(header, 0, "header (112 bytes)")
lines += rows(table, 112, "table: offset 0, length %d bits" % seg_bits)
lines += rows(payload, 128, "payload: coder %d, code 1, q 4, lengths, run lengths, runs" % CODER)
cuts = [0, 12, 24, 34, N] if not ZERO else [0, 12, 24, 34, 44, N]
lines += [
    "};",
    "",
    "/* The decoded values: %s. */" % ("as above" if ZERO else "v[x] = x * x"),
    "static const int32_t %s_values[%d] = {" % (NAME, N),
] + ["    " + ", ".join(str(v) for v in values[a:b]) + ("};" if b == N else ",")
     for a, b in zip(cuts, cuts[1:])] + [
    "",
    "#endif",
]
sys.stdout.write("\n".join(lines) + "\n")
