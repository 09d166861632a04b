"""What the generators of tests/vectors share: the header's CRC-32C, optimal Huffman code lengths
and their canonical code words, an LSB-first bit string and the C lines of a vector's bytes, each
as codec/FORMAT.md defines it, written without the codec."""
import heapq


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def huffman_lengths(freq):
    """Code lengths of an optimal prefix code of the symbols with freq > 0."""
    heap = [(f, [s]) for s, f in enumerate(freq) if f]
    lengths = [0] * len(freq)
    heapq.heapify(heap)
    while len(heap) > 1:
        f1, s1 = heapq.heappop(heap)
        f2, s2 = heapq.heappop(heap)
        for s in s1 + s2:
            lengths[s] += 1
        heapq.heappush(heap, (f1 + f2, s1 + s2))
    return lengths


def delta_zigzag(values, w=32):
    """The zigzagged residuals of w-bit integers (transform 0: two's complement bits), each
    predicted by the one before it, the first by 0."""
    mask, z = (1 << w) - 1, []
    u = [v & mask for v in values]
    for x in range(len(u)):
        r = (u[x] - (u[x - 1] if x else 0)) & mask
        z.append(((r << 1) ^ (mask if r >> (w - 1) else 0)) & mask)
    return z


def length_code(z, w=32):
    """The residuals' bit lengths k, and the optimal code of them: its lengths (L[0..w], at most
    12) and canonical words."""
    k = [v.bit_length() for v in z]
    freq = [0] * (w + 1)
    for kk in k:
        freq[kk] += 1
    lengths = huffman_lengths(freq)
    assert max(lengths) <= 12
    return k, lengths, canonical(lengths)


def canonical(lengths):
    """Words (as integers, first bit the high one) in order of (length, symbol)."""
    words, code, prev = {}, -1, 0
    for L, s in sorted((L, s) for s, L in enumerate(lengths) if L):
        code = 0 if code < 0 else (code + 1) << (L - prev)
        words[s] = code
        prev = L
    return words


class Bits:
    def __init__(self):
        self.bits = []

    def put(self, value, n):  # low bit first
        self.bits += [(value >> i) & 1 for i in range(n)]

    def word(self, value, n):  # first bit first
        self.bits += [(value >> (n - 1 - i)) & 1 for i in range(n)]

    def bytes(self):
        b = self.bits + [0] * (-len(self.bits) % 8)
        return bytes(sum(b[i + j] << j for j in range(8)) for i in range(0, len(b), 8))


def opening(name, size):
    """The lines of a vector's header from its include guard to the opening of its bytes."""
    return [
        "#ifndef PARZ_%s_H" % name.upper(),
        "#define PARZ_%s_H" % name.upper(),
        "",
        "#include <stdint.h>",
        "",
        "static const unsigned char %s[%d] = {" % (name, size),
    ]


def rows(data, start, comment):
    """C initializer rows of 8 bytes, the first with its offset and comment."""
    out = []
    for i in range(0, len(data), 8):
        part = data[i:i + 8]
        text = ", ".join("0x%02x" % b for b in part) + ","
        out.append("    %-48s /* %3d %s */" % (text, start + i, comment if i == 0 else "..."))
    return out
