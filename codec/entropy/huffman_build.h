/* The building of length-limited Huffman codes (internal, header-only): the leaves' order, Huffman's
 * two-queue merge and package-merge over memory the caller hands in, compiled as C99 for the CPU
 * encoders (huffman.c) and as CUDA C++ for the GPU's (block_common.h's contract), so that both
 * give every code the same lengths. huffman.h describes the lengths and the words; for alphabets
 * of at most PARZ_HUFF_SMALL symbols, parz_huff_small_lengths needs no memory but its stack. */
#ifndef PARZ_ENTROPY_HUFFMAN_BUILD_H
#define PARZ_ENTROPY_HUFFMAN_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "block_common.h"
#include "huffman_decode.h"

typedef struct {
  uint64_t w;
  uint32_t sym;
} parz_huff_leaf;

/* The order of the leaves: by weight, then by symbol (a total order: the same on every host, and
 * the same whichever sort gives it). */
PARZ_HD int parz_huff_leaf_before(const parz_huff_leaf* a, const parz_huff_leaf* b) {
  return a->w != b->w ? a->w < b->w : a->sym < b->sym;
}

/* The m leaves sorted by insertion, for few leaves. */
PARZ_HD void parz_huff_insertion(parz_huff_leaf* v, size_t m) {
  for (size_t i = 1; i < m; i++) {
    parz_huff_leaf x = v[i];
    size_t j = i;
    for (; j > 0 && parz_huff_leaf_before(&x, &v[j - 1]); j--)
      v[j] = v[j - 1];
    v[j] = x;
  }
}

/* Huffman's code for the m >= 2 sorted leaves (two queues: the leaves, and the merged nodes in
 * the order they are made, which is by weight; a leaf goes first on a tie). depth[i] = leaf i's
 * length (depth holds 2m); returns the longest. nw holds 2m weights and parent 2m parents. */
PARZ_HD unsigned parz_huff_merge(const parz_huff_leaf* lv, size_t m, uint8_t* depth, uint64_t* nw,
                                 uint32_t* parent) {
  size_t li = 0, ni = m, nn = m;
  for (size_t k = 0; k + 1 < m; k++) {
    uint64_t sum = 0;
    for (int j = 0; j < 2; j++) {
      if (li < m && (ni >= nn || lv[li].w <= nw[ni])) {
        sum += lv[li].w;
        parent[li++] = (uint32_t)nn;
      } else {
        sum += nw[ni];
        parent[ni++] = (uint32_t)nn;
      }
    }
    nw[nn++] = sum;
  }
  /* nodes are made after their children: depths from the root (2m - 2) down */
  unsigned longest = 0;
  depth[2 * m - 2] = 0;
  for (size_t v = 2 * m - 2; v-- > 0;) {
    unsigned d = depth[parent[v]] + 1u;
    depth[v] = (uint8_t)(d > 255u ? 255u : d);
    if (v < m && d > longest)
      longest = d;
  }
  return longest;
}

/* Package-merge for the m >= 2 sorted leaves, at most L bits (m <= 2^L): the optimal lengths
 * under the limit into len[0..m). Level L's list is the leaves; each level above merges the
 * leaves with the packages (pairs) of the level below, keeping its 2m - 2 lightest items (a leaf
 * first on a tie). The solution takes the 2m - 2 first items of level 1 and, below each taken
 * package, the two items it packed; a leaf's length is the number of levels where it is taken,
 * and the leaves taken at a level are always its lightest ones. pkg[j][k] (L * (2m - 2) bytes)
 * records whether item k of level j is a package; a and b hold 2m weights each.
 *
 * A level's list mostly begins as the level below's: where two lists agree on their first s
 * items, their packages agree on the first s / 2, and the two merges pick alike until they come
 * to package s / 2. So each level keeps the items and flags of the level below up to that point
 * (where the level below took package s / 2 - 1) and merges only from there, comparing what it
 * writes with the level below's list to find its own s. One list, rewritten level by level. */
PARZ_HD void parz_huff_package_merge(const parz_huff_leaf* lv, size_t m, unsigned L, uint8_t* len,
                                     uint64_t* a, uint64_t* b, uint8_t* pkg) {
  const size_t cap = 2 * m - 2;
  uint64_t* item = a;                /* the list, level by level */
  uint64_t* pack = b;                /* the level's packages (at most m - 1) */
  uint32_t* at = (uint32_t*)(b + m); /* where the list took each package */
  size_t n = m, taken = 0, same = 0; /* the list's items, packages, and prefix shared with below */
  for (size_t i = 0; i < m; i++)
    item[i] = lv[i].w;
  for (unsigned j = L - 1; j >= 1; j--) {
    uint8_t* flag = pkg + (size_t)j * cap;
    const size_t npk = n / 2, q = same / 2, out = m + npk < cap ? m + npk : cap;
    /* the merge's state where it first reaches package q: the level below's there */
    size_t pi = q <= taken ? q : taken;
    size_t k = q == 0 ? 0 : q <= taken ? at[q - 1] + 1 : n;
    size_t li = k - pi;
    for (size_t i = 0; i < k; i++)
      flag[i] = flag[i + cap];
    for (size_t i = pi; i < npk; i++)
      pack[i] = item[2 * i] + item[2 * i + 1];
    size_t agree = 1;
    same = k;
    while (k < out) {
      uint64_t w;
      uint8_t p;
      if (li < m && (pi >= npk || lv[li].w <= pack[pi])) {
        w = lv[li++].w;
        p = 0;
      } else {
        w = pack[pi];
        at[pi++] = (uint32_t)k;
        p = 1;
      }
      agree &= k < n && item[k] == w;
      same += agree;
      item[k] = w;
      flag[k++] = p;
    }
    n = out;
    taken = pi;
  }
  for (size_t i = 0; i < m; i++)
    len[i] = 0;
  size_t need = cap;
  for (unsigned j = 1; j < L; j++) {
    const uint8_t* flag = pkg + (size_t)j * cap;
    size_t packages = 0;
    for (size_t k = 0; k < need; k++)
      packages += flag[k];
    for (size_t i = 0; i < need - packages; i++)
      len[i]++;
    need = 2 * packages;
  }
  for (size_t i = 0; i < need; i++)
    len[i]++;
}

/* The largest alphabet parz_huff_small_lengths takes: a residual coder's 65 bit lengths. */
#define PARZ_HUFF_SMALL 65u
#define PARZ_HUFF_SMALL_MAX_LEN 16u

/* parz_huff_lengths (huffman.h) for n <= PARZ_HUFF_SMALL symbols and max_len <=
 * PARZ_HUFF_SMALL_MAX_LEN on the stack: the same lengths; 1 (every length 0) where n or max_len
 * is out of those ranges, more symbols are used than 2^max_len or the frequencies sum to 2^56 or
 * more, else 0. */
PARZ_HD int parz_huff_small_lengths(const uint64_t* freq, unsigned n, unsigned max_len,
                                    uint8_t* len) {
  parz_huff_leaf lv[PARZ_HUFF_SMALL];
  uint64_t w1[2 * PARZ_HUFF_SMALL], w2[2 * PARZ_HUFF_SMALL];
  uint32_t parent[2 * PARZ_HUFF_SMALL];
  uint8_t depth[2 * PARZ_HUFF_SMALL];
  size_t m = 0;
  uint64_t total = 0;
  for (unsigned s = 0; s < n && s < PARZ_HUFF_SMALL; s++)
    len[s] = 0;
  if (n < 1 || n > PARZ_HUFF_SMALL || max_len < 1 || max_len > PARZ_HUFF_SMALL_MAX_LEN)
    return 1;
  for (unsigned s = 0; s < n; s++) {
    if (!freq[s])
      continue;
    total += freq[s];
    if (freq[s] >= (uint64_t)1 << 56 || total >= (uint64_t)1 << 56)
      return 1;
    lv[m].w = freq[s];
    lv[m++].sym = s;
  }
  if (m > ((size_t)1 << max_len))
    return 1;
  if (m <= 1) {
    if (m)
      len[lv[0].sym] = 1;
    return 0;
  }
  parz_huff_insertion(lv, m);
  if (parz_huff_merge(lv, m, depth, w1, parent) > max_len) {
    uint8_t pkg[PARZ_HUFF_SMALL_MAX_LEN * (2 * PARZ_HUFF_SMALL - 2)];
    parz_huff_package_merge(lv, m, max_len, depth, w1, w2, pkg);
  }
  for (size_t i = 0; i < m; i++)
    len[lv[i].sym] = depth[i];
  return 0;
}

/* code[s] = symbol s's canonical code word, bit-reversed (0 for unused symbols) for the n
 * lengths; 1 where they are over max_len (1..PARZ_HUFF_LEN_LIMIT) or no prefix code, else 0. */
PARZ_HD int parz_huff_canonical(const uint8_t* len, size_t n, unsigned max_len, uint32_t* code) {
  uint32_t first[PARZ_HUFF_LEN_LIMIT + 1], count[PARZ_HUFF_LEN_LIMIT + 1];
  if (max_len < 1 || max_len > PARZ_HUFF_LEN_LIMIT ||
      parz_huff_limits(len, n, max_len, first, count))
    return 1;
  for (size_t s = 0; s < n; s++)
    code[s] = len[s] ? parz_huff_reverse(first[len[s]]++, len[s]) : 0;
  return 0;
}

#endif
