/* The error-bounded codec's codebook built on the GPU: the lengths of the two codes (without zero
 * runs and with them) that parz_bounded_range_lengths builds on the CPU, the choice between them,
 * the kept code's canonical words and the payload's bits, from the symbol counts the count kernel
 * left on the device; the host reads back only the kept lengths (for the codebook's bytes) and the
 * bits. The lengths must be the CPU's (codec/entropy/huffman.c, parz_huff_lengths) symbol for
 * symbol, so the steps below reproduce its two algorithms with its tie-breaking, in parallel:
 *   leaves   the used symbols sorted by (count, symbol) (a radix sort of keys, parz_gpu_bnd_key);
 *   Huffman  the two-queue merge in rounds: with W the sum of the two lightest items, every item
 *            (leaf or node) of weight <= W is taken before any node made from then on (those weigh
 *            W or more and lose ties), so a round pairs them all in merge order at once (leaf
 *            before node on equal weights, as parz_huff_merge), an odd last one left for the next
 *            round; the least weight doubles every two rounds, so there are at most about
 *            2 log2(total) rounds; the depths then go from the root down, a round at a time;
 *   limit    when the longest is over PARZ_BOUNDED_MAX_LEN, package-merge
 *            (parz_huff_package_merge): each level a merge of the leaves with the level below's
 *            packages (a leaf first on a tie), cut in parts by merge paths; the lengths from how
 *            many packages each level's solution takes;
 *   words    the kept code's canonical words (parz_huff_canonical), the ranks of the symbols of
 *            each length counted in parts.
 * The steps are written once for a team of threads (a CTA on the GPU, a loop on the host:
 * tests/test_gpu_bounded_encode_host.cpp runs them there against parz_huff_lengths): team.each(n,
 * f) runs f(i) for every i < n, team.sum(n, f) adds f(i) up, team.one(f) runs f once, each
 * followed by the team's barrier; what one() writes is the team's shared state. Internal to
 * gpu/. */
#ifndef PARZ_GPU_BOUNDED_BOOK_CUH
#define PARZ_GPU_BOUNDED_BOOK_CUH

#include <stddef.h>
#include <stdint.h>

#include "bounded.h"
#include "bounded_inverse.h"
#include "huffman_build.h"

/* A leaf's key: coding c (0 without runs, 1 with them) above its count above its entry k in the
 * range (parz_bounded_range: symbol k below PARZ_BOUNDED_HEAD, k + shift past it); an unused entry
 * (count 0, or past the range) gets the largest count, so that sorted keys put the used entries
 * first, by count then entry, as parz_huff_leaf_before orders them. Counts are below 2^32 (a chunk
 * has fewer than 2^32 values). */
#define PARZ_GPU_BND_KEY_IDX 17u
#define PARZ_GPU_BND_KEY_W 33u
#define PARZ_GPU_BND_KEY_BITS (PARZ_GPU_BND_KEY_IDX + PARZ_GPU_BND_KEY_W + 1u)
#define PARZ_GPU_BND_KEY_UNUSED ((((uint64_t)1) << PARZ_GPU_BND_KEY_W) - 1u)

PARZ_HD uint64_t parz_gpu_bnd_key(unsigned c, uint64_t count, size_t k) {
  const uint64_t w = count ? count : PARZ_GPU_BND_KEY_UNUSED;
  return (uint64_t)c << (PARZ_GPU_BND_KEY_IDX + PARZ_GPU_BND_KEY_W) | w << PARZ_GPU_BND_KEY_IDX |
         (uint64_t)k;
}
PARZ_HD uint64_t parz_gpu_bnd_key_w(uint64_t key) {
  return key >> PARZ_GPU_BND_KEY_IDX & PARZ_GPU_BND_KEY_UNUSED;
}
PARZ_HD uint32_t parz_gpu_bnd_key_idx(uint64_t key) {
  return (uint32_t)(key & ((1u << PARZ_GPU_BND_KEY_IDX) - 1u));
}

/* Entry k's count (over the range) of counts over the whole alphabet. */
PARZ_HD uint64_t parz_gpu_bnd_ranged(const unsigned long long* all, uint32_t shift, size_t k) {
  return all[k < PARZ_BOUNDED_HEAD ? k : k + shift];
}

/* The team's shared state of one code's build. */
struct parz_gpu_bnd_huff {
  unsigned long long li, ni, nn; /* leaves taken, nodes taken, nodes made */
  unsigned long long w;          /* a round's limit: the two lightest items' weight */
  unsigned long long ka, kb;     /* the leaves and nodes of weight <= w */
  unsigned long long cl, cn, p;  /* of them the leaves and nodes paired, the pairs */
  unsigned long long rounds;
};

/* A code's working memory for u used leaves: the weights the steps search and merge (the leaves',
 * the nodes', a round's items; package-merge's packages of the level below and of the level
 * being made in the nodes' and the items' places), of a type W that holds every weight, where
 * it fits in the team's fast memory (a CTA's shared memory), and the rest in a block of
 * parz_gpu_bnd_huff_bytes(u) (the weights there too where they do not fit). */
template <typename W>
struct parz_gpu_bnd_huff_mem {
  W *lw, *nw, *x;
  uint32_t *lidx, *parent, *rstart;
  uint8_t *depth, *flag;
};

/* The bytes of the weights of u leaves of w bytes each. */
PARZ_HD size_t parz_gpu_bnd_huff_fast(size_t u, size_t w) { return 3 * ((w * u + 7) & ~(size_t)7); }

/* The layout of the rest for u used leaves: each array's offset into off (lidx, parent, rstart,
 * depth, flag, then the weights of 8 bytes where they do not fit), the bytes returned. */
PARZ_HD size_t parz_gpu_bnd_huff_layout(size_t u, size_t off[6]) {
  const size_t cap = 2 * u;
  const size_t bytes[6] = {
      4 * u, 4 * cap, 4 * (u + 1), cap, PARZ_BOUNDED_MAX_LEN * cap, parz_gpu_bnd_huff_fast(u, 8)};
  size_t at = 0;
  for (int k = 0; k < 6; k++) {
    off[k] = at;
    at += (bytes[k] + 7) & ~(size_t)7;
  }
  return at;
}

PARZ_HD size_t parz_gpu_bnd_huff_bytes(size_t u) {
  size_t off[6];
  return parz_gpu_bnd_huff_layout(u, off);
}

/* The memory of u leaves: the weights at fast (NULL: in the block), the rest in the block. */
template <typename W>
PARZ_HD void parz_gpu_bnd_huff_carve(unsigned char* fast, unsigned char* block, size_t u,
                                     parz_gpu_bnd_huff_mem<W>* m) {
  size_t off[6];
  parz_gpu_bnd_huff_layout(u, off);
  unsigned char* wb = fast ? fast : block + off[5];
  const size_t ws = (sizeof(W) * u + 7) & ~(size_t)7;
  m->lw = (W*)wb;
  m->nw = (W*)(wb + ws);
  m->x = (W*)(wb + 2 * ws);
  m->lidx = (uint32_t*)(block + off[0]);
  m->parent = (uint32_t*)(block + off[1]);
  m->rstart = (uint32_t*)(block + off[2]);
  m->depth = block + off[3];
  m->flag = block + off[4];
}

/* Items of sorted w[lo, hi) below x (strictly: `le` 0) or at most x (`le` 1). */
template <typename W>
PARZ_HD size_t parz_gpu_bnd_below(const W* w, size_t lo, size_t hi, uint64_t x, int le) {
  size_t a = lo, e = hi;
  while (a < e) {
    const size_t mid = a + (e - a) / 2;
    if (w[mid] < x || (le && w[mid] == x))
      a = mid + 1;
    else
      e = mid;
  }
  return a - lo;
}

/* The leaves among the first d items of the merge of u leaves lw with the npk packages pw (a leaf
 * first on a tie): the merge path's split at diagonal d. */
template <typename W>
PARZ_HD size_t parz_gpu_bnd_split(const W* lw, size_t u, const W* pw, size_t npk, size_t d) {
  size_t lo = d > npk ? d - npk : 0, hi = d < u ? d : u;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (lw[mid] <= pw[d - mid - 1])
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The parts a team cuts a level's merge into. */
#define PARZ_GPU_BND_PARTS 1024u

/* The lengths (parz_gpu_bnd_lengths) from the u used leaves of the sorted keys, in g. */
template <typename W, typename Team>
PARZ_HD void parz_gpu_bnd_lengths_in(Team& team, parz_gpu_bnd_huff& st, const uint64_t* key,
                                     size_t u, uint8_t* len, const parz_gpu_bnd_huff_mem<W>* g) {
  team.each(u, [&](size_t i) {
    g->lw[i] = (W)parz_gpu_bnd_key_w(key[i]);
    g->lidx[i] = parz_gpu_bnd_key_idx(key[i]);
  });

  /* Huffman's merge in rounds; node c is item u + c */
  team.one([&] { st.li = st.ni = st.nn = st.rounds = 0; });
  while (st.nn + 1 < u) {
    team.one([&] {
      unsigned long long a = st.li, b = st.ni, x[2];
      for (int j = 0; j < 2; j++)
        x[j] = a < u && (b >= st.nn || g->lw[a] <= g->nw[b]) ? g->lw[a++] : g->nw[b++];
      st.w = x[0] + x[1];
      g->rstart[st.rounds++] = (uint32_t)st.nn;
    });
    const unsigned long long li = st.li, ni = st.ni, nn = st.nn, w = st.w;
    const unsigned long long ka =
        team.sum(u - li, [&](size_t i) { return (unsigned long long)(g->lw[li + i] <= w); });
    const unsigned long long kb =
        team.sum(nn - ni, [&](size_t i) { return (unsigned long long)(g->nw[ni + i] <= w); });
    team.one([&] {
      const unsigned long long k = ka + kb;
      unsigned long long cl = ka, cn = kb;
      if (k & 1) { /* the last in merge order waits: a leaf when it outweighs the last node */
        if (kb == 0 || (ka > 0 && g->lw[li + ka - 1] > g->nw[ni + kb - 1]))
          cl--;
        else
          cn--;
      }
      st.ka = ka;
      st.kb = kb;
      st.cl = cl;
      st.cn = cn;
      st.p = k / 2;
    });
    const unsigned long long cl = st.cl, cn = st.cn, p = st.p;
    team.each(cl + cn, [&](size_t e) {
      size_t r;
      W wt;
      if (e < cl) { /* leaf li + e: after the nodes lighter than it */
        wt = g->lw[li + e];
        r = e + parz_gpu_bnd_below(g->nw, ni, ni + kb, wt, 0);
        g->parent[li + e] = (uint32_t)(u + nn + r / 2);
      } else { /* node ni + q: after the leaves as light as it */
        const size_t q = e - cl;
        wt = g->nw[ni + q];
        r = q + parz_gpu_bnd_below(g->lw, li, li + ka, wt, 1);
        g->parent[u + ni + q] = (uint32_t)(u + nn + r / 2);
      }
      g->x[r] = wt;
    });
    team.each(p, [&](size_t j) { g->nw[nn + j] = g->x[2 * j] + g->x[2 * j + 1]; });
    team.one([&] {
      st.li += cl;
      st.ni += cn;
      st.nn += p;
    });
  }
  /* the depths from the root (node u - 2) down: a round's nodes have their parents in later
   * rounds */
  const unsigned long long rounds = st.rounds;
  team.one([&] {
    g->rstart[rounds] = (uint32_t)(u - 1);
    g->depth[2 * u - 2] = 0;
  });
  for (unsigned long long r = rounds; r-- > 0;) {
    const size_t c0 = g->rstart[r], c1 = g->rstart[r + 1];
    team.each(c1 - c0, [&](size_t e) {
      const size_t c = c0 + e;
      if (c + 2 < u) { /* not the root */
        const unsigned d = g->depth[g->parent[u + c]] + 1u;
        g->depth[u + c] = (uint8_t)(d > 255u ? 255u : d);
      }
    });
  }
  team.each(u, [&](size_t i) {
    const unsigned d = g->depth[g->parent[i]] + 1u;
    g->depth[i] = (uint8_t)(d > 255u ? 255u : d);
  });
  const unsigned long long over = team.sum(u, [&](size_t i) {
    return (unsigned long long)(g->depth[g->parent[i]] + 1u > PARZ_BOUNDED_MAX_LEN);
  });

  if (over) { /* package-merge, PARZ_BOUNDED_MAX_LEN levels; of each level's list only its
               * packages for the level above are kept (pairs of its items, a part's own) */
    const unsigned L = PARZ_BOUNDED_MAX_LEN;
    const size_t cap = 2 * u - 2;
    W *prev = g->nw, *next = g->x;
    team.each(u / 2, [&](size_t q) { prev[q] = g->lw[2 * q] + g->lw[2 * q + 1]; });
    size_t n_prev = u;
    for (unsigned j = L - 1; j >= 1; j--) {
      const size_t npk = n_prev / 2, kk = cap < u + npk ? cap : u + npk;
      size_t per = (kk + PARZ_GPU_BND_PARTS - 1) / PARZ_GPU_BND_PARTS;
      per += per & 1; /* even: a part's items pair among themselves */
      uint8_t* flag = g->flag + (size_t)j * cap;
      team.each(PARZ_GPU_BND_PARTS, [&](size_t t) {
        const size_t d0 = t * per, d1 = d0 + per < kk ? d0 + per : kk;
        if (d0 >= d1)
          return;
        size_t i = parz_gpu_bnd_split(g->lw, u, prev, npk, d0), q = d0 - i;
        W held = 0;
        for (size_t d = d0; d < d1; d++) {
          W item;
          if (i < u && (q >= npk || g->lw[i] <= prev[q])) {
            item = g->lw[i++];
            flag[d] = 0;
          } else {
            item = prev[q++];
            flag[d] = 1;
          }
          if (d & 1)
            next[d / 2] = held + item;
          else
            held = item;
        }
      });
      n_prev = kk;
      W* t = prev;
      prev = next;
      next = t;
    }
    /* level j's solution takes its `need` first items, of them its lightest need - packages
     * leaves */
    size_t need = cap, thr[PARZ_BOUNDED_MAX_LEN];
    for (unsigned j = 1; j < L; j++) {
      const uint8_t* flag = g->flag + (size_t)j * cap;
      const size_t packages =
          (size_t)team.sum(need, [&](size_t k) { return (unsigned long long)flag[k]; });
      thr[j] = need - packages;
      need = 2 * packages;
    }
    team.each(u, [&](size_t i) {
      unsigned l = i < need;
      for (unsigned j = 1; j < L; j++)
        l += i < thr[j];
      g->depth[i] = (uint8_t)l;
    });
  }
  team.each(u, [&](size_t i) { len[g->lidx[i]] = g->depth[i]; });
}

/* The lengths of the code of the counts whose sorted keys are key[0..nkeys) (the used first) into
 * len[0..m) over the range, as parz_huff_lengths gives them for PARZ_BOUNDED_MAX_LEN. fast: the
 * team's fast memory, fast_bytes of it; block: parz_gpu_bnd_huff_bytes(u) bytes for u used
 * leaves. The weights are 32-bit where every package-merge weight fits (each is at most
 * PARZ_BOUNDED_MAX_LEN times the counts' sum) and they fit in the fast memory, else 64-bit in
 * the block. Returns the used leaves (0: no symbol, the lengths all 0). */
template <typename Team>
PARZ_HD size_t parz_gpu_bnd_lengths(Team& team, parz_gpu_bnd_huff& st, const uint64_t* key,
                                    size_t nkeys, uint8_t* len, size_t m, unsigned char* fast,
                                    size_t fast_bytes, unsigned char* block) {
  const size_t u = (size_t)team.sum(nkeys, [&](size_t i) {
    return (unsigned long long)(parz_gpu_bnd_key_w(key[i]) != PARZ_GPU_BND_KEY_UNUSED);
  });
  const unsigned long long total =
      team.sum(u, [&](size_t i) { return (unsigned long long)parz_gpu_bnd_key_w(key[i]); });
  team.each(m, [&](size_t k) { len[k] = 0; });
  if (u <= 1) {
    if (u)
      team.one([&] { len[parz_gpu_bnd_key_idx(key[0])] = 1; });
    return u;
  }
  if (total * PARZ_BOUNDED_MAX_LEN < ((unsigned long long)1 << 32) &&
      parz_gpu_bnd_huff_fast(u, 4) <= fast_bytes) {
    parz_gpu_bnd_huff_mem<uint32_t> g;
    parz_gpu_bnd_huff_carve(fast, block, u, &g);
    parz_gpu_bnd_lengths_in(team, st, key, u, len, &g);
  } else {
    parz_gpu_bnd_huff_mem<uint64_t> g;
    parz_gpu_bnd_huff_carve((unsigned char*)NULL, block, u, &g);
    parz_gpu_bnd_lengths_in(team, st, key, u, len, &g);
  }
  return u;
}

/* The payload's bits under the lengths len over the range of counts `all` (over the whole
 * alphabet): parz_bounded_coded_bits. */
template <typename Team>
PARZ_HD unsigned long long parz_gpu_bnd_book_bits(Team& team, const unsigned long long* all,
                                                  uint32_t shift, const uint8_t* len, size_t m) {
  return team.sum(m, [&](size_t k) {
    const unsigned extra = k == PARZ_BOUNDED_SYM_ESCAPE ? 32u
                           : k < PARZ_BOUNDED_HEAD      ? (unsigned)k
                                                        : 0u;
    const uint64_t f = parz_gpu_bnd_ranged(all, shift, k);
    return (unsigned long long)(f ? f * (len[k] + extra) : 0);
  });
}

/* The canonical words (parz_huff_canonical) of the m lengths len into code, the ranks of each
 * length's symbols counted in P parts; cnt holds (PARZ_BOUNDED_MAX_LEN + 1) x (P + 1) counts. 1
 * where the lengths are no prefix code (parz_huff_limits' check), else 0. */
template <typename Team>
PARZ_HD int parz_gpu_bnd_words(Team& team, const uint8_t* len, size_t m, unsigned P, uint32_t* code,
                               uint32_t* cnt) {
  const unsigned L = PARZ_BOUNDED_MAX_LEN;
  const size_t per = (m + P - 1) / P;
  team.each(P, [&](size_t t) {
    uint32_t c[PARZ_BOUNDED_MAX_LEN + 1];
    for (unsigned l = 0; l <= L; l++)
      c[l] = 0;
    for (size_t k = t * per; k < (t + 1) * per && k < m; k++)
      c[len[k] <= L ? len[k] : 0]++;
    for (unsigned l = 0; l <= L; l++)
      cnt[l * (P + 1) + t] = c[l];
  });
  /* each length's running sum over the parts, its total after them */
  team.each(L + 1, [&](size_t l) {
    uint32_t at = 0;
    for (unsigned t = 0; t < P; t++) {
      const uint32_t c = cnt[l * (P + 1) + t];
      cnt[l * (P + 1) + t] = at;
      at += c;
    }
    cnt[l * (P + 1) + P] = at;
  });
  const unsigned long long over =
      team.sum(m, [&](size_t k) { return (unsigned long long)(len[k] > L); });
  uint64_t kraft = 0;
  for (unsigned l = 1; l <= L; l++)
    kraft += (uint64_t)cnt[l * (P + 1) + P] << (L - l);
  if (over || kraft > ((uint64_t)1 << L))
    return 1;
  uint32_t first[PARZ_BOUNDED_MAX_LEN + 1], word = 0;
  first[0] = 0;
  for (unsigned l = 1; l <= L; l++) {
    if (l > 1)
      word = (word + cnt[(l - 1) * (P + 1) + P]) << 1;
    first[l] = word;
  }
  team.each(P, [&](size_t t) {
    uint32_t next[PARZ_BOUNDED_MAX_LEN + 1];
    for (unsigned l = 1; l <= L; l++)
      next[l] = first[l] + cnt[l * (P + 1) + t];
    for (size_t k = t * per; k < (t + 1) * per && k < m; k++)
      code[k] = len[k] ? parz_huff_reverse(next[len[k]]++, len[k]) : 0;
  });
  return 0;
}

#endif
