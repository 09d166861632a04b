/* The GPU encoder's masks (codec/FORMAT.md, "Mask"): which values a chunk masks, its palette,
 * and its records, as per-thread steps like encode_chunk.cuh's (host C++ as well, so that
 * tests/test_gpu_encode_host.cpp runs them on the CPU).
 *
 * The palette is the fill value when the array holds it, then the NaN bit patterns in order of
 * first appearance in C order, the first PARZ_MASK_MAX_PATTERNS of them (the codec's palette also
 * holds the values the accuracy bound's check takes out, which never come here: the GPU encoder
 * refuses a chunk holding a value at risk, encode_chunk.cuh). The block kernel finds the NaN
 * patterns: a thread whose block holds NaN puts each pattern, with the position where the
 * block first holds it, into its chunk's set, a hash table of PARZ_GPU_MASK_SLOTS patterns in
 * device memory keyed by the pattern, that keeps each pattern's smallest position (atomics).
 * Then one thread per slot ranks its pattern among the others by first position, which gives
 * its value index (the rank kernel), and lookups go through the same table. A chunk with more
 * distinct NaN patterns than the set holds is refused (PARZ_ERR_UNSUPPORTED): its callers
 * encode it on the CPU.
 *
 * The records: the block kernel's mask pass leaves one fact per block (none, wholly masked with
 * one value: a run's candidate, or a bitmap of so many masked values); warps walk a group's
 * facts, 32 a step, a warp per 256 blocks of it, to count its records' bytes (for every
 * candidate G at once, so that the host picks G as the codec does), and, once the section's
 * place is known, to write them (encode_head.cu). One thread walking a group of 4096 blocks
 * took milliseconds. */
#ifndef PARZ_GPU_ENCODE_MASK_CUH
#define PARZ_GPU_ENCODE_MASK_CUH

#include "mask_block.h"

#define PARZ_GPU_MASK_SLOTS 1024u  /* distinct NaN patterns a chunk may hold */
#define PARZ_GPU_MASK_MAX_NAN 255u /* of them masked: the first (mask.h, PARZ_MASK_MAX_PATTERNS) */
#define PARZ_GPU_MASK_GROUP_MIN 256u
#define PARZ_GPU_MASK_GROUP_SIZES 5u /* candidate G: 256, 512, ..., 4096 (mask.c's choice) */
#define PARZ_GPU_MASK_RUN \
  0x10000u /* a block's fact: wholly masked, the value in the low byte;
                                      * else the number of masked values (0: none) */

/* One chunk's palette and counters in device memory, zero before the block kernel. */
struct parz_gpu_mask_set {
  unsigned long long key[PARZ_GPU_MASK_SLOTS];   /* a NaN bit pattern; 0 (no NaN): empty */
  unsigned long long first[PARZ_GPU_MASK_SLOTS]; /* ~(its first position): the largest wins */
  int code[PARZ_GPU_MASK_SLOTS];                 /* its value index, -1 beyond the palette */
  unsigned long long masked;                     /* masked values in the array */
  unsigned long long record_bytes[PARZ_GPU_MASK_GROUP_SIZES]; /* R for each candidate G */
  unsigned fill_seen, overflow, nvalues, reserved;
};

/* A chunk's part in the mask (encode_chunk.cuh's parz_gpu_enc_chunk holds one). */
struct parz_gpu_mask {
  parz_gpu_mask_set* set; /* NULL: the configuration masks nothing */
  int nan, fill;          /* NaN are masked; values bit-equal to fill_bits are */
  unsigned long long fill_bits;
  int pass;                        /* the block kernel's mask pass: stand-ins and facts */
  unsigned* facts;                 /* the mask pass: one per block */
  unsigned long long* group_bytes; /* per candidate G, per group: its records' bytes */
  /* once the layout is settled: the chosen G (candidate k) and the section */
  unsigned long long at, group_blocks, ngroups, record_bytes;
  unsigned k, nvalues;
};

PARZ_HD unsigned parz_gpu_mask_hash(unsigned long long bits) {
  return (unsigned)((bits * 0x9E3779B97F4A7C15ull) >> 54) & (PARZ_GPU_MASK_SLOTS - 1);
}

/* Puts NaN pattern bits met at position pos into the set (on the GPU atomically); marks the
 * set overflowed when it is full. On the GPU the lanes here at once that hold the same pattern
 * put it once, with their smallest position, and the position goes in only when it beats the
 * one in device memory (read past L1, which keeps a stale copy): the blocks of a masked region
 * would otherwise all send their atomics to one word. */
PARZ_HD void parz_gpu_mask_insert(parz_gpu_mask_set* s, unsigned long long bits,
                                  unsigned long long pos) {
#if defined(__CUDA_ARCH__)
  const unsigned lanes = __activemask(), peers = __match_any_sync(lanes, bits);
  const unsigned hi = __reduce_min_sync(peers, (unsigned)(pos >> 32));
  const unsigned lo = __reduce_min_sync(peers, (unsigned)(pos >> 32) == hi ? (unsigned)pos : ~0u);
  if ((threadIdx.x & 31u) != (unsigned)__ffs(peers) - 1)
    return;
  pos = (unsigned long long)hi << 32 | lo;
#endif
  unsigned h = parz_gpu_mask_hash(bits);
  for (unsigned i = 0; i < PARZ_GPU_MASK_SLOTS; i++, h = (h + 1) & (PARZ_GPU_MASK_SLOTS - 1)) {
    unsigned long long k = s->key[h];
#if defined(__CUDA_ARCH__)
    if (k == 0)
      k = atomicCAS(s->key + h, 0ull, bits);
    if (k == 0 || k == bits) {
      if (~pos > __ldcg(s->first + h))
        atomicMax(s->first + h, ~pos);
      return;
    }
#else
    if (k == 0)
      s->key[h] = k = bits;
    if (k == bits) {
      if (~pos > s->first[h])
        s->first[h] = ~pos;
      return;
    }
#endif
  }
#if defined(__CUDA_ARCH__)
  atomicOr(&s->overflow, 1u);
#else
  s->overflow = 1;
#endif
}

/* The value index of a bit pattern of the type, -1 for a value the mask does not take (after
 * the rank). */
PARZ_HD int parz_gpu_mask_code(const parz_gpu_mask& m, int type, unsigned long long bits) {
  if (m.fill && bits == m.fill_bits)
    return 0; /* the array holds it wherever it is asked */
  if (!m.nan || !parz_mask_is_nan((parz_type)type, bits))
    return -1;
  unsigned h = parz_gpu_mask_hash(bits);
  for (unsigned i = 0; i < PARZ_GPU_MASK_SLOTS; i++, h = (h + 1) & (PARZ_GPU_MASK_SLOTS - 1)) {
    const unsigned long long k = m.set->key[h];
    if (k == bits)
      return m.set->code[h];
    if (k == 0)
      break;
  }
  return -1;
}

/* The value index of the pattern first met at ~first among the patterns firsts[0..n) (first
 * positions complemented; an empty slot's 0 is never larger): its rank by first position after
 * the fill value, -1 past the first PARZ_GPU_MASK_MAX_NAN patterns. */
PARZ_HD int parz_gpu_mask_rank_among(const unsigned long long* firsts, unsigned n,
                                     unsigned long long first, unsigned fill_seen) {
  unsigned rank = 0;
  for (unsigned j = 0; j < n; j++)
    rank += firsts[j] > first;
  return rank < PARZ_GPU_MASK_MAX_NAN ? (int)(rank + fill_seen) : -1;
}

/* Slot i's value index (-1 for an empty slot). */
PARZ_HD int parz_gpu_mask_rank(const parz_gpu_mask_set* s, unsigned i) {
  return s->key[i]
             ? parz_gpu_mask_rank_among(s->first, PARZ_GPU_MASK_SLOTS, s->first[i], s->fill_seen)
             : -1;
}

/* V, the palette's values, of a set holding n patterns. */
PARZ_HD unsigned parz_gpu_mask_nvalues_of(unsigned n, unsigned fill_seen) {
  return (n < PARZ_GPU_MASK_MAX_NAN ? n : PARZ_GPU_MASK_MAX_NAN) + (fill_seen != 0);
}

/* V of set s. */
PARZ_HD unsigned parz_gpu_mask_nvalues(const parz_gpu_mask_set* s) {
  unsigned n = 0;
  for (unsigned j = 0; j < PARZ_GPU_MASK_SLOTS; j++)
    n += s->key[j] != 0;
  return parz_gpu_mask_nvalues_of(n, s->fill_seen);
}

/* Groups of 256 << k blocks, and where candidate k's entries start in group_bytes. */
PARZ_HD unsigned long long parz_gpu_mask_groups(unsigned long long nblocks, unsigned k) {
  const unsigned long long G = (unsigned long long)PARZ_GPU_MASK_GROUP_MIN << k;
  return (nblocks + G - 1) / G;
}
PARZ_HD unsigned long long parz_gpu_mask_groups_before(unsigned long long nblocks, unsigned k) {
  unsigned long long n = 0;
  for (unsigned j = 0; j < k; j++)
    n += parz_gpu_mask_groups(nblocks, j);
  return n;
}

/* One record (FORMAT.md): its head, skip blocks after the previous record's end; then for a run
 * (fact f a run's) of n blocks their count less one and, with several values, the value; for a
 * bitmap block (fact f: its masked values) bitmap(p) writes the bitmap and, with several values,
 * the value indices. Returns its bytes, written at out unless it is NULL. */
template <typename B>
PARZ_HD unsigned parz_gpu_mask_record(unsigned char* out, unsigned f, unsigned long long skip,
                                      unsigned long long n, unsigned dims, unsigned nvalues,
                                      B bitmap) {
  unsigned at;
  if (f & PARZ_GPU_MASK_RUN) {
    at = parz_mask_put_varint(out, skip << 1 | PARZ_MASK_RUN);
    at += parz_mask_put_varint(out ? out + at : NULL, n - 1);
    if (nvalues > 1) {
      if (out)
        out[at] = (unsigned char)(f & 0xffu);
      at++;
    }
    return at;
  }
  at = parz_mask_put_varint(out, skip << 1 | PARZ_MASK_BITMAP);
  if (out)
    bitmap(out + at);
  return at + parz_mask_bitmap_bytes(dims) + (nvalues > 1 ? f : 0);
}

/* The records of group g of G blocks (FORMAT.md: runs of wholly masked blocks of one value,
 * bitmaps for the others) from the blocks' facts, walked by one thread: their bytes, written at
 * out unless it is NULL. bitmap(b, p) writes block b's bitmap and value indices at p. The
 * kernels walk a group with a warp instead (encode_head.cu), 32 blocks a step, to the same
 * records; this walk is the tests' reference on the host. */
template <typename B>
PARZ_HD unsigned long long parz_gpu_mask_group(const unsigned* facts, unsigned long long nblocks,
                                               unsigned dims, unsigned nvalues,
                                               unsigned long long G, unsigned long long g,
                                               unsigned char* out, B bitmap) {
  const unsigned long long b0 = g * G, b1 = b0 + G < nblocks ? b0 + G : nblocks;
  unsigned long long at = 0, cursor = b0, b = b0;
  while (b < b1) {
    const unsigned f = facts[b];
    unsigned long long n = 1;
    if (!f) {
      b++;
      continue;
    }
    if (f & PARZ_GPU_MASK_RUN)
      while (b + n < b1 && facts[b + n] == f)
        n++;
    at += parz_gpu_mask_record(out ? out + at : NULL, f, b - cursor, n, dims, nvalues,
                               [&](unsigned char* p) { bitmap(b, p); });
    b += n;
    cursor = b;
  }
  return at;
}

#endif
