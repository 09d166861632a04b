/* Canonical Huffman codes (huffman.h). */
#include "huffman.h"

#include <stdlib.h>
#include <string.h>

#include "huffman_build.h"

typedef parz_huff_leaf leaf;

static int by_weight(const void* a, const void* b) {
  const leaf *x = (const leaf*)a, *y = (const leaf*)b;
  return parz_huff_leaf_before(x, y) ? -1 : parz_huff_leaf_before(y, x);
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

/* The leaves in parz_huff_leaf_before's order: keys sorted by their bytes where the weights and symbols fit
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
  parz_huff_insertion(v, m);
}

int parz_huff_tree_build(parz_huff_tree* t, const uint64_t* freq, size_t n, unsigned max_len,
                         uint8_t* len, parz_error* err) {
  memset(t, 0, sizeof *t);
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
  t->m = m;
  t->max_len = max_len;
  memset(len, 0, n);
  if (m <= 1) {
    for (size_t s = 0; s < n; s++)
      if (freq[s])
        len[s] = 1;
    t->longest = (unsigned)m;
    return PARZ_OK;
  }
  /* leaves, two weight lists of 2m, parents of 2m, depths of 2m */
  size_t bytes = m * sizeof(leaf) + 4 * m * sizeof(uint64_t) + 2 * m * sizeof(uint32_t) + 2 * m;
  unsigned char* mem = (unsigned char*)malloc(bytes);
  if (!mem)
    return parz_fail(err, PARZ_ERR_NOMEM, "huffman: no memory for a code of %zu symbols", m);
  t->mem = mem;
  leaf* lv = (leaf*)mem;
  uint64_t* w1 = (uint64_t*)(lv + m);
  uint32_t* parent = (uint32_t*)(w1 + 4 * m);
  uint8_t* depth = (uint8_t*)(parent + 2 * m);
  size_t j = 0;
  for (size_t s = 0; s < n; s++)
    if (freq[s])
      lv[j++] = (leaf){freq[s], (uint32_t)s};
  sort_leaves(lv, m, n, w1); /* w1 and the list after it hold the 2m keys it may need */
  t->longest = parz_huff_merge(lv, m, depth, w1, parent);
  for (size_t i = 0; i < m; i++)
    len[lv[i].sym] = depth[i];
  return PARZ_OK;
}

int parz_huff_tree_limit(parz_huff_tree* t, uint8_t* len, parz_error* err) {
  const size_t m = t->m;
  const unsigned max_len = t->max_len;
  if (t->longest <= max_len)
    return PARZ_OK;
  /* package-merge's flags */
  uint8_t* pkg = (uint8_t*)malloc((size_t)max_len * (2 * m - 2));
  if (!pkg)
    return parz_fail(err, PARZ_ERR_NOMEM, "huffman: no memory to limit %zu symbols to %u bits", m,
                     max_len);
  leaf* lv = (leaf*)t->mem;
  uint64_t* w1 = (uint64_t*)(lv + m);
  uint8_t* depth = (uint8_t*)((uint32_t*)(w1 + 4 * m) + 2 * m);
  parz_huff_package_merge(lv, m, max_len, depth, w1, w1 + 2 * m, pkg);
  free(pkg);
  t->longest = 0;
  for (size_t i = 0; i < m; i++) {
    len[lv[i].sym] = depth[i];
    t->longest = depth[i] > t->longest ? depth[i] : t->longest;
  }
  return PARZ_OK;
}

void parz_huff_tree_free(parz_huff_tree* t) {
  free(t->mem);
  t->mem = NULL;
}

int parz_huff_lengths(const uint64_t* freq, size_t n, unsigned max_len, uint8_t* len,
                      parz_error* err) {
  parz_huff_tree t;
  int rc = parz_huff_tree_build(&t, freq, n, max_len, len, err);
  if (rc == PARZ_OK)
    rc = parz_huff_tree_limit(&t, len, err);
  parz_huff_tree_free(&t);
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
  if (parz_huff_canonical(len, n, max_len, code))
    return parz_fail(err, PARZ_ERR_STREAM, "huffman: code lengths (at most %u) are no prefix code",
                     max_len);
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
