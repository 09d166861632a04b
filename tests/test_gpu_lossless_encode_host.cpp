/* The lossless codec's GPU encoder, its steps run on the CPU: the per-thread and per-lane
 * functions of gpu/lossless/lossless_encode.cuh called for every thread and lane of every kernel,
 * in the kernels' order (gpu/lossless/lossless_encode.cu), with the host's steps between them.
 * Every chunk they build must be parz_chunk_encode's, byte for byte, and decode to the values bit
 * for bit; the chunks the GPU encoder refuses must be refused with PARZ_ERR_UNSUPPORTED naming
 * why. This checks where no GPU is (CI) what test_gpu_lossless_encode checks on the device, on
 * the same cases (gpu_lossless_encode_cases.h), and on the arrays of each DATA_DIR (the real
 * arrays, the series of data/series), cut to 1 MiB each.
 * Usage: test_gpu_lossless_encode_host [DATA_DIR...] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "check.h"
#include "encode_whole.h"
#include "gpu_encode_compare.h"
#include "gpu_lossless_encode_cases.h"
#include "lossless_encode.cuh"
#include "payload_checksum.h"
#include "real_arrays.h"

/* Codes whose depths package-merge limits, built for the segments and for check_codes. */
static unsigned long long pm_builds;

/* build_code's lanes for code q, one after the other between its barriers, some in reverse (their
 * order must not matter). */
static void build_code(parz_gpu_ll_seg* W, parz_gpu_ll_build* B, unsigned w, unsigned q) {
  const unsigned lanes = PARZ_GPU_LL_LANES;
  uint8_t* len = parz_gpu_ll_code_len(W, w, q);
  unsigned m = 0, longest = 0;
  for (unsigned lane = lanes; lane-- > 0;)
    m += parz_gpu_ll_build_counts(W, B, w, q, lane);
  for (unsigned lane = lanes; lane-- > 0;)
    parz_gpu_ll_build_sort(B, w, lane);
  if (m >= 2)
    parz_gpu_ll_build_merge(B, m);
  for (unsigned lane = 0; lane < lanes; lane++) {
    const unsigned d = parz_gpu_ll_build_depth(B, m, lane);
    longest = d > longest ? d : longest;
  }
  if (longest > PARZ_LL_CODE_MAX) {
    pm_builds++;
    unsigned items = m;
    for (unsigned j = PARZ_LL_CODE_MAX - 1; j >= 1; j--) {
      for (unsigned lane = lanes; lane-- > 0;)
        parz_gpu_ll_pm_packages(B, items, j == PARZ_LL_CODE_MAX - 1, lane);
      unsigned next = 0;
      for (unsigned lane = lanes; lane-- > 0;)
        next = parz_gpu_ll_pm_level(B, m, items / 2, j, lane);
      items = next;
    }
    for (unsigned lane = 0; lane < lanes; lane++)
      parz_gpu_ll_pm_lengths(B, m, lane);
  }
  for (unsigned lane = lanes; lane-- > 0;)
    parz_gpu_ll_build_lengths(B, len, w, m, lane);
  for (unsigned lane = 0; lane < lanes; lane++)
    parz_gpu_ll_build_per_len(B, len, w, lane);
  uint64_t bits = 0;
  for (unsigned lane = lanes; lane-- > 0;)
    bits += parz_gpu_ll_build_words(B, len, parz_gpu_ll_code_words(W, w, q), w, lane);
  W->bits[q] = bits;
}

/* A warp's lanes for the group of pieces from piece p0 of a segment of n residuals (z; runs:
 * coder 3's), in order: each one's residuals (parz_gpu_ll_lane_load) into x[lane], their count
 * into m[lane], the bit length of the residual before each one's first into kp[lane]. */
template <typename X>
static void lanes_load(const uint64_t* z, size_t n, size_t p0, int runs, X x[32][PARZ_GPU_LL_LANE],
                       unsigned m[32], unsigned kp[32]) {
  const size_t i0 = p0 * PARZ_GPU_LL_PIECE;
  unsigned k = parz_bitlen64(parz_gpu_ll_before(z, i0, runs));
  for (unsigned lane = 0; lane < 32; lane++) {
    m[lane] = parz_gpu_ll_lane_load<X>(z, n, i0 + lane * PARZ_GPU_LL_LANE, x[lane]);
    kp[lane] = k;
    k = parz_gpu_ll_bitlen(x[lane][PARZ_GPU_LL_LANE - 1]);
  }
}

/* size_pieces' warps, one group of pieces after the other and their lanes in reverse (their order
 * must not matter): each piece's bits the sum of its lanes'. */
template <typename X>
static void size_pieces(parz_gpu_ll_seg* W, const uint64_t* z, size_t n, size_t np, int runs,
                        int pick) {
  const unsigned lanes = PARZ_GPU_LL_PIECE / PARZ_GPU_LL_LANE;
  for (size_t p0 = 0; p0 < np; p0 += PARZ_GPU_LL_GROUP) {
    X x[32][PARZ_GPU_LL_LANE];
    unsigned m[32], kp[32];
    lanes_load<X>(z, n, p0, runs, x, m, kp);
    for (size_t p = p0; p < p0 + PARZ_GPU_LL_GROUP && p < np; p++) {
      W->pc.piece[p] = 0;
      W->pc.nonzero[p] = 0;
    }
    for (unsigned lane = 32; lane-- > 0;) {
      const size_t p = p0 + lane / lanes;
      if (p >= np)
        continue;
      W->pc.piece[p] += parz_gpu_ll_lane_bits<X>(x[lane], m[lane], kp[lane], pick, W->len[pick]);
      for (unsigned u = 0; u < PARZ_GPU_LL_LANE; u++)
        W->pc.nonzero[p] |= x[lane][u] != 0;
    }
  }
}

/* write_pieces' warps, one group of pieces after the other: its lanes' offsets (the warp's prefix
 * sum), then their residuals ORed in, the lanes in reverse (their order must not matter). */
template <typename X>
static void write_pieces(parz_gpu_ll_seg* W, uint8_t* dst, const uint64_t* z, size_t n, size_t np,
                         int runs, int pick) {
  const size_t per = PARZ_LL_RUN / PARZ_GPU_LL_PIECE;
  for (size_t p0 = 0; p0 < np; p0 += PARZ_GPU_LL_GROUP) {
    const size_t r = runs ? p0 / per : 0;
    if (runs && W->run_at[r + 1] == W->run_at[r])
      continue;
    X x[32][PARZ_GPU_LL_LANE];
    unsigned m[32], kp[32];
    uint64_t bit[32];
    lanes_load<X>(z, n, p0, runs, x, m, kp);
    uint64_t at = 8ull * (runs ? W->run_at[r] : 0) + (runs ? 0 : W->run_at[0]) + W->pc.piece[p0];
    for (unsigned lane = 0; lane < 32; lane++) {
      bit[lane] = at;
      at += parz_gpu_ll_lane_bits<X>(x[lane], m[lane], kp[lane], pick, W->len[pick]);
    }
    for (unsigned lane = 32; lane-- > 0;)
      parz_gpu_ll_lane_write<X>(dst, bit[lane], x[lane], m[lane], kp[lane], pick, W->len[pick],
                                W->code[pick]);
  }
}

/* segment_kernel's threads, one after the other between its __syncthreads(), some in reverse
 * (their order must not matter); its thread 0's steps as they are. */
static void segment(const parz_gpu_ll& L, unsigned long long s) {
  static parz_gpu_ll_seg W;
  const unsigned T = PARZ_GPU_LL_THREADS, w = L.g.w;
  unsigned long long first, total = 0;
  size_t n;
  parz_gpu_ll_segment(L, s, &first, &n);
  const uint64_t* z = L.z + first;
  uint8_t* dst = L.slots + s * L.slot;
  const size_t raw = parz_ll_raw_bytes(n, w), np = parz_gpu_ll_pieces(n);
  const int runs = parz_ll_runs_of(n);
  int as_raw = 1;
  /* the counts into the copy of residual i's thread (parz_gpu_ll_counter_of), then added */
  const unsigned parts = parz_gpu_ll_parts(w, T / 32), nk = parz_gpu_ll_part_keys(w);
  for (unsigned t = 0; t < T; t++)
    parz_gpu_ll_clear(&W, w, parts, t, T);
  for (size_t i = n; i-- > 0;)
    W.part[parz_gpu_ll_copy_of(parz_gpu_ll_counter_of(i), parts) * nk +
           parz_gpu_ll_key(z, i, runs, w)]++;
  for (unsigned t = T; t-- > 0;)
    parz_gpu_ll_parts_add(&W, w, parts, t, T);
  for (unsigned q = parz_ll_contexts(w, PARZ_LL_CODER_CONTEXT) + 1; q-- > 0;)
    build_code(&W, &W.build[q % PARZ_GPU_LL_BUILDS], w, q);
  const unsigned coder = parz_gpu_ll_coder(&W, w, n);
  const int pick = coder == PARZ_LL_CODER_CONTEXT;
  if (coder != PARZ_LL_CODER_RAW) {
    if (w == 32)
      size_pieces<uint32_t>(&W, z, n, np, runs, pick);
    else
      size_pieces<uint64_t>(&W, z, n, np, runs, pick);
    const size_t per = PARZ_LL_RUN / PARZ_GPU_LL_PIECE, m = runs ? parz_ll_run_count(n) : 1;
    for (size_t r = m; r-- > 0;) {
      const size_t p1 = runs && (r + 1) * per < np ? (r + 1) * per : np;
      int zero;
      const uint64_t bits = parz_gpu_ll_run_offsets(&W, runs ? r * per : 0, p1, &zero);
      W.run_at[r + 1] = (uint32_t)(!runs ? bits : zero ? 0 : (bits + 7) / 8);
    }
    total = parz_gpu_ll_runs_head(&W, dst, w, coder, n, &as_raw);
    if (!as_raw) {
      /* the slot holds other bytes before: the kernel's zeros must be all the ORs find */
      const size_t from = runs ? ((size_t)W.run_at[0] + 3) / 4 : 0, to = ((size_t)total + 3) / 4;
      for (size_t k = from; k < to; k++)
        memset(dst + 4 * k, 0, 4);
      for (unsigned t = 0; runs && t < 4; t++)
        if ((size_t)W.run_at[0] + t < 4 * from)
          dst[W.run_at[0] + t] = 0;
      for (unsigned t = PARZ_GPU_LL_THREADS; runs && t-- > 0;)
        parz_gpu_ll_runs_lengths(dst, w, coder, W.len[pick], t, PARZ_GPU_LL_THREADS);
      if (!runs)
        parz_gpu_ll_single_head(dst, raw, w, coder, W.len[pick]);
      if (w == 32)
        write_pieces<uint32_t>(&W, dst, z, n, np, runs, pick);
      else
        write_pieces<uint64_t>(&W, dst, z, n, np, runs, pick);
      for (size_t r = 0; runs && r + 1 < m; r++)
        parz_ll_run_length_put(dst, parz_ll_runs_lengths_end(w, coder), r,
                               W.run_at[r + 1] - W.run_at[r]);
    }
  }
  if (as_raw)
    for (unsigned t = 0; t < T; t++)
      parz_gpu_ll_raw(dst, z, n, w, t, T);
  L.seg_bytes[s] = as_raw ? raw : total;
}

/* The codes built by a warp's steps against parz_ll_plan_context's (lengths, words and bits), for
 * counts where every symbol ties, one or two symbols are used, counts halve from symbol to symbol
 * (package-merge then limits the lengths) or are random; coder 1's code of random counts per
 * context against the summed counts'. */
static void check_codes() {
  static parz_gpu_ll_seg W;
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (unsigned w = 32; w <= 64; w += 32) {
    const unsigned nc = parz_ll_contexts(w, PARZ_LL_CODER_CONTEXT);
    for (unsigned trial = 0; trial < 400; trial++) {
      const unsigned q = trial % 3 == 2 ? nc : trial % nc;
      uint64_t f[65] = {0};
      memset(W.freq, 0, sizeof W.freq);
      for (unsigned c = 0; c < (q == nc ? nc : 1); c++)
        for (unsigned k = 0; k <= w; k++) {
          state = state * 6364136223846793005ull + 1442695040888963407ull;
          const unsigned r = (unsigned)(state >> 33);
          uint32_t x = 0;
          switch (trial % 5) {
            case 0: /* ties: few distinct counts, some unused */ x = r % 4; break;
            case 1: /* halving: deep Huffman codes */ x = k < 27 ? 1u << (26 - k) : r % 2; break;
            case 2: /* one or two symbols */
              x = k == trial % (w + 1) || (trial & 8 && k == (trial * 7) % (w + 1)) ? 1 + r % 100
                                                                                    : 0;
              break;
            default: x = r % 3 ? r % (1u + (r >> 20) % 5000) : 0;
          }
          W.freq[q == nc ? c : q][k] = x;
          f[k] += x;
        }
      uint8_t len[65];
      uint32_t code[65];
      const uint64_t bits = parz_ll_plan_context(f, w, len, code);
      build_code(&W, &W.build[trial % PARZ_GPU_LL_BUILDS], w, q);
      const uint8_t* got_len = parz_gpu_ll_code_len(&W, w, q);
      const uint32_t* got_code = parz_gpu_ll_code_words(&W, w, q);
      CHECK(
          !memcmp(got_len, len, w + 1) && !memcmp(got_code, code, 4 * (w + 1)) && W.bits[q] == bits,
          ": w %u, code %u, trial %u: the warp's code differs from parz_ll_plan_context's", w, q,
          trial);
    }
  }
}

/* A plan's residuals and segments under transform k as residual_kernel and segment_kernel make
 * them (the values at data): L's buffers are z, slots and seg_bytes. */
struct coded {
  parz_gpu_ll L;
  std::vector<uint64_t> z;
  std::vector<uint8_t> slots;
  std::vector<unsigned long long> seg_bytes, block_at;
  unsigned long long bytes;
};

static void code_segments(const parz_gpu_ll_plan& p, unsigned k, const void* data, coded& c,
                          unsigned* misfit, const unsigned long long* passed) {
  parz_gpu_ll& L = c.L;
  parz_gpu_ll_args(&p, k, &L);
  parz_gpu_ll_source(&L, data);
  L.misfit = misfit;
  L.passed = passed;
  L.valid = parz_gpu_ll_valid(&p);
  c.z.assign((size_t)L.n, ~(uint64_t)0);
  c.slots.assign((size_t)(L.nseg * L.slot), 0xA5);
  c.seg_bytes.assign((size_t)L.nseg, 0);
  c.block_at.assign((size_t)L.g.blocks + 1, ~0ull);
  L.block_at = c.block_at.data();
  L.z = c.z.data();
  L.slots = c.slots.data();
  L.seg_bytes = c.seg_bytes.data();
  std::vector<uint64_t> u(PARZ_LL_BLOCK_VALUES);
  std::vector<uint8_t> back(PARZ_LL_BLOCK_VALUES);
  for (unsigned long long b = L.g.blocks; b-- > 0;) {
    parz_gpu_ll_box B;
    parz_gpu_ll_box_of(L, b, &B);
    L.block_at[b] = B.first;
    if (b + 1 == L.g.blocks)
      L.block_at[b + 1] = L.n;
    CHECK(B.first == parz_ll_block_first(&L.g, b) &&
              B.count == parz_ll_block_first(&L.g, b + 1) - B.first,
          ": block %llu of %zu: first residual %u, count %u; the codec's %zu and %zu", b,
          L.g.blocks, B.first, B.count, parz_ll_block_first(&L.g, b),
          parz_ll_block_first(&L.g, b + 1) - parz_ll_block_first(&L.g, b));
    int miss = 0;
    for (unsigned t = 0; t < PARZ_GPU_LL_THREADS; t++)
      miss |= parz_gpu_ll_forward_block(L, parz_gpu_ll_xf_of(L), B, u.data(), back.data(), t,
                                        PARZ_GPU_LL_THREADS);
    if (miss)
      *misfit |= 1u;
    for (unsigned t = PARZ_GPU_LL_THREADS; t-- > 0;)
      parz_gpu_ll_residuals(L.g, B, u.data(), back.data(), L.z + B.first, t,
                            PARZ_GPU_LL_THREADS);
  }
  for (unsigned long long s = 0; s < L.nseg; s++)
    segment(L, s);
  c.bytes = 0;
  for (unsigned long long b : c.seg_bytes)
    c.bytes += b;
}

/* Whether value v (bits b) under transform k of scale s has its transform and check at once as
 * the two apart; *fit: the check's. */
static bool forward_same(float v, uint32_t b, unsigned k, double s, int* fit) {
  return parz_ll_forward_fits32(v, b, k, s, fit) == parz_ll_forward32(v, b, k, s) &&
         *fit == parz_ll_fits32(v, b, s);
}
static bool forward_same(double v, uint64_t b, unsigned k, double s, int* fit) {
  return parz_ll_forward_fits64(v, b, k, s, fit) == parz_ll_forward64(v, b, k, s) &&
         *fit == parz_ll_fits64(v, b, s);
}

/* The values of bit patterns `bits` (of type V) whose transform and check at once under
 * transform k differ from the two apart, added to *bad; those that fit, to *fits. */
template <typename V, typename B>
static void forward_against(const std::vector<B>& bits, unsigned k, unsigned long long* bad,
                            unsigned long long* fits) {
  for (B b : bits) {
    V v;
    int fit;
    memcpy(&v, &b, sizeof v);
    *bad += !forward_same(v, b, k, parz_ll_scale_of(k), &fit);
    *fits += fit;
  }
}

/* parz_ll_forward_fits32 and 64 (the residual step's transform and check at once) against
 * parz_ll_forward32 and parz_ll_fits32 (64) apart, under every scale: whole numbers and their
 * halves near 0, 2^24 and the range's ends, -0.0, infinities, NaNs, and random bit patterns
 * (their low bits cleared in some, so that more of them are multiples of a scale). */
static void check_forward() {
  std::vector<uint32_t> b32;
  std::vector<uint64_t> b64;
  const double around[] = {0.0, 1.0, 16777216.0, 2.1e9, 2147483648.0, 9.2e18, 1e15};
  for (double c : around)
    for (int d = -40; d <= 40; d++)
      for (int sign = -1; sign <= 1; sign += 2) {
        const double x = sign * (c + d * 0.5);
        const float f = (float)x;
        uint32_t u;
        uint64_t v;
        memcpy(&u, &f, 4);
        memcpy(&v, &x, 8);
        b32.push_back(u);
        b32.push_back(u + 1);
        b64.push_back(v);
        b64.push_back(v + 1);
      }
  const uint32_t special32[] = {0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x00000001u};
  const uint64_t special64[] = {0x8000000000000000ull, 0x7ff0000000000000ull,
                                0xfff0000000000000ull, 0x7ff8000000000000ull, 1ull};
  b32.insert(b32.end(), special32, special32 + 5);
  b64.insert(b64.end(), special64, special64 + 5);
  uint64_t r = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 20000; i++) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    b32.push_back((uint32_t)r & ~((1u << (r >> 59)) - 1));
    b64.push_back(r & ~((1ull << (r >> 58)) - 1));
  }
  unsigned long long bad = 0, fits = 0;
  for (unsigned k = 1; k <= PARZ_LL_SCALES; k++) {
    forward_against<float>(b32, k, &bad, &fits);
    forward_against<double>(b64, k, &bad, &fits);
  }
  CHECK(bad == 0 && fits > 0, ": parz_ll_forward_fits32/64: %llu values differ (%llu fit)", bad,
        fits);
  printf("the transforms and checks at once: %zu float32 and %zu float64 values, %llu fit\n",
         b32.size() * PARZ_LL_SCALES, b64.size() * PARZ_LL_SCALES, fits);
}

/* Heads sealed as on the GPU (gpu_seal_same_as_host). */
static unsigned long long seals;

/* Chunks whose predictor the encoder chose, and those of them under the row predictor; chunks
 * where a value missed the probe's first scale. */
static unsigned long long rows_asked, rows_taken, misfits, misfits_twice;

/* The GPU encoder's steps one thread after another into out; *stored set for a chunk the
 * configuration stores (out then empty). */
static int emulate(const parz_array& a, const void* data, const parz_chunk_config& cfg,
                   std::vector<unsigned char>& out, int* stored, parz_error* err) {
  parz_gpu_ll_plan p;
  parz_gpu_ll L;
  int rc = parz_gpu_ll_plan_of(&p, &a, &cfg, err);
  if (rc != PARZ_OK)
    return rc;
  parz_gpu_ll_args(&p, 0, &L);
  L.src = data;
  /* the transform: the probe's scales (a CTA per scale, its values in reverse); the first,
   * then the second, checked by the residual step; where a value misses both, the others checked
   * on every value at once, and the steps again */
  const unsigned probe = L.n < PARZ_GPU_LL_PROBE ? (unsigned)L.n : PARZ_GPU_LL_PROBE;
  unsigned long long passed = 0;
  for (unsigned s = 1; s <= PARZ_LL_SCALES; s++) {
    int fit = 1;
    for (unsigned i = probe; i-- > 0;)
      fit &= parz_gpu_ll_fits(L, i, parz_ll_scale_of(s));
    if (fit)
      PARZ_GPU_LL_OR(&passed, (uint64_t)1 << (s - 1));
  }
  std::vector<unsigned> scales;
  if (a.type == PARZ_FLOAT || a.type == PARZ_DOUBLE)
    scales = parz_gpu_ll_scales(&p, passed);
  if (a.type == PARZ_FLOAT || a.type == PARZ_DOUBLE) {
    /* the probe's scales are the CPU's, on a copy of its values */
    const std::vector<unsigned char> values = ll_contiguous(a, data);
    std::vector<unsigned> cpu;
    for (unsigned s = 1; s <= PARZ_LL_SCALES; s++)
      if (parz_ll_scale_fits(a.type, values.data(), probe, s))
        cpu.push_back(s);
    CHECK(cpu == scales, ": the probe's %zu scales, the CPU's %zu", scales.size(), cpu.size());
  }
  /* the first pass takes the probe's first scale as the GPU takes it, from the probe's bits */
  const int probing = a.type == PARZ_FLOAT || a.type == PARZ_DOUBLE;
  size_t tried = 0;
  unsigned k = 0;
  int checked = !probing, favoured = 0;
  unsigned long long bits[2] = {0, 0};
  coded all;
  for (;;) {
    const int probed = probing && !tried;
    parz_gpu_ll_args(&p, k, &L);
    L.src = data;
    L.passed = probed ? &passed : NULL;
    L.valid = parz_gpu_ll_valid(&p);
    /* the measure of the row predictor, its values in reverse (their order must not matter) */
    if (parz_gpu_ll_rows_chosen(&p)) {
      parz_ll_geometry rows;
      if ((rc = parz_ll_geometry_init(&rows, &p.a, PARZ_LL_PREDICT_ROWS, err)) != PARZ_OK)
        return rc;
      bits[0] = bits[1] = 0;
      for (unsigned long long b = parz_gpu_ll_sampled(L.g); b-- > 0;)
        for (unsigned j = PARZ_LL_BLOCK_VALUES; j-- > 0;) {
          unsigned both[2];
          parz_gpu_ll_measure(L, rows, b, j, both);
          bits[0] += both[0];
          bits[1] += both[1];
        }
    }
    unsigned misfit = 0;
    code_segments(p, k, data, all, checked ? NULL : &misfit, L.passed);
    if (probed) {
      k = scales.empty() ? 0 : scales[0];
      CHECK(parz_gpu_ll_xf_of(L).k == k, ": the GPU's scale %u, the probe's first %u",
            parz_gpu_ll_xf_of(L).k, k);
      checked = k == 0;
      CHECK(!checked || !misfit, ": a value checked under transform 0");
    }
    if (checked || !misfit)
      break;
    misfits++;
    if (++tried < scales.size() && tried < PARZ_GPU_LL_SPECULATE) {
      k = scales[tried];
      continue;
    }
    misfits_twice++;
    const uint64_t want = parz_gpu_ll_want(scales, tried);
    uint64_t missed = 0;
    for (unsigned long long v = L.n; want && v-- > 0;)
      PARZ_GPU_LL_OR(&missed, parz_gpu_ll_misses(L, v, want));
    k = parz_gpu_ll_first_fitting(scales, tried, missed);
    checked = 1;
  }
  if (parz_gpu_ll_rows_chosen(&p)) {
    favoured = bits[1] < bits[0];
    rows_asked++;
    /* the kernel's sums are the CPU's measure's, not only its choice */
    uint64_t cpu[2] = {0, 0};
    const std::vector<unsigned char> values = ll_contiguous(a, data);
    CHECK(parz_ll_rows_measure(&p.a, values.data(), k, cpu) == 0 && cpu[0] == bits[0] &&
              cpu[1] == bits[1],
          ": the measure of the row predictor: %llu and %llu bits, the CPU's %llu and %llu",
          bits[0], bits[1], (unsigned long long)cpu[0], (unsigned long long)cpu[1]);
  }
  parz_gpu_ll_choose(&p, k);
  coded by_rows, *kept = &all;
  if (favoured) {
    parz_gpu_ll_plan q = p;
    if ((rc = parz_gpu_ll_cut(&q, PARZ_LL_PREDICT_ROWS, err)) != PARZ_OK)
      return rc;
    code_segments(q, k, data, by_rows, NULL, NULL);
    if (parz_ll_rows_smaller(all.bytes, all.seg_bytes.size(), by_rows.bytes,
                             by_rows.seg_bytes.size())) {
      parz_gpu_ll_choose(&q, k);
      p = q;
      kept = &by_rows;
      rows_taken++;
    }
  }
  L = kept->L;
  std::vector<uint8_t>& slots = kept->slots;
  const std::vector<unsigned long long>& seg_bytes = kept->seg_bytes;
  std::vector<unsigned long long> seg_bits((size_t)L.nseg), seg_at((size_t)L.nseg + 1);
  seg_at[0] = 0;
  for (size_t s = 0; s < seg_bytes.size(); s++) {
    seg_bits[s] = 8 * seg_bytes[s];
    seg_at[s + 1] = seg_at[s] + seg_bytes[s];
  }
  parz_chunk_view fin;
  size_t head = 0, size = 0;
  rc = parz_gpu_whole_settle(&p.a, &p.v, &cfg, 8 * seg_at.back(), 0, 0, p.v.version, &fin, &head,
                             &size, stored, err);
  if (rc != PARZ_OK || *stored)
    return rc;
  /* the payload's memory holds other bytes before the copy, as the pool's does */
  std::vector<unsigned char> payload(fin.payload_bytes, 0xA5);
  L.seg_at = seg_at.data();
  L.payload = payload.data();
  L.payload_words = fin.payload_bytes / 4;
  /* copy_kernel's CTAs and threads, in reverse; the slots hold other bytes past each segment's */
  for (unsigned long long s = L.nseg; s-- > 0;)
    memset(slots.data() + s * L.slot + seg_bytes[s], 0x5A, (size_t)(L.slot - seg_bytes[s]));
  for (unsigned long long s = L.nseg; s-- > 0;) {
    unsigned long long w0, w1;
    parz_gpu_ll_copy_words(L, s, &w0, &w1);
    for (unsigned long long w = w1; w-- > w0;)
      parz_gpu_ll_copy_word(L, s, w);
  }
  /* the sums as checksum.cu's CTAs add them: partitions at the segments' bit offsets */
  std::vector<uint64_t> sums((size_t)fin.nchecksums);
  for (unsigned long long q = 0; q < fin.nchecksums; q++) {
    const unsigned long long begin = 8 * seg_at[q * fin.checksum_segments];
    const unsigned long long end = q + 1 == fin.nchecksums
                                       ? 8ull * fin.payload_bytes
                                       : 8 * seg_at[(q + 1) * fin.checksum_segments];
    sums[q] = 0;
    for (unsigned lane = 0; lane < 512; lane++)
      sums[q] += parz_checksum_lane(payload.data(), begin, end, lane, 512);
  }
  out.resize(size);
  rc = parz_gpu_whole_head(&fin, seg_bits.data(), NULL, NULL, NULL, sums.data(), out.data(), head,
                           err);
  memcpy(out.data() + head, payload.data(), fin.payload_bytes);
  if (rc == PARZ_OK)
    seals += gpu_seal_same_as_host(fin, 0, seg_bits.data(), NULL, NULL, NULL, sums.data(),
                                   out.data(), head);
  return rc;
}

/* One case: the emulated chunk against parz_chunk_encode's, and decoded bit for bit. */
static void check_case(const char* name, const parz_array& a, const void* data,
                       const parz_chunk_config& cfg, int refused) {
  parz_error e = {0, ""};
  std::vector<unsigned char> got;
  int stored = 0;
  const int rc = emulate(a, data, cfg, got, &stored, &e);
  if (!gpu_encode_same_as_cpu(name, a, data, cfg, refused, rc, e, stored, got))
    return;
  const std::vector<unsigned char> values = ll_contiguous(a, data);
  std::vector<unsigned char> back(values.size());
  CHECK(parz_chunk_decode(got.data(), got.size(), back.data(), back.size(), &e) == PARZ_OK &&
            back == values,
        ": %s: does not decode to its values bit for bit (%s)", name, e.message);
}

int main(int argc, char** argv) {
  check_forward();
  check_codes();
  printf("codes checked; package-merge limited %llu of them\n", pm_builds);
  CHECK(pm_builds > 0, ": no code checked is limited by package-merge");
  const std::vector<ll_case> cases = ll_cases();
  for (const ll_case& c : cases)
    check_case(c.name.c_str(), c.a, c.data.data(), c.cfg, c.refused);
  printf("%zu crafted cases; the row predictor chosen for %llu of %llu\n", cases.size(), rows_taken,
         rows_asked);
  CHECK(rows_taken > 0 && rows_taken < rows_asked,
        ": crafted cases: the row predictor chosen for %llu of %llu", rows_taken, rows_asked);
  printf("a value missed the probe's first scale in %llu, its second too in %llu\n", misfits,
         misfits_twice);
  CHECK(misfits > misfits_twice && misfits_twice > 0,
        ": crafted cases: a value missed the probe's first scale in %llu, its second too in %llu",
        misfits, misfits_twice);
  for (int d = 1; d < argc; d++) {
    size_t m = 0;
    real_array* r = real_arrays_load(argv[d], (size_t)1 << 20, &m);
    for (size_t i = 0; i < m; i++)
      for (unsigned pred = 0; pred <= 1; pred++) {
        char name[160];
        const parz_chunk_config cfg = ll_config(pred);
        snprintf(name, sizeof name, "%s, predictor %u", r[i].name, pred);
        check_case(name, r[i].array, r[i].data, cfg, pred == 0 && parz_gpu_ll_series(&r[i].array));
      }
    printf("%zu arrays of %s\n", m, argv[d]);
    real_arrays_free(r, m);
  }
  printf("package-merge limited %llu codes in all; %llu heads sealed as on the GPU\n", pm_builds,
         seals);
  CHECK(seals > 0, ": no head sealed as on the GPU");
  return test_finish("gpu_lossless_encode_host");
}
