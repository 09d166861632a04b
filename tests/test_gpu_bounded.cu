/* The error-bounded codec (codec 4) on the GPU against the serial decoder, bit for bit: the device
 * API, batches mixing bounded, zfp and stored chunks, the filter path and boxes of a chunked
 * array (parz_gpu_assemble); every predictor, float32 and float64, ranks 1 to 4, NaN and the
 * infinities (exceptions), fill values (masks). Hostile chunks (payload bits flipped, codebooks
 * and tables that lie, their header's CRC made right again) are refused by the GPU with the
 * status the serial decoder gives, or decoded to its values where it decodes them, and nothing is
 * written past the destination. The GPU encoder refuses the codec.
 *
 *   test_gpu_bounded            crafted arrays and hostile chunks
 *   test_gpu_bounded --small    fewer of them (for compute-sanitizer); with DIR, float32 at
 *                               eb = 1e-3 x range only
 *   test_gpu_bounded DIR        also every real array of DIR in slabs of about 1 MiB, at eb =
 *                               1e-3 and 1e-5 x its range, Lorenzo and the interpolation
 *
 * Exits 77 (ctest SKIP) without a CUDA device. */
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "check.h"
#include "gpu_test_context.h"
#include "checksum.h"
#include "parz_chunk.h"
#include "parz_chunked.h"
#include "parz_gpu.h"
#include "parz_omp.h"
#include "real_arrays.h"
#include "xorshift.h"

static parz_gpu_context* ctx;
static int small; /* --small: fewer cases, for compute-sanitizer */

#define GUARD 256 /* bytes past every destination that must stay untouched */

static parz_chunk_config bounded_config(double eb, int predictor, const void* fill, size_t w) {
  parz_chunk_config c;
  memset(&c, 0, sizeof c);
  c.codec = PARZ_CODEC_BOUNDED;
  c.settings.error_bound = eb;
  c.settings.predictor = (unsigned)predictor;
  c.checksum = PARZ_CHECKSUM_ON;
  if (fill) {
    c.fill = 1;
    memcpy(&c.fill_bits, fill, w);
  }
  return c;
}

/* The chunk cfg writes for a (OpenMP encoder: the serial encoder's bytes), or NULL. */
static std::vector<unsigned char> encode(const parz_array* a, const void* data,
                                         const parz_chunk_config* cfg, const char* what) {
  size_t cap = parz_chunk_bound(a, cfg), bytes = 0;
  std::vector<unsigned char> c(cap ? cap : 1);
  parz_error err;
  int rc = parz_omp_chunk_encode(a, data, cfg, c.data(), cap, &bytes, 8, &err);
  CHECK(rc == PARZ_OK, "%s: encode: %s", what, rc ? err.message : "");
  c.resize(rc == PARZ_OK ? bytes : 0);
  return c;
}

/* The chunk through the device API and the filter path: the status the serial decoder gives,
 * and where it decodes, its bytes; the guard past each destination untouched. Returns the
 * serial decoder's status. */
static int compare(const std::vector<unsigned char>& c, size_t raw, const char* what) {
  std::vector<unsigned char> want(raw + GUARD, 0x5A), got(raw + GUARD, 0x5A);
  parz_error err, gerr;
  parz_chunk_view v;
  const int cpu = parz_chunk_decode(c.data(), c.size(), want.data(), raw, &err);
  int rc = parz_chunk_parse(c.data(), c.size(), &v, &gerr);
  if (rc != PARZ_OK) {
    CHECK(cpu == rc, "%s: parse %d, serial decode %d", what, rc, cpu);
    return cpu;
  }
  void *d_chunk = NULL, *d_dst = NULL;
  CHECK(cudaMalloc(&d_chunk, c.size()) == cudaSuccess &&
        cudaMalloc(&d_dst, raw + GUARD) == cudaSuccess);
  cudaMemcpy(d_chunk, c.data(), c.size(), cudaMemcpyHostToDevice);
  cudaMemset(d_dst, 0x5A, raw + GUARD);
  rc = parz_gpu_decode_device(ctx, &v, d_chunk, d_dst, NULL, &gerr);
  cudaMemcpy(got.data(), d_dst, raw + GUARD, cudaMemcpyDeviceToHost);
  CHECK(rc == cpu, "%s: device API status %d (%s), serial %d (%s)", what, rc,
        rc ? gerr.message : "", cpu, cpu ? err.message : "");
  if (rc == PARZ_OK && cpu == PARZ_OK)
    CHECK(memcmp(got.data(), want.data(), raw) == 0, "%s: device API values differ", what);
  for (size_t i = raw; i < raw + GUARD; i++)
    if (got[i] != 0x5A) {
      CHECK(0, "%s: the device API wrote byte %zu past the %zu-byte destination", what, i - raw,
            raw);
      break;
    }
  std::vector<unsigned char> host(raw + GUARD, 0x5A);
  rc = parz_gpu_chunk_decode(ctx, c.data(), c.size(), host.data(), raw, &gerr);
  CHECK(rc == cpu, "%s: filter path status %d (%s), serial %d", what, rc, rc ? gerr.message : "",
        cpu);
  if (rc == PARZ_OK && cpu == PARZ_OK)
    CHECK(memcmp(host.data(), want.data(), raw) == 0, "%s: filter path values differ", what);
  for (size_t i = raw; i < raw + GUARD; i++)
    if (host[i] != 0x5A) {
      CHECK(0, "%s: the filter path wrote past its destination", what);
      break;
    }
  cudaFree(d_chunk);
  cudaFree(d_dst);
  return cpu;
}

static double range_of(const void* p, parz_type t, size_t n) {
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    double x = t == PARZ_FLOAT ? ((const float*)p)[i] : ((const double*)p)[i];
    if (isfinite(x) && fabs(x) < 1e9) {
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
    }
  }
  return hi > lo ? hi - lo : 1;
}

/* Smooth values with noise, some NaN and infinities, some fill values, every rank and both
 * types; each predictor in turn (0: the encoder's choice). */
static void crafted(void) {
  static const struct {
    unsigned dims;
    size_t shape[4];
  } shapes[] = {{1, {1}},           {1, {5000}},         {1, {70001}},     {2, {1, 1}},
                {2, {67, 129}},     {2, {300, 7}},       {3, {9, 17, 33}}, {3, {2, 1, 2000}},
                {4, {3, 5, 7, 11}}, {4, {6, 1, 40, 41}}, {2, {512, 512}}};
  for (const auto& sh : shapes)
    for (int type = 0; type < 2; type++)
      for (int pred = 0; pred <= 5; pred++) {
        if (small && (pred == 2 || pred > 3 || sh.shape[0] == 512))
          continue;
        parz_array a;
        memset(&a, 0, sizeof a);
        a.type = type ? PARZ_DOUBLE : PARZ_FLOAT;
        a.dims = sh.dims;
        for (unsigned k = 0; k < sh.dims; k++)
          a.shape[k] = sh.shape[k];
        const size_t n = parz_array_count(&a), w = parz_type_size(a.type);
        std::vector<unsigned char> data(n * w);
        const float ffill = -9999.0f;
        const double dfill = -9999.0;
        for (size_t i = 0; i < n; i++) {
          double x = 100 * sin(0.001 * (double)i) + 0.01 * (double)(xorshift_next() % 1000);
          const uint64_t r = xorshift_next() % 997;
          if (n > 100 && r == 0)
            x = NAN;
          else if (n > 100 && r == 1)
            x = xorshift_next() & 1 ? INFINITY : -INFINITY;
          else if (n > 100 && r < 12)
            x = dfill;
          if (a.type == PARZ_FLOAT) {
            const float f = (float)x;
            memcpy(&data[i * w], &f, 4);
          } else {
            memcpy(&data[i * w], &x, 8);
          }
        }
        for (int e = 0; e < 2 - small; e++) {
          const double eb = (e ? 1e-5 : 1e-3) * range_of(data.data(), a.type, n);
          const parz_chunk_config cfg = bounded_config(
              eb, pred, a.type == PARZ_FLOAT ? (const void*)&ffill : (const void*)&dfill, w);
          char what[128];
          snprintf(what, sizeof what, "crafted %uD %zux..., %s, predictor %d, eb %g", sh.dims,
                   sh.shape[0], type ? "f64" : "f32", pred, eb);
          std::vector<unsigned char> c = encode(&a, data.data(), &cfg, what);
          if (!c.empty())
            CHECK(compare(c, n * w, what) == PARZ_OK, "%s: serial decode failed", what);
        }
      }
}

/* Hostile chunks: payload bits flipped (checksums off, so that the segment decoder meets them;
 * on, the checksum names them), the codebook's and the table's bytes changed with the head's
 * CRC made right. The GPU gives the serial decoder's status every time, its values where it
 * decodes. */
static void hostile(void) {
  parz_array a;
  memset(&a, 0, sizeof a);
  a.type = PARZ_FLOAT;
  a.dims = 2;
  a.shape[0] = 96;
  a.shape[1] = 200;
  const size_t n = 96 * 200;
  std::vector<float> data(n);
  for (size_t i = 0; i < n; i++)
    data[i] = (float)(50 * sin(0.01 * (double)i) * cos(0.003 * (double)i));
  for (int pred = 1; pred <= 3; pred += 2)
    for (int sums = 0; sums < 2; sums++) {
      parz_chunk_config cfg = bounded_config(1e-3, pred, NULL, 4);
      cfg.checksum = sums ? PARZ_CHECKSUM_ON : PARZ_CHECKSUM_OFF;
      cfg.segment_blocks = 512; /* several segments and partitions */
      cfg.partition_segments = 4;
      const std::vector<unsigned char> c = encode(&a, data.data(), &cfg, "hostile");
      if (c.empty())
        continue;
      parz_chunk_view v;
      parz_error err;
      CHECK(parz_chunk_parse(c.data(), c.size(), &v, &err) == PARZ_OK);
      const size_t payload_at = (size_t)(v.payload - c.data());
      const size_t book_at = (size_t)(v.codec_data - c.data()) + 16;
      const size_t book_end = (size_t)(v.codec_data - c.data()) + (size_t)v.codec_data_bytes;
      const size_t table_at = (size_t)(v.table_data - c.data());
      int refused = 0, decoded = 0;
      const int trials = small ? 30 : 300;
      for (int t = 0; t < trials; t++) {
        std::vector<unsigned char> h = c;
        const int where = t % 3;
        size_t at;
        if (where == 0) { /* payload */
          at = payload_at + xorshift_next() % (c.size() - payload_at);
          h[at] ^= (unsigned char)(1u << (xorshift_next() % 8));
        } else { /* codebook or table, the head's CRC made right */
          const size_t lo = where == 1 ? book_at : table_at;
          const size_t hi = where == 1 ? book_end : payload_at;
          if (hi <= lo)
            continue;
          at = lo + xorshift_next() % (hi - lo);
          h[at] ^= (unsigned char)(1u << (xorshift_next() % 8));
          uint32_t crc = parz_crc32c(0, h.data(), 108);
          crc = parz_crc32c(crc, h.data() + 112, payload_at - 112);
          for (unsigned b = 0; b < 4; b++)
            h[108 + b] = (unsigned char)(crc >> (8 * b));
        }
        char what[96];
        snprintf(what, sizeof what, "hostile (predictor %d, checksums %d), byte %zu", pred, sums,
                 at);
        if (compare(h, n * 4, what) == PARZ_OK)
          decoded++;
        else
          refused++;
      }
      /* the flips reach the decoders: most chunks are refused */
      CHECK(refused > trials / 3,
            "predictor %d, checksums %d: only %d of %d hostile chunks refused", pred, sums, refused,
            trials);
      printf("hostile: predictor %d, checksums %d: %d refused, %d decoded alike\n", pred, sums,
             refused, decoded);
      /* a truncated chunk: the parser refuses it before any decoder */
      std::vector<unsigned char> cut(c.begin(), c.end() - 8);
      CHECK(compare(cut, n * 4, "truncated") != PARZ_OK);
    }
}

/* A batch of interpolation chunks of short segments, more of them than twice the warps of each
 * chunk's share of the segment step, so that the step runs their first passes in its own CTAs
 * (gpu/bounded/bounded_decode.cu, segment_folds), codes from more CTAs than the grid's share:
 * every chunk the serial decoder's values, every interpolation predictor. */
static void folded(void) {
  parz_array a;
  memset(&a, 0, sizeof a);
  a.type = PARZ_FLOAT;
  a.dims = 2;
  a.shape[0] = 128;
  a.shape[1] = 256;
  const size_t n = 128 * 256, m = 16;
  std::vector<std::vector<unsigned char>> chunks;
  std::vector<std::vector<float>> want;
  for (size_t c = 0; c < m; c++) {
    std::vector<float> d(n);
    for (size_t i = 0; i < n; i++)
      d[i] = (float)(30 * sin(0.003 * (double)i + (double)c) * cos(0.05 * (double)(i % 256)) +
                     0.01 * (double)(xorshift_next() % 100));
    parz_chunk_config cfg = bounded_config(1e-3 * 60, 2 + (int)(c % 4), NULL, 4);
    cfg.segment_blocks = 32; /* 1,024 segments a chunk */
    chunks.push_back(encode(&a, d.data(), &cfg, "folded"));
    std::vector<float> w(n);
    CHECK(parz_chunk_decode(chunks.back().data(), chunks.back().size(), w.data(), n * 4, NULL) ==
          PARZ_OK);
    want.push_back(w);
  }
  std::vector<parz_chunk_view> views(m);
  std::vector<const void*> d_chunks(m);
  std::vector<void*> d_dsts(m);
  for (size_t i = 0; i < m; i++) {
    CHECK(parz_chunk_parse(chunks[i].data(), chunks[i].size(), &views[i], NULL) == PARZ_OK);
    CHECK(views[i].nsegments == 1024, "folded: chunk %zu of %llu segments", i,
          (unsigned long long)views[i].nsegments);
    void* p = NULL;
    cudaMalloc(&p, chunks[i].size());
    cudaMemcpy(p, chunks[i].data(), chunks[i].size(), cudaMemcpyHostToDevice);
    d_chunks[i] = p;
    cudaMalloc(&d_dsts[i], n * 4);
    cudaMemset(d_dsts[i], 0x5A, n * 4);
  }
  parz_error err;
  size_t failed = 99;
  const int rc = parz_gpu_decode_device_batch(ctx, m, views.data(), d_chunks.data(), d_dsts.data(),
                                              NULL, &failed, &err);
  CHECK(rc == PARZ_OK, "folded: %d (%s)", rc, rc ? err.message : "");
  for (size_t i = 0; i < m; i++) {
    std::vector<float> got(n);
    cudaMemcpy(got.data(), d_dsts[i], n * 4, cudaMemcpyDeviceToHost);
    CHECK(memcmp(got.data(), want[i].data(), n * 4) == 0, "folded: chunk %zu (predictor %d) differs",
          i, 2 + (int)(i % 4));
    cudaFree((void*)d_chunks[i]);
    cudaFree(d_dsts[i]);
  }
}

/* A batch of bounded, zfp and stored chunks (runs of each, and one alone between them): every
 * chunk the serial decoder's values; a bounded chunk with a flipped payload bit names itself. */
static void batch(void) {
  parz_array a;
  memset(&a, 0, sizeof a);
  a.type = PARZ_FLOAT;
  a.dims = 2;
  a.shape[0] = 63; /* partial blocks: zfp at rate 32 would be larger than the values, stored */
  a.shape[1] = 99;
  const size_t n = 63 * 99;
  std::vector<std::vector<unsigned char>> chunks;
  std::vector<std::vector<float>> want;
  static const int kinds[] = {4, 4, 1, 4, 2, 2, 4, 1, 1, 4, 4, 4};
  for (int kind : kinds) {
    std::vector<float> d(n);
    for (size_t i = 0; i < n; i++)
      d[i] = kind == 2 ? (float)(xorshift_next() % 100000) * 1e-3f
                       : (float)(20 * sin(0.02 * (double)(i + chunks.size() * 31)));
    parz_chunk_config cfg;
    memset(&cfg, 0, sizeof cfg);
    if (kind == 4) {
      cfg = bounded_config(1e-3, (int)(chunks.size() % 3), NULL, 4);
    } else if (kind == 1) {
      parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
    } else { /* stored: values no mode compresses */
      parz_params_rate(&cfg.params, 32.0, a.type, a.dims, NULL, NULL);
      cfg.stored = PARZ_STORED_WHEN_SMALLER;
    }
    chunks.push_back(encode(&a, d.data(), &cfg, "batch"));
    std::vector<float> w(n);
    CHECK(parz_chunk_decode(chunks.back().data(), chunks.back().size(), w.data(), n * 4, NULL) ==
          PARZ_OK);
    want.push_back(w);
  }
  const size_t m = chunks.size();
  std::vector<parz_chunk_view> views(m);
  std::vector<const void*> d_chunks(m);
  std::vector<void*> d_dsts(m);
  for (size_t i = 0; i < m; i++) {
    CHECK(parz_chunk_parse(chunks[i].data(), chunks[i].size(), &views[i], NULL) == PARZ_OK);
    void* p = NULL;
    cudaMalloc(&p, chunks[i].size());
    cudaMemcpy(p, chunks[i].data(), chunks[i].size(), cudaMemcpyHostToDevice);
    d_chunks[i] = p;
    cudaMalloc(&d_dsts[i], n * 4);
  }
  CHECK(views[0].codec == PARZ_CODEC_BOUNDED && views[2].codec == PARZ_CODEC_ZFP &&
        views[4].codec == PARZ_CODEC_STORED);
  parz_error err;
  size_t failed = 99;
  int rc = parz_gpu_decode_device_batch(ctx, m, views.data(), d_chunks.data(), d_dsts.data(), NULL,
                                        &failed, &err);
  CHECK(rc == PARZ_OK, "batch: %d (%s)", rc, rc ? err.message : "");
  for (size_t i = 0; i < m; i++) {
    std::vector<float> got(n);
    cudaMemcpy(got.data(), d_dsts[i], n * 4, cudaMemcpyDeviceToHost);
    CHECK(memcmp(got.data(), want[i].data(), n * 4) == 0, "batch: chunk %zu (codec %u) differs", i,
          views[i].codec);
  }
  { /* chunk 6's payload flipped: its checksum fails, named; the others still decode */
    std::vector<unsigned char> h = chunks[6];
    h[h.size() - 20] ^= 0x08;
    cudaMemcpy((void*)d_chunks[6], h.data(), h.size(), cudaMemcpyHostToDevice);
    rc = parz_gpu_decode_device_batch(ctx, m, views.data(), d_chunks.data(), d_dsts.data(), NULL,
                                      &failed, &err);
    CHECK(rc == PARZ_ERR_CHECKSUM && failed == 6, "batch with chunk 6 flipped: %d, chunk %zu", rc,
          failed);
    std::vector<float> got(n);
    cudaMemcpy(got.data(), d_dsts[9], n * 4, cudaMemcpyDeviceToHost);
    CHECK(memcmp(got.data(), want[9].data(), n * 4) == 0, "batch: chunk 9 beside a bad one");
    cudaMemcpy((void*)d_chunks[6], chunks[6].data(), chunks[6].size(), cudaMemcpyHostToDevice);
  }
  { /* codebooks the host refuses (span 0), in a run (10) and alone (3): named by *failed like
     * a chunk that faults on the device, the lowest bad chunk first; the others decode */
    std::vector<std::vector<unsigned char>> bad(m);
    std::vector<parz_chunk_view> bviews = views;
    for (size_t i : {(size_t)3, (size_t)10}) {
      bad[i] = chunks[i];
      std::vector<unsigned char>& h = bad[i];
      const size_t payload_at = (size_t)(views[i].payload - chunks[i].data());
      h[(size_t)(views[i].codec_data - chunks[i].data()) + 16] = 0;
      uint32_t crc = parz_crc32c(0, h.data(), 108);
      crc = parz_crc32c(crc, h.data() + 112, payload_at - 112);
      for (unsigned b = 0; b < 4; b++)
        h[108 + b] = (unsigned char)(crc >> (8 * b));
      CHECK(parz_chunk_parse(h.data(), h.size(), &bviews[i], NULL) == PARZ_OK);
      std::vector<float> out(n);
      CHECK(parz_chunk_decode(h.data(), h.size(), out.data(), n * 4, NULL) == PARZ_ERR_STREAM,
            "the serial decoder takes chunk %zu's codebook of span 0", i);
    }
    struct {
      std::vector<size_t> spoilt;
      int rc;
      size_t failed;
    } cases[] = {{{10}, PARZ_ERR_STREAM, 10},
                 {{3, 10}, PARZ_ERR_STREAM, 3},
                 {{6, 10}, PARZ_ERR_CHECKSUM, 6}};
    for (const auto& k : cases) {
      std::vector<parz_chunk_view> cv = views;
      for (size_t i : k.spoilt) {
        if (i == 6) {
          std::vector<unsigned char> h = chunks[6];
          h[h.size() - 20] ^= 0x08;
          cudaMemcpy((void*)d_chunks[6], h.data(), h.size(), cudaMemcpyHostToDevice);
        } else {
          cudaMemcpy((void*)d_chunks[i], bad[i].data(), bad[i].size(), cudaMemcpyHostToDevice);
          cv[i] = bviews[i];
        }
      }
      failed = 99;
      rc = parz_gpu_decode_device_batch(ctx, m, cv.data(), d_chunks.data(), d_dsts.data(), NULL,
                                        &failed, &err);
      char name[32];
      snprintf(name, sizeof name, "chunk %zu of %zu", k.failed, m);
      CHECK(rc == k.rc && failed == k.failed && strstr(err.message, name),
            "batch with chunk %zu spoilt: %d, chunk %zu (%s)", k.spoilt.back(), rc, failed,
            rc ? err.message : "");
      for (size_t i : {(size_t)9, (size_t)11}) {
        std::vector<float> got(n);
        cudaMemcpy(got.data(), d_dsts[i], n * 4, cudaMemcpyDeviceToHost);
        CHECK(memcmp(got.data(), want[i].data(), n * 4) == 0, "batch: chunk %zu beside bad ones",
              i);
      }
      for (size_t i : k.spoilt)
        cudaMemcpy((void*)d_chunks[i], chunks[i].data(), chunks[i].size(), cudaMemcpyHostToDevice);
    }
    /* alone, refused as the serial decoder refuses it */
    cudaMemcpy((void*)d_chunks[10], bad[10].data(), bad[10].size(), cudaMemcpyHostToDevice);
    rc = parz_gpu_decode_device(ctx, &bviews[10], d_chunks[10], d_dsts[10], NULL, &err);
    CHECK(rc == PARZ_ERR_STREAM, "chunk 10 alone: %d (%s)", rc, rc ? err.message : "");
    cudaMemcpy((void*)d_chunks[10], chunks[10].data(), chunks[10].size(), cudaMemcpyHostToDevice);
  }
  for (size_t i = 0; i < m; i++) {
    cudaFree((void*)d_chunks[i]);
    cudaFree(d_dsts[i]);
  }
}

/* Boxes of a 3-D float array in bounded chunks of 10x16x16 (edge chunks clipped), built on the
 * GPU, against the serial decoder's chunks placed on the host. */
static void boxes(void) {
  parz_chunk_grid g;
  memset(&g, 0, sizeof g);
  g.rank = 3;
  g.dims[0] = 23;
  g.dims[1] = 37;
  g.dims[2] = 45;
  g.chunk_dims[0] = 10;
  g.chunk_dims[1] = g.chunk_dims[2] = 16;
  g.type = PARZ_FLOAT;
  const float fill = -1.0f;
  parz_array a;
  memset(&a, 0, sizeof a);
  a.type = PARZ_FLOAT;
  a.dims = 3;
  a.shape[0] = 10;
  a.shape[1] = a.shape[2] = 16;
  const size_t cn = 10 * 16 * 16, N = 23 * 37 * 45;
  std::vector<unsigned char> packed;
  std::vector<parz_chunk_ref> refs;
  std::vector<float> expect(N, fill), chunk(cn), dec(cn);
  for (size_t c0 = 0; c0 < 23; c0 += 10)
    for (size_t c1 = 0; c1 < 37; c1 += 16)
      for (size_t c2 = 0; c2 < 45; c2 += 16) {
        parz_chunk_ref r;
        memset(&r, 0, sizeof r);
        r.origin[0] = c0, r.origin[1] = c1, r.origin[2] = c2;
        for (size_t i = 0; i < cn; i++)
          chunk[i] = (float)(sin(0.05 * (double)(i + c0 * 7 + c1 * 3 + c2)) * 30.0);
        const parz_chunk_config cfg = bounded_config(1e-2, (int)(refs.size() % 4), NULL, 4);
        std::vector<unsigned char> enc = encode(&a, chunk.data(), &cfg, "boxes");
        CHECK(!enc.empty() &&
              parz_chunk_decode(enc.data(), enc.size(), dec.data(), cn * 4, NULL) == PARZ_OK);
        r.at = packed.size();
        r.bytes = enc.size();
        packed.insert(packed.end(), enc.begin(), enc.end());
        packed.resize((packed.size() + 7) & ~(size_t)7);
        refs.push_back(r);
        for (size_t z = 0; z < 10; z++)
          for (size_t y = 0; y < 16; y++)
            for (size_t x = 0; x < 16; x++)
              if (c0 + z < 23 && c1 + y < 37 && c2 + x < 45)
                expect[((c0 + z) * 37 + c1 + y) * 45 + c2 + x] = dec[(z * 16 + y) * 16 + x];
      }
  void* d = NULL;
  cudaMalloc(&d, N * 4);
  static const unsigned long long bx[][6] = {
      {0, 0, 0, 23, 37, 45}, {3, 5, 7, 4, 9, 11}, {9, 15, 15, 3, 3, 3}, {22, 36, 44, 1, 1, 1}};
  for (const auto& b : bx) {
    parz_box box;
    memset(&box, 0, sizeof box);
    for (unsigned k = 0; k < 3; k++) {
      box.start[k] = b[k];
      box.count[k] = b[3 + k];
    }
    const size_t cnt = b[3] * b[4] * b[5];
    std::vector<float> want(cnt), have(cnt);
    for (size_t z = 0, i = 0; z < b[3]; z++)
      for (size_t y = 0; y < b[4]; y++)
        for (size_t x = 0; x < b[5]; x++)
          want[i++] = expect[((b[0] + z) * 37 + b[1] + y) * 45 + b[2] + x];
    size_t failed = 0;
    parz_error err;
    cudaMemset(d, 0xA5, N * 4);
    int rc = parz_gpu_assemble(ctx, &g, &box, packed.data(), packed.size(), refs.size(),
                               refs.data(), &fill, d, NULL, &failed, &err);
    CHECK(rc == PARZ_OK, "box %llu,%llu,%llu: %d (%s)", b[0], b[1], b[2], rc,
          rc ? err.message : "");
    cudaMemcpy(have.data(), d, cnt * 4, cudaMemcpyDeviceToHost);
    CHECK(memcmp(have.data(), want.data(), cnt * 4) == 0, "box %llu,%llu,%llu differs", b[0], b[1],
          b[2]);
  }
  cudaFree(d);
}

/* The filter path's GPU encoder writes the codec's chunks, the CPU's bytes
 * (test_gpu_bounded_encode.cu checks it at length). */
static void encoder_writes(void) {
  parz_array a;
  memset(&a, 0, sizeof a);
  a.type = PARZ_FLOAT;
  a.dims = 1;
  a.shape[0] = 1000;
  std::vector<float> d(1000);
  for (size_t i = 0; i < d.size(); i++)
    d[i] = (float)sin(0.01 * (double)i);
  const parz_chunk_config cfg = bounded_config(1e-3, 0, NULL, 4);
  std::vector<unsigned char> out(parz_chunk_bound(&a, &cfg)), want(out.size());
  size_t written = 0, cw = 0;
  parz_error err;
  int rc = parz_gpu_chunk_encode(ctx, &a, d.data(), &cfg, out.data(), out.size(), NULL, NULL,
                                 &written, &err);
  CHECK(rc == PARZ_OK, "GPU encode of a bounded chunk: %d (%s)", rc, rc ? err.message : "");
  CHECK(parz_chunk_encode(&a, d.data(), &cfg, want.data(), want.size(), &cw, &err) == PARZ_OK &&
            cw == written && memcmp(out.data(), want.data(), cw) == 0,
        "GPU encode of a bounded chunk: %zu bytes, not the CPU's %zu", written, cw);
}

/* Every real array in slabs of about 1 MiB along its first dimension, as float32 and float64,
 * at both bounds, Lorenzo and the cubic interpolation, at its own rank and flattened to 1-D;
 * fill values (|x| >= 1e9, levitus's land) given as the fill value, so that they are masked. */
static void real(const char* dir) {
  size_t na = 0;
  real_array* arr = real_arrays_load(dir, 0, &na);
  CHECK(arr != NULL && na > 0, "no arrays in %s", dir);
  unsigned long long chunks = 0;
  for (size_t i = 0; i < na; i++) {
    real_array* r = &arr[i];
    const size_t w0 = parz_type_size(r->array.type), n = r->bytes / w0;
    for (int t = 0; t < 2 - small; t++) {
      const parz_type type = t ? PARZ_DOUBLE : PARZ_FLOAT;
      const size_t w = parz_type_size(type);
      std::vector<unsigned char> data(n * w);
      for (size_t j = 0; j < n; j++) {
        const double x =
            r->array.type == PARZ_FLOAT ? ((const float*)r->data)[j] : ((const double*)r->data)[j];
        if (type == PARZ_FLOAT) {
          const float f = (float)x;
          memcpy(&data[j * w], &f, 4);
        } else {
          memcpy(&data[j * w], &x, 8);
        }
      }
      const void* fill = NULL;
      for (size_t j = 0; j < n && !fill; j++) {
        double x =
            type == PARZ_FLOAT ? ((const float*)data.data())[j] : ((const double*)data.data())[j];
        if (isfinite(x) && fabs(x) >= 1e9)
          fill = &data[j * w];
      }
      const size_t slice = n / r->array.shape[0] * w;
      size_t per = ((size_t)1 << 20) / slice;
      per = per ? per : 1;
      const double range = real_array_value_range(r);
      for (int e = 0; e < 2 - small; e++)
        for (int pred = 1; pred <= 3; pred += 2)
          for (int flat = 0; flat < 2; flat++) {
            if (flat && (e || pred == 1))
              continue; /* 1-D once per array and type */
            const double eb = (e ? 1e-5 : 1e-3) * range;
            const parz_chunk_config cfg = bounded_config(eb, pred, fill, w);
            for (size_t s0 = 0; s0 < r->array.shape[0]; s0 += per) {
              parz_array a = r->array;
              a.type = type;
              a.shape[0] = s0 + per < r->array.shape[0] ? per : r->array.shape[0] - s0;
              if (flat) {
                a.shape[0] = parz_array_count(&a);
                a.dims = 1;
              }
              char what[128];
              snprintf(what, sizeof what, "%s %s slab %zu eb %g predictor %d%s", r->name,
                       t ? "f64" : "f32", s0, eb, pred, flat ? " 1-D" : "");
              std::vector<unsigned char> c = encode(&a, data.data() + s0 * slice, &cfg, what);
              if (!c.empty())
                CHECK(compare(c, parz_array_count(&a) * w, what) == PARZ_OK, "%s", what);
              chunks++;
            }
          }
    }
    printf("%s: done\n", r->name);
  }
  printf("real arrays: %llu chunks compared\n", chunks);
  real_arrays_free(arr, na);
}

int main(int argc, char** argv) {
  const char* dir = NULL;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--small"))
      small = 1;
    else
      dir = argv[i];
  const int start = gpu_test_context(&ctx);
  if (start)
    return start;
  crafted();
  hostile();
  batch();
  folded();
  boxes();
  encoder_writes();
  if (dir)
    real(dir);
  parz_gpu_context_free(ctx);
  return test_finish("test_gpu_bounded");
}
