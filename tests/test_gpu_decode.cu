/* GPU decoder against the serial decoder: every mode, type, rank 1..4, table kind, each length
 * parser, the device API and the filter path must give the same bytes as parz_chunk_decode,
 * non-finite exceptions, masked values and stored chunks included; corrupt chunks must give the serial decoder's status (and its
 * bytes when that status is OK). Exits 77 (ctest SKIP) when no CUDA device is present.
 *
 * usage: test_gpu_decode [DATA_DIR] [--small] [--masked]
 *   DATA_DIR: the real arrays (shared/data); cases with missing files are skipped, said so.
 *   --small : fewer and smaller cases (for compute-sanitizer runs).
 *   --masked: only the masked cases (scripts/gpu_mask_check.sh). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <cuda_runtime.h>

#include "check.h"
#include "gpu_internal.h"
#include "parz_gpu.h"
#include "view_fits.h"
#include "xorshift.h"

static parz_gpu_context* ctx;

static double unit_rand(void) { return (double)(xorshift_next() >> 11) / 9007199254740992.0; }

/* A smooth field plus noise, in the array's type; optional non-finite values. */
static void* make_array(const parz_array* a, int nonfinite) {
  size_t n = parz_array_count(a), i;
  size_t sz = parz_type_size(a->type);
  unsigned char* data = (unsigned char*)malloc(n * sz);
  for (i = 0; i < n; i++) {
    double x = sin(0.05 * (double)(i % 997)) * 100.0 + cos(0.001 * (double)i) * 50.0 +
               (unit_rand() - 0.5) * 0.5;
    switch (a->type) {
      case PARZ_FLOAT: ((float*)data)[i] = (float)x; break;
      case PARZ_DOUBLE: ((double*)data)[i] = x; break;
      case PARZ_INT32: ((int32_t*)data)[i] = (int32_t)(x * 1000.0); break;
      case PARZ_INT64: ((int64_t*)data)[i] = (int64_t)(x * 1e9); break;
    }
  }
  if (nonfinite && (a->type == PARZ_FLOAT || a->type == PARZ_DOUBLE)) {
    for (i = 0; i < 7 && i < n; i++) {
      size_t at = (size_t)(xorshift_next() % n);
      if (a->type == PARZ_FLOAT)
        ((float*)data)[at] = i % 3 == 0 ? NAN : i % 3 == 1 ? INFINITY : -INFINITY;
      else
        ((double*)data)[at] = i % 3 == 0 ? NAN : i % 3 == 1 ? INFINITY : -INFINITY;
    }
  }
  return data;
}

static unsigned char* encode(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                             size_t* bytes) {
  parz_error e;
  size_t cap = parz_chunk_bound(a, cfg);
  unsigned char* chunk = (unsigned char*)malloc(cap ? cap : 1);
  if (!cap || parz_chunk_encode(a, data, cfg, chunk, cap, bytes, &e) != PARZ_OK) {
    fprintf(stderr, "encode failed: %s\n", cap ? e.message : "no bound");
    free(chunk);
    return NULL;
  }
  return chunk;
}

/* Decodes `chunk` with the device API into fresh device memory; returns the status. With a
 * shape, the device API's steps with the chunk's parse shaped by it (gpu_internal.h). */
static int gpu_device_decode(const unsigned char* chunk, size_t bytes, void* out, size_t out_bytes,
                             const parz_gpu_shape* shape, parz_error* e) {
  parz_chunk_view v;
  parz_gpu_scratch s;
  void *d_chunk = NULL, *d_out = NULL;
  int rc = parz_chunk_parse(chunk, bytes, &v, e);
  if (rc != PARZ_OK)
    return rc;
  if (cudaMalloc(&d_chunk, bytes) != cudaSuccess || cudaMalloc(&d_out, v.raw_bytes) != cudaSuccess)
    return PARZ_ERR_DEVICE;
  cudaMemcpy(d_chunk, chunk, bytes, cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0xA5, v.raw_bytes); /* poison: every value must be written */
  if (!shape)
    rc = parz_gpu_decode_device(ctx, &v, d_chunk, d_out, 0, e);
  else if ((rc = parz_gpu_scratch_reserve(ctx, &v, 1, &s, e)) == PARZ_OK &&
           (rc = parz_gpu_fault_clear(ctx, 1, 0, e)) == PARZ_OK &&
           (rc = parz_gpu_enqueue_chunk(ctx, &v, d_chunk, d_out, &s, shape, 0, e)) == PARZ_OK)
    rc = parz_gpu_fault_check(ctx, &v, 1, 0, NULL, e);
  if (rc == PARZ_OK && v.raw_bytes <= out_bytes)
    cudaMemcpy(out, d_out, v.raw_bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_chunk);
  cudaFree(d_out);
  return rc;
}

/* Parses forced on the GPU decoder beside its own choice (NULL, whose decode waits for the
 * whole parse grid but in large chunks and masked ones that parse nothing): the general
 * block-by-block parser, and with each
 * decoding thread waiting for its own segment's parse, the segment parser with G = 3 (lanes
 * 3..31 of each parsing warp idle) and the decoder's own parser. */
static const parz_gpu_shape forced_shapes[] = {{0, PARZ_GPU_SKIP_BLOCK, PARZ_GPU_WAIT_GRID},
                                               {3, PARZ_GPU_SKIP_SEGMENT, PARZ_GPU_WAIT_SEGMENT},
                                               {0, PARZ_GPU_SKIP_AUTO, PARZ_GPU_WAIT_SEGMENT}};
#define NSHAPES (int)(1 + sizeof forced_shapes / sizeof forced_shapes[0])

/* Shape k of NSHAPES: 0 is the decoder's own choice. */
static const parz_gpu_shape* shape_at(int k) { return k ? &forced_shapes[k - 1] : NULL; }

static const char* shape_name(int k) {
  static char buf[48];
  const parz_gpu_shape* sh = shape_at(k);
  if (!sh)
    return "auto";
  snprintf(buf, sizeof buf, "G=%u/parser=%d/wait=%d", sh->group, sh->parser, sh->wait);
  return buf;
}

/* Every GPU path against the serial decoder on one chunk. */
static void compare_chunk(const char* what, const unsigned char* chunk, size_t bytes,
                          size_t raw_bytes, int all_shapes) {
  parz_error e;
  unsigned char* ref = (unsigned char*)malloc(raw_bytes + 1);
  unsigned char* out = (unsigned char*)malloc(raw_bytes + 1);
  int ref_rc = parz_chunk_decode(chunk, bytes, ref, raw_bytes, &e);
  int n = all_shapes ? NSHAPES : 1, k, rc;
  memset(out, 0x5A, raw_bytes);
  rc = parz_gpu_chunk_decode(ctx, chunk, bytes, out, raw_bytes, &e);
  CHECK(rc == ref_rc, "%s filter path status %d (%s), serial %d", what, rc, rc ? e.message : "",
        ref_rc);
  if (rc == PARZ_OK && ref_rc == PARZ_OK)
    CHECK(memcmp(out, ref, raw_bytes) == 0, "%s filter path output differs", what);
  for (k = 0; k < n; k++) {
    memset(out, 0x5A, raw_bytes);
    rc = gpu_device_decode(chunk, bytes, out, raw_bytes, shape_at(k), &e);
    CHECK(rc == ref_rc, "%s [%s] device API status %d (%s), serial %d", what, shape_name(k), rc,
          rc ? e.message : "", ref_rc);
    if (rc == PARZ_OK && ref_rc == PARZ_OK)
      CHECK(memcmp(out, ref, raw_bytes) == 0, "%s [%s] device API output differs", what,
            shape_name(k));
  }
  free(ref);
  free(out);
}

/* Flips payload bits of a valid chunk (the table stays valid): the GPU must agree with the
 * serial decoder on the status, and on the bytes when both succeed. */
static void corrupt_chunk(const char* what, const unsigned char* chunk, size_t bytes,
                          size_t raw_bytes, int trials) {
  parz_chunk_view v;
  unsigned char* bad = (unsigned char*)malloc(bytes);
  int t, stream_errors = 0, checksum_errors = 0;
  if (parz_chunk_parse(chunk, bytes, &v, NULL) != PARZ_OK || v.payload_bytes == 0) {
    free(bad);
    return;
  }
  size_t payload_at = bytes - v.payload_bytes;
  for (t = 0; t < trials; t++) {
    char name[160];
    int f, flips = 1 + (int)(xorshift_next() % 8);
    memcpy(bad, chunk, bytes);
    for (f = 0; f < flips; f++) {
      size_t at = payload_at + (size_t)(xorshift_next() % v.payload_bytes);
      bad[at] ^= (unsigned char)(1u << (xorshift_next() % 8));
    }
    {
      parz_error e;
      unsigned char* tmp = (unsigned char*)malloc(raw_bytes);
      int rc = parz_chunk_decode(bad, bytes, tmp, raw_bytes, &e);
      stream_errors += rc == PARZ_ERR_STREAM;
      checksum_errors += rc == PARZ_ERR_CHECKSUM;
      free(tmp);
      /* with payload checksums no flip goes unnoticed (compare_chunk holds the GPU to it) */
      CHECK(!v.nchecksums || rc == PARZ_ERR_CHECKSUM, "%s corrupt #%d: serial decode %d", what, t,
            rc);
    }
    snprintf(name, sizeof name, "%s corrupt #%d", what, t);
    compare_chunk(name, bad, bytes, raw_bytes, t == 0);
  }
  /* without checksums a flipped zero-run almost always moves a block boundary: most trials
   * must be stream errors */
  printf("  %s: of %d corrupt payloads, %d checksum and %d stream errors\n", what, trials,
         checksum_errors, stream_errors);
  free(bad);
}

struct mode_case {
  const char* name;
  int mode;
  double value;
};

static void synthetic_cases(int small) {
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  static const mode_case modes[] = {
      {"rate", PARZ_MODE_RATE, 11.5},         {"precision", PARZ_MODE_PRECISION, 19},
      {"accuracy", PARZ_MODE_ACCURACY, 1e-2}, {"reversible", PARZ_MODE_REVERSIBLE, 0},
      {"expert", PARZ_MODE_EXPERT, 0},        {"expert-pad", PARZ_MODE_EXPERT, 1}};
  static const size_t shapes[4][4] = {
      {1003, 0, 0, 0}, {37, 61, 0, 0}, {9, 14, 23, 0}, {5, 6, 7, 9}};
  static const size_t shapes_small[4][4] = {
      {203, 0, 0, 0}, {13, 22, 0, 0}, {5, 7, 9, 0}, {3, 5, 6, 5}};
  unsigned ti, dims, mi;
  for (ti = 0; ti < 4; ti++)
    for (dims = 1; dims <= 4; dims++)
      for (mi = 0; mi < sizeof modes / sizeof modes[0]; mi++) {
        parz_array a;
        parz_chunk_config cfg;
        parz_error e;
        char what[160];
        const mode_case* m = &modes[mi];
        int tk, rc = PARZ_OK;
        memset(&a, 0, sizeof a);
        memset(&cfg, 0, sizeof cfg);
        a.type = types[ti];
        a.dims = dims;
        memcpy(a.shape, small ? shapes_small[dims - 1] : shapes[dims - 1], sizeof a.shape);
        if (m->mode == PARZ_MODE_ACCURACY && (a.type == PARZ_INT32 || a.type == PARZ_INT64))
          continue; /* zfp's accuracy mode is for floating point */
        switch (m->mode) {
          case PARZ_MODE_RATE:
            rc = parz_params_rate(&cfg.params, m->value, a.type, dims, NULL, &e);
            break;
          case PARZ_MODE_PRECISION:
            rc = parz_params_precision(&cfg.params, (unsigned)m->value, &e);
            break;
          case PARZ_MODE_ACCURACY:
            rc = parz_params_accuracy(&cfg.params, m->value, NULL, &e);
            break;
          case PARZ_MODE_REVERSIBLE: parz_params_reversible(&cfg.params); break;
          default:
            if (m->value == 0) /* a budget that cuts some blocks mid-plane, with minbits padding */
              rc = parz_params_expert(&cfg.params, 40u * dims, 90u * dims * dims, 24,
                                      a.type == PARZ_FLOAT || a.type == PARZ_DOUBLE ? -30 : 0, &e);
            else /* a budget that never ends a block (the 1D/2D window paths), minbits padding */
              rc = parz_params_expert(&cfg.params, 100u * dims, 20000, 20,
                                      a.type == PARZ_FLOAT || a.type == PARZ_DOUBLE ? -30 : 0, &e);
        }
        if (rc != PARZ_OK) {
          fprintf(stderr, "params: %s\n", e.message);
          failures++;
          continue;
        }
        void* data = make_array(&a, 1);
        size_t raw = parz_array_count(&a) * parz_type_size(a.type);
        /* table kinds and shapes: default, odd C and P, every kind */
        static const int kinds[][3] = {{PARZ_TABLE_AUTO, 0, 0},     {PARZ_TABLE_HYBRID, 3, 5},
                                       {PARZ_TABLE_HYBRID, 64, 2},  {PARZ_TABLE_OFFSETS, 7, 0},
                                       {PARZ_TABLE_LENGTHS, 33, 0}, {PARZ_TABLE_HYBRID, 1, 40}};
        int nk = small ? 2 : (int)(sizeof kinds / sizeof kinds[0]);
        /* payload checksums in every other case: both the checksum and the stream checks */
        cfg.checksum = (ti + dims + mi) % 2 ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_DEFAULT;
        for (tk = 0; tk < nk; tk++) {
          size_t bytes = 0;
          cfg.table = (parz_table_kind)kinds[tk][0];
          cfg.segment_blocks = (uint32_t)kinds[tk][1];
          cfg.partition_segments = (uint32_t)kinds[tk][2];
          if (m->mode == PARZ_MODE_RATE && cfg.table == PARZ_TABLE_AUTO)
            cfg.table = PARZ_TABLE_NONE;
          unsigned char* chunk = encode(&a, data, &cfg, &bytes);
          snprintf(what, sizeof what, "%s %uD %s table %d C=%d P=%d%s", parz_type_name(a.type),
                   dims, m->name, kinds[tk][0], kinds[tk][1], kinds[tk][2],
                   cfg.checksum == PARZ_CHECKSUM_OFF ? " no checksums" : "");
          if (!chunk) {
            CHECK(0, "%s: encode failed", what);
            continue;
          }
          compare_chunk(what, chunk, bytes, raw, tk == 0);
          if (tk == 0 && m->mode != PARZ_MODE_RATE)
            corrupt_chunk(what, chunk, bytes, raw, small ? 2 : 6);
          free(chunk);
        }
        free(data);
      }
}

/* Masked values (codec/FORMAT.md, "Mask"): regions of missing values (runs of whole blocks and
 * bitmaps along their edges), every third block, scattered single values; NaN of three patterns
 * and the fill value in floats (value indices), the fill value in integers. Every parse shape and
 * table kind, one chunk and a batch of masked and unmasked chunks, and a chunk large enough for
 * the filter path to decode it in several slices (mask groups across slice boundaries). */
static void* make_masked(const parz_array* a, int pattern, uint64_t fill) {
  unsigned char* data = (unsigned char*)make_array(a, 0);
  const size_t n = parz_array_count(a), sz = parz_type_size(a->type);
  const int floating = a->type == PARZ_FLOAT || a->type == PARZ_DOUBLE;
  const uint64_t nans[3] = {sz == 4 ? 0x7fc00000ull : 0x7ff8000000000000ull,
                            sz == 4 ? 0xffc00001ull : 0xfff8000000000077ull,
                            sz == 4 ? 0x7f812345ull : 0x7ff0000000000001ull};
  size_t nx = a->shape[a->dims - 1], i;
  for (i = 0; i < n; i++) {
    size_t x = i % nx, row = i / nx;
    int masked = pattern == 0   ? sin(0.13 * (double)x) + cos(0.07 * (double)row) > 0.6
                 : pattern == 1 ? (x / 4 + row / 4) % 3 == 0
                                : i % 23 == 5;
    if (masked) {
      uint64_t v = !floating || i % 4 == 0 ? fill : nans[i % 3];
      memcpy(data + i * sz, &v, sz);
    }
  }
  return data;
}

static void masked_cases(int small) {
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  static const size_t shapes[4][4] = {{1003}, {37, 61}, {9, 14, 23}, {5, 6, 7, 9}};
  static const int kinds[][3] = {{PARZ_TABLE_AUTO, 0, 0},
                                 {PARZ_TABLE_HYBRID, 3, 5},
                                 {PARZ_TABLE_OFFSETS, 7, 0},
                                 {PARZ_TABLE_LENGTHS, 33, 0},
                                 {PARZ_TABLE_HYBRID, 1, 40}};
  unsigned ti, dims;
  int pattern, mode, tk;
  for (ti = 0; ti < 4; ti++)
    for (dims = 1; dims <= 4; dims++)
      for (pattern = 0; pattern < (small ? 2 : 3); pattern++)
        for (mode = 0; mode < (small ? 2 : 3); mode++) {
          parz_array a;
          parz_chunk_config cfg;
          memset(&a, 0, sizeof a);
          memset(&cfg, 0, sizeof cfg);
          a.type = types[ti];
          a.dims = dims;
          memcpy(a.shape, shapes[dims - 1], sizeof a.shape);
          const size_t sz = parz_type_size(a.type), raw = parz_array_count(&a) * sz;
          cfg.fill = 1;
          cfg.fill_bits = sz == 4 ? 0xc61c3c00ull : 0xc0c3878000000000ull; /* -9999.0 */
          if (a.type == PARZ_INT32 || a.type == PARZ_INT64)
            cfg.fill_bits = sz == 4 ? (uint32_t)(int32_t)-9999 : (uint64_t)(int64_t)-9999;
          if (mode == 0)
            parz_params_precision(&cfg.params, 18, NULL);
          else if (mode == 1)
            parz_params_reversible(&cfg.params);
          else
            parz_params_rate(&cfg.params, 12, a.type, dims, NULL, NULL);
          void* data = make_masked(&a, pattern, cfg.fill_bits);
          for (tk = 0; tk < (small ? 1 : 5); tk++) {
            char what[160];
            size_t bytes = 0;
            cfg.table = (parz_table_kind)kinds[tk][0];
            cfg.segment_blocks = (uint32_t)kinds[tk][1];
            cfg.partition_segments = (uint32_t)kinds[tk][2];
            if (mode == 2)
              cfg.table = tk % 2 ? PARZ_TABLE_NONE : PARZ_TABLE_OFFSETS;
            unsigned char* chunk = encode(&a, data, &cfg, &bytes);
            snprintf(what, sizeof what, "masked %s %uD pattern %d mode %d table %d C=%d P=%d",
                     parz_type_name(a.type), dims, pattern, mode, (int)cfg.table,
                     (int)cfg.segment_blocks, (int)cfg.partition_segments);
            if (!chunk) {
              CHECK(0, "%s: encode failed", what);
              continue;
            }
            parz_chunk_view v;
            CHECK(parz_chunk_parse(chunk, bytes, &v, NULL) == PARZ_OK && v.mask.nvalues,
                  "%s: no mask", what);
            compare_chunk(what, chunk, bytes, raw, tk < 2);
            free(chunk);
          }
          free(data);
        }
  if (small)
    return;
  { /* several slices through the filter path: 9.6 MB */
    parz_array a;
    parz_chunk_config cfg;
    size_t bytes = 0;
    memset(&a, 0, sizeof a);
    memset(&cfg, 0, sizeof cfg);
    a.type = PARZ_FLOAT;
    a.dims = 2;
    a.shape[0] = 1200;
    a.shape[1] = 2000;
    parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL);
    void* data = make_masked(&a, 1, 0x7fc00000u);
    unsigned char* chunk = encode(&a, data, &cfg, &bytes);
    if (chunk)
      compare_chunk("masked float 2D 1200x2000 (filter path slices)", chunk, bytes,
                    parz_array_count(&a) * 4, 1);
    CHECK(chunk != NULL, "masked 1200x2000: encode");
    free(chunk);
    free(data);
  }
  { /* a batch of masked and unmasked chunks of one type and rank */
    const int n = 6;
    std::vector<unsigned char*> chunks(n);
    std::vector<parz_chunk_view> views(n);
    std::vector<const void*> d_chunks(n);
    std::vector<void*> d_dsts(n);
    std::vector<size_t> sizes(n);
    parz_array a;
    memset(&a, 0, sizeof a);
    a.type = PARZ_FLOAT;
    a.dims = 2;
    a.shape[0] = 61;
    a.shape[1] = 77;
    const size_t raw = parz_array_count(&a) * 4;
    int i, ok = 1;
    for (i = 0; i < n; i++) {
      parz_chunk_config cfg;
      memset(&cfg, 0, sizeof cfg);
      parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL);
      cfg.segment_blocks = (uint32_t)(i % 3 == 0 ? 1 : 0);
      void* data = i % 2 ? make_array(&a, 0) : make_masked(&a, i % 3, 0x7fc00000u);
      chunks[i] = encode(&a, data, &cfg, &sizes[i]);
      free(data);
      ok = ok && chunks[i] && parz_chunk_parse(chunks[i], sizes[i], &views[i], NULL) == PARZ_OK;
      if (ok) {
        cudaMalloc((void**)&d_chunks[i], sizes[i]);
        cudaMalloc(&d_dsts[i], raw);
        cudaMemcpy((void*)d_chunks[i], chunks[i], sizes[i], cudaMemcpyHostToDevice);
      }
    }
    CHECK(ok, "masked batch: encode");
    if (ok) {
      parz_error e;
      int rc = parz_gpu_decode_device_batch(ctx, (size_t)n, views.data(), d_chunks.data(),
                                            d_dsts.data(), 0, NULL, &e);
      CHECK(rc == PARZ_OK, "masked batch: %s", rc ? e.message : "");
      for (i = 0; rc == PARZ_OK && i < n; i++) {
        std::vector<unsigned char> ref(raw), out(raw);
        parz_chunk_decode(chunks[i], sizes[i], ref.data(), raw, NULL);
        cudaMemcpy(out.data(), d_dsts[i], raw, cudaMemcpyDeviceToHost);
        CHECK(ref == out, "masked batch: chunk %d differs", i);
      }
    }
    for (i = 0; i < n; i++) {
      free(chunks[i]);
      if (ok) {
        cudaFree((void*)d_chunks[i]);
        cudaFree(d_dsts[i]);
      }
    }
  }
}

/* Real arrays: the GPU must match the serial decoder there too (fill values, noise, f64). */
static void real_cases(const char* dir, int small) {
  static const struct {
    const char* file;
    parz_type type;
    unsigned dims;
    size_t shape[4];
    double tolerance;
  } files[] = {
      {"levitus_temp_f32le_20x180x360.bin", PARZ_FLOAT, 3, {20, 180, 360}, 1e-2},
      {"hst_acs_hrc_ngc104_sci_f32le_1024x1024.bin", PARZ_FLOAT, 2, {1024, 1024}, 0.5},
      {"egm96_geoid_f32le_721x1440.bin", PARZ_FLOAT, 2, {721, 1440}, 1e-3},
      {"vasp_fepo4_chgcar_f64le_72x192x160.bin", PARZ_DOUBLE, 3, {72, 192, 160}, 1e-4},
      {"ccsm_trefht_ens_f32le_8x110x64x128.bin", PARZ_FLOAT, 4, {8, 110, 64, 128}, 1e-2},
  };
  unsigned f;
  for (f = 0; f < sizeof files / sizeof files[0]; f++) {
    char path[1024], what[256];
    parz_array a;
    size_t raw, got;
    FILE* fp;
    int mode;
    if (small && f != 0)
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, files[f].file);
    fp = fopen(path, "rb");
    if (!fp) {
      printf("  (skipped %s: not found)\n", path);
      continue;
    }
    memset(&a, 0, sizeof a);
    a.type = files[f].type;
    a.dims = files[f].dims;
    memcpy(a.shape, files[f].shape, sizeof a.shape);
    raw = parz_array_count(&a) * parz_type_size(a.type);
    void* data = malloc(raw);
    got = fread(data, 1, raw, fp);
    fclose(fp);
    if (got != raw) {
      CHECK(0, "%s: short read", path);
      free(data);
      continue;
    }
    for (mode = 0; mode < 2; mode++) {
      parz_chunk_config cfg;
      size_t bytes;
      memset(&cfg, 0, sizeof cfg);
      if (mode == 0)
        parz_params_accuracy(&cfg.params, files[f].tolerance, NULL, NULL);
      else
        parz_params_reversible(&cfg.params);
      unsigned char* chunk = encode(&a, data, &cfg, &bytes);
      snprintf(what, sizeof what, "%s %s", files[f].file, mode ? "reversible" : "accuracy");
      if (!chunk) {
        CHECK(0, "%s: encode failed", what);
        continue;
      }
      compare_chunk(what, chunk, bytes, raw, 1);
      if (mode == 0)
        corrupt_chunk(what, chunk, bytes, raw, small ? 1 : 4);
      free(chunk);
    }
    free(data);
  }
}

/* A payload with bits flipped until the serial decoder calls it corrupt (NULL if it never
 * does in 64 tries): its checksums, or without them its structure. */
static unsigned char* corrupted(const unsigned char* chunk, size_t bytes, size_t raw_bytes) {
  parz_chunk_view v;
  unsigned char* bad = (unsigned char*)malloc(bytes);
  unsigned char* tmp = (unsigned char*)malloc(raw_bytes);
  int t;
  if (parz_chunk_parse(chunk, bytes, &v, NULL) != PARZ_OK || !v.payload_bytes)
    t = 64;
  else
    t = 0;
  for (; t < 64; t++) {
    memcpy(bad, chunk, bytes);
    for (int f = 0; f < 4; f++) {
      size_t at = bytes - v.payload_bytes + (size_t)(xorshift_next() % v.payload_bytes);
      bad[at] ^= (unsigned char)(1u << (xorshift_next() % 8));
    }
    if (parz_chunk_decode(bad, bytes, tmp, raw_bytes, NULL) != PARZ_OK)
      break;
  }
  free(tmp);
  if (t == 64) {
    free(bad);
    return NULL;
  }
  return bad;
}

/* parz_gpu_decode_device_batch: chunks of several types, ranks, modes and tables in one call
 * (runs of one type and rank share launches, the others go alone), each against the serial
 * decoder; a corrupt chunk is reported by index while every other chunk still decodes. */
static void batch_cases(void) {
  struct item {
    parz_type type;
    unsigned dims;
    size_t shape[4];
    int mode; /* 0 accuracy, 1 precision, 2 reversible, 3 rate */
    int table, C;
    int corrupt;
  };
  static const item items[] = {
      {PARZ_FLOAT, 2, {37, 61}, 0, PARZ_TABLE_AUTO, 0, 0},
      {PARZ_FLOAT, 2, {64, 64}, 1, PARZ_TABLE_AUTO, 0, 0},
      {PARZ_FLOAT, 2, {29, 40}, 2, PARZ_TABLE_HYBRID, 8, 0},
      {PARZ_FLOAT, 2, {37, 61}, 3, PARZ_TABLE_NONE, 0, 0},
      {PARZ_FLOAT, 2, {50, 33}, 0, PARZ_TABLE_HYBRID, 1, 0},
      {PARZ_FLOAT, 2, {41, 41}, 0, PARZ_TABLE_OFFSETS, 4, 1},
      {PARZ_FLOAT, 2, {45, 90}, 1, PARZ_TABLE_LENGTHS, 16, 0},
      {PARZ_DOUBLE, 3, {9, 14, 23}, 0, PARZ_TABLE_AUTO, 0, 0},
      {PARZ_DOUBLE, 3, {12, 10, 8}, 2, PARZ_TABLE_AUTO, 0, 0},
      {PARZ_INT32, 1, {1003}, 1, PARZ_TABLE_AUTO, 0, 0},
      {PARZ_FLOAT, 2, {37, 61}, 0, PARZ_TABLE_HYBRID, 32, 0},
  };
  const size_t n = sizeof items / sizeof items[0];
  std::vector<unsigned char*> chunks(n), refs(n);
  std::vector<size_t> bytes(n), raw(n);
  std::vector<parz_chunk_view> views(n);
  std::vector<const void*> d_chunks(n);
  std::vector<void*> d_dsts(n);
  size_t i, corrupt_at = n;
  for (i = 0; i < n; i++) {
    parz_array a;
    parz_chunk_config cfg;
    memset(&a, 0, sizeof a);
    memset(&cfg, 0, sizeof cfg);
    a.type = items[i].type;
    a.dims = items[i].dims;
    memcpy(a.shape, items[i].shape, sizeof a.shape);
    switch (items[i].mode) {
      case 0: parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL); break;
      case 1: parz_params_precision(&cfg.params, 18, NULL); break;
      case 2: parz_params_reversible(&cfg.params); break;
      default: parz_params_rate(&cfg.params, 12, a.type, a.dims, NULL, NULL);
    }
    cfg.table = (parz_table_kind)items[i].table;
    cfg.segment_blocks = (uint32_t)items[i].C;
    raw[i] = parz_array_count(&a) * parz_type_size(a.type);
    void* data = make_array(&a, i == 0);
    chunks[i] = encode(&a, data, &cfg, &bytes[i]);
    free(data);
    if (!chunks[i]) {
      CHECK(0, "batch chunk %zu: encode failed", i);
      return;
    }
    if (items[i].corrupt) {
      unsigned char* bad = corrupted(chunks[i], bytes[i], raw[i]);
      CHECK(bad != NULL, "batch chunk %zu: no corruption found", i);
      if (bad) {
        free(chunks[i]);
        chunks[i] = bad;
        corrupt_at = i;
      }
    }
    refs[i] = (unsigned char*)malloc(raw[i]);
    int ref_rc = parz_chunk_decode(chunks[i], bytes[i], refs[i], raw[i], NULL);
    CHECK(ref_rc == (i == corrupt_at ? PARZ_ERR_CHECKSUM : PARZ_OK), "batch chunk %zu: serial %d",
          i, ref_rc);
    CHECK(parz_chunk_parse(chunks[i], bytes[i], &views[i], NULL) == PARZ_OK,
          "batch chunk %zu: parse", i);
    void* d = NULL;
    cudaMalloc(&d, bytes[i]);
    cudaMemcpy(d, chunks[i], bytes[i], cudaMemcpyHostToDevice);
    d_chunks[i] = d;
    cudaMalloc(&d_dsts[i], raw[i]);
  }
  {
    parz_error e;
    size_t failed = n;
    for (i = 0; i < n; i++)
      cudaMemset(d_dsts[i], 0xA5, raw[i]);
    int rc = parz_gpu_decode_device_batch(ctx, n, views.data(), d_chunks.data(), d_dsts.data(), 0,
                                          &failed, &e);
    CHECK(rc == (corrupt_at < n ? PARZ_ERR_CHECKSUM : PARZ_OK) && failed == corrupt_at,
          "batch: status %d (%s), failed %zu, corrupt %zu", rc, rc ? e.message : "", failed,
          corrupt_at);
    if (rc != PARZ_OK)
      CHECK(strstr(e.message, "chunk ") != NULL, "batch: message names no chunk: %s", e.message);
    for (i = 0; i < n; i++) {
      if (i == corrupt_at)
        continue;
      std::vector<unsigned char> out(raw[i]);
      cudaMemcpy(out.data(), d_dsts[i], raw[i], cudaMemcpyDeviceToHost);
      CHECK(memcmp(out.data(), refs[i], raw[i]) == 0, "batch chunk %zu differs", i);
    }
    /* the same chunks again without the corrupt one: clean, and the records reused */
    if (corrupt_at < n) {
      std::vector<parz_chunk_view> v2;
      std::vector<const void*> c2;
      std::vector<void*> d2;
      for (i = 0; i < n; i++)
        if (i != corrupt_at) {
          v2.push_back(views[i]);
          c2.push_back(d_chunks[i]);
          d2.push_back(d_dsts[i]);
        }
      for (int k = 0; k < 2; k++) {
        rc = parz_gpu_decode_device_batch(ctx, v2.size(), v2.data(), c2.data(), d2.data(), 0, NULL,
                                          &e);
        CHECK(rc == PARZ_OK, "batch clean run %d: %d (%s)", k, rc, rc ? e.message : "");
      }
    }
  }
  {
    parz_error e;
    const void* odd = (const unsigned char*)d_chunks[0] + 4;
    CHECK(parz_gpu_decode_device_batch(ctx, 0, NULL, NULL, NULL, 0, NULL, &e) == PARZ_OK,
          "batch of none");
    CHECK(parz_gpu_decode_device_batch(ctx, 1, views.data(), &odd, d_dsts.data(), 0, NULL, &e) ==
              PARZ_ERR_ARG,
          "batch: a misaligned chunk must be refused");
    void* odd_dst = (unsigned char*)d_dsts[0] + 2;
    CHECK(parz_gpu_decode_device_batch(ctx, 1, views.data(), d_chunks.data(), &odd_dst, 0, NULL,
                                       &e) == PARZ_ERR_ARG,
          "batch: a destination not aligned to its values must be refused");
    /* a chunk of more blocks than block_kernel indexes (only its view: no such chunk fits in
     * memory) is refused before any work, by its index, for the CPU to decode */
    std::vector<parz_chunk_view> big(views.begin(), views.begin() + 2);
    big[1].nblocks = PARZ_GPU_BLOCKS_MAX + 1;
    int rc = parz_gpu_decode_device_batch(ctx, 2, big.data(), d_chunks.data(), d_dsts.data(), 0,
                                          NULL, &e);
    CHECK(
        rc == PARZ_ERR_UNSUPPORTED && strstr(e.message, "chunk 1: ") && strstr(e.message, "blocks"),
        "batch: a chunk of %llu blocks gave %d (%s)", (unsigned long long)big[1].nblocks, rc,
        rc ? e.message : "");
  }
  for (i = 0; i < n; i++) {
    cudaFree((void*)d_chunks[i]);
    cudaFree(d_dsts[i]);
    free(chunks[i]);
    free(refs[i]);
  }
}

/* parz_gpu_assemble in rounds of two chunks: a 37x61 float array in 16x16 chunks (edge chunks
 * clipped), one chunk stored raw, one never written (fill value), against the serial decoder's
 * chunks placed on the host; the whole array, then boxes of it. */
static void assemble_cases(void) {
  parz_chunk_grid g;
  memset(&g, 0, sizeof g);
  g.rank = 2;
  g.dims[0] = 37;
  g.dims[1] = 61;
  g.chunk_dims[0] = g.chunk_dims[1] = 16;
  g.type = PARZ_FLOAT;
  const size_t cn = 16 * 16, rows = 3, cols = 4, raw_at = 5, missing = 7;
  const float fill = -2.5f;
  parz_array a;
  parz_chunk_config cfg;
  memset(&a, 0, sizeof a);
  memset(&cfg, 0, sizeof cfg);
  a.type = PARZ_FLOAT;
  a.dims = 2;
  a.shape[0] = a.shape[1] = 16;
  parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL);
  std::vector<unsigned char> packed;
  std::vector<parz_chunk_ref> refs;
  std::vector<float> expect(37 * 61, fill), chunk(cn), dec(cn);
  for (size_t k = 0; k < rows * cols; k++) {
    if (k == missing)
      continue;
    parz_chunk_ref r;
    memset(&r, 0, sizeof r);
    r.origin[0] = 16 * (k / cols);
    r.origin[1] = 16 * (k % cols);
    for (size_t i = 0; i < cn; i++)
      chunk[i] = (float)(sin(0.1 * (double)(k * cn + i)) * 50.0 + (double)k);
    size_t bytes = cn * 4;
    unsigned char* enc = NULL;
    if (k == raw_at) {
      r.raw = 1;
      memcpy(dec.data(), chunk.data(), bytes);
    } else {
      enc = encode(&a, chunk.data(), &cfg, &bytes);
      CHECK(enc && parz_chunk_decode(enc, bytes, dec.data(), cn * 4, NULL) == PARZ_OK,
            "assemble: chunk %zu", k);
    }
    r.at = packed.size();
    r.bytes = bytes;
    packed.insert(packed.end(), enc ? enc : (unsigned char*)chunk.data(),
                  (enc ? enc : (unsigned char*)chunk.data()) + bytes);
    packed.resize((packed.size() + 7) & ~(size_t)7);
    free(enc);
    refs.push_back(r);
    for (size_t y = 0; y < 16; y++)
      for (size_t x = 0; x < 16; x++)
        if (r.origin[0] + y < 37 && r.origin[1] + x < 61)
          expect[(r.origin[0] + y) * 61 + r.origin[1] + x] = dec[y * 16 + x];
  }
  void* d = NULL;
  cudaMalloc(&d, expect.size() * 4);
  cudaMemset(d, 0xA5, expect.size() * 4);
  const size_t round = 2 * cn * 4; /* two chunks a round */
  parz_error e;
  size_t failed = refs.size();
  int rc = parz_gpu_assemble_rounds(ctx, &g, NULL, packed.data(), packed.size(), refs.size(),
                                    refs.data(), &fill, d, 0, round, &failed, &e);
  CHECK(rc == PARZ_OK, "assemble: %d (%s)", rc, rc ? e.message : "");
  std::vector<float> got(expect.size());
  cudaMemcpy(got.data(), d, got.size() * 4, cudaMemcpyDeviceToHost);
  CHECK(memcmp(got.data(), expect.data(), got.size() * 4) == 0, "assemble: array differs");
  /* boxes of it, stored densely: inside one chunk, across chunks with the raw and the missing
   * one, along the clipped edges, one value, the whole array, and none */
  static const unsigned long long boxes[][4] = {{2, 3, 10, 11}, {5, 10, 26, 46}, {20, 0, 17, 61},
                                                {36, 60, 1, 1}, {0, 0, 37, 61},  {0, 47, 37, 14},
                                                {10, 20, 0, 5}};
  for (const auto& bx : boxes) {
    parz_box box;
    memset(&box, 0, sizeof box);
    box.start[0] = bx[0];
    box.start[1] = bx[1];
    box.count[0] = bx[2];
    box.count[1] = bx[3];
    std::vector<float> want(bx[2] * bx[3]), have(want.size());
    for (size_t y = 0; y < bx[2]; y++)
      for (size_t x = 0; x < bx[3]; x++)
        want[y * bx[3] + x] = expect[(bx[0] + y) * 61 + bx[1] + x];
    cudaMemset(d, 0xA5, expect.size() * 4);
    rc = parz_gpu_assemble_rounds(ctx, &g, &box, packed.data(), packed.size(), refs.size(),
                                  refs.data(), &fill, d, 0, round, &failed, &e);
    CHECK(rc == PARZ_OK, "assemble box %llu,%llu: %d (%s)", bx[0], bx[1], rc, rc ? e.message : "");
    cudaMemcpy(have.data(), d, have.size() * 4, cudaMemcpyDeviceToHost);
    CHECK(memcmp(have.data(), want.data(), want.size() * 4) == 0,
          "assemble box %llu,%llu +%llux%llu differs", bx[0], bx[1], bx[2], bx[3]);
    if (bx[2] == 0) { /* nothing written */
      uint32_t word = 0;
      cudaMemcpy(&word, d, 4, cudaMemcpyDeviceToHost);
      CHECK(word == 0xA5A5A5A5u, "assemble: an empty box wrote values");
    }
  }
  {
    parz_box box;
    memset(&box, 0, sizeof box);
    box.start[0] = 30;
    box.count[0] = 8; /* to row 37 of 37 */
    box.count[1] = 1;
    rc = parz_gpu_assemble(ctx, &g, &box, packed.data(), packed.size(), refs.size(), refs.data(),
                           &fill, d, 0, &failed, &e);
    CHECK(rc == PARZ_ERR_DIMS, "assemble: a box past the array gave %d", rc);
  }
  /* the public function: one round */
  cudaMemset(d, 0xA5, expect.size() * 4);
  rc = parz_gpu_assemble(ctx, &g, NULL, packed.data(), packed.size(), refs.size(), refs.data(),
                         &fill, d, 0, &failed, &e);
  CHECK(rc == PARZ_OK, "assemble in one round: %d (%s)", rc, rc ? e.message : "");
  cudaMemcpy(got.data(), d, got.size() * 4, cudaMemcpyDeviceToHost);
  CHECK(memcmp(got.data(), expect.data(), got.size() * 4) == 0,
        "assemble in one round: array differs");
  cudaFree(d);
}

/* Payload checksums: every single payload bit of small chunks flipped (a sample with --small),
 * each table kind and 1D to 3D, through the filter path and the device API, the latter with
 * each parse shape in turn (checksums in the decode launch; the HYBRID ones from the table
 * while the lengths kernel runs): always PARZ_ERR_CHECKSUM, the partition the serial decoder
 * names. */
static void payload_flips(int small) {
  static const struct {
    unsigned dims;
    size_t shape[4];
    int table, C, P;
  } cases[] = {{2, {13, 22}, PARZ_TABLE_AUTO, 0, 0},
               {2, {21, 30}, PARZ_TABLE_HYBRID, 2, 3},
               {1, {203}, PARZ_TABLE_OFFSETS, 3, 0},
               {3, {5, 7, 9}, PARZ_TABLE_LENGTHS, 2, 0},
               {2, {17, 19}, PARZ_TABLE_NONE, 4, 0}};
  long flips = 0;
  for (const auto& c : cases) {
    parz_array a;
    parz_chunk_config cfg;
    parz_chunk_view v;
    size_t bytes = 0;
    memset(&a, 0, sizeof a);
    memset(&cfg, 0, sizeof cfg);
    a.type = PARZ_FLOAT;
    a.dims = c.dims;
    memcpy(a.shape, c.shape, sizeof a.shape);
    if (c.table == PARZ_TABLE_NONE)
      parz_params_rate(&cfg.params, 10, a.type, a.dims, NULL, NULL);
    else
      parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
    cfg.table = (parz_table_kind)c.table;
    cfg.segment_blocks = (uint32_t)c.C;
    cfg.partition_segments = (uint32_t)c.P;
    void* data = make_array(&a, 1);
    unsigned char* chunk = encode(&a, data, &cfg, &bytes);
    free(data);
    if (!chunk || parz_chunk_parse(chunk, bytes, &v, NULL) != PARZ_OK || !v.nchecksums) {
      CHECK(0, "payload flips: %uD table %d: encode", c.dims, c.table);
      free(chunk);
      continue;
    }
    std::vector<unsigned char> out(v.raw_bytes), bad(chunk, chunk + bytes);
    const size_t at = bytes - v.payload_bytes;
    const uint64_t nbits = 8ull * v.payload_bytes, step = small ? nbits / 97 + 1 : 1;
    for (uint64_t bit = 0; bit < nbits; bit += step) {
      parz_error se, ge;
      bad[at + bit / 8] ^= (unsigned char)(1u << (bit % 8));
      int ref = parz_chunk_decode(bad.data(), bytes, out.data(), v.raw_bytes, &se);
      CHECK(ref == PARZ_ERR_CHECKSUM, "payload flips: serial decode %d at bit %llu", ref,
            (unsigned long long)bit);
      const char* named = strstr(se.message, "partition ");
      int k = (int)(bit % NSHAPES);
      int rc = gpu_device_decode(bad.data(), bytes, out.data(), v.raw_bytes, shape_at(k), &ge);
      CHECK(rc == PARZ_ERR_CHECKSUM && named &&
                !strncmp(strstr(ge.message, "partition "), named, strcspn(named, "(")),
            "payload flips: %uD table %d %s, bit %llu: device API %d (%s), serial: %s", c.dims,
            c.table, shape_name(k), (unsigned long long)bit, rc, rc ? ge.message : "values",
            se.message);
      if (bit % 5 == 0) {
        rc = parz_gpu_chunk_decode(ctx, bad.data(), bytes, out.data(), v.raw_bytes, &ge);
        CHECK(rc == PARZ_ERR_CHECKSUM, "payload flips: %uD table %d, bit %llu: filter path %d",
              c.dims, c.table, (unsigned long long)bit, rc);
      }
      bad[at + bit / 8] ^= (unsigned char)(1u << (bit % 8));
      flips++;
    }
    free(chunk);
  }
  printf("  payload flips: %ld, each refused by the GPU decoder\n", flips);
}

/* Stored chunks (codec 2): random bits of every type and rank, which every mode stores, through
 * every path and with flipped payload bits; then a batch mixing them with zfp chunks of the same
 * type and rank (a run of zfp chunks broken by stored ones). */
static void stored_cases(void) {
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  static const size_t shapes[4][4] = {{10000}, {70, 90}, {9, 13, 40}, {3, 5, 6, 29}};
  std::vector<unsigned char*> chunks;
  for (int t = 0; t < 4; t++)
    for (unsigned d = 1; d <= 4; d++)
      for (int ck = 0; ck < 2; ck++) {
        parz_array a;
        parz_chunk_config cfg;
        char what[96];
        memset(&a, 0, sizeof a);
        memset(&cfg, 0, sizeof cfg);
        a.type = types[t];
        a.dims = d;
        memcpy(a.shape, shapes[d - 1], sizeof a.shape);
        const size_t raw = parz_array_count(&a) * parz_type_size(a.type);
        std::vector<unsigned char> bits(raw);
        for (size_t i = 0; i < raw; i++)
          bits[i] = (unsigned char)(xorshift_next() >> 40);
        parz_params_reversible(&cfg.params);
        cfg.stored = PARZ_STORED_WHEN_SMALLER;
        cfg.checksum = ck ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_DEFAULT;
        size_t n = 0;
        unsigned char* c = encode(&a, bits.data(), &cfg, &n);
        parz_chunk_view v;
        CHECK(c && parz_chunk_parse(c, n, &v, NULL) == PARZ_OK && v.codec == PARZ_CODEC_STORED,
              "%s %uD: random bits stored", parz_type_name(a.type), d);
        if (!c)
          continue;
        snprintf(what, sizeof what, "stored %s %uD checksums %s", parz_type_name(a.type), d,
                 ck ? "off" : "on");
        compare_chunk(what, c, n, raw, 1);
        if (!ck)
          corrupt_chunk(what, c, n, raw, 4);
        free(c);
      }
  /* a batch: float 2D, zfp and stored chunks taking turns */
  {
    parz_array a;
    memset(&a, 0, sizeof a);
    a.type = PARZ_FLOAT;
    a.dims = 2;
    a.shape[0] = 70, a.shape[1] = 90;
    const size_t raw = 70 * 90 * 4;
    std::vector<std::vector<unsigned char>> refs;
    std::vector<parz_chunk_view> views;
    std::vector<const void*> d_chunks;
    std::vector<void*> d_dsts;
    for (int i = 0; i < 6; i++) {
      parz_chunk_config cfg;
      memset(&cfg, 0, sizeof cfg);
      parz_params_reversible(&cfg.params);
      cfg.stored = PARZ_STORED_WHEN_SMALLER;
      std::vector<unsigned char> values(raw);
      if (i % 3 == 1)
        for (size_t k = 0; k < raw; k++)
          values[k] = (unsigned char)(xorshift_next() >> 40);
      else
        for (size_t k = 0; k < raw / 4; k++) {
          const float f = (float)sin(0.01 * (double)(k + 100 * i));
          memcpy(&values[4 * k], &f, 4);
        }
      size_t n = 0;
      unsigned char* c = encode(&a, values.data(), &cfg, &n);
      parz_chunk_view v;
      if (!c || parz_chunk_parse(c, n, &v, NULL) != PARZ_OK) {
        CHECK(0, "stored batch: chunk %d", i);
        free(c);
        continue;
      }
      CHECK((v.codec == PARZ_CODEC_STORED) == (i % 3 == 1), "stored batch: chunk %d's codec", i);
      refs.push_back(std::vector<unsigned char>(raw));
      CHECK(parz_chunk_decode(c, n, refs.back().data(), raw, NULL) == PARZ_OK,
            "stored batch: serial decode %d", i);
      void *dc = NULL, *dd = NULL;
      cudaMalloc(&dc, n);
      cudaMalloc(&dd, raw);
      cudaMemcpy(dc, c, n, cudaMemcpyHostToDevice);
      cudaMemset(dd, 0xA5, raw);
      /* the view points into the device copy's host twin: parse it again from `c`, kept */
      chunks.push_back(c);
      views.push_back(v);
      d_chunks.push_back(dc);
      d_dsts.push_back(dd);
    }
    parz_error e;
    size_t failed = 99;
    int rc = parz_gpu_decode_device_batch(ctx, views.size(), views.data(), d_chunks.data(),
                                          d_dsts.data(), NULL, &failed, &e);
    CHECK(rc == PARZ_OK, "stored batch: %s", rc ? e.message : "");
    for (size_t i = 0; i < views.size(); i++) {
      std::vector<unsigned char> got(raw);
      cudaMemcpy(got.data(), d_dsts[i], raw, cudaMemcpyDeviceToHost);
      CHECK(rc != PARZ_OK || !memcmp(got.data(), refs[i].data(), raw),
            "stored batch: chunk %zu differs", i);
    }
    /* a flipped payload bit in stored chunk 4: the batch names it */
    if (views.size() == 6) {
      unsigned char* flip = (unsigned char*)malloc(views[4].chunk_bytes);
      memcpy(flip, chunks[4], views[4].chunk_bytes);
      flip[views[4].chunk_bytes - 17] ^= 0x10;
      cudaMemcpy((void*)d_chunks[4], flip, views[4].chunk_bytes, cudaMemcpyHostToDevice);
      rc = parz_gpu_decode_device_batch(ctx, views.size(), views.data(), d_chunks.data(),
                                        d_dsts.data(), NULL, &failed, &e);
      CHECK(rc == PARZ_ERR_CHECKSUM && failed == 4, "stored batch, chunk 4 flipped: %d, chunk %zu",
            rc, failed);
      free(flip);
    }
    for (size_t i = 0; i < views.size(); i++) {
      cudaFree((void*)d_chunks[i]);
      cudaFree(d_dsts[i]);
      free(chunks[i]);
    }
  }
}

int main(int argc, char** argv) {
  const char* dir = NULL;
  int small = 0, masked = 0, i;
  parz_error e;
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--small"))
      small = 1;
    else if (!strcmp(argv[i], "--masked"))
      masked = 1;
    else
      dir = argv[i];
  }
  if (!parz_gpu_available()) {
    int rc = parz_gpu_context_create(&ctx, 0, &e);
    if (rc != PARZ_ERR_DEVICE) {
      fprintf(stderr, "FAIL: without a device, context creation gave %d, not PARZ_ERR_DEVICE\n",
              rc);
      return 1;
    }
    printf("SKIP: no CUDA device (%s)\n", e.message);
    return 77;
  }
  if (parz_gpu_context_create(&ctx, 0, &e) != PARZ_OK) {
    fprintf(stderr, "FAIL: context: %s\n", e.message);
    return 1;
  }
  masked_cases(small);
  if (!masked) {
    synthetic_cases(small);
    stored_cases();
    payload_flips(small);
    batch_cases();
    assemble_cases();
    if (dir)
      real_cases(dir, small);
  }
  parz_gpu_context_free(ctx);
  return test_finish("test_gpu_decode");
}
