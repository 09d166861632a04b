/* The error-bounded codec's GPU encoder, its steps run on the CPU: the per-thread functions of
 * gpu/bounded/bounded_encode.cuh called for every thread of every kernel, in the kernels' order
 * (gpu/bounded/bounded_encode.cu), with the host's steps between them. Every chunk they build
 * must be parz_chunk_encode's, byte for byte (and decode within the bound); the chunks the GPU
 * encoder refuses must be refused with PARZ_ERR_UNSUPPORTED naming why. This checks where no GPU
 * is (CI) what test_gpu_bounded_encode checks on the device, on the same cases
 * (gpu_bounded_encode_cases.h), and on the real arrays, cut to 1 MiB each.
 * Usage: test_gpu_bounded_encode_host [DATA_DIR] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "bounded_encode.cuh"
#include "check.h"
#include "gpu_bounded_encode_cases.h"
#include "real_arrays.h"

/* Jobs that run their parts last first, as the GPU driver's host threads may. */
static void run_backwards(void* ctx, uint64_t n, void (*job)(void* arg, uint64_t i), void* arg) {
  (void)ctx;
  for (uint64_t i = n; i-- > 0;)
    job(arg, i);
}
static const parz_jobs backwards = {run_backwards, NULL, 8};

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
  parz_gpu_bnd_scan s = {0, 0, 0, 0};
  for (size_t i = 0; i < n; i++)
    parz_gpu_bnd_scan_value(b, i, p.fill, p.fill_bits, &s);
  if ((rc = parz_gpu_bnd_after_scan(&p, &s, &b, err)) != PARZ_OK)
    return rc;
  if (!p.predictor) /* its trials on jobs of their own order: the choice must not change */
    p.predictor = parz_gpu_bnd_choose(&p, data, &backwards);
  if (p.predictor == PARZ_BOUNDED_LORENZO) {
    for (size_t i = 0; i < n; i++)
      parz_gpu_bnd_quantize(b, i);
    for (size_t i = 0; i < n; i++) /* the holes' thread, in order */
      if (hole[i] != PARZ_BOUNDED_KNOWN)
        parz_gpu_bnd_lorenzo_hole(b, i);
    for (size_t i = 0; i < n; i++)
      parz_gpu_bnd_lorenzo_code(b, i);
  } else {
    size_t n4[4], st4[4];
    std::vector<parz_bounded_pass> passes(PARZ_BOUNDED_PASSES_MAX);
    parz_bounded_shape4(&p.s, n4, st4);
    const unsigned np = parz_bounded_interp_passes(n4, p.predictor, passes.data());
    const int cubic = p.predictor == PARZ_BOUNDED_CUBIC || p.predictor == PARZ_BOUNDED_CUBIC_FAST;
    for (unsigned k = 0; k < np; k++) {
      const parz_bounded_pass& ps = passes[k];
      const unsigned long long count =
          (unsigned long long)ps.cnt[0] * ps.cnt[1] * ps.cnt[2] * ps.cnt[3];
      /* backwards: a pass's values must not depend on their order */
      for (unsigned long long t = count; t-- > 0;)
        parz_gpu_bnd_pass_value(b, ps, cubic, t);
    }
  }
  std::vector<unsigned long long> pos;
  std::vector<uint64_t> bits;
  for (size_t i = 0; i < n; i++)
    if (hole[i] != PARZ_BOUNDED_KNOWN) {
      uint64_t v;
      parz_gpu_bnd_value(b, i, &v);
      pos.push_back(i);
      bits.push_back(v);
    }
  std::vector<unsigned long long> counts(2 * (size_t)PARZ_BOUNDED_SYMBOLS, 0);
  b.plain = counts.data();
  b.runs = counts.data() + PARZ_BOUNDED_SYMBOLS;
  /* the count kernel's split: most symbols into a CTA's shared counts, then added in */
  std::vector<unsigned long long> shared(2 * PARZ_GPU_BND_SHARED, 0);
  for (unsigned long long k = b.nseg; k-- > 0;)
    parz_gpu_bnd_count(b, k, [&](int c, uint32_t sym, unsigned long long v) {
      const int e = parz_gpu_bnd_shared_entry(sym);
      if (e >= 0)
        shared[c * PARZ_GPU_BND_SHARED + (unsigned)e] += v;
      else
        counts[c * PARZ_BOUNDED_SYMBOLS + sym] += v;
    });
  for (unsigned c = 0; c < 2; c++)
    for (unsigned e = 0; e < PARZ_GPU_BND_SHARED; e++)
      counts[c * PARZ_BOUNDED_SYMBOLS + parz_gpu_bnd_shared_symbol(e)] +=
          shared[c * PARZ_GPU_BND_SHARED + e];
  parz_bounded_coded coded;
  memset(&coded, 0, sizeof coded);
  const parz_bounded_range all = {0, PARZ_BOUNDED_SYMBOLS}; /* counts over the whole alphabet */
  rc = parz_bounded_coded_book(&all, (const uint64_t*)b.plain, (const uint64_t*)b.runs, 2, &coded,
                               err);
  if (rc != PARZ_OK) {
    parz_bounded_coded_free(&coded);
    return rc;
  }
  std::vector<unsigned char> codec_data(parz_bounded_codec_data(
      b.step, p.predictor, coded.runs, coded.book_bytes, coded.book_size, NULL));
  parz_bounded_codec_data(b.step, p.predictor, coded.runs, coded.book_bytes, coded.book_size,
                          codec_data.data());
  b.len = coded.book.len;
  b.code = coded.book.code;
  b.use_runs = coded.runs;
  std::vector<unsigned long long> seg_bits((size_t)b.nseg), seg_at((size_t)b.nseg + 1, 0);
  b.seg_bits = seg_bits.data();
  for (unsigned long long k = 0; k < b.nseg; k++)
    parz_gpu_bnd_bits(b, k);
  for (size_t k = 0; k < seg_bits.size(); k++)
    seg_at[k + 1] = seg_at[k] + seg_bits[k];
  parz_chunk_view fin;
  size_t head = 0, size = 0;
  rc = parz_gpu_bnd_settle(&p, &cfg, seg_at.back(), pos.size(), codec_data.size(), &fin, &head,
                           &size, stored, err);
  if (rc != PARZ_OK || *stored) {
    parz_bounded_coded_free(&coded);
    out.clear();
    return rc;
  }
  std::vector<unsigned long long> payload(fin.payload_bytes / 8, 0);
  b.payload = payload.data();
  b.seg_at = seg_at.data();
  for (unsigned long long k = b.nseg; k-- > 0;) /* any order: neighbours share words */
    parz_gpu_bnd_write(b, k);
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
  rc = parz_gpu_bnd_head(&fin, seg_bits.data(), pos.data(), bits.data(), codec_data.data(),
                         sums.data(), out.data(), head, err);
  memcpy(out.data() + head, payload.data(), fin.payload_bytes);
  parz_bounded_coded_free(&coded);
  return rc;
}

/* One case: the emulated chunk against parz_chunk_encode's, and decoded within the bound. */
static void check_case(const char* name, const parz_array& a, const void* data,
                       const parz_chunk_config& cfg, int refused) {
  parz_error e = {0, ""}, ce = {0, ""};
  std::vector<unsigned char> got;
  int stored = 0;
  const int rc = emulate(a, data, cfg, got, &stored, &e);
  if (refused) {
    CHECK(rc == PARZ_ERR_UNSUPPORTED && strstr(e.message, "GPU encode") &&
              strstr(e.message, "encode it on the CPU"),
          ": %s: refused with status %d, \"%s\"", name, rc, e.message);
    return;
  }
  const size_t bound = parz_chunk_bound(&a, &cfg);
  std::vector<unsigned char> want(bound);
  size_t written = 0;
  const int crc = parz_chunk_encode(&a, data, &cfg, want.data(), want.size(), &written, &ce);
  CHECK(rc == PARZ_OK && crc == PARZ_OK, ": %s: %d \"%s\", CPU %d \"%s\"", name, rc, e.message, crc,
        ce.message);
  if (rc != PARZ_OK || crc != PARZ_OK)
    return;
  want.resize(written);
  if (stored) {
    parz_chunk_view v;
    CHECK(parz_chunk_parse(want.data(), want.size(), &v, &ce) == PARZ_OK &&
              v.codec == PARZ_CODEC_STORED,
          ": %s: stored, the CPU did not", name);
    return;
  }
  size_t at = 0;
  while (at < got.size() && at < want.size() && got[at] == want[at])
    at++;
  CHECK(got.size() == want.size() && at == want.size(),
        ": %s: %zu bytes against the CPU's %zu, first difference at %zu", name, got.size(),
        want.size(), at);
  /* decoded within the bound, the values not finite bit for bit */
  const size_t nv = bnd_count(a), w = a.type == PARZ_FLOAT ? 4 : 8;
  std::vector<unsigned char> back(nv * w);
  CHECK(parz_chunk_decode(got.data(), got.size(), back.data(), back.size(), &e) == PARZ_OK,
        ": %s: decode: %s", name, e.message);
  size_t bad = 0;
  for (size_t i = 0; i < nv; i++) {
    double x, y;
    if (w == 4) {
      float f, g;
      memcpy(&f, (const unsigned char*)data + 4 * i, 4);
      memcpy(&g, &back[4 * i], 4);
      x = f, y = g;
    } else {
      memcpy(&x, (const unsigned char*)data + 8 * i, 8);
      memcpy(&y, &back[8 * i], 8);
    }
    if (isfinite(x) ? !(fabs(x - y) <= cfg.settings.error_bound)
                    : memcmp((const unsigned char*)data + w * i, &back[w * i], w) != 0)
      bad++;
  }
  CHECK(bad == 0, ": %s: %zu values outside the bound %g", name, bad, cfg.settings.error_bound);
}

int main(int argc, char** argv) {
  const std::vector<bnd_case> cases = bnd_cases();
  for (const bnd_case& c : cases)
    check_case(c.name.c_str(), c.a, c.data.data(), c.cfg, c.refused);
  printf("%zu crafted cases\n", cases.size());
  if (argc > 1) {
    size_t m = 0;
    real_array* r = real_arrays_load(argv[1], (size_t)1 << 20, &m);
    for (size_t i = 0; i < m; i++)
      for (double rel : {1e-3, 1e-5})
        for (unsigned pred = 0; pred <= 5; pred++) {
          char name[160];
          const parz_chunk_config cfg = bnd_config(rel * real_array_value_range(&r[i]), pred);
          snprintf(name, sizeof name, "%s eb %g x range, predictor %u", r[i].name, rel, pred);
          check_case(name, r[i].array, r[i].data, cfg, real_array_holds_nan(&r[i]));
        }
    printf("%zu real arrays\n", m);
    real_arrays_free(r, m);
  }
  return test_finish("gpu_bounded_encode_host");
}
