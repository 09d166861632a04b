/* The lossless codec's residual encoder, its steps one at a time (internal, header-only): the
 * residuals' bit-length counts, each coder's code and size, the choice among them and the writers
 * of coders 0 to 4 (residual_coder.h describes the bytes). Compiled as C99 for the CPU encoder
 * (residual_coder.c, parz_ll_code_residuals, which runs them in order) and as CUDA C++ for the
 * GPU's (gpu/lossless/), which runs them on a warp's lanes, so that both write the same bytes:
 * block_common.h's contract. */
#ifndef PARZ_LL_RESIDUAL_ENCODE_H
#define PARZ_LL_RESIDUAL_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "bitio.h"
#include "block_common.h"
#include "huffman_build.h"
#include "residual_decode.h"

/* The writers' runs of coder 3: 2^9 = 512 residuals, so that a segment of 4 blocks of 4096
 * values is 32 runs, one per lane of a GPU warp. The encoder's steps below take the run length
 * as its q (PARZ_LL_RUN_QMIN..PARZ_LL_RUN_QMAX), so that tests and benchmarks write others
 * (parz_codec_settings.run_q); the wrappers without a q are the writers'. */
#define PARZ_LL_RUN_Q 9u
#define PARZ_LL_RUN ((size_t)1 << PARZ_LL_RUN_Q)

/* Bytes of n raw residuals of w bits with their coder byte: the most a segment takes. */
PARZ_HD size_t parz_ll_raw_bytes(size_t n, unsigned w) { return 1 + n * (w / 8); }

/* How a segment of n residuals is written under runs of 2^q: q where that is more than one run
 * (coder 3), else 0 (one run: coder 1 or 2). The steps below call this value `runs`. */
PARZ_HD unsigned parz_ll_runs_q(size_t n, unsigned q) { return n > ((size_t)1 << q) ? q : 0u; }
PARZ_HD unsigned parz_ll_runs_of(size_t n) { return parz_ll_runs_q(n, PARZ_LL_RUN_Q); }

/* Whether residual i starts a run of 2^runs (runs: parz_ll_runs_q's, 0 for one run). */
PARZ_HD int parz_ll_run_starts(size_t i, unsigned runs) {
  return runs && !(i & (((size_t)1 << runs) - 1));
}

/* The context of residual i of z, a segment's (runs: parz_ll_runs_q's; coder 3's runs each
 * start in context 0). */
PARZ_HD unsigned parz_ll_context_at(const uint64_t* z, size_t i, unsigned runs) {
  if (i == 0 || parz_ll_run_starts(i, runs))
    return 0;
  return parz_ll_context_of(parz_bitlen64(z[i - 1]));
}

/* The bit lengths of z[0..n) counted per context into freq (PARZ_LL_CONTEXTS x 65, zeroed by the
 * caller), the context of each residual as parz_ll_context_at gives it. odd (the same size,
 * zeroed) counts the odd residuals, so that runs of one bit length do not wait on their own
 * increments; added into freq at the end. */
PARZ_HD void parz_ll_count(const uint64_t* z, size_t n, unsigned runs, uint64_t freq[][65],
                           uint64_t odd[][65], unsigned w) {
  unsigned previous = 0, k, c;
  size_t i;
  for (i = 0; i + 1 < n; i += 2) {
    unsigned k1;
    if (parz_ll_run_starts(i, runs))
      previous = 0; /* each run starts in context 0 (runs are of even length) */
    k = parz_bitlen64(z[i]);
    k1 = parz_bitlen64(z[i + 1]);
    freq[parz_ll_context_of(previous)][k]++;
    odd[parz_ll_context_of(k)][k1]++;
    previous = k1;
  }
  if (i < n) {
    if (parz_ll_run_starts(i, runs))
      previous = 0;
    k = parz_bitlen64(z[i]);
    freq[parz_ll_context_of(previous)][k]++;
  }
  for (c = 0; c < parz_ll_contexts(w, PARZ_LL_CODER_CONTEXT); c++)
    for (k = 0; k <= w; k++)
      freq[c][k] += odd[c][k];
}

/* The code of one context for its counts freq[0..w] (ns = w + 1 symbols): its lengths (at most
 * PARZ_LL_CODE_MAX bits; all 0 where the counts make no code) and words; returns the bits its
 * residuals take, code words and the bits below each leading one. */
PARZ_HD uint64_t parz_ll_plan_context(const uint64_t* freq, unsigned w, uint8_t* len,
                                      uint32_t* code) {
  const unsigned ns = w + 1;
  uint64_t bits = 0;
  unsigned k;
  parz_huff_small_lengths(freq, ns, PARZ_LL_CODE_MAX, len);
  parz_huff_canonical(len, ns, PARZ_LL_CODE_MAX, code);
  for (k = 0; k < ns; k++)
    bits += freq[k] * (len[k] + (k >= 2 ? k - 1 : 0));
  return bits;
}

/* The bits of a coder's code lengths: 4 per symbol and context. */
PARZ_HD uint64_t parz_ll_lengths_bits(unsigned w, unsigned coder) {
  return 4u * (uint64_t)(w + 1) * parz_ll_contexts(w, coder);
}

/* The codes of a coder (1: one code, freq[0]; 2: one per context) for the counts per context
 * (freq): lengths and words per context; returns the stream's bits with its lengths. */
PARZ_HD uint64_t parz_ll_plan(uint64_t freq[][65], unsigned w, unsigned coder, uint8_t len[][65],
                              uint32_t code[][65]) {
  unsigned c, nc = parz_ll_contexts(w, coder);
  uint64_t bits = parz_ll_lengths_bits(w, coder);
  for (c = 0; c < nc; c++)
    bits += parz_ll_plan_context(freq[c], w, len[c], code[c]);
  return bits;
}

/* The coder a segment of raw bytes `raw` gets from the bits of coder 1 and coder 2 (the smaller;
 * coder 1 on a tie): PARZ_LL_CODER_RAW where its bytes would reach raw's. */
PARZ_HD unsigned parz_ll_pick(uint64_t bits1, uint64_t bits2, size_t raw) {
  const int two = bits2 < bits1;
  const uint64_t bits = two ? bits2 : bits1;
  if (1 + (bits + 7) / 8 >= raw)
    return PARZ_LL_CODER_RAW;
  return two ? PARZ_LL_CODER_CONTEXT : PARZ_LL_CODER_LENGTHS;
}

/* Residual i of a raw segment (dst: its bytes after the coder byte), w / 8 bytes little-endian. */
PARZ_HD void parz_ll_raw_put(uint8_t* dst, size_t i, uint64_t z, unsigned w) {
  unsigned b;
  for (b = 0; b < w / 8; b++)
    dst[i * (w / 8) + b] = (uint8_t)(z >> (8 * b));
}

/* The code lengths of nc codes of w + 1 symbols, 4 bits each. */
PARZ_HD void parz_ll_put_lengths(parz_bitw* wr, uint8_t len[][65], unsigned nc, unsigned w) {
  unsigned c, k;
  for (c = 0; c < nc; c++)
    for (k = 0; k <= w; k++)
      parz_bitw_put(wr, len[c][k], 4);
}

/* A writer's state in locals (the accumulator holds fewer than 8 bits between residuals): the
 * compiler would reload a parz_bitw's fields after each store through its byte pointer. */
typedef struct {
  uint64_t acc;
  size_t at;
  unsigned fill;
} parz_ll_put_state;

/* Appends the n bits of v (n <= 56) with one store where 8 bytes are left; else through wr. */
PARZ_HD void parz_ll_put(parz_bitw* wr, parz_ll_put_state* p, uint64_t v, unsigned n) {
  if (PARZ_BITIO_LE && p->at + 8 <= wr->cap) {
    p->acc |= v << p->fill;
    p->fill += n;
    memcpy(wr->out + p->at, &p->acc, 8);
    p->at += p->fill >> 3;
    p->acc >>= p->fill & ~7u;
    p->fill &= 7u;
  } else {
    wr->acc = p->acc;
    wr->at = p->at;
    wr->fill = p->fill;
    parz_bitw_put56(wr, v, n);
    p->acc = wr->acc;
    p->at = wr->at;
    p->fill = wr->fill;
  }
}

/* Residual x of bit length k, of the code word `word` of l bits: its bits (the word, then those
 * below the leading one) into wr, in one store where they are 56 or fewer. */
PARZ_HD void parz_ll_put_residual(parz_bitw* wr, parz_ll_put_state* p, uint64_t x, unsigned k,
                                  uint32_t word, unsigned l) {
  const unsigned below = k >= 2 ? k - 1 : 0;
  const uint64_t low = x & ~(~(uint64_t)0 << below);
  if (l + below <= 56) {
    parz_ll_put(wr, p, word | low << l, l + below);
  } else {
    wr->acc = p->acc;
    wr->at = p->at;
    wr->fill = p->fill;
    parz_bitw_put(wr, word, l);
    parz_bitw_put64(wr, low, below);
    parz_bitw_flush_bytes(wr);
    p->acc = wr->acc;
    p->at = wr->at;
    p->fill = wr->fill;
  }
}

/* Residuals z[0..n) into wr (its accumulator holding fewer than 8 bits) with the code of its
 * coder (contexts or one code), the first in context 0; returns the stream's end in bytes, its
 * last byte padded. Two residuals go in one store where their bits are 56 or fewer: the chain
 * of the accumulator's shifts from one store to the next is the loop's critical path. */
PARZ_HD size_t parz_ll_code_run(parz_bitw* wr, const uint64_t* z, size_t n, int contexts,
                                uint8_t len[][65], uint32_t code[][65]) {
  const unsigned mask = contexts ? ~0u : 0u;
  parz_ll_put_state p;
  size_t i;
  unsigned c = 0;
  p.acc = wr->acc;
  p.at = wr->at;
  p.fill = wr->fill;
  for (i = 0; i + 1 < n; i += 2) {
    const uint64_t x0 = z[i], x1 = z[i + 1];
    const unsigned k0 = parz_bitlen64(x0), k1 = parz_bitlen64(x1);
    const unsigned c1 = parz_ll_context_of(k0) & mask;
    const unsigned l0 = len[c][k0], l1 = len[c1][k1];
    const unsigned n0 = l0 + (k0 >= 2 ? k0 - 1 : 0), n1 = l1 + (k1 >= 2 ? k1 - 1 : 0);
    if (n0 + n1 <= 56) {
      const uint64_t v0 = code[c][k0] | (x0 & ~(~(uint64_t)0 << (n0 - l0))) << l0;
      const uint64_t v1 = code[c1][k1] | (x1 & ~(~(uint64_t)0 << (n1 - l1))) << l1;
      parz_ll_put(wr, &p, v0 | v1 << n0, n0 + n1);
    } else {
      parz_ll_put_residual(wr, &p, x0, k0, code[c][k0], l0);
      parz_ll_put_residual(wr, &p, x1, k1, code[c1][k1], l1);
    }
    c = parz_ll_context_of(k1) & mask;
  }
  if (i < n) {
    const unsigned k = parz_bitlen64(z[i]);
    parz_ll_put_residual(wr, &p, z[i], k, code[c][k], len[c][k]);
  }
  wr->acc = p.acc;
  wr->at = p.at;
  wr->fill = p.fill;
  return parz_bitw_finish(wr);
}

/* The bytes a run of z[0..n) takes under the code (parz_ll_code_run's stream from a byte, its
 * last byte padded), without writing it. */
PARZ_HD size_t parz_ll_run_bytes_of(const uint64_t* z, size_t n, int contexts, uint8_t len[][65]) {
  unsigned previous = 0;
  uint64_t bits = 0;
  size_t i;
  for (i = 0; i < n; i++) {
    const unsigned c = contexts ? parz_ll_context_of(previous) : 0, k = parz_bitlen64(z[i]);
    bits += len[c][k] + (k >= 2 ? k - 1 : 0);
    previous = k;
  }
  return (size_t)((bits + 7) / 8);
}

/* The head of a segment of one run under coder 1 or 2 into dst (cap bytes): the coder byte,
 * then the code lengths from bit 8 of *wr, which goes on where they end. */
PARZ_HD void parz_ll_single_lengths(parz_bitw* wr, uint8_t* dst, size_t cap, unsigned w,
                                    unsigned coder, uint8_t len[][65]) {
  dst[0] = (uint8_t)coder;
  parz_bitw_init(wr, dst, cap, 1);
  parz_ll_put_lengths(wr, len, parz_ll_contexts(w, coder), w);
}

/* A segment of one run (n <= PARZ_LL_RUN residuals) under coder 1 or 2 (coder; len and code
 * its codes) into dst (cap bytes, its raw size): the coder byte, the code lengths, then the
 * residuals in the same bit stream; returns the bytes written. */
PARZ_HD size_t parz_ll_code_single(uint8_t* dst, size_t cap, const uint64_t* z, size_t n,
                                   unsigned w, unsigned coder, uint8_t len[][65],
                                   uint32_t code[][65]) {
  parz_bitw wr;
  parz_ll_single_lengths(&wr, dst, cap, w, coder, len);
  parz_bitw_flush_bytes(&wr);
  return parz_ll_code_run(&wr, z, n, coder == PARZ_LL_CODER_CONTEXT, len, code);
}

/* Where coder 3's run lengths start: after its head and code lengths, padded to a byte. */
PARZ_HD size_t parz_ll_runs_lengths_end(unsigned w, unsigned coder) {
  return PARZ_LL_RUN_HEAD + (size_t)((parz_ll_lengths_bits(w, coder) + 7) / 8);
}

/* Coder 3's head into dst (cap bytes, raw's): the coder byte, the code's coder and q (runs of
 * 2^q), the code lengths of nc codes, padded to a byte; returns where the run lengths start. */
PARZ_HD size_t parz_ll_runs_head_q(uint8_t* dst, size_t cap, unsigned coder, uint8_t len[][65],
                                   unsigned w, unsigned q) {
  parz_bitw wr;
  dst[0] = (uint8_t)PARZ_LL_CODER_RUNS;
  dst[1] = (uint8_t)coder;
  dst[2] = (uint8_t)q;
  parz_bitw_init(&wr, dst, cap, PARZ_LL_RUN_HEAD);
  parz_ll_put_lengths(&wr, len, parz_ll_contexts(w, coder), w);
  return parz_bitw_finish(&wr);
}
PARZ_HD size_t parz_ll_runs_head(uint8_t* dst, size_t cap, unsigned coder, uint8_t len[][65],
                                 unsigned w) {
  return parz_ll_runs_head_q(dst, cap, coder, len, w, PARZ_LL_RUN_Q);
}

/* Whether z[0..n) are all zero: a run coder 4 writes with no bytes. */
PARZ_HD int parz_ll_all_zero(const uint64_t* z, size_t n) {
  uint64_t any = 0;
  size_t i;
  for (i = 0; i < n; i++)
    any |= z[i];
  return any == 0;
}

/* Runs of 2^q residuals of a segment of n residuals. */
PARZ_HD size_t parz_ll_run_count_q(size_t n, unsigned q) { return (n + ((size_t)1 << q) - 1) >> q; }
PARZ_HD size_t parz_ll_run_count(size_t n) { return parz_ll_run_count_q(n, PARZ_LL_RUN_Q); }

/* Where run 0 starts: after the u16 byte lengths of all runs of 2^q but the last (lengths_end:
 * the head's end). */
PARZ_HD size_t parz_ll_runs_start_q(size_t lengths_end, size_t n, unsigned q) {
  return lengths_end + 2 * (parz_ll_run_count_q(n, q) - 1);
}
PARZ_HD size_t parz_ll_runs_start(size_t lengths_end, size_t n) {
  return parz_ll_runs_start_q(lengths_end, n, PARZ_LL_RUN_Q);
}

/* Run r's byte length (r not the last) into its u16 slot. */
PARZ_HD void parz_ll_run_length_put(uint8_t* dst, size_t lengths_end, size_t r, size_t bytes) {
  dst[lengths_end + 2 * r] = (uint8_t)bytes;
  dst[lengths_end + 2 * r + 1] = (uint8_t)(bytes >> 8);
}

#endif
