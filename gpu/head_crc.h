/* The header's CRC-32C (codec/FORMAT.md, "Header") of a chunk whose head the GPU writes in part:
 * the GPU's bytes of the head, one run of whole words, in pieces of a word joined pairwise in a
 * tree, a CTA's span at a time (parz_gpu_crc_piece, _join, _span; head_crc.cuh runs them), and
 * the host's bytes, the rest of the head, folded into a key (parz_gpu_head_crc_value). The zfp
 * encoder's GPU writes all of a head behind its header; the encoders of whole chunks write the
 * table, exception records or sums there (encode_whole.h). Every step is PARZ_HD, so that the
 * host tests run them as the GPU does. Internal to gpu/. */
#ifndef PARZ_GPU_HEAD_CRC_H
#define PARZ_GPU_HEAD_CRC_H

#include <stdint.h>

#include "block_common.h"
#include "crc32c.h"

/* Bytes per thread (one word) and its base-2 logarithm; pieces per span (a CTA's threads). */
#define PARZ_GPU_CRC_PIECE 8u
#define PARZ_GPU_CRC_PIECE_LOG2 3u
#define PARZ_GPU_CRC_THREADS 256u
#define PARZ_GPU_CRC_LEVELS 8u /* log2(PARZ_GPU_CRC_THREADS) */
#define PARZ_GPU_CRC_SPAN (PARZ_GPU_CRC_PIECE * PARZ_GPU_CRC_THREADS)

/* A head's CRC taken on the GPU: bytes [from, to) of the head at chunk (to - from a multiple of
 * 8, from 8-aligned in memory) are the GPU's, whose raw register (crc32c.h) the spans' shares XOR
 * into *raw (zero before). The header's CRC-32C is then ~(key ^ raw x^(8n)), n the head's bytes
 * after `to` (shift: x^(8n) mod P), key the register of the head's bytes before `from` (the CRC's
 * field left out) carried past the rest, XOR the raw register of the bytes after `to`. */
struct parz_gpu_head_crc {
  unsigned char* chunk;
  unsigned long long from, to;
  uint32_t key, shift;
  uint32_t* raw;
};

/* The spans of s's bytes. The bytes are counted as if zeros filled the front up to whole spans:
 * leading zeros leave a register from 0 at 0, so the raw register is the same, and then every
 * piece and span has one length. */
PARZ_HD unsigned long long parz_gpu_crc_spans(const parz_gpu_head_crc& s) {
  return (s.to - s.from + PARZ_GPU_CRC_SPAN - 1) / PARZ_GPU_CRC_SPAN;
}

/* The raw register of piece p, one word (table: parz_crc32c_table, on the GPU a copy in shared
 * memory). */
PARZ_HD uint32_t parz_gpu_crc_piece(const parz_gpu_head_crc& s, unsigned long long p,
                                    const uint32_t* table) {
  const unsigned long long len = s.to - s.from;
  const unsigned long long pad = parz_gpu_crc_spans(s) * PARZ_GPU_CRC_SPAN - len;
  const unsigned long long at = p * PARZ_GPU_CRC_PIECE;
  uint32_t reg = 0;
  if (at < pad) /* len is whole words, so pad is one too */
    return 0;
  const uint64_t w = parz_word_load(s.chunk + s.from + (at - pad));
  for (unsigned k = 0; k < 8; k++)
    reg = table[(reg ^ (unsigned)(w >> (8 * k))) & 0xffu] ^ (reg >> 8);
  return reg;
}

/* Join tables: table j holds x^i times x^(8 PIECE 2^j), the register of 2^j pieces of zeros,
 * for i < 32, mod P (reflected). Multiplying by a constant b is the XOR of b x^i over the set bits
 * of the other factor (parz_crc32c_mulmod), so with the 32 products at hand a multiplication is
 * 32 independent selections instead of a chain of 32 dependent steps. Tables 0 to
 * PARZ_GPU_CRC_LEVELS - 1 join the levels of a CTA's tree; the next ones, a span times 2^j,
 * shift a span's register over the spans after it. x8 has 31 entries: the tables end there. */
#define PARZ_GPU_CRC_JOIN_TABLES (31u - PARZ_GPU_CRC_PIECE_LOG2)

PARZ_HD uint32_t parz_gpu_crc_join_entry(unsigned j, unsigned i) {
  uint32_t b = PARZ_TABLE(parz_crc32c_x8)[PARZ_GPU_CRC_PIECE_LOG2 + j];
  for (unsigned k = 0; k < i; k++)
    b = (b >> 1) ^ (PARZ_CRC32C_POLY & (0u - (b & 1u)));
  return b;
}

/* The register `left` followed by 2^j pieces whose register is `right`; tab: join table j. */
PARZ_HD uint32_t parz_gpu_crc_join(uint32_t left, uint32_t right, const uint32_t* tab) {
  uint32_t p = right;
  for (unsigned i = 0; i < 32; i++)
    p ^= tab[i] & (0u - ((left >> (31 - i)) & 1u));
  return p;
}

/* A span's register, shifted over the spans after it (a join-table multiplication per set bit
 * of their count; the generic shift for what lies beyond the tables, heads over 2^(31 - 11) spans
 * long): its share of the raw register. tabs: the join tables. */
PARZ_HD uint32_t parz_gpu_crc_span(const parz_gpu_head_crc& s, unsigned long long span,
                                   uint32_t reg, const uint32_t (*tabs)[32]) {
  const unsigned span_tables = PARZ_GPU_CRC_JOIN_TABLES - PARZ_GPU_CRC_LEVELS;
  unsigned long long m = parz_gpu_crc_spans(s) - 1 - span;
  for (unsigned j = 0; m && j < span_tables; j++, m >>= 1)
    if (m & 1u)
      reg = parz_gpu_crc_join(reg, 0, tabs[PARZ_GPU_CRC_LEVELS + j]);
  return m ? parz_crc32c_shift(reg, (m << span_tables) * PARZ_GPU_CRC_SPAN) : reg;
}

/* The header's CRC-32C from the raw register of the GPU's bytes. */
PARZ_HD uint32_t parz_gpu_head_crc_value(const parz_gpu_head_crc& s, uint32_t raw) {
  return ~(s.key ^ parz_crc32c_mulmod(raw, s.shift));
}

#endif
