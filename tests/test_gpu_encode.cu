/* GPU encoder against the serial encoder: every chunk parz_gpu_encode_device,
 * parz_gpu_encode_device_batch and parz_gpu_chunk_encode write must be parz_chunk_encode's,
 * byte for byte (the destination starts poisoned, so every byte must be written); statuses must
 * agree where the serial encoder fails. A failed call must leave the next one right (the payload
 * scratch is cleared again). Covers every mode (two
 * expert settings), type, rank 1 to 4, table kind, C (auto included) and P, payload checksums on
 * and off (format versions 2 and 1, and 2 for exceptions beyond NaN and Inf), partial blocks,
 * strided arrays, special values (NaN with payloads, infinities, subnormals, signed zeros, the
 * extremes of each type), masked values (gpu_cases_masks: NaN and fill values, wholly masked
 * blocks, every G, the refusal of NaN of too many patterns), the refusal of blocks at risk of
 * missing the accuracy bound (gpu_cases_risk), stored chunks (random bits with them on, alone,
 * strided and in a batch with zfp chunks), chunks that do not fit, batches (chunks of several types and ranks,
 * and the chunks of one array as strided views), the chunks of boxes of arrays
 * (parz_gpu_encode_box, edge chunks padded), the real arrays. Exits 77 (ctest SKIP) when no CUDA
 * device is present.
 *
 * usage: test_gpu_encode [DATA_DIR] [--small]
 *   DATA_DIR: the real arrays (shared/data); missing files are skipped, said so.
 *   --small : fewer and smaller cases (for compute-sanitizer runs). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <cuda_runtime.h>

#include "check.h"
#include "gpu_test_context.h"
#include "gpu_encode_cases.h"
#include "gpu_internal.h"
#include "parz_gpu.h"

static parz_gpu_context* ctx;

/* Bytes of an array as `a` lays it out (one past its last value). */
static size_t span_bytes(const parz_array& a) {
  size_t last = 0, run = 1;
  for (int k = (int)a.dims - 1; k >= 0; k--) {
    const size_t st = a.stride[k] ? (size_t)a.stride[k] : run;
    last += (a.shape[k] - 1) * st;
    run *= a.shape[k];
  }
  return (last + 1) * parz_type_size(a.type);
}

/* The serial chunk (status and bytes). */
static int reference(const parz_array& a, const void* host, const parz_chunk_config& cfg,
                     std::vector<unsigned char>& ref, parz_error* e) {
  size_t cap = parz_chunk_bound(&a, &cfg), n = 0;
  ref.assign(cap ? cap : 8, 0);
  int rc = parz_chunk_encode(&a, host, &cfg, ref.data(), ref.size(), &n, e);
  ref.resize(rc == PARZ_OK ? n : 0);
  return rc;
}

/* parz_chunk_alloc into a std::vector, sized as asked. */
static void* alloc_exact(void* arg, size_t bytes) {
  std::vector<unsigned char>* v = (std::vector<unsigned char>*)arg;
  v->assign(bytes ? bytes : 1, 0xA5);
  v->resize(bytes);
  return v->data();
}

/* The device API on one array (host copy `host`, laid out as a says) and the filter path
 * (contiguous arrays, into the caller's buffer and into one from its allocator), against the
 * serial encoder. */
static void compare(const char* what, const parz_array& a, const void* host,
                    const parz_chunk_config& cfg) {
  parz_error e, er;
  std::vector<unsigned char> ref;
  const int ref_rc = reference(a, host, cfg, ref, &er);
  const size_t span = span_bytes(a), cap = parz_chunk_bound(&a, &cfg) + 64;
  void *d_in = NULL, *d_chunk = NULL;
  cudaMalloc(&d_in, span);
  cudaMalloc(&d_chunk, cap);
  cudaMemcpy(d_in, host, span, cudaMemcpyHostToDevice);
  std::vector<unsigned char> got(cap);
  {
    size_t n = 0;
    cudaMemset(d_chunk, 0xA5, cap);
    int rc = parz_gpu_encode_device(ctx, &a, d_in, &cfg, d_chunk, cap, &n, NULL, &e);
    CHECK(rc == ref_rc, "%s: status %d (%s), serial %d (%s)", what, rc, rc ? e.message : "", ref_rc,
          ref_rc ? er.message : "");
    if (rc == PARZ_OK && ref_rc == PARZ_OK) {
      cudaError_t ce = cudaMemcpy(got.data(), d_chunk, cap, cudaMemcpyDeviceToHost);
      CHECK(ce == cudaSuccess, "%s: %s", what, cudaGetErrorString(ce));
      CHECK(n == ref.size() && !memcmp(got.data(), ref.data(), n),
            "%s: chunk differs (%zu bytes, serial %zu)", what, n, ref.size());
      bool clean = true; /* nothing past the chunk */
      for (size_t i = n; i < cap && clean; i++)
        clean = got[i] == 0xA5;
      CHECK(clean, "%s: bytes written past the chunk", what);
    }
  }
  bool contiguous = true;
  for (unsigned k = 0; k < a.dims; k++)
    contiguous = contiguous && !a.stride[k];
  if (contiguous) {
    size_t n = 0;
    std::vector<unsigned char> out(cap, 0xA5);
    int rc = parz_gpu_chunk_encode(ctx, &a, host, &cfg, out.data(), cap, NULL, NULL, &n, &e);
    CHECK(rc == ref_rc, "%s [filter path]: status %d (%s), serial %d", what, rc,
          rc ? e.message : "", ref_rc);
    if (rc == PARZ_OK && ref_rc == PARZ_OK)
      CHECK(n == ref.size() && !memcmp(out.data(), ref.data(), n),
            "%s [filter path]: chunk differs", what);
    /* the chunk's buffer from the caller's allocator, asked for the chunk's size */
    std::vector<unsigned char> given;
    n = 0;
    rc = parz_gpu_chunk_encode(ctx, &a, host, &cfg, NULL, 0, alloc_exact, &given, &n, &e);
    CHECK(rc == ref_rc, "%s [filter path, allocated]: status %d (%s), serial %d", what, rc,
          rc ? e.message : "", ref_rc);
    if (rc == PARZ_OK && ref_rc == PARZ_OK)
      CHECK(n == ref.size() && given.size() == n && !memcmp(given.data(), ref.data(), n),
            "%s [filter path, allocated]: %zu bytes asked for, chunk of %zu differs", what,
            given.size(), n);
  }
  cudaFree(d_in);
  cudaFree(d_chunk);
}

/* An array the GPU encoder refuses (NaN of more bit patterns than its mask's set holds, or a
 * block at risk of missing the accuracy bound): the device API, the batch and the filter path
 * refuse it with PARZ_ERR_UNSUPPORTED and a message naming `why`, writing nothing, where the
 * serial encoder encodes it (its callers, the plugin's dispatch and parz_h5_write, then encode
 * it on the CPU: the serial encoder's bytes). */
static void refuse(const char* what, const parz_array& a, const void* host,
                   const parz_chunk_config& cfg, const char* why) {
  parz_error e, er;
  std::vector<unsigned char> ref;
  CHECK(reference(a, host, cfg, ref, &er) == PARZ_OK, "%s: serial: %s", what, er.message);
  const size_t span = span_bytes(a), cap = parz_chunk_bound(&a, &cfg) + 64;
  void *d_in = NULL, *d_chunk = NULL;
  cudaMalloc(&d_in, span);
  cudaMalloc(&d_chunk, cap);
  cudaMemcpy(d_in, host, span, cudaMemcpyHostToDevice);
  cudaMemset(d_chunk, 0xA5, cap);
  size_t n = 7, failed = 9;
  int rc = parz_gpu_encode_device(ctx, &a, d_in, &cfg, d_chunk, cap, &n, NULL, &e);
  CHECK(rc == PARZ_ERR_UNSUPPORTED && strstr(e.message, why), "%s: device API: %d (%s)", what, rc,
        e.message);
  const void* d_data[1] = {d_in};
  void* d_chunks[1] = {d_chunk};
  rc =
      parz_gpu_encode_device_batch(ctx, 1, &a, d_data, &cfg, d_chunks, &cap, &n, NULL, &failed, &e);
  CHECK(rc == PARZ_ERR_UNSUPPORTED && failed == 0, "%s: batch: %d (%s)", what, rc, e.message);
  std::vector<unsigned char> got(cap);
  cudaMemcpy(got.data(), d_chunk, cap, cudaMemcpyDeviceToHost);
  bool clean = true;
  for (size_t i = 0; i < cap && clean; i++)
    clean = got[i] == 0xA5;
  CHECK(clean, "%s: a refused encode wrote into the chunk", what);
  std::vector<unsigned char> out(cap, 0xA5);
  rc = parz_gpu_chunk_encode(ctx, &a, host, &cfg, out.data(), cap, NULL, NULL, &n, &e);
  CHECK(rc == PARZ_ERR_UNSUPPORTED, "%s: filter path: %d (%s)", what, rc, e.message);
  cudaFree(d_in);
  cudaFree(d_chunk);
}

/* Refusals: the serial encoder's statuses for bad arrays and parameters, PARZ_ERR_ARG for
 * misaligned device pointers, PARZ_ERR_BUFFER for a chunk too small, nothing written then. */
static void refusal_cases(void) {
  parz_array a;
  parz_chunk_config cfg;
  parz_error e;
  memset(&a, 0, sizeof a);
  memset(&cfg, 0, sizeof cfg);
  a.type = PARZ_FLOAT;
  a.dims = 2;
  a.shape[0] = 40;
  a.shape[1] = 50;
  parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
  std::vector<unsigned char> host = gpu_cases_values(PARZ_FLOAT, 2000, 1);
  const size_t cap = parz_chunk_bound(&a, &cfg);
  unsigned char *d_in = NULL, *d_chunk = NULL;
  cudaMalloc(&d_in, 8000 + 16);
  cudaMalloc(&d_chunk, cap + 16);
  cudaMemcpy(d_in, host.data(), 8000, cudaMemcpyHostToDevice);
  size_t n = 0;
  CHECK(parz_gpu_encode_device(ctx, &a, d_in + 2, &cfg, d_chunk, cap, &n, NULL, &e) == PARZ_ERR_ARG,
        "a misaligned array must be refused");
  CHECK(parz_gpu_encode_device(ctx, &a, d_in, &cfg, d_chunk + 4, cap, &n, NULL, &e) == PARZ_ERR_ARG,
        "a misaligned chunk must be refused");
  CHECK(parz_gpu_encode_device(ctx, &a, NULL, &cfg, d_chunk, cap, &n, NULL, &e) == PARZ_ERR_ARG,
        "a NULL array must be refused");
  {
    parz_array bad = a;
    bad.dims = 5;
    CHECK(
        parz_gpu_encode_device(ctx, &bad, d_in, &cfg, d_chunk, cap, &n, NULL, &e) == PARZ_ERR_DIMS,
        "rank 5 must be refused");
    parz_chunk_config c2 = cfg;
    c2.params.maxprec = 0;
    CHECK(parz_gpu_encode_device(ctx, &a, d_in, &c2, d_chunk, cap, &n, NULL, &e) == PARZ_ERR_PARAM,
          "maxprec 0 must be refused");
  }
  {
    std::vector<unsigned char> ref;
    reference(a, host.data(), cfg, ref, &e);
    cudaMemset(d_chunk, 0xA5, cap);
    int rc = parz_gpu_encode_device(ctx, &a, d_in, &cfg, d_chunk, ref.size() - 1, &n, NULL, &e);
    CHECK(rc == PARZ_ERR_BUFFER, "a chunk one byte too small gave %d", rc);
    std::vector<unsigned char> back(cap);
    cudaMemcpy(back.data(), d_chunk, cap, cudaMemcpyDeviceToHost);
    bool untouched = true;
    for (size_t i = 0; i < cap; i++)
      untouched = untouched && back[i] == 0xA5;
    CHECK(untouched, "a refused chunk was written");
    rc = parz_gpu_encode_device(ctx, &a, d_in, &cfg, d_chunk, ref.size(), &n, NULL, &e);
    CHECK(rc == PARZ_OK && n == ref.size(), "a chunk of exactly its size gave %d", rc);
    cudaMemcpy(back.data(), d_chunk, n, cudaMemcpyDeviceToHost);
    CHECK(rc == PARZ_OK && !memcmp(back.data(), ref.data(), n),
          "the chunk after a refusal differs");
  }
  cudaFree(d_in);
  cudaFree(d_chunk);
}

/* parz_gpu_encode_device_batch: chunks of several types, ranks, modes and tables in one call
 * (runs of one type and rank share launches); then the chunks of one 2D array, as strided
 * views of it (edge chunks smaller), the way a dataset's chunks are cut; then a batch with one
 * chunk too small for its buffer. */
static void batch_cases(void) {
  struct item {
    parz_type type;
    unsigned dims;
    size_t shape[4];
    int mode; /* 0 accuracy, 1 precision, 2 reversible, 3 rate */
    int table, C;
  };
  static const item items[] = {
      {PARZ_FLOAT, 2, {37, 61}, 0, PARZ_TABLE_AUTO, 0},
      {PARZ_FLOAT, 2, {64, 64}, 1, PARZ_TABLE_AUTO, 0},
      {PARZ_FLOAT, 2, {29, 40}, 2, PARZ_TABLE_HYBRID, 8},
      {PARZ_FLOAT, 2, {37, 61}, 3, PARZ_TABLE_NONE, 0},
      {PARZ_FLOAT, 2, {50, 33}, 0, PARZ_TABLE_HYBRID, 1},
      {PARZ_FLOAT, 2, {41, 41}, 0, PARZ_TABLE_OFFSETS, 4},
      {PARZ_FLOAT, 2, {45, 90}, 1, PARZ_TABLE_LENGTHS, 16},
      {PARZ_DOUBLE, 3, {9, 14, 23}, 0, PARZ_TABLE_AUTO, 0},
      {PARZ_DOUBLE, 3, {12, 10, 8}, 2, PARZ_TABLE_AUTO, 0},
      {PARZ_INT32, 1, {1003}, 1, PARZ_TABLE_AUTO, 0},
      {PARZ_FLOAT, 2, {37, 61}, 0, PARZ_TABLE_HYBRID, 32},
  };
  const size_t n = sizeof items / sizeof items[0];
  {
    /* each item under its own configuration: one call per configuration, the items that
     * share it together */
    for (int mode = 0; mode < 4; mode++) {
      std::vector<parz_array> arrays;
      std::vector<std::vector<unsigned char>> hosts, refs;
      std::vector<const void*> d_in;
      std::vector<void*> d_out;
      std::vector<size_t> caps, written;
      parz_chunk_config cfg;
      parz_error e;
      memset(&cfg, 0, sizeof cfg);
      for (size_t i = 0; i < n; i++) {
        if (items[i].mode != mode)
          continue;
        parz_array a;
        memset(&a, 0, sizeof a);
        a.type = items[i].type;
        a.dims = items[i].dims;
        memcpy(a.shape, items[i].shape, sizeof a.shape);
        arrays.push_back(a);
        hosts.push_back(gpu_cases_values(a.type, parz_array_count(&a), i % 2));
      }
      /* one configuration per call: the table and C of the mode's first item */
      for (size_t i = 0; i < n; i++)
        if (items[i].mode == mode) {
          cfg.table = (parz_table_kind)items[i].table;
          cfg.segment_blocks = (uint32_t)items[i].C;
          break;
        }
      for (size_t i = 0; i < arrays.size(); i++) {
        const parz_array& a = arrays[i];
        switch (mode) {
          case 0: parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL); break;
          case 1: parz_params_precision(&cfg.params, 18, NULL); break;
          case 2: parz_params_reversible(&cfg.params); break;
          default: parz_params_rate(&cfg.params, 12, PARZ_FLOAT, 2, NULL, NULL);
        }
        std::vector<unsigned char> ref;
        reference(a, hosts[i].data(), cfg, ref, &e);
        refs.push_back(ref);
        void *di = NULL, *dc = NULL;
        const size_t cap = parz_chunk_bound(&a, &cfg);
        cudaMalloc(&di, hosts[i].size());
        cudaMalloc(&dc, cap);
        cudaMemcpy(di, hosts[i].data(), hosts[i].size(), cudaMemcpyHostToDevice);
        cudaMemset(dc, 0xA5, cap);
        d_in.push_back(di);
        d_out.push_back(dc);
        caps.push_back(cap);
      }
      written.assign(arrays.size(), 0);
      size_t failed = 99;
      int rc = parz_gpu_encode_device_batch(ctx, arrays.size(), arrays.data(), d_in.data(), &cfg,
                                            d_out.data(), caps.data(), written.data(), NULL,
                                            &failed, &e);
      CHECK(rc == PARZ_OK, "batch mode %d: %d (%s)", mode, rc, rc ? e.message : "");
      for (size_t i = 0; i < arrays.size() && rc == PARZ_OK; i++) {
        std::vector<unsigned char> got(written[i]);
        cudaMemcpy(got.data(), d_out[i], written[i], cudaMemcpyDeviceToHost);
        CHECK(written[i] == refs[i].size() && !memcmp(got.data(), refs[i].data(), written[i]),
              "batch mode %d: chunk %zu differs", mode, i);
      }
      /* the last chunk one byte short: refused by index, nothing written */
      if (arrays.size() > 1 && rc == PARZ_OK) {
        const size_t last = arrays.size() - 1;
        std::vector<size_t> short_caps = caps;
        short_caps[last] = refs[last].size() - 1;
        for (size_t i = 0; i < arrays.size(); i++)
          cudaMemset(d_out[i], 0xA5, caps[i]);
        rc = parz_gpu_encode_device_batch(ctx, arrays.size(), arrays.data(), d_in.data(), &cfg,
                                          d_out.data(), short_caps.data(), written.data(), NULL,
                                          &failed, &e);
        CHECK(rc == PARZ_ERR_BUFFER && failed == last,
              "batch with a short buffer: %d, failed %zu (want %zu)", rc, failed, last);
        unsigned char first = 0;
        cudaMemcpy(&first, d_out[0], 1, cudaMemcpyDeviceToHost);
        CHECK(first == 0xA5, "a refused batch wrote a chunk");
        /* and the next call is right again */
        rc = parz_gpu_encode_device_batch(ctx, arrays.size(), arrays.data(), d_in.data(), &cfg,
                                          d_out.data(), caps.data(), written.data(), NULL, &failed,
                                          &e);
        for (size_t i = 0; i < arrays.size() && rc == PARZ_OK; i++) {
          std::vector<unsigned char> got(written[i]);
          cudaMemcpy(got.data(), d_out[i], written[i], cudaMemcpyDeviceToHost);
          CHECK(written[i] == refs[i].size() && !memcmp(got.data(), refs[i].data(), written[i]),
                "batch mode %d after a refusal: chunk %zu differs", mode, i);
        }
        CHECK(rc == PARZ_OK, "batch mode %d after a refusal: %d", mode, rc);
      }
      for (size_t i = 0; i < arrays.size(); i++) {
        cudaFree((void*)d_in[i]);
        cudaFree(d_out[i]);
      }
    }
    /* the chunks of one 2D array of 150 x 230 floats in 64 x 64 chunks, as strided views of
     * it; edge chunks are the array's remainder */
    {
      const size_t rows = 150, cols = 230, cr = 64, cc = 64;
      std::vector<unsigned char> host = gpu_cases_values(PARZ_FLOAT, rows * cols, 1);
      void* d = NULL;
      cudaMalloc(&d, host.size());
      cudaMemcpy(d, host.data(), host.size(), cudaMemcpyHostToDevice);
      parz_chunk_config cfg;
      memset(&cfg, 0, sizeof cfg);
      parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL);
      std::vector<parz_array> arrays;
      std::vector<const void*> d_in;
      std::vector<void*> d_out;
      std::vector<size_t> caps, written;
      std::vector<std::vector<unsigned char>> refs;
      parz_error e;
      for (size_t r0 = 0; r0 < rows; r0 += cr)
        for (size_t c0 = 0; c0 < cols; c0 += cc) {
          parz_array a;
          memset(&a, 0, sizeof a);
          a.type = PARZ_FLOAT;
          a.dims = 2;
          a.shape[0] = rows - r0 < cr ? rows - r0 : cr;
          a.shape[1] = cols - c0 < cc ? cols - c0 : cc;
          a.stride[0] = (ptrdiff_t)cols;
          a.stride[1] = 1;
          const unsigned char* at = host.data() + 4 * (r0 * cols + c0);
          std::vector<unsigned char> ref;
          reference(a, at, cfg, ref, &e);
          refs.push_back(ref);
          arrays.push_back(a);
          d_in.push_back((const unsigned char*)d + 4 * (r0 * cols + c0));
          void* dc = NULL;
          caps.push_back(parz_chunk_bound(&a, &cfg));
          cudaMalloc(&dc, caps.back());
          d_out.push_back(dc);
        }
      written.assign(arrays.size(), 0);
      int rc =
          parz_gpu_encode_device_batch(ctx, arrays.size(), arrays.data(), d_in.data(), &cfg,
                                       d_out.data(), caps.data(), written.data(), NULL, NULL, &e);
      CHECK(rc == PARZ_OK, "chunks of one array: %d (%s)", rc, rc ? e.message : "");
      for (size_t i = 0; i < arrays.size() && rc == PARZ_OK; i++) {
        std::vector<unsigned char> got(written[i]);
        cudaMemcpy(got.data(), d_out[i], written[i], cudaMemcpyDeviceToHost);
        CHECK(written[i] == refs[i].size() && !memcmp(got.data(), refs[i].data(), written[i]),
              "chunks of one array: chunk %zu differs", i);
      }
      for (size_t i = 0; i < arrays.size(); i++)
        cudaFree(d_out[i]);
      cudaFree(d);
    }
  }
}

/* Real arrays: accuracy (auto C, C = 1, C = 32) and reversible. */
static void real_cases(const char* dir, int small) {
  static const struct {
    const char* file;
    parz_type type;
    unsigned dims;
    size_t shape[4];
    double tolerance;
    float fill; /* the array's fill value, 0: none */
  } files[] = {
      {"etopo5_relief_f32le_2161x4320.bin", PARZ_FLOAT, 2, {2161, 4320}, 1e2, 0},
      {"levitus_temp_f32le_20x180x360.bin", PARZ_FLOAT, 3, {20, 180, 360}, 1e-2, -1e10f},
      {"hst_acs_hrc_ngc104_sci_f32le_1024x1024.bin", PARZ_FLOAT, 2, {1024, 1024}, 0.5, 0},
      {"egm96_geoid_f32le_721x1440.bin", PARZ_FLOAT, 2, {721, 1440}, 1e-3, 0},
      {"vasp_fepo4_chgcar_f64le_72x192x160.bin", PARZ_DOUBLE, 3, {72, 192, 160}, 1e-4, 0},
      {"ccsm_trefht_ens_f32le_8x110x64x128.bin", PARZ_FLOAT, 4, {8, 110, 64, 128}, 1e-2, 0},
  };
  for (const auto& f : files) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, f.file);
    FILE* fp = fopen(path, "rb");
    if (!fp) {
      printf("  (skipped %s: not found)\n", path);
      continue;
    }
    parz_array a;
    memset(&a, 0, sizeof a);
    a.type = f.type;
    a.dims = f.dims;
    memcpy(a.shape, f.shape, sizeof a.shape);
    std::vector<unsigned char> data(parz_array_count(&a) * parz_type_size(a.type));
    const size_t got = fread(data.data(), 1, data.size(), fp);
    fclose(fp);
    CHECK(got == data.size(), "%s: short read", path);
    static const int cs[] = {0, 1, 32};
    for (int mode = 0; mode < 2; mode++)
      for (int k = 0; k < (small || mode ? 1 : 3); k++) {
        parz_chunk_config cfg;
        memset(&cfg, 0, sizeof cfg);
        if (mode == 0)
          parz_params_accuracy(&cfg.params, f.tolerance, NULL, NULL);
        else
          parz_params_reversible(&cfg.params);
        cfg.segment_blocks = (uint32_t)cs[k];
        char what[256];
        snprintf(what, sizeof what, "%s %s C=%d", f.file, mode ? "reversible" : "accuracy", cs[k]);
        if (mode == 0 && f.fill != 0) {
          /* undeclared, the fill value puts its blocks at risk of the bound, which the GPU
           * encoder leaves to the CPU; declared, it is masked (as the filter sees a dataset's) */
          refuse(what, a, data.data(), cfg, "so large beside the tolerance");
          cfg.fill = 1;
          memcpy(&cfg.fill_bits, &f.fill, sizeof f.fill);
          strncat(what, ", fill value declared", sizeof what - strlen(what) - 1);
        }
        compare(what, a, data.data(), cfg);
      }
    if (small)
      break;
  }
}

/* What parz_gpu_encode_box hands its sink: each chunk's bytes by its origin (first element). */
struct box_sink {
  std::vector<std::vector<uint64_t>> origins;
  std::vector<std::vector<unsigned char>> chunks;
  size_t calls;
  int fail_at; /* the call that fails (-1: none) */
};

static int collect(void* arg, size_t n, const parz_chunk_ref* refs, const void* packed,
                   parz_error* err) {
  box_sink* s = (box_sink*)arg;
  if ((int)s->calls++ == s->fail_at)
    return parz_fail(err, PARZ_ERR_ARG, "the sink refused");
  for (size_t i = 0; i < n; i++) {
    const unsigned char* p = (const unsigned char*)packed + refs[i].at;
    s->origins.push_back(std::vector<uint64_t>(refs[i].origin, refs[i].origin + 4));
    s->chunks.push_back(std::vector<unsigned char>(p, p + refs[i].bytes));
  }
  return PARZ_OK;
}

/* parz_gpu_encode_box: the chunks of boxes of arrays of rank 2 to 4 (unit chunk extents, edge
 * chunks padded with a fill value or zeros) against the serial encoder on each chunk padded on
 * the host (parz_chunk_dest_gather); a box that cuts chunks refused; a sink's refusal returned. */
static void box_cases(int small) {
  struct item {
    parz_type type;
    unsigned rank;
    uint64_t dims[4], chunk[4], start[4], count[4];
    int fill;
  };
  static const item items[] = {
      {PARZ_FLOAT, 2, {100, 70}, {32, 32}, {0, 0}, {100, 70}, 1},
      {PARZ_FLOAT, 2, {100, 70}, {32, 32}, {32, 32}, {68, 38}, 0},
      {PARZ_DOUBLE, 3, {9, 20, 30}, {4, 1, 16}, {4, 0, 0}, {5, 20, 30}, 1},
      {PARZ_INT32, 4, {3, 5, 6, 7}, {2, 2, 4, 7}, {0, 2, 0, 0}, {3, 3, 6, 7}, 1},
      {PARZ_INT64, 2, {40, 600}, {16, 256}, {0, 0}, {40, 600}, 0},
  };
  for (size_t it = 0; it < sizeof items / sizeof items[0]; it++) {
    const item& c = items[it];
    if (small && it > 2)
      break;
    parz_chunk_grid g;
    parz_box box;
    memset(&g, 0, sizeof g);
    memset(&box, 0, sizeof box);
    g.rank = c.rank;
    g.type = c.type;
    memcpy(g.dims, c.dims, sizeof c.dims);
    memcpy(g.chunk_dims, c.chunk, sizeof c.chunk);
    memcpy(box.start, c.start, sizeof c.start);
    memcpy(box.count, c.count, sizeof c.count);
    parz_chunk_config cfg;
    memset(&cfg, 0, sizeof cfg);
    if (c.type == PARZ_FLOAT || c.type == PARZ_DOUBLE)
      parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL);
    else
      parz_params_precision(&cfg.params, 24, NULL);
    const size_t elem = parz_type_size(c.type);
    size_t n = 1;
    for (unsigned k = 0; k < c.rank; k++)
      n *= c.count[k];
    std::vector<unsigned char> host = gpu_cases_values(c.type, n, (int)(it % 2));
    const unsigned char fill[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x08};
    /* the padding masked (the fill value given), as a dataset's fill value is */
    cfg.fill = c.fill;
    memcpy(&cfg.fill_bits, fill, elem);
    void* d_box = NULL;
    cudaMalloc(&d_box, n * elem);
    cudaMemcpy(d_box, host.data(), n * elem, cudaMemcpyHostToDevice);
    box_sink got = {{}, {}, 0, -1};
    parz_error e;
    int rc = parz_gpu_encode_box(ctx, &g, &box, d_box, c.fill ? fill : NULL, &cfg, NULL, collect,
                                 &got, &e);
    CHECK(rc == PARZ_OK, "box %zu: %s", it, e.message);
    /* the same chunks, in C order, from the serial encoder */
    parz_array a;
    parz_grid_chunk_array(&g, &a, NULL);
    std::vector<unsigned char> pad(parz_array_count(&a) * elem), ref;
    uint64_t origin[PARZ_MAX_RANK] = {0}; /* the sink's origins are zero past the rank */
    size_t i = 0;
    parz_box_first_chunk(&g, &box, origin);
    do {
      parz_chunk_dest d;
      parz_box_chunk_dest(&g, &box, origin, host.data(), &d);
      parz_chunk_dest_gather(&a, &d, c.fill ? fill : NULL, pad.data());
      reference(a, pad.data(), cfg, ref, &e);
      size_t at = 0, bytes = i < got.chunks.size() ? got.chunks[i].size() : 0;
      while (at < bytes && at < ref.size() && got.chunks[i][at] == ref[at])
        at++;
      CHECK(i < got.chunks.size() && got.chunks[i] == ref &&
                !memcmp(got.origins[i].data(), origin, 4 * sizeof *origin),
            "box %zu: chunk %zu differs from the serial encoder's (%zu bytes, serial %zu, first "
            "difference at byte %zu)",
            it, i, bytes, ref.size(), at);
      i++;
    } while (parz_box_next_chunk(&g, &box, origin));
    CHECK(i == got.chunks.size(), "box %zu: %zu chunks, not %zu", it, got.chunks.size(), i);
    if (it == 0) {
      parz_box cut = box;
      cut.start[0] = 1;
      cut.count[0] = 64;
      CHECK(parz_gpu_encode_box(ctx, &g, &cut, d_box, NULL, &cfg, NULL, collect, &got, &e) ==
                PARZ_ERR_ARG,
            "a box that cuts chunks must be refused");
      box_sink refusing = {{}, {}, 0, 0};
      CHECK(parz_gpu_encode_box(ctx, &g, &box, d_box, NULL, &cfg, NULL, collect, &refusing, &e) ==
                    PARZ_ERR_ARG &&
                strstr(e.message, "sink refused"),
            "a sink's refusal must be returned");
    }
    cudaFree(d_box);
  }
}

/* Stored chunks (codec/stored/stored.h): with them on, arrays of random bits (stored in every mode)
 * and smooth ones (kept as zfp chunks) through every path, strided views among them; then one
 * batch of both under one configuration, whose stored chunks take the encoder's other path. */
static void stored_cases(int small) {
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  static const size_t shapes[4][4] = {{3000}, {37, 61}, {9, 13, 11}, {3, 5, 6, 9}};
  char what[128];
  for (int t = 0; t < 4; t++)
    for (unsigned d = 1; d <= 4; d++)
      for (int mode = 0; mode < 3; mode++) {
        parz_array a;
        parz_chunk_config cfg;
        memset(&a, 0, sizeof a);
        memset(&cfg, 0, sizeof cfg);
        a.type = types[t];
        a.dims = d;
        memcpy(a.shape, shapes[d - 1], sizeof a.shape);
        if (mode == 0)
          parz_params_reversible(&cfg.params);
        else if (mode == 1)
          parz_params_precision(&cfg.params, 20, NULL);
        else if (parz_params_rate(&cfg.params, 16, a.type, d, NULL, NULL) != PARZ_OK)
          continue;
        if (mode == 2)
          cfg.table = PARZ_TABLE_NONE;
        cfg.stored = PARZ_STORED_WHEN_SMALLER;
        const size_t raw = parz_array_count(&a) * parz_type_size(a.type);
        std::vector<unsigned char> bits(2 * raw);
        for (size_t i = 0; i < bits.size(); i++)
          bits[i] = (unsigned char)(xorshift_next() >> 40);
        snprintf(what, sizeof what, "stored chunks on: %s %uD mode %d, random bits",
                 parz_type_name(a.type), d, mode);
        compare(what, a, bits.data(), cfg);
        std::vector<unsigned char> smooth = gpu_cases_values(a.type, parz_array_count(&a), 0);
        snprintf(what, sizeof what, "stored chunks on: %s %uD mode %d, smooth",
                 parz_type_name(a.type), d, mode);
        compare(what, a, smooth.data(), cfg);
        if (!small) { /* every other value of the last dimension of an array twice as wide */
          parz_array s = a;
          ptrdiff_t run = 2 * (ptrdiff_t)a.shape[d - 1];
          s.stride[d - 1] = 2;
          for (unsigned k = d - 1; k-- > 0;) {
            s.stride[k] = run;
            run *= (ptrdiff_t)a.shape[k];
          }
          snprintf(what, sizeof what, "stored chunks on: %s %uD mode %d, random bits strided",
                   parz_type_name(a.type), d, mode);
          compare(what, s, bits.data(), cfg);
        }
      }
  /* a batch: float32 2D chunks, random bits every third, reversible */
  {
    const size_t n = 7, rows = 37, cols = 61, raw = rows * cols * 4;
    parz_chunk_config cfg;
    memset(&cfg, 0, sizeof cfg);
    parz_params_reversible(&cfg.params);
    cfg.stored = PARZ_STORED_WHEN_SMALLER;
    std::vector<parz_array> arrays(n);
    std::vector<std::vector<unsigned char>> hosts(n), refs(n);
    std::vector<const void*> d_in(n);
    std::vector<void*> d_out(n);
    std::vector<size_t> caps(n), written(n);
    parz_error e;
    for (size_t i = 0; i < n; i++) {
      memset(&arrays[i], 0, sizeof arrays[i]);
      arrays[i].type = PARZ_FLOAT;
      arrays[i].dims = 2;
      arrays[i].shape[0] = rows, arrays[i].shape[1] = cols;
      if (i % 3 == 1) {
        hosts[i].resize(raw);
        for (size_t k = 0; k < raw; k++)
          hosts[i][k] = (unsigned char)(xorshift_next() >> 40);
      } else {
        hosts[i] = gpu_cases_values(PARZ_FLOAT, rows * cols, 0);
      }
      CHECK(reference(arrays[i], hosts[i].data(), cfg, refs[i], &e) == PARZ_OK,
            "stored batch: serial %zu", i);
      caps[i] = parz_chunk_bound(&arrays[i], &cfg);
      void* p = NULL;
      cudaMalloc(&p, raw);
      cudaMemcpy(p, hosts[i].data(), raw, cudaMemcpyHostToDevice);
      d_in[i] = p;
      cudaMalloc(&d_out[i], caps[i]);
    }
    size_t failed = 99;
    int rc = parz_gpu_encode_device_batch(ctx, n, arrays.data(), d_in.data(), &cfg, d_out.data(),
                                          caps.data(), written.data(), NULL, &failed, &e);
    cudaDeviceSynchronize();
    CHECK(rc == PARZ_OK, "stored batch: %s", rc ? e.message : "");
    for (size_t i = 0; i < n && rc == PARZ_OK; i++) {
      std::vector<unsigned char> got(written[i]);
      cudaMemcpy(got.data(), d_out[i], written[i], cudaMemcpyDeviceToHost);
      CHECK(written[i] == refs[i].size() && !memcmp(got.data(), refs[i].data(), written[i]),
            "stored batch: chunk %zu (%s) differs", i, i % 3 == 1 ? "stored" : "zfp");
    }
    for (size_t i = 0; i < n; i++) {
      cudaFree((void*)d_in[i]);
      cudaFree(d_out[i]);
    }
  }
}

int main(int argc, char** argv) {
  const char* dir = NULL;
  int small = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--small"))
      small = 1;
    else
      dir = argv[i];
  }
  const int start = gpu_test_context(&ctx);
  if (start)
    return start;
  {
    const gpu_encode_scope scope = {small != 0, small != 0, false, !small};
    CHECK(gpu_encode_cases(scope, compare) == 0, "parameters the codec refused");
  }
  {
    const gpu_encode_scope scope = {small != 0, small != 0, false, !small};
    gpu_cases_masks(scope, compare, refuse);
    gpu_cases_risk(scope, compare, refuse);
  }
  refusal_cases();
  stored_cases(small);
  batch_cases();
  box_cases(small);
  if (dir)
    real_cases(dir, small);
  cudaError_t ce = cudaDeviceSynchronize();
  CHECK(ce == cudaSuccess, "device: %s", cudaGetErrorString(ce));
  parz_gpu_context_free(ctx);
  return test_finish("test_gpu_encode");
}
