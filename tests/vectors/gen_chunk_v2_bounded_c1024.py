#!/usr/bin/env python3
"""Writes tests/vectors/chunk_v2_bounded_c1024.h: an error-bounded chunk (codec 4) of two
segments of the writers' C = 1024 codes, built field by field from codec/FORMAT.md
("Error-bounded chunks (codec 4)") without the codec: the grid step, the Lorenzo codes, the
zero runs cut at the segments' edge, the Huffman code and its codebook as the writer serializes
it, the table, the payload checksum and the header's CRC-32C. Run it again only to check that it
writes the same file; a change of format is a new vector.

Array: float32, rank 1, shape {1032}: 0 for x < 1028, then 1, 2, 3, 4; error bound 0.5, Lorenzo
asked for; payload checksums on (P = 64), nothing masked, no exception. The table's lengths are
2 bytes wide: a segment of 1024 codes takes at most 1024 x 52 bits."""
import math
import struct
import sys

from vector_bits import Bits, canonical, crc32c, huffman_lengths, opening, rows

N, C, P, EB = 1032, 1024, 64, 0.5
NAME = "chunk_v2_bounded_c1024"
RUNS, RADIUS = 24, 32767
HEAD = 1 + RUNS  # symbol 0 the escape, 1..24 the runs
SYMBOLS = HEAD + 2 * RADIUS + 1
MASK64 = (1 << 64) - 1
# the table's length width: 2 when C * B <= 65535, B = 52 the most bits one code takes (a 20-bit
# code word and 32 raw bits)
WIDTH = 2 if C * 52 <= 65535 else 4

values = [0.0] * (N - 4) + [1.0, 2.0, 3.0, 4.0]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


# the step: h half an ulp of the largest magnitude, m = min(1/4, 2h / eb), step = 2 eb (1 - m)
top = max(abs(v) for v in values)
e = math.frexp(top)[1] - 1
h = 2.0**(e - 24)
step = 2 * EB * (1 - min(0.25, 2 * h / EB))
q = [round(v / step) for v in values]
assert all(abs(f32(k * step) - v) <= EB for k, v in zip(q, values))
codes = [q[0]] + [q[x] - q[x - 1] for x in range(1, N)]  # Lorenzo in 1-D


def tokens(seg, runs):
    """The segment's symbols and raw bits: each maximal run of zeros as run symbols, the longest
    a symbol holds first, with runs; else a symbol per code."""
    out, i = [], 0
    while i < len(seg):
        if runs and seg[i] == 0:
            j = i
            while j < len(seg) and seg[j] == 0:
                j += 1
            n = j - i
            while n >= 2:
                k = min(n.bit_length() - 1, RUNS)
                take = min(n, (2 << k) - 1)
                out.append((k, take - (1 << k), k))
                n -= take
            if n:
                out.append((HEAD + RADIUS, 0, 0))
            i = j
        else:
            out.append((HEAD + RADIUS + seg[i], 0, 0))
            i += 1
    return out


segments = [codes[s:s + C] for s in range(0, N, C)]
best = None
for runs in (0, 1):
    toks = [tokens(seg, runs) for seg in segments]
    freq = [0] * SYMBOLS
    for t in toks:
        for sym, _, _ in t:
            freq[sym] += 1
    lengths = huffman_lengths(freq)
    bits = sum(lengths[sym] + n for t in toks for sym, _, n in t)
    if best is None or bits < best[0]:  # runs only where they make the payload smaller
        best = (bits, runs, toks, lengths)
payload_bits, runs, toks, lengths = best
assert len({L for L in lengths if L}) > 1 or sum(1 for L in lengths if L) <= 2
words = canonical(lengths)

# the codebook: varint span, then per symbol its length relative to the previous one
span = max(s for s, L in enumerate(lengths) if L) + 1
book = bytearray()
v = span
while True:
    book.append((v & 0x7F) | (0x80 if v >= 0x80 else 0))
    v >>= 7
    if not book[-1] & 0x80:
        break
lb, prev, s = Bits(), 0, 0
while s < span:
    L = lengths[s]
    if L == 0:
        u = 0
        while s + u < span and lengths[s + u] == 0:
            u += 1
        k = u.bit_length() - 1
        lb.put(7, 3)
        lb.put(k, 5)
        lb.put(u - (1 << k), k)
        s += u
        continue
    if L == prev:
        lb.put(0, 1)
    elif L == prev + 1 or L + 1 == prev:
        lb.put(1 if L == prev + 1 else 5, 3)
    else:
        lb.put(3, 3)
        lb.put(L, 5)
    prev = L
    s += 1
book += lb.bytes()

payload_bits_ = Bits()
seg_bits = []
for t in toks:
    at = len(payload_bits_.bits)
    for sym, raw, n in t:
        payload_bits_.word(words[sym], lengths[sym])
        payload_bits_.put(raw, n)
    seg_bits.append(len(payload_bits_.bits) - at)
assert sum(seg_bits) == payload_bits
payload = payload_bits_.bytes()
payload += bytes(-len(payload) % 8)


def mix(key, w):
    x = (w ^ key) & MASK64
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & MASK64
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & MASK64
    return x ^ (x >> 33)


# one partition (P = 64 >= 2 segments): every payload word, padding included
psum = 0
for k in range(len(payload) // 8):
    psum = (psum + mix((k * 0x9E3779B97F4A7C15) & MASK64,
                       struct.unpack_from("<Q", payload, 8 * k)[0])) & MASK64

table = struct.pack("<Q", 0) + b"".join(b.to_bytes(WIDTH, "little") for b in seg_bits)
table += bytes(-len(table) % 8)
checksums = struct.pack("<IIQ", P, 0, psum)
data = struct.pack("<dBBHI", step, 1, runs, 0, len(book)) + bytes(book)
data += bytes(-len(data) % 8)
directory = struct.pack("<HHIQ", 1, 0, 0, len(checksums)) + struct.pack("<HHIQ", 3, 1, 0,
                                                                          len(data))
rest = directory + table + checksums + data
header = b"PARZ" + struct.pack("<HHHBBBBH", 2, 4, 1, 3, 1, 4, WIDTH, 0)
header += struct.pack("<4Q", N, 0, 0, 0)
header += struct.pack("<dII", EB, 1, 0)
header += struct.pack("<IIQQQQI", C, P, len(table), 0, len(payload), payload_bits, 2)
header += struct.pack("<I", crc32c(header + rest))
assert len(header) == 112
chunk = header + rest + payload
at = 0
lines = [
    "/* ParZ chunk format version 2 test vector of an error-bounded chunk (codec 4) in two segments",
    " * of the writers' C = 1024 codes, written by tests/vectors/gen_chunk_v2_bounded_c1024.py from",
    " * codec/FORMAT.md without the codec. If an encoder change alters any byte of this, the format",
    " * has changed: add a new vector instead of editing this one.",
    " *",
    " * Array: float32, rank 1, shape {%d}: 0 for x < %d, then 1, 2, 3, 4; error bound 0.5, Lorenzo"
    % (N, N - 4),
    " * asked for; payload checksums (P = 64), nothing masked, no exception. Step 1 - 2^-20; the",
    " * codes are %d zeros, then 1, 1, 1, 1. Segment 0 holds codes 0..1023, a run of 1024 zeros"
    % (N - 4),
    " * (run symbol k = 10), segment 1 the run's last 4 zeros (k = 2) and the four 1s: the zeros'",
    " * run is cut at the segments' edge. Code lengths: 1 for code 1, 2 for the two runs;",
    " * segment bits %s (lengths %d bytes wide: 1024 x 52 <= 65535), payload %d bits. */" % (
        " and ".join(str(b) for b in seg_bits), WIDTH, payload_bits),
] + opening(NAME, len(chunk))
for part, what in ((header, "header, C = 1024 at 64"), (directory, "directory: kinds 1, 3"),
                   (table, "table: bit 0, lengths %s" % ", ".join(str(b) for b in seg_bits)),
                   (checksums, "checksums: P, 0, sum"),
                   (data, "step, 1, runs %d, B %d, book" % (runs, len(book))),
                   (payload, "payload: run | run, 1, 1, 1, 1")):
    lines += rows(part, at, what)
    at += len(part)
lines += [
    "};",
    "",
    "/* The values it decodes to (bit patterns): (float)(q * step) for q = 0, then 1, 2, 3, 4. */",
    "static const uint32_t %s_decoded[4] = {\n    %s};" % (
        NAME, ", ".join("0x%08xu" % struct.unpack("<I", struct.pack("<f", k * step))[0]
                        for k in (1, 2, 3, 4))),
    "",
    "#endif",
]
sys.stdout.write("\n".join(lines) + "\n")
