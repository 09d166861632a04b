/* The lossless codec's GPU decoder (gpu/lossless/) against the serial decoder: every type, rank
 * 1 to 4 (extents of 1, blocks cut at the edges), the predictors (Lorenzo, stack, rows, Holt's
 * for series), both transforms, every coder
 * (raw, bit lengths, in context), table kinds, C and payload checksums, special bit patterns
 * (NaN payloads, -0.0, subnormals, infinities, random bits), the real arrays and series in
 * slabs, batches mixing lossless, zfp and stored chunks, the filter path: the same bytes as
 * parz_chunk_decode. Hostile chunks (flipped payload bits, crafted segments): the serial
 * decoder's class of status, its bytes where both take the chunk, and nothing written outside
 * the destination. A lossless mode the kernels lack is refused before any work, and the GPU
 * encoder refuses the codec. Exits 77 (ctest SKIP) without a CUDA device.
 *
 * usage: test_gpu_lossless [DATA_DIR [SERIES_DIR]] [--small | --tiny]
 *   --small: fewer and smaller cases (for compute-sanitizer's memcheck);
 *   --tiny: one chunk of each path (for its racecheck). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <cuda_runtime.h>

#include "check.h"
#include "lossless_config.h"
#include "gpu_codecs.h"
#include "gpu_test_context.h"
#include "parz_gpu.h"
#include "real_arrays.h"
#include "residual_decode.h"
#include "transform_decode.h"
#include "xorshift.h"

static parz_gpu_context* ctx;

/* Bytes of poison before and after each GPU destination. */
#define GUARD 256

static std::vector<unsigned char> encode(const parz_array* a, const void* data,
                                         const parz_chunk_config* cfg) {
  parz_error e;
  size_t cap = parz_chunk_bound(a, cfg), written = 0;
  std::vector<unsigned char> chunk(cap ? cap : 1);
  if (!cap || parz_chunk_encode(a, data, cfg, chunk.data(), cap, &written, &e) != PARZ_OK) {
    CHECK(0, ": encode failed: %s", cap ? e.message : "no bound");
    return std::vector<unsigned char>();
  }
  chunk.resize(written);
  return chunk;
}

/* The class of a status: the GPU reports what the CPU reports, its messages aside. */
static int same_class(int gpu, int cpu) { return gpu == cpu; }

/* Decodes the chunks with parz_gpu_decode_device_batch into poisoned device buffers; statuses
 * and outputs in rc (the call's) and out[i]; guards checked. */
static int gpu_batch(const std::vector<std::vector<unsigned char>>& chunks,
                     std::vector<std::vector<unsigned char>>& out, size_t* failed, parz_error* e) {
  const size_t n = chunks.size();
  std::vector<parz_chunk_view> views(n);
  std::vector<void*> d_chunks(n), d_bufs(n), d_dsts(n);
  int rc = PARZ_OK;
  for (size_t i = 0; i < n && rc == PARZ_OK; i++)
    rc = parz_chunk_parse(chunks[i].data(), chunks[i].size(), &views[i], e);
  if (rc != PARZ_OK)
    return rc;
  for (size_t i = 0; i < n; i++) {
    const size_t raw = views[i].raw_bytes;
    cudaMalloc(&d_chunks[i], chunks[i].size());
    cudaMemcpy(d_chunks[i], chunks[i].data(), chunks[i].size(), cudaMemcpyHostToDevice);
    cudaMalloc(&d_bufs[i], raw + 2 * GUARD);
    cudaMemset(d_bufs[i], 0xA5, raw + 2 * GUARD);
    d_dsts[i] = (unsigned char*)d_bufs[i] + GUARD;
  }
  rc = parz_gpu_decode_device_batch(ctx, n, views.data(), d_chunks.data(), d_dsts.data(), NULL,
                                    failed, e);
  out.assign(n, std::vector<unsigned char>());
  for (size_t i = 0; i < n; i++) {
    const size_t raw = views[i].raw_bytes;
    std::vector<unsigned char> all(raw + 2 * GUARD);
    cudaMemcpy(all.data(), d_bufs[i], all.size(), cudaMemcpyDeviceToHost);
    size_t k, bad = 0;
    for (k = 0; k < GUARD; k++)
      bad += (all[k] != 0xA5) + (all[GUARD + raw + k] != 0xA5);
    CHECK(bad == 0, ": chunk %zu of %zu: %zu bytes written outside its destination", i, n, bad);
    out[i].assign(all.begin() + GUARD, all.begin() + GUARD + raw);
    cudaFree(d_chunks[i]);
    cudaFree(d_bufs[i]);
  }
  return rc;
}

/* Chunks of a mode the kernels lack, which the GPU refuses before any work and the plugin
 * decodes on the CPU; chunks of Holt's predictor, of the value dictionary and of the row
 * predictor the GPU took. */
static int refused_modes, holt_taken, dict_taken, rows_taken;

/* Whether the GPU's codec table takes chunk (a chunk that does not parse is left to the
 * decoders' own checks). */
static int gpu_takes(const std::vector<unsigned char>& chunk) {
  parz_chunk_view v;
  const parz_gpu_codec* codec;
  return parz_chunk_parse(chunk.data(), chunk.size(), &v, NULL) != PARZ_OK ||
         parz_gpu_codec_decoder(&v, 0, &codec, NULL) == PARZ_OK;
}

/* Whether a has at most one dimension of extent above 1: a series, for which predictor 0 lets
 * the encoder choose Holt's predictor or the value dictionary. */
static int series(const parz_array* a) {
  unsigned d, long_dims = 0;
  for (d = 0; d < a->dims; d++)
    long_dims += a->shape[d] > 1;
  return long_dims <= 1;
}

/* The device API (one chunk) and the filter path against the serial decoder; a chunk of a mode
 * the kernels lack refused by both with PARZ_ERR_UNSUPPORTED, nothing written. */
static void compare(const char* what, const std::vector<unsigned char>& chunk, size_t raw) {
  parz_error e;
  std::vector<unsigned char> ref(raw + 1), host(raw + 2 * GUARD, 0x5A);
  std::vector<std::vector<unsigned char>> out;
  const int takes = gpu_takes(chunk);
  parz_chunk_view hv;
  refused_modes += !takes;
  if (takes && parz_chunk_parse(chunk.data(), chunk.size(), &hv, NULL) == PARZ_OK &&
      hv.codec == PARZ_CODEC_LOSSLESS) {
    holt_taken += hv.codec_params[1] == 2;
    dict_taken += hv.codec_params[0] == 128;
    rows_taken += hv.codec_params[1] == 3;
  }
  const int serial_rc = parz_chunk_decode(chunk.data(), chunk.size(), ref.data(), raw, &e);
  const int ref_rc = takes ? serial_rc : PARZ_ERR_UNSUPPORTED;
  int rc = parz_gpu_chunk_decode(ctx, chunk.data(), chunk.size(), host.data() + GUARD, raw, &e);
  CHECK(same_class(rc, ref_rc), ": %s: filter path status %d (%s), serial %d", what, rc,
        rc ? e.message : "", ref_rc);
  if (rc == PARZ_OK && ref_rc == PARZ_OK)
    CHECK(memcmp(host.data() + GUARD, ref.data(), raw) == 0, ": %s: filter path output differs",
          what);
  size_t k, bad = 0;
  for (k = 0; k < GUARD; k++)
    bad += (host[k] != 0x5A) + (host[GUARD + raw + k] != 0x5A);
  CHECK(bad == 0, ": %s: the filter path wrote %zu bytes outside", what, bad);
  std::vector<std::vector<unsigned char>> one(1, chunk);
  rc = gpu_batch(one, out, NULL, &e);
  CHECK(same_class(rc, ref_rc), ": %s: device API status %d (%s), serial %d", what, rc,
        rc ? e.message : "", ref_rc);
  if (rc == PARZ_OK && ref_rc == PARZ_OK)
    CHECK(out.size() == 1 && memcmp(out[0].data(), ref.data(), raw) == 0,
          ": %s: device API output differs", what);
  if (!takes)
    CHECK(out.size() == 1 &&
              memcmp(out[0].data(), std::vector<unsigned char>(raw, 0xA5).data(), raw) == 0,
          ": %s: the device API wrote before refusing", what);
}

static double unit(void) { return (double)(xorshift_next() >> 11) / 9007199254740992.0; }

/* Values of a's type: a smooth field with noise, random bit patterns (kind 1), special values
 * (kind 2: NaN payloads, -0.0, subnormals, infinities among the field), tenths (kind 3: the
 * scaled integers' transform for floats) or the field with its first half one fill value (kind 4:
 * flat blocks, whose runs of zero residuals coder 4 writes with no bytes). */
static std::vector<unsigned char> make(const parz_array* a, int kind) {
  const size_t n = parz_array_count(a), size = parz_type_size(a->type);
  std::vector<unsigned char> d(n * size);
  for (size_t i = 0; i < n; i++) {
    const double x = sin(0.03 * (double)(i % 1013)) * 100.0 + cos(1e-3 * (double)i) * 40.0 +
                     (unit() - 0.5) * 0.01;
    uint64_t bits = xorshift_next();
    unsigned char* p = d.data() + i * size;
    if (kind == 1 || (kind == 4 && i < n / 2)) {
      if (kind == 4)
        bits = 0xd01502f9u; /* float32's -1e10, any type's bits alike */
      memcpy(p, &bits, size);
      continue;
    }
    switch (a->type) {
      case PARZ_FLOAT: {
        float f = kind == 3   ? (float)(int)(x * 10) / 10.0f
                  : kind == 5 ? (float)(int)(x * 4) / 4.0f
                              : (float)x;
        memcpy(p, &f, 4);
        break;
      }
      case PARZ_DOUBLE: {
        double f = kind == 3   ? (double)(long long)(x * 1000) / 10.0
                   : kind == 5 ? (double)(long long)(x * 8) / 8.0
                               : x;
        memcpy(p, &f, 8);
        break;
      }
      case PARZ_INT32: {
        int32_t v = (int32_t)(x * 1e6);
        memcpy(p, &v, 4);
        break;
      }
      default: {
        int64_t v = (int64_t)(x * 1e15);
        memcpy(p, &v, 8);
        break;
      }
    }
    if (kind == 2 && i % 37 == 5 && (a->type == PARZ_FLOAT || a->type == PARZ_DOUBLE)) {
      static const uint64_t f32[] = {0x7fc00001u, 0xffa00123u, 0x80000000u, 0x00000001u,
                                     0x007fffffu, 0x7f800000u, 0xff800000u};
      static const uint64_t f64[] = {0x7ff8000000000123ull, 0xfff4000000000001ull,
                                     0x8000000000000000ull, 0x0000000000000001ull,
                                     0x000fffffffffffffull, 0x7ff0000000000000ull,
                                     0xfff0000000000000ull};
      const unsigned j = (unsigned)(i / 37 % 7);
      memcpy(p, a->type == PARZ_FLOAT ? &f32[j] : &f64[j], size);
    }
  }
  return d;
}

static const char* type_name(parz_type t) { return parz_type_name(t); }

/* Whether lossless transform k (the codec's parameter 0) divides by a power of two above 1. */
static int scale_halves(unsigned k) {
  static const double scales[] = {2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
  const double s = k >= 1 && k <= 37 ? parz_ll_scale_of(k) : 1.0;
  for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++)
    if (s == scales[i])
      return 1;
  return 0;
}

static void synthetic_cases(int small) {
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  static const struct {
    unsigned dims;
    size_t shape[4];
  } shapes[] = {{1, {10000}},        {1, {1}},          {2, {130, 70}},
                {2, {1, 5000}},      {3, {20, 33, 17}}, {3, {5, 1, 40}},
                {4, {3, 9, 10, 17}}, {4, {2, 1, 1, 9}}, {2, {64, 64}}};
  static const uint32_t Cs[] = {0, 1, 3};
  static const parz_table_kind tables[] = {PARZ_TABLE_HYBRID, PARZ_TABLE_OFFSETS,
                                           PARZ_TABLE_LENGTHS};
  int cases = 0, zero_runs = 0, halved = 0;
  for (unsigned t = 0; t < 4; t++)
    for (unsigned s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
      for (int kind = 0; kind < 6; kind++) {
        parz_array a;
        memset(&a, 0, sizeof a);
        a.type = types[t];
        a.dims = shapes[s].dims;
        memcpy(a.shape, shapes[s].shape, sizeof a.shape);
        if ((small && (s % 3 || kind % 2)) || (kind == 5 && t >= 2))
          continue; /* kind 5: floats in quarters or eighths */
        const std::vector<unsigned char> data = make(&a, kind);
        const size_t raw = data.size();
        for (unsigned predictor = 0; predictor < 4; predictor++)
          for (unsigned c = 0; c < 3; c++) {
            if (predictor == 2 || (predictor == 1 && a.dims < 4 && !series(&a)) ||
                (predictor == 3 && series(&a)))
              continue; /* Holt's is the encoder's choice; stack is lorenzo below rank 4; for a
                           series, lorenzo without the encoder's choice of Holt or the
                           dictionary; rows is lorenzo for a series */
            parz_chunk_config cfg = test_lossless_config(predictor, Cs[c]);
            cfg.table = tables[(s + c + kind) % 3];
            cfg.checksum = (s + kind + c) % 2 ? PARZ_CHECKSUM_ON : PARZ_CHECKSUM_OFF;
            const std::vector<unsigned char> chunk = encode(&a, data.data(), &cfg);
            if (chunk.empty())
              continue;
            char what[160];
            snprintf(what, sizeof what, "%s rank %u (%zu..) kind %d predictor %u C %u table %d",
                     type_name(a.type), a.dims, a.shape[0], kind, predictor, Cs[c], (int)cfg.table);
            compare(what, chunk, raw);
            parz_chunk_view v;
            if (parz_chunk_parse(chunk.data(), chunk.size(), &v, NULL) == PARZ_OK &&
                chunk[chunk.size() - v.payload_bytes] == PARZ_LL_CODER_ZERO_RUNS)
              zero_runs++; /* segment 0 coder 4 */
            if (parz_chunk_parse(chunk.data(), chunk.size(), &v, NULL) == PARZ_OK &&
                v.array.dims == 2 && v.array.shape[0] > 1 && v.array.shape[1] > 1 &&
                v.codec_params[1] == 0 && scale_halves(v.codec_params[0]))
              halved++; /* Lorenzo, rank 2, a scale of 2^k, k > 0: grid_kernel's product */
            std::vector<unsigned char> back(raw);
            CHECK(
                parz_chunk_decode(chunk.data(), chunk.size(), back.data(), raw, NULL) == PARZ_OK &&
                    memcmp(back.data(), data.data(), raw) == 0,
                ": %s: the serial decoder does not give the values back", what);
            cases++;
          }
      }
  CHECK(zero_runs > 0, ": synthetic: no chunk's segment 0 of coder 4");
  CHECK(small || halved >= 4, ": synthetic: %d chunks of rank 2 under a scale of 2^k, k > 0",
        halved);
  printf("  synthetic: %d chunks (%d with coder 4 first, %d of rank 2 scaled by 2^k)\n", cases,
         zero_runs, halved);
}

/* Real arrays and series in slabs of at most 4 MiB, both predictors where they differ. */
static void real_cases(const char* dir, size_t max_bytes) {
  size_t n = 0;
  real_array* list = real_arrays_load(dir, max_bytes, &n);
  for (size_t i = 0; i < n; i++) {
    for (unsigned predictor = 0; predictor < (list[i].array.dims == 4 ? 2u : 1u); predictor++) {
      parz_chunk_config cfg = test_lossless_config(predictor, 0);
      cfg.checksum = PARZ_CHECKSUM_ON;
      const std::vector<unsigned char> chunk = encode(&list[i].array, list[i].data, &cfg);
      char what[160];
      snprintf(what, sizeof what, "%s predictor %u", list[i].name, predictor);
      if (!chunk.empty())
        compare(what, chunk, list[i].bytes);
    }
    printf("  real: %s (%zu bytes)\n", list[i].name, list[i].bytes);
  }
  if (!n)
    printf("  (no arrays in %s)\n", dir);
  real_arrays_free(list, n);
}

/* A 2-D array of type t, n0 x n1. */
static parz_array grid_of(parz_type t, size_t n0, size_t n1) {
  parz_array a;
  memset(&a, 0, sizeof a);
  a.type = t;
  a.dims = 2;
  a.shape[0] = n0, a.shape[1] = n1;
  return a;
}

/* Flipped payload bits: with checksums the GPU says PARZ_ERR_CHECKSUM as the CPU does; without,
 * it agrees with the serial decoder (mostly stream errors; where a flip leaves a valid stream,
 * the same bytes). */
static void hostile_cases(int small) {
  parz_array a = grid_of(PARZ_FLOAT, 150, 200);
  const std::vector<unsigned char> data = make(&a, 0);
  int stream = 0, checksum = 0, ok = 0, runs_lied = 0, lengths_crafted = 0;
  for (int sums = 0; sums < 2; sums++) {
    parz_chunk_config cfg = test_lossless_config(0, 1);
    cfg.checksum = sums ? PARZ_CHECKSUM_ON : PARZ_CHECKSUM_OFF;
    const std::vector<unsigned char> chunk = encode(&a, data.data(), &cfg);
    parz_chunk_view v;
    if (chunk.empty() || parz_chunk_parse(chunk.data(), chunk.size(), &v, NULL) != PARZ_OK)
      continue;
    const size_t at0 = chunk.size() - v.payload_bytes;
    for (int t = 0; t < (small ? 6 : 60); t++) {
      std::vector<unsigned char> bad = chunk;
      const int flips = 1 + (int)(xorshift_next() % 4);
      for (int f = 0; f < flips; f++)
        bad[at0 + (size_t)(xorshift_next() % v.payload_bytes)] ^=
            (unsigned char)(1u << (xorshift_next() % 8));
      std::vector<unsigned char> tmp(data.size());
      const int rc = parz_chunk_decode(bad.data(), bad.size(), tmp.data(), tmp.size(), NULL);
      stream += rc == PARZ_ERR_STREAM;
      checksum += rc == PARZ_ERR_CHECKSUM;
      ok += rc == PARZ_OK;
      char what[80];
      snprintf(what, sizeof what, "flips #%d checksums %d", t, sums);
      compare(what, bad, data.size());
    }
    /* crafted: each segment's coder byte an unknown coder, then a raw coder byte on a coded
     * segment (its size is not the raw size) */
    for (unsigned coder = 3; coder < 5; coder++) {
      std::vector<unsigned char> bad = chunk;
      bad[at0] = (unsigned char)(coder == 3 ? 7 : 0);
      char what[80];
      snprintf(what, sizeof what, "coder byte %u checksums %d", bad[at0], sums);
      compare(what, bad, data.size());
    }
    /* crafted: segment 0's code lengths: a length past PARZ_LL_CODE_MAX in the last context,
     * a context's every length 1 (no prefix code), none (no word), two of them swapped (another
     * prefix code) */
    const unsigned coder0 = chunk[at0];
    const bool runs0 = coder0 == PARZ_LL_CODER_RUNS || coder0 == PARZ_LL_CODER_ZERO_RUNS;
    const unsigned code0 = runs0 ? chunk[at0 + 1] : coder0;
    if (code0 == PARZ_LL_CODER_LENGTHS || code0 == PARZ_LL_CODER_CONTEXT) {
      const size_t lengths = at0 + (runs0 ? PARZ_LL_RUN_HEAD : 1);
      const unsigned ns = 33, nc = parz_ll_contexts(32, code0);
      auto nibble = [&](std::vector<unsigned char>& b, unsigned c, unsigned k) -> unsigned char& {
        return b[lengths + (4u * (ns * c + k)) / 8];
      };
      auto set = [&](std::vector<unsigned char>& b, unsigned c, unsigned k, unsigned v) {
        const unsigned sh = (4u * (ns * c + k)) & 4u;
        nibble(b, c, k) = (unsigned char)((nibble(b, c, k) & ~(15u << sh)) | v << sh);
      };
      auto get = [&](std::vector<unsigned char>& b, unsigned c, unsigned k) {
        return (unsigned)(nibble(b, c, k) >> ((4u * (ns * c + k)) & 4u)) & 15u;
      };
      for (int m = 0; m < 4; m++) {
        std::vector<unsigned char> bad = chunk;
        if (m == 0)
          set(bad, nc - 1, 3, PARZ_LL_CODE_MAX + 1);
        for (unsigned k = 0; m == 1 && k < ns; k++)
          set(bad, 0, k, 1);
        for (unsigned k = 0; m == 2 && k < ns; k++)
          set(bad, 0, k, 0);
        if (m == 3) {
          const unsigned x = get(bad, 0, 1), y = get(bad, 0, 2);
          set(bad, 0, 1, y);
          set(bad, 0, 2, x);
        }
        char what[80];
        snprintf(what, sizeof what, "code lengths %d checksums %d", m, sums);
        compare(what, bad, data.size());
      }
      lengths_crafted++;
    }
    /* crafted: coder 3's header lying (run 0's byte length one off, q out of range) */
    unsigned code, q;
    size_t lengths_bytes, runs, first;
    if (chunk[at0] == PARZ_LL_CODER_RUNS &&
        parz_ll_runs_layout(&chunk[at0], (size_t)v.payload_bytes, 4096, 32, &code, &q,
                            &lengths_bytes, &runs, &first) == PARZ_LL_OK) {
      const size_t field = at0 + PARZ_LL_RUN_HEAD + lengths_bytes;
      for (int d = -1; d <= 2; d++) {
        std::vector<unsigned char> bad = chunk;
        char what[80];
        if (d == 2) {
          bad[at0 + 2] = (unsigned char)(PARZ_LL_RUN_QMAX + 1);
        } else {
          const unsigned len = (bad[field] | bad[field + 1] << 8) + (unsigned)d;
          bad[field] = (unsigned char)len;
          bad[field + 1] = (unsigned char)(len >> 8);
        }
        snprintf(what, sizeof what, "coder 3 header lie %d checksums %d", d, sums);
        compare(what, bad, data.size());
      }
      runs_lied++;
    }
  }
  CHECK(runs_lied == 2, ": hostile: %d chunks of coder 3 segments, not 2", runs_lied);
  CHECK(lengths_crafted == 2, ": hostile: %d chunks with code lengths crafted, not 2",
        lengths_crafted);
  printf("  hostile: serial decoder took %d, refused %d as stream and %d as checksum errors\n", ok,
         stream, checksum);
}

/* Batches mixing lossless (two types and ranks, so several runs), zfp and stored chunks, each
 * against the serial decoder; then with one lossless chunk corrupt: reported by index, every
 * other chunk still decoded. */
static void batch_cases(void) {
  std::vector<std::vector<unsigned char>> chunks;
  std::vector<parz_array> arrays;
  for (int i = 0; i < 9; i++) {
    parz_array a;
    memset(&a, 0, sizeof a);
    a.type = i % 3 == 1 ? PARZ_DOUBLE : PARZ_FLOAT;
    a.dims = i % 3 == 1 ? 3 : 2;
    a.shape[0] = 40 + i, a.shape[1] = 70, a.shape[2] = a.dims == 3 ? 9 : 0;
    parz_chunk_config cfg = test_lossless_config(0, 0);
    if (i == 4) {
      cfg.codec = 0;
      parz_params_reversible(&cfg.params);
    }
    std::vector<unsigned char> data = make(&a, i == 7 ? 1 : 0);
    if (i == 7)
      cfg.stored = PARZ_STORED_WHEN_SMALLER; /* random bits: stored */
    chunks.push_back(encode(&a, data.data(), &cfg));
    arrays.push_back(a);
  }
  for (int corrupt = 0; corrupt < 2; corrupt++) {
    std::vector<std::vector<unsigned char>> in = chunks, out;
    parz_chunk_view v;
    if (corrupt && parz_chunk_parse(in[5].data(), in[5].size(), &v, NULL) == PARZ_OK)
      in[5][in[5].size() - v.payload_bytes] = 9; /* an unknown coder */
    size_t failed = 99;
    parz_error e;
    int want = PARZ_OK;
    if (corrupt) { /* the serial decoder's refusal of chunk 5 */
      std::vector<unsigned char> tmp(v.raw_bytes);
      want = parz_chunk_decode(in[5].data(), in[5].size(), tmp.data(), tmp.size(), NULL);
      CHECK(want != PARZ_OK, ": batch: the serial decoder takes the corrupt chunk");
    }
    const int rc = gpu_batch(in, out, &failed, &e);
    CHECK(rc == want && (!corrupt || failed == 5),
          ": batch (corrupt %d): status %d (want %d), "
          "failed %zu: %s",
          corrupt, rc, want, failed, rc ? e.message : "");
    for (size_t i = 0; i < in.size(); i++) {
      parz_chunk_view w;
      if (corrupt && i == 5)
        continue;
      if (parz_chunk_parse(in[i].data(), in[i].size(), &w, NULL) != PARZ_OK)
        continue;
      std::vector<unsigned char> ref(w.raw_bytes);
      CHECK(
          parz_chunk_decode(in[i].data(), in[i].size(), ref.data(), ref.size(), NULL) == PARZ_OK &&
              out[i] == ref,
          ": batch (corrupt %d): chunk %zu (codec %u) differs", corrupt, i, w.codec);
    }
  }
  /* one run of lossless chunks of one type and rank, of different sizes (so different counts
   * of segments and blocks per row of each launch) */
  std::vector<std::vector<unsigned char>> same, out;
  for (int i = 0; i < 7; i++) {
    parz_array a = grid_of(PARZ_FLOAT, 20 + 45 * (size_t)i, 130 - 9 * (size_t)i);
    parz_chunk_config cfg = test_lossless_config(0, i % 3);
    std::vector<unsigned char> data = make(&a, 0);
    same.push_back(encode(&a, data.data(), &cfg));
  }
  size_t failed = 99;
  parz_error e;
  CHECK(gpu_batch(same, out, &failed, &e) == PARZ_OK, ": batch of one run: %s", e.message);
  for (size_t i = 0; i < same.size() && i < out.size(); i++) {
    parz_chunk_view w;
    CHECK(parz_chunk_parse(same[i].data(), same[i].size(), &w, NULL) == PARZ_OK,
          ": batch of one run: chunk %zu", i);
    std::vector<unsigned char> ref(w.raw_bytes);
    CHECK(parz_chunk_decode(same[i].data(), same[i].size(), ref.data(), ref.size(), NULL) ==
                  PARZ_OK &&
              out[i] == ref,
          ": batch of one run: chunk %zu differs", i);
  }
  printf("  batch: %zu chunks, lossless, zfp and stored; a run of %zu lossless chunks\n",
         chunks.size(), same.size());
}

/* A run's payload checksums (the frame's launches for a run, parz_gpu_enqueue_run_checksums):
 * lossless chunks of one type and rank with and without checksums, partitions of few and of
 * many CTAs; a flipped payload bit in one chunk at a time (its first, middle or last word) is
 * PARZ_ERR_CHECKSUM for that chunk, as the serial decoder says, and every other chunk decodes. */
static void batch_checksum_cases(void) {
  std::vector<std::vector<unsigned char>> run;
  for (int i = 0; i < 6; i++) {
    parz_array a = grid_of(PARZ_FLOAT, i == 2 ? 700 : 60 + 37 * (size_t)i, i == 2 ? 600 : 150);
    parz_chunk_config cfg = test_lossless_config(0, i == 4 ? 1 : 0);
    cfg.checksum = i % 3 == 1 ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_ON;
    if (i == 4)
      cfg.partition_segments = 2;
    std::vector<unsigned char> data = make(&a, 0);
    run.push_back(encode(&a, data.data(), &cfg));
  }
  int flipped = 0;
  for (size_t k = 0; k < run.size(); k++)
    for (int where = 0; where < 3; where++) {
      parz_chunk_view v;
      if (parz_chunk_parse(run[k].data(), run[k].size(), &v, NULL) != PARZ_OK || !v.nchecksums)
        continue;
      std::vector<std::vector<unsigned char>> in = run, out;
      const size_t at = in[k].size() - v.payload_bytes +
                        (where == 0 ? 0 : where == 1 ? v.payload_bytes / 2 : v.payload_bytes - 1);
      in[k][at] ^= (unsigned char)(1u << (3 + where));
      std::vector<unsigned char> tmp(v.raw_bytes);
      const int want = parz_chunk_decode(in[k].data(), in[k].size(), tmp.data(), tmp.size(), NULL);
      size_t failed = 99;
      parz_error e;
      const int rc = gpu_batch(in, out, &failed, &e);
      CHECK(want == PARZ_ERR_CHECKSUM && rc == want && failed == k,
            ": run checksums: a flip at byte %zu of chunk %zu: status %d (serial %d), failed %zu",
            at, k, rc, want, failed);
      flipped++;
      for (size_t i = 0; i < in.size() && i < out.size(); i++) {
        parz_chunk_view w;
        if (i == k || parz_chunk_parse(in[i].data(), in[i].size(), &w, NULL) != PARZ_OK)
          continue;
        std::vector<unsigned char> ref(w.raw_bytes);
        CHECK(parz_chunk_decode(in[i].data(), in[i].size(), ref.data(), ref.size(), NULL) ==
                      PARZ_OK &&
                  out[i] == ref,
              ": run checksums: chunk %zu differs after a flip in chunk %zu", i, k);
      }
    }
  CHECK(flipped == 12, ": run checksums: %d flips in chunks with checksums", flipped);
  printf("  batch checksums: a run of %zu lossless chunks, %d payload flips\n", run.size(),
         flipped);
}

/* A mode the kernels lack (a predictor id past the row predictor's, as another version may
 * write): refused
 * with PARZ_ERR_UNSUPPORTED before any work, the destination untouched; the GPU encoder refuses
 * the codec. */
static void refusals(void) {
  parz_array a;
  memset(&a, 0, sizeof a);
  a.type = PARZ_FLOAT;
  a.dims = 1;
  a.shape[0] = 5000;
  const std::vector<unsigned char> data = make(&a, 0);
  parz_chunk_config cfg = test_lossless_config(0, 0);
  const std::vector<unsigned char> chunk = encode(&a, data.data(), &cfg);
  parz_chunk_view v;
  parz_error e;
  void *d_chunk = NULL, *d_dst = NULL;
  if (chunk.empty() || parz_chunk_parse(chunk.data(), chunk.size(), &v, &e) != PARZ_OK)
    return;
  v.codec_params[1] = 4; /* the predictor byte (FORMAT.md, "Lossless chunks") */
  cudaMalloc(&d_chunk, chunk.size());
  cudaMalloc(&d_dst, v.raw_bytes);
  cudaMemcpy(d_chunk, chunk.data(), chunk.size(), cudaMemcpyHostToDevice);
  cudaMemset(d_dst, 0xA5, v.raw_bytes);
  int rc = parz_gpu_decode_device(ctx, &v, d_chunk, d_dst, NULL, &e);
  CHECK(rc == PARZ_ERR_UNSUPPORTED && strstr(e.message, "predictor 4"),
        ": predictor 4: status %d (%s)", rc, rc ? e.message : "");
  std::vector<unsigned char> back(v.raw_bytes);
  cudaMemcpy(back.data(), d_dst, back.size(), cudaMemcpyDeviceToHost);
  size_t touched = 0;
  for (unsigned char b : back)
    touched += b != 0xA5;
  CHECK(touched == 0, ": predictor 4: %zu bytes written before the refusal", touched);
  cudaMemcpy(d_dst, data.data(), data.size(), cudaMemcpyHostToDevice);
  size_t written = 0;
  rc = parz_gpu_encode_device(ctx, &a, d_dst, &cfg, d_chunk, chunk.size(), &written, NULL, &e);
  CHECK(rc == PARZ_ERR_UNSUPPORTED && strstr(e.message, "lossless"),
        ": GPU encode of lossless: status %d (%s)", rc, rc ? e.message : "");
  cudaFree(d_chunk);
  cudaFree(d_dst);
}

/* Few and small chunks, one of each path (coder 3's runs, Holt's predictor, the dictionary, the
 * row predictor, a run of a batch), for compute-sanitizer's racecheck, which is slow per
 * launch. */
static void tiny_cases(void) {
  parz_array a = grid_of(PARZ_FLOAT, 100, 130);
  const std::vector<unsigned char> grid = make(&a, 0);
  parz_chunk_config cfg = test_lossless_config(0, 1);
  std::vector<std::vector<unsigned char>> run(2, encode(&a, grid.data(), &cfg)), out;
  compare("tiny grid", run[0], grid.size());
  a.shape[0] = 70;
  run[1] = encode(&a, grid.data(), &cfg);
  size_t failed = 99;
  parz_error e;
  CHECK(gpu_batch(run, out, &failed, &e) == PARZ_OK, ": tiny batch: %s", e.message);
  a.type = PARZ_INT32;
  a.dims = 1;
  a.shape[0] = 9000, a.shape[1] = 0;
  std::vector<unsigned char> series(9000 * 4);
  for (int32_t i = 0; i < 9000; i++) {
    const int32_t v = 5 + 3 * i + (int32_t)(xorshift_next() % 3);
    memcpy(&series[4 * (size_t)i], &v, 4);
  }
  cfg = test_lossless_config(0, 0);
  compare("tiny Holt", encode(&a, series.data(), &cfg), series.size());
  for (int32_t i = 0; i < 9000; i++) {
    const int32_t v = (i / 7 + i / 13) % 5 * 1000;
    memcpy(&series[4 * (size_t)i], &v, 4);
  }
  compare("tiny dictionary", encode(&a, series.data(), &cfg), series.size());
  /* 3 records of 3000 values, random walks apart: a block of the row predictor each */
  a.dims = 2;
  a.shape[0] = 3, a.shape[1] = 3000;
  for (int32_t i = 0, y = 0; i < 9000; i++) {
    y = i % 3000 ? y + (int32_t)(xorshift_next() % 201) - 100 : (int32_t)(i / 3000) * 100000;
    memcpy(&series[4 * (size_t)i], &y, 4);
  }
  compare("tiny rows", encode(&a, series.data(), &cfg), series.size());
  CHECK(holt_taken >= 1 && dict_taken >= 1 && rows_taken >= 1,
        ": tiny: %d of Holt's, %d dictionaries, %d of the row predictor", holt_taken, dict_taken,
        rows_taken);
}

int main(int argc, char** argv) {
  const char* dirs[2] = {NULL, NULL};
  int small = 0, ndirs = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--small"))
      small = 1;
    else if (!strcmp(argv[i], "--tiny"))
      small = 2;
    else if (ndirs < 2)
      dirs[ndirs++] = argv[i];
  }
  const int start = gpu_test_context(&ctx);
  if (start)
    return start;
  if (small == 2) {
    tiny_cases();
    parz_gpu_context_free(ctx);
    return test_finish("test_gpu_lossless --tiny");
  }
  refusals();
  synthetic_cases(small);
  hostile_cases(small);
  batch_cases();
  batch_checksum_cases();
  for (int d = 0; d < ndirs; d++)
    real_cases(dirs[d], small ? ((size_t)1 << 18) : ((size_t)4 << 20));
  printf(
      "  refused (modes without kernels, decoded on the CPU): %d chunks; on the GPU, Holt's: "
      "%d, dictionary: %d, rows: %d\n",
      refused_modes, holt_taken, dict_taken, rows_taken);
  CHECK(ndirs < 2 || (holt_taken > 0 && dict_taken > 0 && rows_taken > 0 && refused_modes == 0),
        ": series: %d refused, %d of Holt's, %d dictionaries and %d of the row predictor decoded "
        "on the GPU",
        refused_modes, holt_taken, dict_taken, rows_taken);
  parz_gpu_context_free(ctx);
  return test_finish("test_gpu_lossless");
}
