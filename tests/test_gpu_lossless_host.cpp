/* The lossless codec's GPU decoder, its threads' steps run on the CPU: a segment decoded as
 * segments_kernel decodes it (gpu/lossless/lossless_decode.cu), through the steps of
 * gpu/lossless/lossless_runs.cuh in the kernel's order (its head, a code per context, every fast
 * table entry, the runs' starts, each run's reader), against the serial decoder
 * (parz_ll_uncode_residuals): the same residuals where it takes a segment, a refusal where it
 * refuses one. The segments are every coder's (raw, bit lengths, in context, runs, runs with
 * empty runs, runs of 2^4 to 2^12) of residuals of many shapes, at each of the four alignments
 * of their bytes, and the same segments with flipped bits, cut, lengthened and with lying run
 * lengths. The kernel's set-up of a code by a warp (gpu/lossless/warp_code.cuh) runs on 32
 * threads, its collectives exchanged between them, against parz_gpu_ll_code_setup field by field
 * (crafted lengths, long segments' lengths and the same with bits flipped). The blocks' division
 * by multiplication (parz_gpu_ll_div) is checked for every value and extent of a block.
 * This checks where no GPU is (CI) the reader that test_gpu_lossless checks on the device. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "check.h"
#include "lossless_runs.cuh"
#include "warp_code.cuh"
extern "C" { /* a C header without C++ guards */
#include "residual_coder.h"
}
#include "xorshift.h"

/* A run's n residuals into z through reader rd (next, then end's check of where its bits end):
 * whether it takes them. */
template <typename R>
static bool read_run(R* rd, int (*next)(R*, uint64_t*), int (*end)(const R*), uint64_t* z,
                     unsigned long long n) {
  bool ok = true;
  for (unsigned long long i = 0; i < n && ok; i++)
    ok = next(rd, &z[i]) == PARZ_LL_OK;
  return ok && end(rd) == PARZ_LL_OK;
}

/* Segment src (bytes long, n residuals of w bits) decoded by the kernel's steps into z, each
 * run by the reader of the segment's bytes or (copied) of its copy into words, as the kernel's
 * CTA copies it: whether it takes the segment. */
static bool gpu_segment(const uint8_t* src, size_t bytes, size_t n, unsigned w,
                        std::vector<uint64_t>& z, int copied = 0) {
  parz_gpu_ll_head h;
  z.assign(n, 0);
  if (!bytes || !parz_gpu_ll_head_read(src, bytes, n, w, &h))
    return false;
  if (h.coder == PARZ_LL_CODER_RAW) {
    for (size_t i = 0; i < n; i++)
      z[i] = parz_ll_raw_residual(src + 1, i, w);
    return true;
  }
  std::vector<parz_huff_decoder> code(h.nc);
  const unsigned cw = parz_gpu_ll_code_words(w);
  std::vector<uint32_t> mem(h.nc * cw);
  std::vector<uint16_t> fast(h.nc * PARZ_LL_TABLE_SIZE);
  for (unsigned c = 0; c < h.nc; c++) /* a thread per context */
    if (parz_gpu_ll_code_setup(parz_gpu_ll_lengths(src, &h), (size_t)h.lengths_bytes, w, c,
                               &code[c], &mem[c * cw]) != PARZ_LL_OK)
      return false;
  for (unsigned c = 0; c < h.nc; c++) /* threads of a context, each every 7th entry */
    for (unsigned from = 7; from-- > 0;)
      parz_gpu_ll_fast_fill(&code[c], h.nc, &fast[c * PARZ_LL_TABLE_SIZE], from, 7);
  for (size_t i = 0; i < fast.size(); i++)
    CHECK(fast[i] == parz_gpu_ll_fast_entry(&code[i >> PARZ_LL_TABLE_BITS], h.nc,
                                            i & (PARZ_LL_TABLE_SIZE - 1)),
          ": context %zu, entry %zu: %#x, the canonical decode's %#x", i >> PARZ_LL_TABLE_BITS,
          i & (PARZ_LL_TABLE_SIZE - 1), (unsigned)fast[i],
          (unsigned)parz_gpu_ll_fast_entry(&code[i >> PARZ_LL_TABLE_BITS], h.nc,
                                           i & (PARZ_LL_TABLE_SIZE - 1)));
  unsigned long long told = 0;
  for (unsigned long long r = 0; r + 1 < h.runs; r++)
    told += parz_ll_run_bytes(src, (size_t)h.lengths_bytes, (size_t)r);
  if (h.first + told > bytes)
    return false;
  const unsigned lead = (unsigned)((uintptr_t)src & 3u);
  const size_t nwords = (bytes + lead + 3) / 4;
  std::vector<uint32_t> words(nwords + 2, 0xA5A5A5A5u);
  for (size_t j = 0; j < nwords + 2; j++)
    words[j] = parz_gpu_ll_word(src, bytes, lead, j);
  unsigned long long start = h.first;
  bool ok = true;
  for (unsigned long long r = h.runs; r-- > 0;) { /* the runs are independent: last first */
    const unsigned long long len = parz_gpu_ll_run_len(src, bytes, &h, r, told);
    start = h.first;
    for (unsigned long long k = 0; k < r; k++)
      start += parz_gpu_ll_run_len(src, bytes, &h, k, told);
    const unsigned long long i0 = r << h.q;
    const unsigned long long i1 = n - i0 > (1ull << h.q) ? i0 + (1ull << h.q) : n;
    if (start + len > bytes) {
      ok = false;
      continue;
    }
    if (parz_ll_run_zero(h.coder, (size_t)len))
      continue; /* zeros */
    if (copied == 2) {
      parz_gpu_ll_w2reader rd;
      parz_gpu_ll_w2reader_init(&rd, words.data(), (uint32_t)nwords, (uint32_t)(lead + start),
                                (uint32_t)len, (uint32_t)h.pos, h.code_coder, code.data(),
                                fast.data());
      ok = ok && read_run(&rd, parz_gpu_ll_w2next, parz_gpu_ll_w2reader_end, &z[i0], i1 - i0);
    } else if (copied) {
      parz_gpu_ll_wreader rd;
      parz_gpu_ll_wreader_init(&rd, words.data(), (uint32_t)nwords, (uint32_t)(lead + start),
                               (uint32_t)len, (uint32_t)h.pos, h.code_coder, code.data(),
                               fast.data());
      ok = ok && read_run(&rd, parz_gpu_ll_wnext, parz_gpu_ll_wreader_end, &z[i0], i1 - i0);
    } else {
      parz_gpu_ll_reader rd;
      parz_gpu_ll_reader_init(&rd, src + start, (size_t)len, h.pos, h.code_coder, code.data(),
                              fast.data());
      ok = ok && read_run(&rd, parz_gpu_ll_next, parz_gpu_ll_reader_end, &z[i0], i1 - i0);
    }
  }
  return ok;
}

static unsigned long long segments, refused;

/* One warp's 32 lanes as 32 threads: each collective writes the lane's value into its slot,
 * waits for all 32, reads every slot, and waits again before the slots are written anew. */
struct warp_room {
  std::mutex m;
  std::condition_variable cv;
  unsigned arrived = 0, generation = 0;
  uint32_t slot[32];
  void wait() {
    std::unique_lock<std::mutex> lock(m);
    const unsigned g = generation;
    if (++arrived == 32) {
      arrived = 0;
      generation++;
      cv.notify_all();
    } else {
      cv.wait(lock, [&] { return generation != g; });
    }
  }
};

/* parz_gpu_ll_warp_code_setup's collectives (warp_code.cuh) for lane `me` of the room's warp. */
struct host_warp {
  warp_room* room;
  unsigned me;
  unsigned lane() const { return me; }
  void all(uint32_t v, uint32_t out[32]) const {
    room->slot[me] = v;
    room->wait();
    memcpy(out, room->slot, sizeof room->slot);
    room->wait();
  }
  unsigned ballot(bool p) const {
    uint32_t v[32];
    unsigned b = 0;
    all(p, v);
    for (unsigned i = 0; i < 32; i++)
      b |= (v[i] != 0) << i;
    return b;
  }
  bool any(bool p) const { return ballot(p) != 0; }
  unsigned popc(unsigned x) const { return (unsigned)__builtin_popcount(x); }
  unsigned shfl(unsigned x, unsigned from) const {
    uint32_t v[32];
    all(x, v);
    return v[from & 31u];
  }
  unsigned match_any(unsigned x) const {
    uint32_t v[32];
    unsigned b = 0;
    all(x, v);
    for (unsigned i = 0; i < 32; i++)
      b |= (v[i] == x) << i;
    return b;
  }
};

static unsigned long long warp_codes, warp_refused;

/* Every context's code of the lengths at `lengths` (bytes long, nc contexts of w + 1 lengths)
 * set up by a warp of 32 threads (a context after the other, as a warp of the kernel takes
 * them) and by parz_gpu_ll_code_setup: the same refusals, and where both take a code the same
 * fields, the same table word and the same sorted symbols. */
static void check_warp_codes(const uint8_t* lengths, size_t bytes, unsigned w, unsigned nc,
                             const char* what) {
  std::vector<parz_huff_decoder> got(nc);
  const unsigned cw = parz_gpu_ll_code_words(w);
  std::vector<uint32_t> mem(nc * cw, 0xA5A5A5A5u);
  std::vector<unsigned char> took(32 * nc);
  warp_room room;
  std::vector<std::thread> lanes;
  for (unsigned l = 0; l < 32; l++)
    lanes.emplace_back([&, l] {
      const host_warp warp = {&room, l};
      for (unsigned c = 0; c < nc; c++)
        took[32 * c + l] = parz_gpu_ll_warp_code_setup(warp, lengths, w, c, &got[c], &mem[c * cw]);
    });
  for (std::thread& t : lanes)
    t.join();
  for (unsigned c = 0; c < nc; c++) {
    parz_huff_decoder want;
    std::vector<uint32_t> want_mem(cw, 0x5A5A5A5Au);
    const bool cpu =
        parz_gpu_ll_code_setup(lengths, bytes, w, c, &want, want_mem.data()) == PARZ_LL_OK;
    const uint32_t* m = &mem[c * cw];
    const parz_huff_decoder& d = got[c];
    unsigned agree = 0;
    for (unsigned l = 0; l < 32; l++)
      agree += took[32 * c + l] == took[32 * c];
    warp_codes++;
    warp_refused += !cpu;
    CHECK(agree == 32, ": %s (w %u, context %u): %u of 32 lanes return lane 0's answer", what, w, c,
          agree);
    CHECK(!!took[32 * c] == cpu, ": %s (w %u, context %u): the warp %s the code, the CPU %s it",
          what, w, c, took[32 * c] ? "takes" : "refuses", cpu ? "takes" : "refuses");
    if (!cpu || !took[32 * c])
      continue;
    CHECK(d.max_len == want.max_len && d.table_bits == want.table_bits && d.table == m &&
              d.sorted == m + 1 && want.table == want_mem.data() &&
              want.sorted == want_mem.data() + 1,
          ": %s (w %u, context %u): max_len %u, table_bits %u, or the table's places differ", what,
          w, c, d.max_len, d.table_bits);
    unsigned used = 0;
    for (unsigned l = 0; l <= PARZ_LL_CODE_MAX; l++) {
      CHECK(d.first[l] == want.first[l] && d.count[l] == want.count[l] &&
                (l == 0 || d.index[l] == want.index[l]),
            ": %s (w %u, context %u), length %u: first %u, count %u, index %u where the CPU's "
            "are %u, %u, %u",
            what, w, c, l, d.first[l], d.count[l], l ? d.index[l] : 0u, want.first[l],
            want.count[l], l ? want.index[l] : 0u);
      used += l ? want.count[l] : 0u;
    }
    for (unsigned i = 0; i < 1 + used && i < cw; i++)
      CHECK(m[i] == want_mem[i],
            ": %s (w %u, context %u): word %u of the code's memory %#x, the "
            "CPU's %#x",
            what, w, c, i, m[i], want_mem[i]);
  }
}

/* The codes of segment seg (n residuals of w bits), where it has any, by a warp and by the CPU;
 * then the same with `flips` bits of its code lengths flipped. */
static void warp_codes_of(const std::vector<uint8_t>& seg, size_t n, unsigned w, int flips) {
  parz_gpu_ll_head h;
  if (seg.empty() || !parz_gpu_ll_head_read(seg.data(), seg.size(), n, w, &h) ||
      h.coder == PARZ_LL_CODER_RAW)
    return;
  const uint8_t* at = parz_gpu_ll_lengths(seg.data(), &h);
  std::vector<uint8_t> lengths(at, at + h.lengths_bytes);
  check_warp_codes(lengths.data(), lengths.size(), w, h.nc, "a segment's lengths");
  for (int f = 0; f < flips; f++) {
    const uint64_t y = xorshift_next() % (4ull * (w + 1) * h.nc);
    lengths[y / 8] ^= (uint8_t)(1u << (y % 8));
    check_warp_codes(lengths.data(), lengths.size(), w, h.nc, "a segment's lengths, bits flipped");
  }
}

/* Crafted code lengths, every context of w: up to 16 symbols of 4 to 12 bits (a prefix code,
 * complete or not), some with no symbol, a length past PARZ_LL_CODE_MAX, or lengths of 1 bit
 * that break the Kraft sum. */
static void crafted_warp_codes(void) {
  for (unsigned w = 32; w <= 64; w += 32) {
    const unsigned ns = w + 1, nc = parz_ll_contexts(w, PARZ_LL_CODER_CONTEXT);
    for (int rep = 0; rep < 8; rep++) {
      std::vector<uint8_t> lengths((4 * ns * nc + 7) / 8, 0);
      for (unsigned c = 0; c < nc; c++) {
        const uint64_t x = xorshift_next();
        const unsigned kind = (unsigned)(x % 5), used = 1 + (unsigned)(x >> 8) % 16;
        for (unsigned u = 0; kind && u < used; u++) {
          const uint64_t y = xorshift_next();
          const unsigned k = (unsigned)(y % ns);
          const unsigned len = kind == 3 && u == 0 ? 13 + (unsigned)(y >> 8) % 3
                               : kind == 4         ? 1
                                                   : 4 + (unsigned)(y >> 8) % 9;
          const size_t bit = 4 * ((size_t)ns * c + k);
          lengths[bit / 8] = (uint8_t)((lengths[bit / 8] & ~(15u << (bit & 4))) | len << (bit & 4));
        }
      }
      check_warp_codes(lengths.data(), lengths.size(), w, nc, "crafted lengths");
    }
  }
}

/* The segment's bytes at each alignment: the kernel's steps take it where the serial decoder
 * does, with its residuals. */
static void compare(const std::vector<uint8_t>& seg, size_t n, unsigned w, const char* what) {
  std::vector<uint64_t> want(n ? n : 1), got;
  parz_error e;
  const bool cpu =
      parz_ll_uncode_residuals(seg.data(), seg.size(), n, w, want.data(), NULL, 0, &e) == PARZ_OK;
  want.resize(n);
  segments++;
  refused += !cpu;
  for (unsigned lead = 0; lead < 4; lead++) {
    std::vector<uint8_t> buf(seg.size() + 8, 0xA5);
    const size_t at = (4 - ((uintptr_t)buf.data() & 3u) + lead) & 3u;
    memcpy(buf.data() + at, seg.data(), seg.size());
    for (int copied = 0; copied < 3; copied++) {
      const bool gpu = gpu_segment(buf.data() + at, seg.size(), n, w, got, copied);
      CHECK(gpu == cpu,
            ": %s (w %u, n %zu, %zu bytes, coder %u, lead %u, copied %d): GPU %s, CPU %s (%s)",
            what, w, n, seg.size(), seg.empty() ? 0u : seg[0], lead, copied,
            gpu ? "takes it" : "refuses it", cpu ? "takes it" : "refuses it", cpu ? "" : e.message);
      if (gpu && cpu)
        CHECK(got == want, ": %s (w %u, n %zu, coder %u, lead %u, copied %d): other residuals",
              what, w, n, seg[0], lead, copied);
    }
  }
}

/* n residuals of w bits: kind 0 small (geometric bit lengths), 1 small with wide ones, 2 zeros
 * with small stretches, 3 random bits, 4 one value. */
static std::vector<uint64_t> residuals(size_t n, unsigned w, int kind) {
  std::vector<uint64_t> z(n);
  const uint64_t mask = w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
  for (size_t i = 0; i < n; i++) {
    const uint64_t x = xorshift_next();
    unsigned k = 0;
    while (k < 12 && (x >> (40 + k) & 1))
      k++;
    switch (kind) {
      case 0: z[i] = (x & (((uint64_t)1 << k) - 1)); break;
      case 1: z[i] = (x % 97 == 0) ? (x & mask) >> (x % w) : (x & (((uint64_t)1 << k) - 1)); break;
      case 2: z[i] = ((i / 700) % 3 == 1) ? (x & 7) : 0; break;
      case 3: z[i] = x & mask; break;
      default: z[i] = 5;
    }
  }
  return z;
}

/* Segment seg with one change of kind m (0-2 flipped bits, 3 cut, 4 lengthened, 5 a run's
 * length off by one). */
static std::vector<uint8_t> mutate(std::vector<uint8_t> seg, int m, unsigned w) {
  const uint64_t x = xorshift_next();
  if (m <= 2) {
    for (int f = 0; f <= m; f++) {
      const uint64_t y = xorshift_next();
      seg[(size_t)(y % seg.size())] ^= (uint8_t)(1u << (y >> 32) % 8);
    }
  } else if (m == 3) {
    seg.resize(seg.size() - PARZ_MIN(seg.size() - 1, (size_t)(1 + x % 3)));
  } else if (m == 4) {
    seg.push_back((uint8_t)(x & 1 ? x >> 8 : 0));
  } else if (seg.size() > 8 &&
             (seg[0] == PARZ_LL_CODER_RUNS || seg[0] == PARZ_LL_CODER_ZERO_RUNS)) {
    const size_t lb = ((size_t)4u * (w + 1) * parz_ll_contexts(w, seg[1]) + 7) / 8;
    const size_t at = PARZ_LL_RUN_HEAD + lb;
    if (at + 2 <= seg.size())
      seg[at] = (uint8_t)(seg[at] + (x & 1 ? 1 : 255));
  }
  return seg;
}

/* Every extent and value index of a block of at most 4096 values. */
static void check_division(void) {
  unsigned long long bad = 0;
  for (unsigned e = 1; e <= 4096; e++) {
    const uint64_t m = parz_gpu_ll_magic(e);
    for (unsigned x = 0; x < 4096; x++)
      bad += parz_gpu_ll_div(x, m) != x / e;
  }
  CHECK(bad == 0, ": %llu quotients wrong", bad);
}

int main(void) {
  static const size_t ns[] = {1, 3, 64, 511, 512, 513, 1000, 3136, 4096, 16384};
  check_division();
  crafted_warp_codes();
  for (unsigned w = 32; w <= 64; w += 32)
    for (size_t n : ns)
      for (int kind = 0; kind <= 4; kind++) {
        const std::vector<uint64_t> z = residuals(n, w, kind);
        std::vector<uint8_t> seg(parz_ll_residual_bound(n, w));
        seg.resize(parz_ll_code_residuals(z.data(), n, w, seg.data()));
        char what[64];
        snprintf(what, sizeof what, "kind %d", kind);
        compare(seg, n, w, what);
        if (n >= 3136) /* the codes of long segments, and of flipped bits in their lengths */
          warp_codes_of(seg, n, w, 3);
        std::vector<uint64_t> got;
        for (int copied = 0; copied < 3; copied++)
          CHECK(gpu_segment(seg.data(), seg.size(), n, w, got, copied) && got == z,
                ": kind %d (w %u, n %zu, copied %d): not the encoder's residuals", kind, w, n,
                copied);
        for (int m = 0; m < 6; m++)
          for (int rep = 0; rep < 12; rep++) {
            snprintf(what, sizeof what, "kind %d, change %d", kind, m);
            compare(mutate(seg, m, w), n, w, what);
          }
        /* the other run lengths a chunk may hold (the decoders read q from each segment) */
        for (unsigned q : {4u, 7u, 8u, 12u}) {
          if (n <= ((size_t)1 << q))
            continue;
          seg.assign(parz_ll_residual_bound(n, w), 0);
          seg.resize(parz_ll_code_residuals_q(z.data(), n, w, q, seg.data()));
          snprintf(what, sizeof what, "kind %d, runs of 2^%u", kind, q);
          compare(seg, n, w, what);
          for (int copied = 0; copied < 3; copied++)
            CHECK(gpu_segment(seg.data(), seg.size(), n, w, got, copied) && got == z,
                  ": %s (w %u, n %zu, copied %d): not the encoder's residuals", what, w, n, copied);
          for (int m = 0; m < 6; m++) {
            snprintf(what, sizeof what, "kind %d, runs of 2^%u, change %d", kind, q, m);
            compare(mutate(seg, m, w), n, w, what);
          }
        }
      }
  printf(
      "%llu segments, %llu refused by the serial decoder; %llu codes set up by a warp, %llu "
      "refused\n",
      segments, refused, warp_codes, warp_refused);
  return test_finish("gpu_lossless_host");
}
