/* The GPU's window paths, run on the CPU: the length parsers of gpu/zfp/block_skip.cuh and the
 * window decoder of gpu/zfp/block_small.cuh are plain device functions, so with the few CUDA
 * intrinsics they use defined here they compile as host C++. This checks them where no GPU is
 * (CI), block by block, which the GPU test (whole chunks) cannot:
 * - every block start the parsers report equals the encoder's block lengths summed, and every
 *   segment ends where the encoder's stream says, for 1D to 4D, every type, fixed accuracy and
 *   precision, reversible (float blocks stored as bit patterns included) and expert settings
 *   with minbits padding, on payloads that end inside a 32-bit word;
 * - the window decoder's values and end equal the general decoder's (parz_decode_block);
 * - the codec's block decoder as the GPU builds it (its plane loop deposits bits one by one,
 *   gpu_planes_host.cpp) equals the CPU's planar one on every block, fixed rate included;
 * - blocks written from the coder's rules with random bits (synthetic), which reach paths that
 *   real data seldom does: the same two checks;
 * - blocks crafted to put the lockstep walk's events at the edge of a step's valid bits, at
 *   every fill of its window (window_edges): both parsers find every block start;
 * - garbage payloads (random bytes, lengths, starts, parameters) neither fault nor hang (run
 *   it under ASan/UBSan to see the first);
 * - the payload checksum's partition bounds and lane shares (checksum.cuh) against the codec,
 *   and a batch run's checksum CTAs (each finds its chunk and partition; their totals are the
 *   stored checksums);
 * - the mask expansion's record step (parz_mask_hop, mask.cuh) against parz_mask_read;
 * - the scatter's division of block indices by a multiply (fast_div.h) against the division,
 *   at the divisors' and numerators' edges and on random ones;
 * - which chunks the decoder takes (view_fits.h): block indices, its last CTA's included, fit
 *   in 32 bits up to PARZ_GPU_BLOCKS_MAX blocks, and a chunk of more is refused with
 *   PARZ_ERR_UNSUPPORTED (the plugin then decodes it on the CPU), as is a mask too large.
 * Usage: test_gpu_parse_host [rounds] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>
#include <vector>

#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
template <class T>
static inline T __ldg(const T* p) {
  return *p;
}

#include "block_small.cuh"
#include "checksum.cuh"
#include "fast_div.h"
#include "gpu_planes_host.h"
#include "mask_block.h"
#include "parz_chunk.h"
#include "view_fits.h"

#include "check.h"

/* The message of a failed check: what, mode, type, rank, block (or bit). */
#define AT_BLOCK "%s: %s, type %d, %uD, block %zu"

template <parz_type T>
using raw_t =
    typename std::conditional<T == PARZ_DOUBLE || T == PARZ_INT64, uint64_t, uint32_t>::type;

/* The block at bit q decoded by the GPU's plane loop (gpu_planes_host.cpp) equals the CPU's
 * planar decode, values and end. */
template <parz_type T, unsigned D>
static void planes_agree(const unsigned char* s, size_t bytes, uint64_t q, const parz_params& p,
                         const char* name, const char* mode, size_t b) {
  raw_t<T> want[256], got[256];
  parz_reader r;
  parz_reader_init(&r, s, bytes, q);
  parz_decode_block(&r, T, D, &p, want);
  const unsigned long long end = gpu_planes_decode(s, bytes, q, T, D, &p, got);
  CHECK(end == parz_reader_tell(&r) && !memcmp(want, got, sizeof(raw_t<T>) << (2 * D)), AT_BLOCK,
        name, mode, (int)T, D, b);
}

template <parz_type T, unsigned D, bool REV>
static unsigned long long skip_small(const unsigned char* s, size_t n, unsigned long long at,
                                     unsigned nb, const parz_params* p, uint32_t* rel) {
  if constexpr (D <= 2)
    return parz_skip_segment_small<T, D, REV>(s, n, at, nb, p, rel);
  else
    return 0;
}

/* Smooth values with noise, zeros, and (every fourth seed) magnitudes far apart within a block,
 * which reversible mode stores as bit patterns. */
static double value(size_t i, int seed) {
  double v = sin((double)i * 0.01 * (seed % 7 + 1)) * 100 + (rand() % 1000) * 1e-3 * (seed % 3);
  if (rand() % 50 == 0 || (seed % 3 == 0 && i % 97 < 40))
    v = 0;
  if (seed % 4 == 1)
    v *= i % 3 == 0 ? 1e-25 : i % 3 == 1 ? 1e6 : 1.0;
  return v;
}

template <parz_type T, unsigned D>
static void check(const parz_params& p, const char* mode, int seed) {
  static const size_t shapes[4][4] = {
      {4003, 0, 0, 0}, {93, 167, 0, 0}, {9, 10, 11, 0}, {5, 6, 7, 9}};
  const bool rev = p.minexp < PARZ_MIN_EXP;
  parz_array a;
  memset(&a, 0, sizeof a);
  a.type = T;
  a.dims = D;
  memcpy(a.shape, shapes[D - 1], sizeof a.shape);
  const size_t n = parz_array_count(&a), nb = parz_block_count(&a), es = parz_type_size(T);
  std::vector<unsigned char> data(n * es);
  srand(seed);
  for (size_t i = 0; i < n; i++) {
    double v = value(i, seed);
    if (T == PARZ_FLOAT) {
      float f = (float)v;
      memcpy(&data[i * 4], &f, 4);
    } else if (T == PARZ_DOUBLE) {
      memcpy(&data[i * 8], &v, 8);
    } else if (T == PARZ_INT32) {
      int32_t x = (int32_t)fmax(-2e9, fmin(2e9, v * 1000));
      memcpy(&data[i * 4], &x, 4);
    } else {
      int64_t x = (int64_t)fmax(-9e18, fmin(9e18, v * 1e6));
      memcpy(&data[i * 8], &x, 8);
    }
  }
  size_t cap = parz_stream_bound(T, D, &p, nb);
  std::vector<unsigned char> s(cap);
  std::vector<uint32_t> len(nb);
  uint64_t bits = 0;
  parz_error e;
  if (parz_encode_blocks(&a, data.data(), &p, 0, nb, s.data(), cap, &bits, len.data(), &e)) {
    CHECK(false, "encode: %s", e.message);
    return;
  }
  const size_t bytes = (bits + 7) / 8; /* the payload ends inside a word */
  uint64_t q = 0;
  for (size_t b = 0; b < nb; q += len[b], b++)
    planes_agree<T, D>(s.data(), bytes, q, p, "GPU plane loop", mode, b);
  if (parz_params_fixed_rate(&p))
    return; /* no parser applies */
  for (unsigned C : {1u, 3u, 32u, 64u}) {
    std::vector<uint32_t> rel(C), rel2(C);
    uint64_t at = 0;
    for (size_t b0 = 0; b0 < nb; b0 += C) {
      const unsigned m = (unsigned)(nb - b0 < C ? nb - b0 : C);
      uint64_t end = at;
      for (unsigned i = 0; i < m; i++)
        end += len[b0 + i];
      const bool small = D <= 2 && parz_skip_small_ok(T, D, &p);
      const bool nested = parz_skip_segment_ok(T, D, &p);
      /* a parser's answer: block starts relative to the segment, and its end */
      auto agrees = [&](unsigned long long got, const std::vector<uint32_t>& starts,
                        const char* name) {
        uint64_t q = at;
        bool ok = got == end;
        for (unsigned i = 0; i < m; q += len[b0 + i], i++)
          ok = ok && starts[i] == q - at;
        CHECK(ok, AT_BLOCK, name, mode, (int)T, D, b0);
      };
      if (small)
        agrees(rev ? skip_small<T, D, true>(s.data(), bytes, at, m, &p, rel.data())
                   : skip_small<T, D, false>(s.data(), bytes, at, m, &p, rel.data()),
               rel, "parz_skip_segment_small");
      if (nested)
        agrees(parz_skip_segment<T, D>(s.data(), bytes, at, m, &p, rel2.data()), rel2,
               "parz_skip_segment");
      if constexpr (D <= 2) {
        if (small && C == 3) {
          uint64_t q = at;
          for (unsigned i = 0; i < m; q += len[b0 + i], i++) {
            raw_t<T> want[16], got[16];
            parz_reader r;
            parz_reader_init(&r, s.data(), bytes, q);
            parz_decode_block(&r, T, D, &p, want);
            unsigned long long endb =
                rev ? parz_decode_block_small<T, D, true>(s.data(), bytes, q, &p, got)
                    : parz_decode_block_small<T, D, false>(s.data(), bytes, q, &p, got);
            CHECK(endb == parz_reader_tell(&r) && !memcmp(want, got, sizeof(raw_t<T>) << (2 * D)),
                  AT_BLOCK, "parz_decode_block_small", mode, (int)T, D, (size_t)(b0 + i));
          }
        }
      }
      at = end;
    }
  }
}

/* Bits appended least significant first, as the payload stores them. */
struct bit_sink {
  std::vector<unsigned char> bytes;
  uint64_t bits = 0;
  void put(unsigned bit) {
    if (bits % 8 == 0)
      bytes.push_back(0);
    bytes.back() |= (unsigned char)((bit & 1u) << (bits % 8));
    bits++;
  }
};

/* Lossy blocks written straight from the bit-plane coder's rules rather than from data: every
 * plane's raw bits random, group tests that are 1 with probability ev/8, runs of zeros of any
 * length up to the last coefficient (which takes no terminating one), headers with exponents
 * that give from 0 to all planes. Real data rarely makes some of these (a long run ending at the
 * last coefficient, runs longer than 31 in 3D and 4D, many events in a plane), yet the parsers
 * have a path for each: the nested parser's path for runs past its window was reached by these
 * streams alone. Every parser that applies must find every block start, and the window decoder
 * must agree with the general decoder on every block's values and end. */
template <parz_type T, unsigned D>
static void synthetic(const parz_params& p, const char* mode, int seed) {
  const bool wide = T == PARZ_DOUBLE || T == PARZ_INT64;
  const bool header = T == PARZ_FLOAT || T == PARZ_DOUBLE;
  const unsigned size = 1u << (2 * D), intprec = wide ? 64u : 32u, ebits = wide ? 11u : 8u;
  const int ebias = wide ? 1023 : 127;
  srand(seed);
  for (unsigned ev = 1; ev < 8; ev += 2) {
    const unsigned nb = 200;
    bit_sink out;
    std::vector<uint64_t> start(nb + 1);
    for (unsigned b = 0; b < nb; b++) {
      start[b] = out.bits;
      unsigned planes = PARZ_MIN(p.maxprec, intprec);
      if (header) {
        const bool nz = rand() % 10 != 0;
        out.put(nz);
        if (!nz)
          continue; /* minbits <= 1: no padding */
        const int draw = p.minexp - 2 * ((int)D + 1) - 2 + rand() % (int)(intprec + 6);
        const int emax = PARZ_MAX(1 - ebias, PARZ_MIN(ebias, draw));
        const unsigned e = (unsigned)(emax + ebias);
        for (unsigned k = 0; k < ebits; k++)
          out.put(e >> k);
        planes = PARZ_MIN(parz_block_precision(emax, p.maxprec, p.minexp, D), intprec);
      }
      unsigned n = 0;
      for (unsigned k = 0; k < planes; k++) {
        for (unsigned r = 0; r < n; r++)
          out.put((unsigned)rand());
        while (n < size) {
          const bool one = (unsigned)rand() % 8 < ev;
          out.put(one);
          if (!one)
            break;
          /* the next significant coefficient: near, or (one time in four) anywhere up to the
           * last */
          unsigned j = n + (rand() % 4 ? (unsigned)rand() % 3 : (unsigned)rand() % (size - n));
          j = PARZ_MIN(j, size - 1);
          for (unsigned z = n; z < j; z++)
            out.put(0);
          if (j < size - 1)
            out.put(1);
          n = j + 1;
        }
      }
    }
    start[nb] = out.bits;
    const size_t bytes = (start[nb] + 7) / 8; /* the payload ends inside a word */
    for (unsigned b = 0; b < nb; b++)
      planes_agree<T, D>(out.bytes.data(), bytes, start[b], p, "synthetic, GPU plane loop", mode,
                         b);
    for (unsigned C : {7u, 64u}) {
      std::vector<uint32_t> rel(C);
      for (unsigned b0 = 0; b0 < nb; b0 += C) {
        const unsigned m = PARZ_MIN(C, nb - b0);
        auto agrees = [&](unsigned long long got, const char* name) {
          bool ok = got == start[b0 + m];
          for (unsigned i = 0; i < m; i++)
            ok = ok && rel[i] == start[b0 + i] - start[b0];
          CHECK(ok, AT_BLOCK, name, mode, (int)T, D, (size_t)b0);
        };
        if (D <= 2 && parz_skip_small_ok(T, D, &p))
          agrees(skip_small<T, D, false>(out.bytes.data(), bytes, start[b0], m, &p, rel.data()),
                 "synthetic, parz_skip_segment_small");
        if (parz_skip_segment_ok(T, D, &p))
          agrees(parz_skip_segment<T, D>(out.bytes.data(), bytes, start[b0], m, &p, rel.data()),
                 "synthetic, parz_skip_segment");
      }
    }
    if constexpr (D <= 2) {
      if (parz_skip_small_ok(T, D, &p)) {
        for (unsigned b = 0; b < nb; b++) {
          raw_t<T> want[16], got[16];
          parz_reader r;
          parz_reader_init(&r, out.bytes.data(), bytes, start[b]);
          parz_decode_block(&r, T, D, &p, want);
          const unsigned long long end =
              parz_decode_block_small<T, D, false>(out.bytes.data(), bytes, start[b], &p, got);
          CHECK(end == parz_reader_tell(&r) && end == start[b + 1] &&
                    !memcmp(want, got, sizeof(raw_t<T>) << (2 * D)),
                AT_BLOCK, "synthetic, parz_decode_block_small", mode, (int)T, D, (size_t)b);
        }
      }
    }
  }
}

/* Blocks whose events sit at every place of the lockstep walk's window (parz_skip_small_walk):
 * a header (lossy or reversible, of every type), a first plane that makes n0 coefficients
 * significant, c planes that add none, then a plane with two events back to back -- a run of z
 * zeros and its terminating one, then a run of z2 zeros that ends at the last coefficient
 * (z2 == lim2, no terminating one) or before it -- then planes of raw bits. The n0, c, z and
 * z2 move the first event's stop bit and the second event's last bit across V = 32 - hadv, in
 * header steps (hadv > 0 but for lossy integers) and in the steps after them (hadv = 0); 0 to
 * 31 pad bits before the first block give each step every fill of the window (a step's bits
 * past V are the window's bits 32 and up, which read as zeros until they are loaded). The serial decoder must end each block where it was written, and both
 * parsers must find every block start, from segments of 3 blocks. */
template <parz_type T, unsigned D, bool REV>
static void window_edges(const parz_params& p, const char* mode) {
  const bool wide = T == PARZ_DOUBLE || T == PARZ_INT64;
  const bool header = T == PARZ_FLOAT || T == PARZ_DOUBLE;
  const unsigned size = 1u << (2 * D);
  const unsigned ebits = wide ? 11u : 8u, pbits = wide ? 6u : 5u, ebias = wide ? 1023u : 127u;
  const unsigned planes = 32; /* lossy: precision 32 with a block exponent of 1 */
  CHECK(parz_skip_small_ok(T, D, &p), AT_BLOCK, "window edges: no lockstep walk", mode, (int)T, D,
        (size_t)0);
  for (unsigned n0 : {0u, 1u, 3u, 7u}) {
    if (n0 >= size - 1)
      continue;
    bit_sink out;
    auto put = [&](uint64_t v, unsigned k) {
      for (unsigned i = 0; i < k; i++)
        out.put((unsigned)(v >> i));
    };
    std::vector<uint64_t> start;
    /* c up to every plane but the first and the events': a step that starts on raw bits after
     * a window of quiet planes meets more quiet planes before its first event */
    for (unsigned c = 0; c + 2 < planes; c++)
      for (unsigned z = 0; z + 1 < size - n0; z++)
        for (unsigned z2 = 0; z2 <= size - n0 - 2 - z; z2++) {
          start.push_back(out.bits);
          if (REV) {
            if (header) {
              put(1, 1); /* nonzero */
              put(0, 1); /* block floating point, not bit patterns */
              put(ebias, ebits);
            }
            put(planes - 1, pbits);
          } else if (header) {
            put(1, 1);
            put(ebias + 1, ebits);
          }
          unsigned n = 0;
          for (unsigned k = 0; k < planes; k++) {
            for (unsigned r = 0; r < n; r++)
              out.put((unsigned)rand());
            if (n == size)
              continue;
            if (k == 0 && n0) {
              /* n0 significant: a one test, n0 - 1 zeros, the terminating one */
              put(1, 1);
              put(0, n0 - 1);
              put(1, 1);
              n = n0;
            } else if (k == c + (n0 ? 1u : 0u)) {
              const unsigned lim2 = size - 1 - (n + z + 1);
              put(1, 1);
              put(0, z);
              put(1, 1);
              put(1, 1);
              put(0, z2);
              if (z2 < lim2)
                put(1, 1);
              n += z + 1 + z2 + 1;
            }
            if (n < size)
              put(0, 1); /* the plane's last group test */
          }
        }
    const size_t nb = start.size();
    start.push_back(out.bits);
    const size_t bytes = (out.bits + 7) / 8;
    for (size_t b = 0; b < nb; b++) {
      raw_t<T> v[16];
      parz_reader r;
      parz_reader_init(&r, out.bytes.data(), bytes, start[b]);
      parz_decode_block(&r, T, D, &p, v);
      CHECK(parz_reader_tell(&r) == start[b + 1], AT_BLOCK, "window edges, serial decoder", mode,
            (int)T, D, b);
    }
    /* the same blocks after pad bits (0x5a...: never parsed) */
    for (unsigned pad = 0; pad < 32; pad++) {
      std::vector<unsigned char> moved(bytes + 5);
      const unsigned sh = pad % 8;
      for (size_t j = 0; j < moved.size(); j++) {
        const size_t i = j - pad / 8;
        const unsigned hi = j < pad / 8 || i >= bytes ? 0u : out.bytes[i];
        const unsigned lo = j <= pad / 8 || i - 1 >= bytes ? 0x5au : out.bytes[i - 1];
        moved[j] = (unsigned char)(j < pad / 8 ? 0x5a : (hi << sh | lo >> (8 - sh)));
      }
      const unsigned char* s = moved.data();
      const size_t sbytes = (out.bits + pad + 7) / 8;
      const unsigned C = 3;
      uint32_t rel[C];
      for (size_t b0 = 0; b0 < nb; b0 += C) {
        const unsigned m = (unsigned)PARZ_MIN(C, nb - b0);
        auto agrees = [&](unsigned long long got, const char* name) {
          bool ok = got == start[b0 + m] + pad;
          for (unsigned i = 0; i < m; i++)
            ok = ok && rel[i] == start[b0 + i] - start[b0];
          CHECK(ok, AT_BLOCK ", pad %u", name, mode, (int)T, D, b0, pad);
        };
        agrees(parz_skip_segment_small<T, D, REV>(s, sbytes, start[b0] + pad, m, &p, rel),
               "window edges, parz_skip_segment_small");
        if (!REV)
          agrees(parz_skip_segment<T, D>(s, sbytes, start[b0] + pad, m, &p, rel),
                 "window edges, parz_skip_segment");
      }
    }
  }
}

/* Every type of value, 1D and 2D, in one mode. */
template <bool REV>
static void window_edges_types(const parz_params& p, const char* mode) {
  window_edges<PARZ_FLOAT, 1, REV>(p, mode);
  window_edges<PARZ_FLOAT, 2, REV>(p, mode);
  window_edges<PARZ_DOUBLE, 1, REV>(p, mode);
  window_edges<PARZ_DOUBLE, 2, REV>(p, mode);
  window_edges<PARZ_INT32, 1, REV>(p, mode);
  window_edges<PARZ_INT32, 2, REV>(p, mode);
  window_edges<PARZ_INT64, 1, REV>(p, mode);
  window_edges<PARZ_INT64, 2, REV>(p, mode);
}

static void window_edges_all(void) {
  parz_params p;
  parz_params_precision(&p, 32, NULL);
  window_edges_types<false>(p, "precision 32");
  parz_params_reversible(&p);
  window_edges_types<true>(p, "reversible");
}

template <unsigned D>
static void each_type(const parz_params& p, const char* mode, int seed) {
  check<PARZ_FLOAT, D>(p, mode, seed);
  check<PARZ_DOUBLE, D>(p, mode, seed);
  check<PARZ_INT32, D>(p, mode, seed);
  check<PARZ_INT64, D>(p, mode, seed);
  if (p.minexp >= PARZ_MIN_EXP && p.minbits <= 1 && (D <= 2 || seed == 1)) {
    synthetic<PARZ_FLOAT, D>(p, mode, seed);
    synthetic<PARZ_DOUBLE, D>(p, mode, seed);
    synthetic<PARZ_INT32, D>(p, mode, seed);
    synthetic<PARZ_INT64, D>(p, mode, seed);
  }
}

static void each_rank(const parz_params& p, const char* mode, int seed) {
  each_type<1>(p, mode, seed);
  each_type<2>(p, mode, seed);
  each_type<3>(p, mode, seed);
  each_type<4>(p, mode, seed);
}

template <parz_type T, unsigned D>
static void garbage(const unsigned char* d, size_t n, const parz_params& p, unsigned nb,
                    unsigned long long start) {
  std::vector<uint32_t> rel(nb);
  raw_t<T> out[16];
  const bool rev = p.minexp < PARZ_MIN_EXP;
  if (rev)
    parz_skip_segment_small<T, D, true>(d, n, start, nb, &p, rel.data());
  else
    parz_skip_segment_small<T, D, false>(d, n, start, nb, &p, rel.data());
  for (unsigned i = 0; i < nb; i++) {
    if (rev)
      parz_decode_block_small<T, D, true>(d, n, start + rel[i], &p, out);
    else
      parz_decode_block_small<T, D, false>(d, n, start + rel[i], &p, out);
  }
}

/* A chunk of 93 x 167 floats in the table layout (kind, C, P), with payload checksums unless
 * `off`; empty when its encoding fails. */
static std::vector<unsigned char> checksum_chunk(parz_table_kind kind, unsigned C, unsigned P,
                                                 int seed, int off) {
  parz_array a;
  memset(&a, 0, sizeof a);
  a.type = PARZ_FLOAT;
  a.dims = 2;
  a.shape[0] = 93;
  a.shape[1] = 167;
  const size_t n = parz_array_count(&a);
  std::vector<float> data(n);
  for (size_t i = 0; i < n; i++)
    data[i] = (float)value(i, seed);
  parz_chunk_config cfg;
  memset(&cfg, 0, sizeof cfg);
  if (kind == PARZ_TABLE_NONE)
    parz_params_rate(&cfg.params, 9.5, a.type, a.dims, NULL, NULL);
  else
    parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL);
  cfg.table = kind;
  cfg.segment_blocks = C;
  cfg.partition_segments = P;
  cfg.checksum = off ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_ON;
  std::vector<unsigned char> chunk(parz_chunk_bound_data(&a, data.data(), &cfg));
  size_t bytes = 0;
  if (parz_chunk_encode(&a, data.data(), &cfg, chunk.data(), chunk.size(), &bytes, NULL) != PARZ_OK)
    bytes = 0;
  chunk.resize(bytes);
  return chunk;
}

/* The checksum launches' view of chunk v (checksum.cuh), its segment offsets as the offsets
 * kernel writes them. */
static parz_gpu_sums sums_of(const parz_chunk_view& v, std::vector<unsigned long long>* offsets) {
  offsets->resize(v.nsegments + 1);
  for (uint64_t s = 0; s <= v.nsegments; s++)
    (*offsets)[s] = parz_chunk_segment_offset(&v, s);
  parz_gpu_sums sums;
  sums.sums = v.checksums;
  sums.table = v.table == PARZ_TABLE_HYBRID ? v.table_data : NULL;
  sums.offsets = offsets->data();
  sums.record_bytes = 8 + ((v.length_bytes * (unsigned long long)v.partition_segments + 7) & ~7ull);
  sums.P = v.checksum_segments;
  sums.count = v.nchecksums;
  sums.payload_end = 8ull * v.payload_bytes;
  return sums;
}

static const struct {
  parz_table_kind kind;
  unsigned C, P;
} checksum_layouts[] = {{PARZ_TABLE_AUTO, 0, 0},    {PARZ_TABLE_HYBRID, 1, 3},
                        {PARZ_TABLE_HYBRID, 7, 64}, {PARZ_TABLE_OFFSETS, 2, 0},
                        {PARZ_TABLE_LENGTHS, 5, 0}, {PARZ_TABLE_NONE, 3, 0}};

/* The GPU's payload checksum arithmetic (checksum.cuh) on the CPU: in chunks of every table
 * kind (the HYBRID table giving the partitions' bounds, the other kinds the segment offsets as
 * the offsets kernel writes them), each partition's bounds are the codec's, its 32 lane shares
 * add up to the stored checksum, and a flipped payload bit changes the sum of the partition
 * holding it and of no other. */
static void checksums(int seed) {
  for (const auto& l : checksum_layouts) {
    std::vector<unsigned char> chunk = checksum_chunk(l.kind, l.C, l.P, seed, 0);
    parz_chunk_view v;
    if (chunk.empty() || parz_chunk_parse(chunk.data(), chunk.size(), &v, NULL) != PARZ_OK ||
        !v.nchecksums) {
      CHECK(false, AT_BLOCK, "checksum chunk", "accuracy", (int)PARZ_FLOAT, 2u, (size_t)0);
      continue;
    }
    std::vector<unsigned long long> offsets;
    const parz_gpu_sums sums = sums_of(v, &offsets);
    auto total = [&](const unsigned char* payload, unsigned long long p) {
      unsigned long long sum = 0;
      for (unsigned lane = 0; lane < 32; lane++)
        sum += parz_gpu_checksum_share(sums, payload, p, lane);
      return sum;
    };
    for (unsigned long long p = 0; p < v.nchecksums; p++) {
      unsigned long long begin, end;
      parz_gpu_partition_bits(sums, p, &begin, &end);
      CHECK(begin == parz_chunk_segment_offset(&v, p * v.checksum_segments) &&
                end == (p + 1 == v.nchecksums ? 8ull * v.payload_bytes
                                              : parz_chunk_segment_offset(&v, (p + 1) * sums.P)) &&
                parz_gpu_checksum_ok(sums, p, total(v.payload, p)),
            AT_BLOCK, "checksum partition", "accuracy", (int)PARZ_FLOAT, 2u, (size_t)p);
    }
    std::vector<unsigned char> bad(v.payload, v.payload + v.payload_bytes);
    for (int flip = 0; flip < 64; flip++) {
      const unsigned long long bit = (unsigned long long)rand() % (8ull * v.payload_bytes);
      bad[bit / 8] ^= (unsigned char)(1u << (bit % 8));
      for (unsigned long long p = 0; p < v.nchecksums; p++) {
        unsigned long long begin, end;
        parz_gpu_partition_bits(sums, p, &begin, &end);
        CHECK(parz_gpu_checksum_ok(sums, p, total(bad.data(), p)) != (bit >= begin && bit < end),
              AT_BLOCK, "checksum after a flip", "accuracy", (int)PARZ_FLOAT, 2u, (size_t)bit);
      }
      bad[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    }
  }
}

/* A batch run's checksum launch (checksum.cuh, parz_gpu_run_chunk and parz_gpu_run_share) on
 * the CPU: the chunks of every table layout, chunks without checksums among them (no CTAs: at
 * the run's start, middle and end), each chunk's partitions spread over `per` CTAs, its own
 * (parz_gpu_run_per) and others forced: every CTA of the launch finds the chunk that owns it,
 * each partition's CTAs' totals add up to its stored checksum, and a flipped payload bit fails
 * the partition holding it and no other. */
static void run_checksums(int seed) {
  std::vector<std::vector<unsigned char>> chunks;
  chunks.push_back(checksum_chunk(PARZ_TABLE_AUTO, 0, 0, seed, 1));
  for (const auto& l : checksum_layouts) {
    chunks.push_back(checksum_chunk(l.kind, l.C, l.P, seed, 0));
    if (l.kind == PARZ_TABLE_OFFSETS)
      chunks.push_back(checksum_chunk(l.kind, l.C, l.P, seed + 1, 1));
  }
  chunks.push_back(checksum_chunk(PARZ_TABLE_HYBRID, 1, 2, seed + 2, 1));
  const size_t n = chunks.size();
  std::vector<parz_chunk_view> v(n);
  std::vector<std::vector<unsigned long long>> offsets(n);
  for (size_t i = 0; i < n; i++)
    if (chunks[i].empty() ||
        parz_chunk_parse(chunks[i].data(), chunks[i].size(), &v[i], NULL) != PARZ_OK) {
      CHECK(false, ": run checksums: chunk %zu", i);
      return;
    }
  for (unsigned long long force : {0ull, 1ull, 3ull, 40ull}) {
    std::vector<parz_gpu_run_sums> r(n);
    std::vector<std::vector<unsigned char>> payloads(n);
    unsigned long long ctas = 0;
    for (size_t i = 0; i < n; i++) {
      payloads[i].assign(v[i].payload, v[i].payload + v[i].payload_bytes);
      memset(&r[i], 0, sizeof r[i]);
      r[i].sums = sums_of(v[i], &offsets[i]);
      r[i].payload = payloads[i].data();
      r[i].end = v[i].nchecksums;
      r[i].cta = ctas;
      r[i].per = force ? force : v[i].nchecksums ? parz_gpu_run_per(v[i].payload_bytes, v[i].nchecksums) : 1;
      ctas += r[i].per * r[i].end;
    }
    /* each partition's CTAs' totals, as run_check_kernel adds them */
    auto verify = [&](size_t* bad_chunk, unsigned long long* bad_p, size_t* fails) {
      std::vector<unsigned long long> part(ctas);
      for (unsigned long long g = 0; g < ctas; g++) {
        const unsigned i = parz_gpu_run_chunk(r.data(), (unsigned)n, g);
        const parz_gpu_run_sums& c = r[i];
        CHECK(c.cta <= g && g < c.cta + c.per * (c.end - c.first),
              ": run checksums (per %llu): CTA %llu in chunk %u", force, g, i);
        unsigned long long sum = 0, p = 0;
        for (unsigned t = 0; t < PARZ_GPU_RUN_THREADS; t++)
          sum += parz_gpu_run_share(c, g, t, &p);
        CHECK(p == c.first + (g - c.cta) / c.per,
              ": run checksums (per %llu): CTA %llu's partition %llu", force, g, p);
        part[g] = sum;
      }
      *fails = 0;
      for (size_t i = 0; i < n; i++)
        for (unsigned long long p = r[i].first; p < r[i].end; p++) {
          unsigned long long sum = 0;
          for (unsigned long long j = 0; j < r[i].per; j++)
            sum += part[r[i].cta + (p - r[i].first) * r[i].per + j];
          if (!parz_gpu_checksum_ok(r[i].sums, p, sum)) {
            ++*fails;
            *bad_chunk = i;
            *bad_p = p;
          }
        }
    };
    size_t fails = 0, bad_chunk = n;
    unsigned long long bad_p = 0;
    verify(&bad_chunk, &bad_p, &fails);
    CHECK(fails == 0, ": run checksums (per %llu): %zu partitions fail, chunk %zu's %llu", force,
          fails, bad_chunk, bad_p);
    for (size_t i = 0; i < n; i++) {
      if (!v[i].nchecksums)
        continue;
      const unsigned long long bit = (unsigned long long)rand() % (8ull * v[i].payload_bytes);
      payloads[i][bit / 8] ^= (unsigned char)(1u << (bit % 8));
      unsigned long long p = 0, begin, end;
      do
        parz_gpu_partition_bits(r[i].sums, p, &begin, &end);
      while (!(bit >= begin && bit < end) && ++p < v[i].nchecksums);
      bad_chunk = n;
      verify(&bad_chunk, &bad_p, &fails);
      CHECK(fails == 1 && bad_chunk == i && bad_p == p,
            ": run checksums (per %llu): bit %llu of chunk %zu (partition %llu): %zu fail, "
            "chunk %zu's %llu",
            force, bit, i, p, fails, bad_chunk, bad_p);
      payloads[i][bit / 8] ^= (unsigned char)(1u << (bit % 8));
    }
  }
}

/* The chunks parz_gpu_view_fits takes and refuses, at its limits (no such chunk can be
 * allocated here: views alone). */
static void view_limits(void) {
  parz_chunk_view v;
  parz_error e;
  memset(&v, 0, sizeof v);
  /* block_kernel covers blocks [first * C, block_end) with CTAs of 128 threads from first * C:
   * the last thread's index is at most block_end + 126 */
  v.nblocks = PARZ_GPU_BLOCKS_MAX;
  CHECK(v.nblocks + 126 <= UINT32_MAX, "%llu blocks: the last CTA's indices pass 2^32",
        (unsigned long long)v.nblocks);
  CHECK(parz_gpu_view_fits(&v, 0, &e) == PARZ_OK, "%llu blocks refused: %s",
        (unsigned long long)v.nblocks, e.message);
  for (uint64_t n : {PARZ_GPU_BLOCKS_MAX + 1, (uint64_t)1 << 32, (uint64_t)1 << 40}) {
    v.nblocks = n;
    e.message[0] = 0;
    CHECK(parz_gpu_view_fits(&v, 3, &e) == PARZ_ERR_UNSUPPORTED && strstr(e.message, "chunk 3: ") &&
              strstr(e.message, "blocks"),
          "%llu blocks: not refused (%s)", (unsigned long long)n, e.message);
  }
  v.nblocks = 1;
  v.mask.record_bytes = PARZ_GPU_MASK_NONE - 1;
  CHECK(parz_gpu_view_fits(&v, 0, &e) == PARZ_OK, "a mask of %llu bytes refused: %s",
        (unsigned long long)v.mask.record_bytes, e.message);
  v.mask.record_bytes = PARZ_GPU_MASK_NONE;
  CHECK(parz_gpu_view_fits(&v, 0, &e) == PARZ_ERR_UNSUPPORTED, "a mask of %llu bytes taken",
        (unsigned long long)v.mask.record_bytes);
}

/* parz_fast_div_of against / for divisors from 1 to 2^32 - 1: every power of two and its
 * neighbours, small ones, random ones; numerators at 0, around multiples of the divisor, at the
 * top of the range and random. */
static void fast_divisions(int seed) {
  std::vector<uint32_t> ds;
  for (uint32_t d = 1; d < 2000; d++)
    ds.push_back(d);
  for (unsigned l = 1; l < 32; l++)
    for (int e = -1; e <= 1; e++)
      ds.push_back((uint32_t)(((uint64_t)1 << l) + e));
  ds.push_back(0xffffffffu);
  srand((unsigned)seed);
  for (int i = 0; i < 2000; i++)
    ds.push_back((uint32_t)((((uint64_t)rand() << 16) ^ (uint64_t)rand()) >> (rand() % 24)) | 1u);
  for (uint32_t d : ds) {
    const parz_fast_div f = parz_fast_div_make(d);
    std::vector<uint32_t> ns = {
        0u, 1u, d - 1u, d, 0xffffffffu, 0xfffffffeu, 0xffffffffu / d * d, 0xffffffffu / d * d - 1u};
    for (int k = 0; k < 64; k++)
      ns.push_back(
          (uint32_t)(((uint64_t)rand() << 17) ^ ((uint64_t)rand() << 2) ^ (uint64_t)rand()));
    for (uint32_t n : ns)
      CHECK(parz_fast_div_of(n, f) == n / d, "parz_fast_div_of(%u) by %u: %u", n, d,
            parz_fast_div_of(n, f));
  }
}

/* The mask expansion's step (parz_mask_hop, gpu/mask.cuh) against parz_mask_read: records of
 * both kinds for every rank, one value and several, skips and counts whose varints take one to
 * five bytes; at every record start of the stream and of every truncation of it, a step that
 * answers gives the reader's fields and next record, and one that does not is a record the
 * reader refuses or whose varint is longer than three bytes. */
static void mask_hops(int seed) {
  srand(seed);
  for (unsigned dims = 1; dims <= 4; dims++)
    for (unsigned V : {1u, 3u}) {
      std::vector<unsigned char> recs;
      std::vector<uint32_t> starts;
      for (int i = 0; i < 300; i++) {
        const unsigned big = rand() % 10;
        const uint64_t skip = big == 0   ? (uint64_t)rand() << 8
                              : big == 1 ? rand() % 20000
                                         : rand() % 3;
        const bool bitmap = rand() % 2;
        unsigned char tmp[16];
        starts.push_back((uint32_t)recs.size());
        unsigned k = parz_mask_put_varint(tmp, skip << 1 | (bitmap ? 1u : 0u));
        recs.insert(recs.end(), tmp, tmp + k);
        unsigned idx = V > 1 ? 1u : 0u;
        if (bitmap) {
          idx = 0;
          for (unsigned j = 0; j < parz_mask_bitmap_bytes(dims); j++) {
            const unsigned char x = (unsigned char)(j == 0 ? 1 | rand() : rand());
            recs.push_back(x);
            idx += V > 1 ? (unsigned)__builtin_popcount(x) : 0u;
          }
        } else {
          const uint64_t m = big == 2   ? (uint64_t)rand() << 12
                             : big == 3 ? rand() % 70000
                                        : rand() % 5;
          k = parz_mask_put_varint(tmp, m);
          recs.insert(recs.end(), tmp, tmp + k);
        }
        for (unsigned j = 0; j < idx; j++)
          recs.push_back((unsigned char)(rand() % V));
      }
      const uint32_t full = (uint32_t)recs.size();
      for (uint32_t n : {full, full - 1, full - 2, full - 7, full - 33, full / 2}) {
        for (uint32_t at : starts) {
          if (at >= n)
            continue;
          parz_mask_record r;
          const int ok = parz_mask_read(recs.data() + at, recs.data() + n, dims, V, &r);
          uint32_t skip = 0, count = 0;
          const uint32_t next = parz_mask_hop(recs.data(), n, at, dims, V, &skip, &count);
          if (next)
            CHECK(ok && r.skip == skip && r.count == count && r.next == recs.data() + next,
                  "parz_mask_hop: %uD, %u values, record at %u of %u bytes", dims, V, at, n);
          else
            CHECK(!ok || r.skip >= (1u << 20) || r.count > (1u << 21),
                  "parz_mask_hop: %uD, %u values, record at %u of %u bytes refused", dims, V, at,
                  n);
        }
      }
    }
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 3;
  view_limits();
  for (unsigned k = 0; k < 16; k++)
    parz_tests_sh[k] = parz_test_pattern(k);
  srand(11);
  window_edges_all();
  for (int seed = 1; seed <= rounds; seed++) {
    parz_params p;
    parz_params_reversible(&p);
    each_rank(p, "reversible", seed);
    for (double tol : {1e-4, 1e-2, 1.0, 100.0}) {
      parz_params_accuracy(&p, tol, NULL, NULL);
      each_rank(p, "accuracy", seed);
    }
    for (unsigned prec : {1u, 5u, 16u, 32u, 64u}) {
      parz_params_precision(&p, prec, NULL);
      each_rank(p, "precision", seed);
    }
    parz_params_expert(&p, 200, 20000, 20, -1074, NULL); /* pads to minbits */
    each_rank(p, "expert, minbits 200", seed);
    parz_params_expert(&p, 90, 20000, 64, -30, NULL);
    each_rank(p, "expert, minbits 90", seed);
    /* fixed rate: the budget ends blocks inside a plane (only the plane loop is checked) */
    for (double rate : {3.0, 12.5}) {
      parz_params_rate(&p, rate, PARZ_FLOAT, 3, NULL, NULL);
      each_rank(p, "fixed rate", seed);
    }
    checksums(seed);
    run_checksums(seed);
    mask_hops(seed);
    fast_divisions(seed);
  }
  /* garbage: only termination and bounds are at stake (no expected values) */
  srand(7);
  for (int it = 0; it < 2000 * rounds; it++) {
    const size_t n = 4 * (size_t)(rand() % 40) + (size_t)(rand() % 4);
    std::vector<unsigned char> d(n + 1);
    for (size_t i = 0; i < n; i++)
      d[i] = rand() % 3 == 0 ? 0xff : (unsigned char)rand();
    std::vector<unsigned char> exact(d.begin(), d.begin() + (ptrdiff_t)n); /* ASan sees n */
    parz_params p;
    switch (rand() % 4) {
      case 0: parz_params_accuracy(&p, ldexp(1.0, rand() % 40 - 20), NULL, NULL); break;
      case 1: parz_params_precision(&p, 1 + rand() % 64, NULL); break;
      case 2:
        parz_params_expert(&p, rand() % 300, 20000, 1 + rand() % 64, -1074 + rand() % 1100, NULL);
        break;
      default: parz_params_reversible(&p);
    }
    const unsigned nb = 1 + rand() % 40;
    const unsigned long long start = n ? (unsigned long long)(rand() % (8 * n + 64)) : 0;
    const unsigned char* q = n ? exact.data() : d.data();
    switch (rand() % 8) {
      case 0: garbage<PARZ_FLOAT, 1>(q, n, p, nb, start); break;
      case 1: garbage<PARZ_FLOAT, 2>(q, n, p, nb, start); break;
      case 2: garbage<PARZ_DOUBLE, 1>(q, n, p, nb, start); break;
      case 3: garbage<PARZ_DOUBLE, 2>(q, n, p, nb, start); break;
      case 4: garbage<PARZ_INT32, 1>(q, n, p, nb, start); break;
      case 5: garbage<PARZ_INT32, 2>(q, n, p, nb, start); break;
      case 6: garbage<PARZ_INT64, 1>(q, n, p, nb, start); break;
      default: garbage<PARZ_INT64, 2>(q, n, p, nb, start);
    }
    checks++;
  }
  return test_finish("test_gpu_parse_host");
}
