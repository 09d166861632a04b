/* Canonical Huffman codes (huffman.h). */
#include "huffman.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  uint64_t w;
  uint32_t sym;
} leaf;

/* The order of the leaves: by weight, then by symbol (a total order: the same on every host). */
static int leaf_before(const leaf* a, const leaf* b) {
  return a->w != b->w ? a->w < b->w : a->sym < b->sym;
}

static int by_weight(const void* a, const void* b) {
  const leaf *x = (const leaf*)a, *y = (const leaf*)b;
  return leaf_before(x, y) ? -1 : leaf_before(y, x);
}

/* Sorts the m leaves as keys weight * 2^sb + symbol (sb bits hold every symbol; the caller has
 * checked that every weight fits the rest) by their bytes, least significant first, one counting
 * pass per byte in which the keys differ; key and tmp hold m keys each. */
static void radix_leaves(leaf* v, size_t m, unsigned sb, uint64_t* key, uint64_t* tmp) {
  uint64_t all_or = 0, all_and = ~(uint64_t)0;
  for (size_t i = 0; i < m; i++) {
    key[i] = v[i].w << sb | v[i].sym;
    all_or |= key[i];
    all_and &= key[i];
  }
  for (unsigned b = 0; b < 64; b += 8) {
    size_t count[256] = {0}, at = 0;
    if (!((all_or ^ all_and) >> b & 0xFFu))
      continue; /* every key has this byte: the order stays */
    for (size_t i = 0; i < m; i++)
      count[key[i] >> b & 0xFFu]++;
    for (unsigned d = 0; d < 256; d++) {
      size_t c = count[d];
      count[d] = at;
      at += c;
    }
    for (size_t i = 0; i < m; i++)
      tmp[count[key[i] >> b & 0xFFu]++] = key[i];
    uint64_t* t = key;
    key = tmp;
    tmp = t;
  }
  for (size_t i = 0; i < m; i++)
    v[i] = (leaf){key[i] >> sb, (uint32_t)(key[i] & (((uint64_t)1 << sb) - 1))};
}

/* The leaves in leaf_before's order: keys sorted by their bytes where the weights and symbols fit
 * 64 bits together (work holds 2m keys), else qsort, and few by insertion. */
static void sort_leaves(leaf* v, size_t m, size_t n, uint64_t* work) {
  if (m > 32) {
    unsigned sb = 1;
    uint64_t top = 0;
    while (sb < 32 && ((size_t)1 << sb) < n)
      sb++;
    for (size_t i = 0; i < m; i++)
      top = v[i].w > top ? v[i].w : top;
    if (top >> (64 - sb))
      qsort(v, m, sizeof *v, by_weight);
    else
      radix_leaves(v, m, sb, work, work + m);
    return;
  }
  for (size_t i = 1; i < m; i++) {
    leaf x = v[i];
    size_t j = i;
    for (; j > 0 && leaf_before(&x, &v[j - 1]); j--)
      v[j] = v[j - 1];
    v[j] = x;
  }
}

/* Huffman's code for the m >= 2 sorted leaves (two queues: the leaves, and the merged nodes in
 * the order they are made, which is by weight; a leaf goes first on a tie). depth[i] = leaf i's
 * length; returns the longest. work holds 2m weights and 2m parents. */
static unsigned huffman(const leaf* lv, size_t m, uint8_t* depth, uint64_t* nw, uint32_t* parent) {
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
 * under the limit. Level L's list is the leaves; each level above merges the leaves with the
 * packages (pairs) of the level below, keeping its 2m - 2 lightest items (a leaf first on a
 * tie). The solution takes the 2m - 2 first items of level 1 and, below each taken package, the
 * two items it packed; a leaf's length is the number of levels where it is taken, and the
 * leaves taken at a level are always its lightest ones. pkg[j][k] records whether item k of
 * level j is a package. */
static void package_merge(const leaf* lv, size_t m, unsigned L, uint8_t* len, uint64_t* a,
                          uint64_t* b, uint8_t* pkg) {
  size_t cap = 2 * m - 2, n_prev = m;
  uint64_t *prev = a, *cur = b;
  for (size_t i = 0; i < m; i++)
    prev[i] = lv[i].w;
  for (unsigned j = L - 1; j >= 1; j--) {
    uint8_t* flag = pkg + (size_t)j * cap;
    size_t npk = n_prev / 2, li = 0, pi = 0, k = 0;
    while (k < cap && (li < m || pi < npk)) {
      uint64_t pw = pi < npk ? prev[2 * pi] + prev[2 * pi + 1] : 0;
      if (li < m && (pi >= npk || lv[li].w <= pw)) {
        cur[k] = lv[li++].w;
        flag[k++] = 0;
      } else {
        cur[k] = pw;
        flag[k++] = 1;
        pi++;
      }
    }
    n_prev = k;
    uint64_t* t = prev;
    prev = cur;
    cur = t;
  }
  memset(len, 0, m);
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

int parz_huff_lengths(const uint64_t* freq, size_t n, unsigned max_len, uint8_t* len,
                      parz_error* err) {
  if (n < 1 || n > PARZ_HUFF_MAX_SYMBOLS)
    return parz_fail(err, PARZ_ERR_ARG, "huffman: %zu symbols, not 1..%zu", n,
                     PARZ_HUFF_MAX_SYMBOLS);
  if (max_len < 1 || max_len > PARZ_HUFF_LEN_LIMIT)
    return parz_fail(err, PARZ_ERR_ARG, "huffman: length limit %u, not 1..%u", max_len,
                     PARZ_HUFF_LEN_LIMIT);
  size_t m = 0;
  uint64_t total = 0;
  for (size_t s = 0; s < n; s++) {
    if (!freq[s])
      continue;
    m++;
    total += freq[s];
    if (freq[s] >= (uint64_t)1 << 56 || total >= (uint64_t)1 << 56)
      return parz_fail(err, PARZ_ERR_ARG, "huffman: frequencies sum to 2^56 or more at symbol %zu",
                       s);
  }
  if (m > ((size_t)1 << max_len))
    return parz_fail(err, PARZ_ERR_ARG, "huffman: %zu symbols used, more than %u-bit codes hold", m,
                     max_len);
  memset(len, 0, n);
  if (m <= 1) {
    for (size_t s = 0; s < n; s++)
      if (freq[s])
        len[s] = 1;
    return PARZ_OK;
  }
  /* leaves, two weight lists of 2m, parents of 2m, depths of 2m, and package-merge's flags */
  size_t cap = 2 * m - 2;
  size_t bytes = m * sizeof(leaf) + 4 * m * sizeof(uint64_t) + 2 * m * sizeof(uint32_t) + 2 * m;
  unsigned char* mem = (unsigned char*)malloc(bytes);
  if (!mem)
    return parz_fail(err, PARZ_ERR_NOMEM, "huffman: no memory for a code of %zu symbols", m);
  leaf* lv = (leaf*)mem;
  uint64_t* w1 = (uint64_t*)(lv + m);
  uint64_t* w2 = w1 + 2 * m;
  uint32_t* parent = (uint32_t*)(w2 + 2 * m);
  uint8_t* depth = (uint8_t*)(parent + 2 * m);
  size_t j = 0;
  for (size_t s = 0; s < n; s++)
    if (freq[s])
      lv[j++] = (leaf){freq[s], (uint32_t)s};
  sort_leaves(lv, m, n, w1); /* w1 and w2 hold the 2m keys it may need */
  int rc = PARZ_OK;
  if (huffman(lv, m, depth, w1, parent) > max_len) {
    uint8_t* pkg = (uint8_t*)malloc((size_t)max_len * cap);
    if (!pkg) {
      rc = parz_fail(err, PARZ_ERR_NOMEM, "huffman: no memory to limit %zu symbols to %u bits", m,
                     max_len);
    } else {
      package_merge(lv, m, max_len, depth, w1, w2, pkg);
      free(pkg);
    }
  }
  if (rc == PARZ_OK)
    for (size_t i = 0; i < m; i++)
      len[lv[i].sym] = depth[i];
  free(mem);
  return rc;
}

uint64_t parz_huff_kraft(const uint8_t* len, size_t n, unsigned max_len) {
  uint64_t sum = 0;
  for (size_t s = 0; s < n; s++) {
    if (!len[s])
      continue;
    if (len[s] > max_len || max_len > PARZ_HUFF_LEN_LIMIT)
      return UINT64_MAX;
    sum += (uint64_t)1 << (max_len - len[s]);
  }
  return sum;
}

int parz_huff_codes(const uint8_t* len, size_t n, unsigned max_len, uint32_t* code,
                    parz_error* err) {
  uint32_t first[PARZ_HUFF_LEN_LIMIT + 1], count[PARZ_HUFF_LEN_LIMIT + 1];
  if (max_len < 1 || max_len > PARZ_HUFF_LEN_LIMIT ||
      parz_huff_limits(len, n, max_len, first, count))
    return parz_fail(err, PARZ_ERR_STREAM, "huffman: code lengths (at most %u) are no prefix code",
                     max_len);
  for (size_t s = 0; s < n; s++)
    code[s] = len[s] ? parz_huff_reverse(first[len[s]]++, len[s]) : 0;
  return PARZ_OK;
}

size_t parz_huff_decoder_words(size_t used, unsigned table_bits) {
  return ((size_t)1 << table_bits) + used;
}

int parz_huff_decoder_init(parz_huff_decoder* d, const uint8_t* len, size_t n, unsigned max_len,
                           unsigned table_bits, uint32_t* mem, parz_error* err) {
  if (parz_huff_decoder_setup(d, len, n, max_len, table_bits, mem))
    return parz_fail(err, PARZ_ERR_STREAM, "huffman: code lengths (at most %u) are no prefix code",
                     max_len);
  return PARZ_OK;
}
