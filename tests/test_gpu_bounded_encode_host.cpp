/* The error-bounded codec's GPU encoder, its steps run on the CPU: the per-thread functions of
 * gpu/bounded/bounded_encode.cuh called for every thread of every kernel, in the kernels' order
 * (gpu/bounded/bounded_encode.cu), with the host's steps between them. Every chunk they build
 * must be parz_chunk_encode's, byte for byte (and decode within the bound); the chunks the GPU
 * encoder refuses must be refused with PARZ_ERR_UNSUPPORTED naming why. This checks where no GPU
 * is (CI) what test_gpu_bounded_encode checks on the device, on the same cases
 * (gpu_bounded_encode_cases.h, each also at the writers' segment sizes), and on the real arrays,
 * cut to 1 MiB each, at segments of 1024 and 4096 codes. The lanes' split of a
 * segment's tokens is checked apart for 1 to 64 lanes against the serial walk
 * (parz_bounded_next_token), with runs and without, on crafted segments and on every segment of
 * every chunk here. The head of every chunk is written and sealed again as the GPU writes and
 * seals it (its table, exception records and sums on the GPU), and must be the host's; HYBRID
 * tables of several partitions of both length widths are checked apart (hybrid_partitions).
 * Usage: test_gpu_bounded_encode_host [DATA_DIR] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "bounded_encode.cuh"
#include "check.h"
#include "gpu_bounded_encode_cases.h"
#include "gpu_encode_compare.h"
#include "real_arrays.h"

/* Jobs that run their parts last first, as the GPU driver's host threads may. */
static void run_backwards(void* ctx, uint64_t n, void (*job)(void* arg, uint64_t i), void* arg) {
  (void)ctx;
  for (uint64_t i = n; i-- > 0;)
    job(arg, i);
}
static const parz_jobs backwards = {run_backwards, NULL, 8};

/* The lanes of segment [a, e) of codes, `lanes` of them: each one's share and what the kernels'
 * warp scans give it (bounded_encode.cu, warp_lane), here in loops. */
template <typename Codes>
static std::vector<parz_gpu_bnd_lane> lanes_of(const Codes& codes, size_t a, size_t e,
                                               unsigned lanes) {
  std::vector<size_t> sa(lanes), se(lanes), first(lanes), last1(lanes);
  for (unsigned l = 0; l < lanes; l++) {
    parz_gpu_bnd_share(a, e, lanes, l, &sa[l], &se[l]);
    parz_gpu_bnd_share_edges(codes, sa[l], se[l], e, &first[l], &last1[l]);
  }
  std::vector<parz_gpu_bnd_lane> out(lanes);
  size_t before = 0;
  for (unsigned l = 0; l < lanes; l++) {
    size_t after = e;
    for (unsigned k = l + 1; k < lanes; k++)
      after = first[k] < after ? first[k] : after;
    out[l] = parz_gpu_bnd_lane_of(a, sa[l], se[l], first[l], before, after);
    before = last1[l] > before ? last1[l] : before;
  }
  return out;
}

/* The lanes' tokens of segment [a, e) of codes, read through c (the codes themselves, or their
 * staged copy with its bitmap), lane after lane, against the serial walk's, with runs and without,
 * for 1 to 64 lanes (every count, or some: a real chunk's many segments); name: what the failures
 * name. */
template <typename Codes>
static void check_lanes_of(const int32_t* codes, const Codes& c, size_t a, size_t e,
                           const char* name, bool every) {
  for (int runs = 0; runs < 2; runs++) {
    std::vector<parz_bounded_token> want;
    for (size_t i = a; i < e;) {
      want.push_back(parz_bounded_next_token(codes, i, e, runs));
      i += want.back().advance;
    }
    for (unsigned lanes = 1; lanes <= 64; lanes += every || lanes < 3 ? 1 : lanes / 2 + 1) {
      std::vector<parz_bounded_token> got;
      const std::vector<parz_gpu_bnd_lane> ls = lanes_of(c, a, e, lanes);
      if constexpr (!std::is_pointer<Codes>::value) { /* the bitmap's edges, the codes' */
        const std::vector<parz_gpu_bnd_lane> by_code = lanes_of(codes, a, e, lanes);
        for (unsigned l = 0; l < lanes; l++)
          CHECK(
              ls[l].before == by_code[l].before && ls[l].next == by_code[l].next &&
                  ls[l].after == by_code[l].after,
              ": %s, codes %zu..%zu, %u lanes: lane %u's edges %zu %zu %zu, through the codes %zu "
              "%zu "
              "%zu",
              name, a, e, lanes, l, ls[l].before, ls[l].next, ls[l].after, by_code[l].before,
              by_code[l].next, by_code[l].after);
      }
      for (const parz_gpu_bnd_lane& l : ls)
        parz_gpu_bnd_lane_walk(c, l, runs, [&](const parz_bounded_token& t) { got.push_back(t); });
      size_t k = 0;
      while (k < got.size() && k < want.size() && got[k].sym == want[k].sym &&
             got[k].extra == want[k].extra && got[k].extra_bits == want[k].extra_bits &&
             got[k].advance == want[k].advance)
        k++;
      CHECK(k == want.size() && got.size() == want.size(),
            ": %s, codes %zu..%zu, runs %d, %u lanes: %zu tokens against the serial %zu, first "
            "difference at token %zu",
            name, a, e, runs, lanes, got.size(), want.size(), k);
    }
  }
}

/* The same through the codes, then (crafted segments: every lane count) through their staged
 * copy, whose lanes search its bitmap; a real chunk's segments go through it in the emulated
 * kernels. */
static void check_lanes(const int32_t* codes, size_t a, size_t e, const char* name, bool every) {
  check_lanes_of(codes, codes, a, e, name, every);
  if (!every)
    return;
  const unsigned skew = parz_gpu_bnd_skew(e - a, PARZ_GPU_BND_LANES);
  const size_t words = parz_gpu_bnd_staged_words(e - a, skew);
  std::vector<int32_t> buf(words, INT32_MIN);
  parz_gpu_bnd_stage(codes, a, e, skew, buf.data(), 0, 1);
  uint32_t* nz = (uint32_t*)buf.data() + (words - parz_gpu_bnd_nz_words(e - a));
  parz_gpu_bnd_stage_nz(codes, a, e, nz);
  const parz_gpu_bnd_staged c = {buf.data(), a, skew, nz};
  char staged[96];
  snprintf(staged, sizeof staged, "%s, staged", name);
  check_lanes_of(codes, c, a, e, staged, every);
}

/* Crafted segments: zero runs that start, end and cross at the shares' edges, lone zeros there,
 * segments of zeros alone, escapes, segments shorter than the lanes; each from a code past the
 * array's first, so that a segment's first code is not the array's. */
static void crafted_lanes() {
  const size_t sizes[] = {1, 2, 3, 5, 31, 32, 33, 64, 65, 100, 127, 128, 129, 640, 4096};
  for (size_t n : sizes)
    for (unsigned pattern = 0; pattern < 7; pattern++) {
      std::vector<int32_t> codes(n + 7, 5);
      uint32_t x = 12345u + (uint32_t)n * 7u + pattern;
      for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        int32_t v;
        switch (pattern) {
          case 0: v = 0; break;                                 /* all zeros */
          case 1: v = (x >> 28) < 13 ? 0 : 1; break;            /* long runs */
          case 2: v = (i % 2) ? 0 : -1; break;                  /* lone zeros */
          case 3: v = (x >> 29) ? 0 : (int32_t)(x >> 8); break; /* escapes between runs */
          case 4: v = (i % 9 == 8) ? 3 : 0; break;              /* runs of 8 */
          case 5: v = (i + 1 == n) ? 7 : 0; break;              /* a run to the last code */
          default: v = i == 0 ? 2 : 0; break;                   /* a run from the second code */
        }
        codes[7 + i] = v;
      }
      char name[64];
      snprintf(name, sizeof name, "crafted pattern %u", pattern);
      check_lanes(codes.data(), 7, 7 + n, name, true);
    }
}

/* The lane walk's token (parz_gpu_bnd_token) against the serial walk's for every code the
 * crafted segments hold and for zero runs of every length class, up to and past the longest run a
 * token holds (lengths no crafted segment reaches). */
static void crafted_tokens() {
  std::vector<uint32_t> lens;
  for (uint32_t n = 1; n <= 4100; n++)
    lens.push_back(n);
  for (unsigned k = 12; k < 32; k++)
    for (uint32_t d : {0u, 1u, 2u})
      lens.push_back(((uint32_t)1 << k) - d), lens.push_back(((uint32_t)1 << k) + d);
  lens.push_back(UINT32_MAX);
  const auto same = [](const parz_bounded_token& x, const parz_bounded_token& y) {
    return x.sym == y.sym && x.extra == y.extra && x.extra_bits == y.extra_bits &&
           x.advance == y.advance;
  };
  for (int runs = 0; runs < 2; runs++)
    for (uint32_t len : lens) {
      const parz_bounded_token want = parz_bounded_zero_token(runs ? len : 1, runs);
      const parz_bounded_token got = parz_gpu_bnd_token(0, runs ? len : 1, runs);
      CHECK(same(got, want), ": a run of %u zeros (runs %d): symbol %u extra %u advance %zu, "
            "the serial walk's %u %u %zu", len, runs, got.sym, got.extra, got.advance, want.sym,
            want.extra, want.advance);
    }
  const int32_t values[] = {1, -1, 2, 100, -32767, 32767, 32768, -32768, INT32_MAX, INT32_MIN};
  for (int runs = 0; runs < 2; runs++)
    for (int32_t v : values) {
      const parz_bounded_token want = parz_bounded_next_token(&v, 0, 1, runs);
      CHECK(same(parz_gpu_bnd_token(v, 1, runs), want), ": the code %d's token (runs %d)", v,
            runs);
    }
}

/* Segment k of b's codes staged as the segment kernels stage it (bounded_encode.cu,
 * with_segment: the lanes' parts last first, then the bitmap of the codes not 0) into buf; the
 * lanes read it through the result. */
static parz_gpu_bnd_staged staged_of(const parz_gpu_bnd& b, unsigned long long k,
                                     std::vector<int32_t>& buf) {
  size_t a0, e0;
  parz_gpu_bnd_segment(b, k, &a0, &e0);
  const unsigned skew = parz_gpu_bnd_skew((size_t)b.seg, PARZ_GPU_BND_LANES);
  const size_t words = parz_gpu_bnd_staged_words((size_t)b.seg, skew);
  buf.assign(words, INT32_MIN);
  for (unsigned l = PARZ_GPU_BND_LANES; l-- > 0;)
    parz_gpu_bnd_stage(b.codes, a0, e0, skew, buf.data(), l, PARZ_GPU_BND_LANES);
  uint32_t* nz = (uint32_t*)buf.data() + (words - parz_gpu_bnd_nz_words((size_t)b.seg));
  parz_gpu_bnd_stage_nz(b.codes, a0, e0, nz);
  const parz_gpu_bnd_staged c = {buf.data(), a0, skew, nz};
  return c;
}

/* The lanes of segment k of b's staged codes c. */
static std::vector<parz_gpu_bnd_lane> staged_lanes(const parz_gpu_bnd& b, unsigned long long k,
                                                   const parz_gpu_bnd_staged& c) {
  size_t a0, e0;
  parz_gpu_bnd_segment(b, k, &a0, &e0);
  return lanes_of(c, a0, e0, PARZ_GPU_BND_LANES);
}

/* The forward kernels' steps of `predictor` over b's values (of shape s), thread after thread,
 * from the holes the scan left, with the grid's constants where b.kstep has them. */
/* The coarse passes' grid of least stride S over extents n4 into *g, its points into *gq (filled
 * with a value no pass stores, so that a read of a point no earlier pass stored shows); 0 where
 * S is no power of 2 (no grid). */
static int grid_points(size_t S, const size_t n4[4], parz_gpu_bdec_grid* g,
                       std::vector<int32_t>* gq) {
  gq->assign(parz_gpu_bdec_grid_of(S, n4, g), INT32_MIN);
  return ((size_t)1 << g->shift) == S;
}

static void emulate_forward(const parz_gpu_bnd& b, const parz_bounded_shape& s, int predictor) {
  const size_t n = (size_t)b.n;
  if (predictor == PARZ_BOUNDED_LORENZO) {
    for (size_t i = 0; i < n; i++)
      parz_gpu_bnd_quantize(b, i);
    std::vector<uint32_t> pos; /* the holes' positions, in order (kept in b.codes on the GPU) */
    for (size_t i = 0; i < n; i++)
      if (b.hole[i] != PARZ_BOUNDED_KNOWN)
        pos.push_back((uint32_t)i);
    if (b.stats)
      CHECK(parz_gpu_bnd_holes(b.stats) == pos.size(),
            ": Lorenzo: the scan and the quantization counted %llu holes, %zu there",
            parz_gpu_bnd_holes(b.stats), pos.size());
    for (uint32_t i : pos) /* the holes' thread, in order */
      parz_gpu_bnd_lorenzo_hole(b, i);
    for (size_t i = 0; i < n; i++)
      parz_gpu_bnd_lorenzo_code(b, i);
    return;
  }
  size_t n4[4], st4[4];
  std::vector<parz_bounded_pass> passes(PARZ_BOUNDED_PASSES_MAX);
  parz_bounded_shape4(&s, n4, st4);
  const unsigned np = parz_bounded_interp_passes(n4, predictor, passes.data());
  const int cubic = predictor == PARZ_BOUNDED_CUBIC || predictor == PARZ_BOUNDED_CUBIC_FAST;
  /* the coarse CTA's passes (parz_gpu_bdec_coarse) on the grid of their least stride, as the
   * kernel runs them where the grid fits its shared memory */
  unsigned coarse = 0;
  while (coarse < np &&
         parz_gpu_bdec_coarse(coarse,
                              (unsigned long long)passes[coarse].cnt[0] * passes[coarse].cnt[1] *
                                  passes[coarse].cnt[2] * passes[coarse].cnt[3],
                              coarse))
    coarse++;
  parz_gpu_bdec_grid g;
  std::vector<int32_t> gq;
  const int grid = coarse && grid_points(passes[coarse - 1].s, n4, &g, &gq);
  for (unsigned k = 0; k < np; k++) {
    const parz_bounded_pass& ps = passes[k];
    const unsigned long long count =
        (unsigned long long)ps.cnt[0] * ps.cnt[1] * ps.cnt[2] * ps.cnt[3];
    /* backwards: a pass's values must not depend on their order */
    for (unsigned long long t = count; t-- > 0;)
      if (grid && k < coarse)
        parz_gpu_bnd_coarse_value(b, ps, cubic, t, g, gq.data());
      else
        parz_gpu_bnd_pass_value(b, ps, cubic, t);
  }
}

/* The count kernel's steps over b's codes, the lanes of each segment last first: most symbols into
 * a CTA's shared counts, then added in; the counts over the whole alphabet (plain, then runs,
 * PARZ_BOUNDED_SYMBOLS each) and the residuals' range r. */
static std::vector<unsigned long long> emulate_counts(const parz_gpu_bnd& b,
                                                      parz_bounded_range* r) {
  std::vector<unsigned long long> counts(2 * (size_t)PARZ_BOUNDED_SYMBOLS, 0);
  std::vector<unsigned long long> shared(PARZ_GPU_BND_SHARED, 0);
  unsigned long long* plain = counts.data();
  unsigned long long* runs = plain + PARZ_BOUNDED_SYMBOLS;
  unsigned long long zeros = 0;
  int lo = 0, hi = 0;
  std::vector<int32_t> buf;
  for (unsigned long long k = b.nseg; k-- > 0;) {
    const parz_gpu_bnd_staged st = staged_of(b, k, buf);
    const std::vector<parz_gpu_bnd_lane> ls = staged_lanes(b, k, st);
    for (size_t l = ls.size(); l-- > 0;)
      zeros += parz_gpu_bnd_lane_count(st, ls[l], [&](uint32_t sym) {
        const int e = parz_gpu_bnd_shared_entry(sym);
        parz_gpu_bnd_widen(sym, &lo, &hi);
        if (e >= 0) {
          shared[(unsigned)e]++;
        } else {
          runs[sym]++;
          if (parz_gpu_bnd_plain_too(sym))
            plain[sym]++;
        }
      });
  }
  for (unsigned e = 0; e < PARZ_GPU_BND_SHARED; e++) {
    const uint32_t sym = parz_gpu_bnd_shared_symbol(e);
    runs[sym] += shared[e];
    if (parz_gpu_bnd_plain_too(sym))
      plain[sym] += shared[e];
  }
  plain[PARZ_BOUNDED_SYM_ZERO] += zeros;
  *r = parz_gpu_bnd_range(lo, hi);
  return counts;
}

/* Counts over the whole alphabet (plain, then runs) as counts over the range r (r.m each). */
static std::vector<uint64_t> ranged_of(const std::vector<unsigned long long>& counts,
                                       const parz_bounded_range& r) {
  std::vector<uint64_t> ranged(2 * r.m);
  for (unsigned c = 0; c < 2; c++)
    for (size_t k = 0; k < r.m; k++)
      ranged[c * r.m + k] =
          parz_gpu_bnd_ranged(counts.data() + c * PARZ_BOUNDED_SYMBOLS, r.shift, k);
  return ranged;
}

/* bounded_book.cuh's team as a loop: each() runs its items last first, as the threads of a CTA
 * may (no step may read what the same step writes elsewhere). */
struct host_team {
  template <typename F>
  void each(size_t n, F f) {
    for (size_t i = n; i-- > 0;)
      f(i);
  }
  template <typename F>
  unsigned long long sum(size_t n, F f) {
    unsigned long long v = 0;
    for (size_t i = n; i-- > 0;)
      v += f(i);
    return v;
  }
  template <typename F>
  void one(F f) {
    f();
  }
};

/* The shared memory book_kernel builds in (bounded_encode.cu, BOOK_SHARED). */
#define BOOK_FAST ((size_t)224 << 10)

/* The device's codebook (bounded_encode.cu: the keys, their sort, book_kernel per code, then
 * book_words_kernel) from counts over the whole alphabet (plain, then runs) and their range r:
 * the kept code's lengths and words over r, whether it has runs, its bits. 0 where the device
 * reports an error. */
struct emulated_book {
  std::vector<uint8_t> len;    /* both codes', PARZ_BOUNDED_SYMBOLS each */
  unsigned long long built[4]; /* per code its bits and used symbols */
  const uint8_t* kept;
  std::vector<uint32_t> code;
  int runs;
  unsigned long long bits;
};

static int emulate_book(const std::vector<unsigned long long>& counts, const parz_bounded_range& r,
                        emulated_book* k, size_t fast_bytes = BOOK_FAST) {
  const size_t S = PARZ_BOUNDED_SYMBOLS;
  std::vector<uint64_t> keys(2 * S);
  for (size_t e = 0; e < 2 * S; e++) {
    const unsigned c = e >= S;
    const size_t i = e - c * S;
    keys[e] = parz_gpu_bnd_key(
        c, i < r.m ? parz_gpu_bnd_ranged(counts.data() + c * S, r.shift, i) : 0, i);
  }
  std::sort(keys.begin(), keys.end());
  k->len.assign(2 * S, 0xEE);
  host_team team;
  unsigned long long* built = k->built;
  for (unsigned c = 0; c < 2; c++) {
    parz_gpu_bnd_huff st;
    std::vector<unsigned char> fast(fast_bytes + 1, 0xEE),
        block(parz_gpu_bnd_huff_bytes(PARZ_BOUNDED_SYMBOLS), 0xEE);
    const size_t used =
        parz_gpu_bnd_lengths(team, st, keys.data() + c * S, S, k->len.data() + c * S, r.m,
                             fast.data(), fast_bytes, block.data());
    built[2 * c] =
        parz_gpu_bnd_book_bits(team, counts.data() + c * S, r.shift, k->len.data() + c * S, r.m);
    built[2 * c + 1] = used;
  }
  k->runs = built[2] < built[0];
  k->bits = built[2 * k->runs];
  k->kept = k->len.data() + (k->runs ? S : 0);
  k->code.assign(r.m, 0);
  const unsigned parts = 256; /* book_words_kernel's */
  std::vector<uint32_t> cnt((PARZ_BOUNDED_MAX_LEN + 1) * (parts + 1));
  if (!built[1] || !built[3])
    return 0;
  return !parz_gpu_bnd_words(team, k->kept, r.m, parts, k->code.data(), cnt.data());
}

/* The device's lengths of a code of n counts (over a range of n entries from 0, unshifted)
 * against the CPU's (parz_bounded_book_lengths: parz_huff_lengths at PARZ_BOUNDED_MAX_LEN), and
 * its words against parz_huff_canonical's;
 * name: what the failures name. */
static void check_lengths(const std::vector<uint64_t>& freq, const char* name) {
  const size_t n = freq.size(), S = PARZ_BOUNDED_SYMBOLS;
  parz_bounded_range r;
  r.shift = 0;
  r.m = n;
  std::vector<unsigned long long> counts(2 * S, 0);
  for (size_t k = 0; k < n; k++)
    counts[k] = counts[S + k] = freq[k];
  emulated_book got;
  std::vector<uint8_t> want(n);
  std::vector<uint32_t> words(n);
  parz_error e = {0, ""};
  const int ok = parz_bounded_book_lengths(freq.data(), n, want.data(), &e) == PARZ_OK;
  CHECK(ok, ": %s: parz_bounded_book_lengths: %s", name, e.message);
  /* the weights in 64 bits in the block, then where they fit in 32 bits in the fast memory */
  emulated_book wide;
  const int built_wide = emulate_book(counts, r, &wide, 0);
  const int built = emulate_book(counts, r, &got);
  size_t bad = 0, bad_wide = 0;
  for (size_t k = 0; k < n; k++) {
    bad += got.kept[k] != want[k];
    bad_wide += wide.kept[k] != want[k];
  }
  CHECK(built && bad == 0, ": %s: %zu of %zu lengths differ from the CPU's", name, bad, n);
  CHECK(built_wide && bad_wide == 0,
        ": %s: with 64-bit weights, %zu of %zu lengths differ from the CPU's", name, bad_wide, n);
  if (ok && !parz_huff_canonical(want.data(), n, PARZ_BOUNDED_MAX_LEN, words.data()))
    CHECK(built && std::equal(words.begin(), words.end(), got.code.begin()),
          ": %s: the canonical words differ from parz_huff_canonical's", name);
}

/* The device's codes against the CPU's on counts that take each of its paths: one or two
 * symbols, ties everywhere, codes within the limit (Huffman's lengths) and over it
 * (package-merge), Fibonacci counts (a round per node), the widest range. */
static void crafted_lengths() {
  check_lengths({0, 0, 7, 0}, "one symbol");
  check_lengths({3, 0, 0, 3}, "two symbols");
  check_lengths({1, 1, 2, 2}, "ties of leaves and nodes");
  check_lengths(std::vector<uint64_t>(300, 5), "300 equal counts");
  check_lengths(std::vector<uint64_t>(65536, 1), "the most symbols 20 bits hold, equal");
  std::vector<uint64_t> f;
  uint64_t a = 1, b = 1;
  for (int k = 0; k < 40; k++) {
    f.push_back(a);
    const uint64_t t = a + b;
    a = b;
    b = t;
  }
  check_lengths(f, "Fibonacci counts (over the limit)");
  check_lengths(std::vector<uint64_t>(f.begin(), f.begin() + 18), "Fibonacci counts (within)");
  for (unsigned seed = 1; seed <= 12; seed++) {
    uint32_t x = seed * 2654435761u;
    const size_t n = seed < 6 ? 40u << seed : 30000 + 2800 * seed;
    std::vector<uint64_t> g(n);
    for (size_t k = 0; k < n; k++) {
      x = x * 1664525u + 1013904223u;
      const size_t d = k > n / 2 ? k - n / 2 : n / 2 - k;
      /* a peak around the middle, a long tail of rare symbols, some unused, many ties */
      g[k] = (x >> 29) == 0
                 ? 0
                 : ((uint64_t)1 << (seed % 6 + 18)) / (1 + d * d / (seed + 1)) + (x >> 30);
    }
    char name[64];
    snprintf(name, sizeof name, "a peaked code of %zu symbols (seed %u)", n, seed);
    check_lengths(g, name);
  }
}

/* The driver's choice of predictor (bounded_encode.cu, choose) in the GPU's steps. */
static int emulate_choose(const parz_gpu_bnd_plan& p, const parz_gpu_bnd& full) {
  parz_gpu_bnd_box x;
  parz_gpu_bnd t;
  if (!parz_gpu_bnd_box_of(&p, &x))
    return PARZ_BOUNDED_LORENZO;
  parz_gpu_bnd_box_args(&p, &x, &t);
  const size_t n = x.n, w = x.s.type == PARZ_FLOAT ? 4 : 8;
  std::vector<unsigned char> box(n * w);
  std::vector<uint8_t> hole(n);
  std::vector<int32_t> q(n), codes(n);
  for (size_t i = 0; i < n; i++) { /* the gather kernel */
    size_t r = i, off = 0;
    for (int k = (int)x.s.dims - 1; k >= 0; k--) {
      off += r % x.s.shape[k] * (size_t)x.stride[k];
      r /= x.s.shape[k];
    }
    memcpy(&box[i * w], (const unsigned char*)full.src + (x.corner + off) * w, w);
  }
  t.src = box.data();
  t.hole = hole.data();
  t.q = q.data();
  t.codes = codes.data();
  unsigned long long trial[PARZ_GPU_BND_STATS];
  t.stats = trial;
  parz_gpu_bnd_scan sc = {0, 0, 0, 0};
  for (size_t i = 0; i < n; i++)
    parz_gpu_bnd_scan_value(t, i, 0, 0, &sc);
  parz_gpu_bnd_set_step(&t, sc.top);
  size_t bytes[PARZ_BOUNDED_PREDICTORS];
  for (int pred = 1; pred <= PARZ_BOUNDED_PREDICTORS; pred++) {
    std::fill(hole.begin(), hole.end(), (uint8_t)PARZ_BOUNDED_KNOWN);
    memset(trial, 0, sizeof trial);
    emulate_forward(t, x.s, pred);
    parz_bounded_range r;
    const std::vector<unsigned long long> counts = emulate_counts(t, &r);
    unsigned long long nexc = 0, nmask = 0;
    for (size_t i = 0; i < n; i++) {
      nexc += hole[i] == PARZ_BOUNDED_EXCEPTION;
      nmask += hole[i] == PARZ_BOUNDED_MASKED;
    }
    if (r.m <= PARZ_GPU_BND_HOST_BOOK) { /* the host's code over a narrow range */
      bytes[pred - 1] = parz_gpu_bnd_trial_bytes(ranged_of(counts, r).data() + r.m, r, nexc, nmask);
      continue;
    }
    /* the device's code with runs over a wide one (book_words_kernel's runs_only) */
    emulated_book dev;
    emulate_book(counts, r, &dev);
    bytes[pred - 1] =
        parz_gpu_bnd_trial_built(r, dev.len.data() + PARZ_BOUNDED_SYMBOLS, dev.built[2],
                                 dev.built[1] && dev.built[3], nexc, nmask);
  }
  return parz_bounded_pick(bytes);
}

/* The CPU's choice of predictor (parz_bounded_code's options), its trials on jobs of their own
 * order (the choice must not change). */
static int cpu_choice(const parz_gpu_bnd_plan& p, const void* data) {
  parz_bounded_options opt;
  memset(&opt, 0, sizeof opt);
  opt.runs = 2;
  opt.segment = p.v.segment_blocks;
  opt.jobs = &backwards;
  return parz_bounded_choose(&p.s, data, p.eb, &opt, NULL);
}

/* Heads sealed as on the GPU (gpu_seal_same_as_host). */
static unsigned long long seals;

/* The GPU encoder's steps one thread after another into out (contiguous arrays); *stored set
 * for a chunk the configuration stores (out then empty). */
static int emulate(const parz_array& a, const void* data, const parz_chunk_config& cfg,
                   std::vector<unsigned char>& out, int* stored, parz_error* err) {
  parz_gpu_bnd_plan p;
  parz_gpu_bnd b;
  int rc = parz_gpu_bnd_plan_of(&p, &a, &cfg, err);
  if (rc != PARZ_OK)
    return rc;
  parz_gpu_bnd_args(&p, &b);
  const size_t n = (size_t)b.n;
  std::vector<uint8_t> hole(n);
  std::vector<int32_t> q(n), codes(n);
  b.src = data;
  b.hole = hole.data();
  b.q = q.data();
  b.codes = codes.data();
  unsigned long long stats[PARZ_GPU_BND_STATS] = {0};
  b.stats = stats;
  parz_gpu_bnd_scan s = {0, 0, 0, 0};
  for (size_t i = 0; i < n; i++)
    parz_gpu_bnd_scan_value(b, i, p.fill, p.fill_bits, &s);
  memcpy(&stats[PARZ_GPU_BND_TOP], &s.top, 8);
  stats[PARZ_GPU_BND_NONFINITE] = s.nonfinite;
  stats[PARZ_GPU_BND_NAN] = s.nan;
  stats[PARZ_GPU_BND_FILL] = s.fill;
  double kstep[4];
  if (!p.predictor) { /* the trials need the step and the refusals on the host first */
    if ((rc = parz_gpu_bnd_after_scan(&p, &s, &b, err)) != PARZ_OK)
      return rc;
    p.predictor = emulate_choose(p, b);
    const int want = cpu_choice(p, data);
    CHECK(p.predictor == want, ": the trials chose predictor %d, the CPU %d", p.predictor, want);
  } else { /* the step kernel's constants, the host's after the forward pass */
    double top;
    memcpy(&top, &stats[PARZ_GPU_BND_TOP], 8);
    parz_gpu_bnd_step_consts(b.type, top, b.eb, kstep);
    b.kstep = kstep;
    emulate_forward(b, p.s, p.predictor);
    if ((rc = parz_gpu_bnd_after_scan(&p, &s, &b, err)) != PARZ_OK)
      return rc;
    CHECK(b.step == kstep[0] && b.inv_step == kstep[1] && b.unit == kstep[2] &&
              b.inv_unit == kstep[3],
          ": the device's grid constants differ from the host's");
  }
  if (!b.kstep)
    emulate_forward(b, p.s, p.predictor);
  std::vector<unsigned long long> pos;
  std::vector<uint64_t> bits;
  for (size_t i = 0; i < n; i++)
    if (hole[i] != PARZ_BOUNDED_KNOWN) {
      uint64_t v;
      parz_gpu_bnd_value(b, i, &v);
      pos.push_back(i);
      bits.push_back(v);
    }
  CHECK(parz_gpu_bnd_holes(stats) == pos.size(),
        ": the scan and the forward pass counted %llu holes, %zu there", parz_gpu_bnd_holes(stats),
        pos.size());
  for (unsigned long long k = 0; k < b.nseg; k++) {
    size_t a0, e0;
    parz_gpu_bnd_segment(b, k, &a0, &e0);
    check_lanes(b.codes, a0, e0, "a chunk's segment", false);
  }
  parz_bounded_range r;
  const std::vector<unsigned long long> counts = emulate_counts(b, &r);
  {
    /* both counts against the CPU's over the same codes, whichever code the chunk keeps */
    const std::vector<uint64_t> got = ranged_of(counts, r);
    std::vector<uint64_t> plain(r.m), runs(r.m);
    parz_bounded_count_symbols(b.codes, n, (size_t)b.seg, &r, plain.data(), runs.data(), NULL,
                               NULL);
    CHECK(std::equal(plain.begin(), plain.end(), got.begin()) &&
              std::equal(runs.begin(), runs.end(), got.begin() + r.m),
          ": the count kernel's counts differ from the CPU's (range of %zu symbols)", (size_t)r.m);
  }
  emulated_book dev;
  parz_gpu_bnd_book book;
  if (r.m <= PARZ_GPU_BND_HOST_BOOK) { /* the host's codebook of a narrow range */
    if ((rc = parz_gpu_bnd_book_of(r, ranged_of(counts, r).data(), b.step, p.predictor, &book,
                                   &backwards, err)) != PARZ_OK)
      return rc;
    b.code = book.code.data();
  } else { /* the device's of a wide one */
    CHECK(emulate_book(counts, r, &dev), ": the device's codebook reports an error");
    if ((rc = parz_gpu_bnd_book_built(r, dev.kept, dev.runs, dev.bits, b.step, p.predictor, &book,
                                      err)) != PARZ_OK)
      return rc;
    b.code = dev.code.data();
  }
  b.len = book.kept;
  const std::vector<unsigned char>& codec_data = book.codec_data;
  b.shift = r.shift;
  b.use_runs = book.runs;
  std::vector<unsigned long long> seg_bits((size_t)b.nseg), seg_at((size_t)b.nseg + 1, 0);
  std::vector<uint32_t> lane_bits((size_t)b.nseg * PARZ_GPU_BND_LANES);
  b.seg_bits = seg_bits.data();
  b.lane_bits = lane_bits.data();
  std::vector<int32_t> buf;
  for (unsigned long long k = 0; k < b.nseg; k++) { /* read where they are, as when not staged */
    size_t a0, e0;
    parz_gpu_bnd_segment(b, k, &a0, &e0);
    const std::vector<parz_gpu_bnd_lane> ls = lanes_of(b.codes, a0, e0, PARZ_GPU_BND_LANES);
    seg_bits[k] = 0;
    for (unsigned l = 0; l < PARZ_GPU_BND_LANES; l++)
      seg_bits[k] += lane_bits[k * PARZ_GPU_BND_LANES + l] =
          parz_gpu_bnd_lane_bits(b, b.codes, ls[l]);
  }
  for (size_t k = 0; k < seg_bits.size(); k++)
    seg_at[k + 1] = seg_at[k] + seg_bits[k];
  CHECK(seg_at.back() == book.bits, ": the segments hold %llu bits, the code's counts %llu",
        seg_at.back(), book.bits);
  parz_chunk_view fin;
  size_t head = 0, size = 0;
  rc = parz_gpu_bnd_settle(&p, &cfg, book.bits, pos.size(), codec_data.size(), &fin, &head, &size,
                           stored, err);
  if (rc != PARZ_OK || *stored) {
    out.clear();
    return rc;
  }
  std::vector<unsigned long long> payload(fin.payload_bytes / 8, 0);
  b.payload = payload.data();
  b.seg_at = seg_at.data();
  for (unsigned long long k = b.nseg; k-- > 0;) { /* any order: neighbours share words */
    const parz_gpu_bnd_staged st = staged_of(b, k, buf);
    const std::vector<parz_gpu_bnd_lane> ls = staged_lanes(b, k, st);
    unsigned long long at = seg_at[k];
    std::vector<unsigned long long> from(PARZ_GPU_BND_LANES);
    for (unsigned l = 0; l < PARZ_GPU_BND_LANES; l++) {
      from[l] = at;
      at += lane_bits[k * PARZ_GPU_BND_LANES + l];
    }
    for (unsigned l = PARZ_GPU_BND_LANES; l-- > 0;)
      parz_gpu_bnd_lane_write(b, st, ls[l], from[l]);
  }
  std::vector<uint64_t> sums((size_t)fin.nchecksums);
  for (unsigned long long k = 0; k < fin.nchecksums; k++) {
    unsigned long long begin, end;
    parz_gpu_bnd_partition(k, fin.nchecksums, fin.checksum_segments, fin.payload_bytes,
                           seg_at.data(), &begin, &end);
    sums[k] = 0;
    for (unsigned lane = 0; lane < 256; lane++)
      sums[k] += parz_checksum_lane((const unsigned char*)payload.data(), begin, end, lane, 256);
  }
  out.assign(size, 0xA5);
  rc = parz_gpu_whole_head(&fin, seg_bits.data(), pos.data(), bits.data(), codec_data.data(),
                           sums.data(), out.data(), head, err);
  memcpy(out.data() + head, payload.data(), fin.payload_bytes);
  if (rc == PARZ_OK)
    seals += gpu_seal_same_as_host(fin, 1, seg_bits.data(), pos.data(), bits.data(),
                                   codec_data.data(), sums.data(), out.data(), head);
  return rc;
}

/* One case: the emulated chunk against parz_chunk_encode's, and decoded within the bound. */
static void check_case(const char* name, const parz_array& a, const void* data,
                       const parz_chunk_config& cfg, int refused) {
  parz_error e = {0, ""};
  std::vector<unsigned char> got;
  int stored = 0;
  const int rc = emulate(a, data, cfg, got, &stored, &e);
  if (!gpu_encode_same_as_cpu(name, a, data, cfg, refused, rc, e, stored, got))
    return;
  /* decoded within the bound, the values not finite bit for bit */
  const size_t nv = gpu_case_count(a), w = a.type == PARZ_FLOAT ? 4 : 8;
  std::vector<unsigned char> back(nv * w);
  CHECK(parz_chunk_decode(got.data(), got.size(), back.data(), back.size(), &e) == PARZ_OK,
        ": %s: decode: %s", name, e.message);
  const size_t bad = bnd_outside(a, data, back, cfg.settings.error_bound);
  CHECK(bad == 0, ": %s: %zu values outside the bound %g", name, bad, cfg.settings.error_bound);
}

/* The device's codebook of a wide range (emulate_book, then parz_gpu_bnd_book_built) against
 * parz_bounded_coded_book's (over the whole alphabet): the same codec data and payload bits, with
 * zero runs paying and not. */
static void wide_books() {
  for (int zeros = 0; zeros < 2; zeros++) {
    const parz_bounded_range r = parz_gpu_bnd_range(-3000, 2999);
    std::vector<uint64_t> counts(2 * r.m, 0);
    uint32_t x = 777u + (uint32_t)zeros;
    for (size_t k = PARZ_BOUNDED_HEAD; k < r.m; k++) {
      x = x * 1664525u + 1013904223u;
      const size_t from0 = k > r.m / 2 ? k - r.m / 2 : r.m / 2 - k;
      const uint64_t c = (uint64_t)(1u << 20) / (1 + from0) + (x >> 28);
      counts[k] = counts[r.m + k] = c; /* residuals but 0: the same both ways */
    }
    const size_t zero = PARZ_BOUNDED_SYM_ZERO - r.shift;
    /* zeros in long runs (the code with runs kept), or in runs of 2 and 3 (the one without) */
    counts[zero] = zeros ? 50000000 : 4000000;
    counts[r.m + zero] = zeros ? 10 : 2000000;
    counts[r.m + (zeros ? 3 : 1)] = zeros ? 400000 : 1000000;
    parz_error e = {0, ""};
    std::vector<unsigned long long> all(2 * (size_t)PARZ_BOUNDED_SYMBOLS, 0);
    for (unsigned c = 0; c < 2; c++)
      for (size_t k = 0; k < r.m; k++)
        all[c * PARZ_BOUNDED_SYMBOLS + (k < PARZ_BOUNDED_HEAD ? k : k + r.shift)] =
            counts[c * r.m + k];
    emulated_book dev;
    CHECK(emulate_book(all, r, &dev), ": a wide range's codebook: the device reports an error");
    parz_gpu_bnd_book k;
    CHECK(parz_gpu_bnd_book_built(r, dev.kept, dev.runs, dev.bits, 0.5, 2, &k, &e) == PARZ_OK,
          ": %s", e.message);
    parz_bounded_coded c;
    memset(&c, 0, sizeof c);
    CHECK(parz_bounded_coded_book(&r, counts.data(), counts.data() + r.m, 2, &c, &e) == PARZ_OK,
          ": %s", e.message);
    std::vector<unsigned char> want(
        parz_bounded_codec_data(0.5, 2, c.runs, c.book_bytes, c.book_size, NULL));
    parz_bounded_codec_data(0.5, 2, c.runs, c.book_bytes, c.book_size, want.data());
    CHECK(k.runs == zeros, ": a wide range's codebook (zeros %d) keeps runs %d", zeros, k.runs);
    CHECK(k.codec_data == want && k.runs == c.runs,
          ": a wide range's codebook (zeros %d): runs %d against the CPU's %d, %zu bytes against "
          "%zu",
          zeros, k.runs, c.runs, k.codec_data.size(), want.size());
    CHECK(k.bits == parz_bounded_coded_bits(counts.data() + (c.runs ? r.m : 0), dev.kept, r.m),
          ": a wide range's payload bits");
    parz_bounded_coded_free(&c);
  }
}

/* Chunks whose coarse passes end at a stride above 1 (257 x 513: sixteen coarse passes down to
 * stride 4, a grid of 8,385 points, one the coarse CTA keeps in shared memory), so that the grid's
 * coordinates and strides are scaled: the shared crafted cases are too small for that, every
 * coarse grid of theirs has stride 1. Each interpolation predictor, two bounds. */
static void coarse_grid_cases() {
  const size_t shape[2] = {257, 513};
  const parz_array a = parz_test_array(PARZ_FLOAT, 2, shape);
  const std::vector<unsigned char> data = bnd_values(a, 0.5, 7);
  for (double eb : {1e-3, 0.05})
    for (unsigned pred = 2; pred <= 5; pred++) {
      char name[96];
      snprintf(name, sizeof name, "257 x 513, coarse grid of stride 4, eb %g, predictor %u", eb,
               pred);
      check_case(name, a, data.data(), bnd_config(eb, pred), 0);
    }
}

/* HYBRID tables of several partitions with records that end in padding, of both length widths:
 * P = 3 and 5 (P * w is no multiple of 8 for w = 2 or 4), three full partitions and a last one of
 * each size, P segments (a table of whole partitions) then 1 to P - 1; the last segment of half
 * of C's values. A bound of 0.01 with C = 64 gives segments far below 65536 bits (w = 2), one of
 * 1e-4 with C = 8192 segments above it (w = 4); the CPU's chunk is checked to have the layout
 * meant. Each with checksums on, off, and on with an infinity (an exception record right after
 * the table): what follows the table is written before it (the checksum section's header and
 * the codec data by the host, the exception records by an earlier kernel), so that an entry past
 * the table's end shows. */
static void hybrid_partitions() {
  char name[160];
  for (int wide = 0; wide < 2; wide++)
    for (unsigned P : {3u, 5u})
      for (unsigned last = 0; last < P; last++) {
        const unsigned C = wide ? 8192 : 64, nseg = 3 * P + (last ? last : P);
        const size_t shape[1] = {(size_t)(nseg - 1) * C + C / 2};
        const parz_array a = parz_test_array(PARZ_FLOAT, 1, shape);
        std::vector<unsigned char> data = bnd_values(a, 0.5, 300 + nseg);
        for (int variant = 0; variant < 3; variant++) {
          parz_chunk_config cfg = bnd_config(wide ? 1e-4 : 0.01, 1);
          cfg.table = PARZ_TABLE_HYBRID;
          cfg.segment_blocks = C;
          cfg.partition_segments = P;
          cfg.checksum = variant == 1 ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_DEFAULT;
          if (variant == 2) {
            const float inf = INFINITY;
            memcpy(&data[4 * (shape[0] / 2)], &inf, 4);
          }
          size_t n = 0;
          std::vector<unsigned char> ref(parz_chunk_bound(&a, &cfg));
          parz_chunk_view v;
          CHECK(parz_chunk_encode(&a, data.data(), &cfg, ref.data(), ref.size(), &n, NULL) ==
                        PARZ_OK &&
                    parz_chunk_parse(ref.data(), n, &v, NULL) == PARZ_OK &&
                    v.table == PARZ_TABLE_HYBRID && v.partition_segments == P &&
                    v.nsegments == nseg && v.length_bytes == (wide ? 4u : 2u) &&
                    v.nexceptions == (variant == 2 ? 1u : 0u),
                ": P=%u, %u segments of width %u: the CPU's chunk has another layout", P, nseg,
                wide ? 4u : 2u);
          snprintf(name, sizeof name, "partitions: P=%u, %u segments of width %u, %s", P, nseg,
                   wide ? 4u : 2u,
                   variant == 0   ? "checksums on"
                   : variant == 1 ? "checksums off"
                                  : "an exception");
          check_case(name, a, data.data(), cfg, 0);
        }
      }
}

int main(int argc, char** argv) {
  crafted_tokens();
  crafted_lanes();
  crafted_lengths();
  wide_books();
  coarse_grid_cases();
  hybrid_partitions();
  const std::vector<bnd_case> cases = bnd_cases_segments();
  for (const bnd_case& c : cases)
    check_case(c.name.c_str(), c.a, c.data.data(), c.cfg, c.refused);
  printf("%zu crafted cases\n", cases.size());
  if (argc > 1) {
    size_t m = 0;
    real_array* r = real_arrays_load(argv[1], (size_t)1 << 20, &m);
    for (size_t i = 0; i < m; i++)
      for (double rel : {1e-3, 1e-5})
        for (unsigned pred = 0; pred <= 5; pred++)
          for (uint32_t C : {bnd_segment_sizes[0], bnd_segment_sizes[1]}) {
            char name[160];
            parz_chunk_config cfg = bnd_config(rel * real_array_value_range(&r[i]), pred);
            cfg.segment_blocks = C;
            snprintf(name, sizeof name, "%s eb %g x range, predictor %u, segments of %u", r[i].name,
                     rel, pred, C);
            check_case(name, r[i].array, r[i].data, cfg, real_array_holds_nan(&r[i]));
          }
    printf("%zu real arrays\n", m);
    real_arrays_free(r, m);
  }
  printf("%llu heads sealed as on the GPU\n", seals);
  CHECK(seals > 0, ": no head sealed as on the GPU");
  return test_finish("gpu_bounded_encode_host");
}
