/* GPU decode kernels against table size: the measurement behind the default C and P, and
 * behind the decoder's choice of parse shape (gpu/zfp/zfp_decode.cu: plan, seg_parser).
 *
 * For each array, mode and segment size C, one chunk holds the whole array (the most parallelism
 * a chunk can offer); it is decoded on the device by the kernels of parz_gpu_decode_device with
 * each parse shape -- the decoder's own choice ("auto"), with its decode waiting for the whole
 * parse grid ("grid-wait") or each thread for its own segment's parse ("segment-wait"), a
 * parser forced ("segment-parser", "block-parser": the general ones where the chunk's own
 * would be faster) or a G forced (G=1 to G=32, the segments per warp of the parse), through
 * gpu_internal.h's parz_gpu_enqueue_chunk --
 * and timed with CUDA events around the queued kernels (median of --reps after warm-up; the
 * fault record is read back and checked after each run, outside the timed region). A
 * device-to-device copy of the decoded array's size, timed the same way, is the bandwidth anchor.
 * Every shape's output is compared with the serial decoder's.
 *
 * usage: bench_gpu_kernel [--reps N] [--c 1,4,16,...] [--p N] [--rel 1e-4,1e-3]
 *                         [--shapes auto,grid-wait,segment-wait,G=8,...]
 *                         [--modes accuracy,precision,reversible,lossless]
 *                         [--chunk-mib 1,4] [--run-q 9,8,7] FILE...
 *   FILE: raw little-endian array named like name_f32le_AxBxC.bin (f32 or f64, C order).
 *   --rel: fixed-accuracy tolerances relative to the array's value range.
 *   --modes: zfp's modes, and the lossless codec (codec 3, whose kernels take no parse shape:
 *            every shape row times the same launches).
 *   --run-q: the lossless codec's chunks written with runs of 2^q residuals (coder 3), a mode
 *            "lossless q=Q" per q (parz_codec_settings.run_q); without it, the writers' own.
 *   --chunk-mib: also cut the array into chunks of about this size (chunked_row) and compare one
 *                launch set per chunk with one for all of them.
 *   --checksum: also decode the same chunk written without payload checksums (the same payload),
 *               the two alternately, and report what verifying them costs (checksum_row).
 *   --mask third,land: also decode the array with missing values as NaN (masked, codec/FORMAT.md
 *               "Mask"): "third" a third of its blocks (by a hash of the block index), "land"
 *               its values above 0 (etopo5's land); alternately with the array itself, on the
 *               GPU and with OpenMP on every core (mask_row). One line per such row, starting
 *               "mask-goal", goes to stderr for scripts/gpu_mask_check.sh.
 * Output: one Markdown table row per (array, mode, C, shape), then per (array, mode, C, chunk
 * size) with --chunk-mib, then per (array, mode, C, shape) with --checksum and --mask. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "bench_gpu_args.h"
#include "bench_raw_file.h"
#include "gpu_internal.h"
#include "parz_gpu.h"
#include "parz_omp.h"

/* Whether name is one of the comma-separated items of list. */
static bool in_list(const char* list, const char* name) {
  size_t n = strlen(name);
  for (const char* p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == 0))
      return true;
  return false;
}

struct timer {
  cudaEvent_t a, b;
  cudaStream_t st;
};

/* Median GPU time of fn's queued work; after (untimed) runs once the events have completed. */
template <class F, class G>
static double median_ms(timer& t, int reps, F fn, G after) {
  std::vector<float> ms;
  for (int i = 0; i < 2; i++) {
    fn(); /* warm-up */
    CHECK_CUDA(cudaStreamSynchronize(t.st));
    after();
  }
  for (int i = 0; i < reps; i++) {
    float x;
    CHECK_CUDA(cudaEventRecord(t.a, t.st));
    fn();
    CHECK_CUDA(cudaEventRecord(t.b, t.st));
    CHECK_CUDA(cudaEventSynchronize(t.b));
    CHECK_CUDA(cudaEventElapsedTime(&x, t.a, t.b));
    after();
    ms.push_back(x);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

static double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/* A parse shape to time, by name. */
struct shape_variant {
  const char* name;
  parz_gpu_shape shape;
};

/* GPU time of the kernels of one decode of the chunk at d_chunk (view v) into d_dst with its
 * parse shaped by `shape`, the fault record checked after the events (so that a failed
 * verification cannot pass unseen). */
static double decode_ms(parz_gpu_context* ctx, timer& t, const parz_chunk_view& v,
                        const void* d_chunk, void* d_dst, const parz_gpu_shape* shape) {
  parz_gpu_scratch scratch;
  parz_error err;
  float x;
  int rc = parz_gpu_scratch_reserve(ctx, &v, 1, &scratch, &err);
  CHECK_CUDA(cudaEventRecord(t.a, t.st));
  if (rc == PARZ_OK)
    rc = parz_gpu_fault_clear(ctx, 1, t.st, &err);
  if (rc == PARZ_OK)
    rc = parz_gpu_enqueue_chunk(ctx, &v, d_chunk, d_dst, &scratch, shape, t.st, &err);
  CHECK_CUDA(cudaEventRecord(t.b, t.st));
  CHECK_CUDA(cudaEventSynchronize(t.b));
  CHECK_CUDA(cudaEventElapsedTime(&x, t.a, t.b));
  if (rc == PARZ_OK)
    rc = parz_gpu_fault_check(ctx, &v, 1, t.st, NULL, &err);
  if (rc != PARZ_OK) {
    fprintf(stderr, "decode: %s\n", err.message);
    exit(1);
  }
  return x;
}

/* `data` (the array r describes) encoded as one chunk with cfg on every core into `chunk`, parsed
 * into *v and copied to the device; returns the device copy. Exits on failure. */
static const void* encode_to_device(const raw_array& r, const void* data,
                                    const parz_chunk_config& cfg, std::vector<unsigned char>& chunk,
                                    parz_chunk_view* v, size_t* bytes) {
  parz_error err;
  void* p;
  chunk.resize(parz_chunk_bound_data(&r.a, data, &cfg));
  if (parz_omp_chunk_encode(&r.a, data, &cfg, chunk.data(), chunk.size(), bytes, 0, &err) !=
          PARZ_OK ||
      parz_chunk_parse(chunk.data(), *bytes, v, &err) != PARZ_OK) {
    fprintf(stderr, "%s: encode: %s\n", r.name, err.message);
    exit(1);
  }
  CHECK_CUDA(cudaMalloc(&p, *bytes));
  CHECK_CUDA(cudaMemcpy(p, chunk.data(), *bytes, cudaMemcpyHostToDevice));
  return p;
}

/* The chunk with and without payload checksums (the same payload), decoded alternately with
 * parse shape s, median of reps each after a warm-up of both; a Markdown row. */
static std::string checksum_row(parz_gpu_context* ctx, timer& t, int reps, const raw_array& r,
                                const char* label, const shape_variant& s, parz_chunk_config cfg,
                                void* d_dst) {
  const void* d[2];
  parz_chunk_view v[2];
  size_t bytes[2];
  std::vector<unsigned char> chunk[2];
  std::vector<double> ms[2];
  for (int k = 0; k < 2; k++) {
    cfg.checksum = k ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_ON;
    d[k] = encode_to_device(r, r.data.data(), cfg, chunk[k], &v[k], &bytes[k]);
  }
  for (int i = -2; i < reps; i++)
    for (int k = 0; k < 2; k++) {
      double x = decode_ms(ctx, t, v[k], d[k], d_dst, &s.shape);
      if (i >= 0)
        ms[k].push_back(x);
    }
  const double on = median_of(ms[0]), off = median_of(ms[1]), raw = (double)r.data.size();
  char row[512];
  snprintf(row, sizeof row,
           "| %s | %s | %u | %s | %llu | %.1f | %.1f | %.2f%% | %zu (%.3f%%) | %.4f | %.4f |\n",
           r.name, label, v[0].segment_blocks, s.name, (unsigned long long)v[0].nchecksums,
           raw / (on * 1e-3) / 1073741824.0, raw / (off * 1e-3) / 1073741824.0,
           100.0 * (on / off - 1), bytes[0] - bytes[1],
           100.0 * (double)(bytes[0] - bytes[1]) / (double)bytes[1], on, off);
  for (int k = 0; k < 2; k++)
    CHECK_CUDA(cudaFree((void*)d[k]));
  return row;
}

/* The array with missing values as NaN: "third", every value of the blocks whose index hashes to
 * 0 mod 3; "land", every value above 0. Returns the share of values made NaN. */
static double masked_variant(const raw_array& r, const char* variant,
                             std::vector<unsigned char>& out) {
  const size_t n = parz_array_count(&r.a), sz = parz_type_size(r.a.type);
  const uint64_t nan = sz == 4 ? 0x7fc00000ull : 0x7ff8000000000000ull;
  size_t masked = 0;
  out = r.data;
  for (size_t i = 0; i < n; i++) {
    size_t rem = i, block = 0, stride = 1;
    for (int k = (int)r.a.dims - 1; k >= 0; k--) { /* the block index, C order */
      block += (rem % r.a.shape[k]) / 4 * stride;
      stride *= (r.a.shape[k] + 3) / 4;
      rem /= r.a.shape[k];
    }
    const double x = sz == 4 ? ((const float*)r.data.data())[i] : ((const double*)r.data.data())[i];
    const bool hit = !strcmp(variant, "land") ? x > 0 : ((block * 2654435761ull) >> 7) % 3 == 0;
    if (hit) {
      memcpy(out.data() + i * sz, &nan, sz);
      masked++;
    }
  }
  return (double)masked / (double)n;
}

/* The array and a masked variant of it (masked_variant), each one chunk encoded with cfg, decoded
 * alternately on the GPU (its kernels, CUDA events) and with OpenMP on every core (host wall
 * clock), median of reps each after a warm-up; the outputs checked against the serial decoder.
 * Returns a Markdown row and prints a mask-goal line to stderr. */
static std::string mask_row(parz_gpu_context* ctx, timer& t, int reps, const raw_array& r,
                            const char* label, const shape_variant& s, const parz_chunk_config& cfg,
                            void* d_dst, const char* variant) {
  std::vector<unsigned char> data[2], chunk[2];
  const void* d[2];
  parz_chunk_view v[2];
  size_t bytes[2];
  std::vector<double> gpu[2], omp[2];
  const size_t raw = r.data.size();
  std::vector<unsigned char> ref(raw), out(raw);
  data[0] = r.data;
  const double share = masked_variant(r, variant, data[1]);
  for (int k = 0; k < 2; k++) {
    parz_error err;
    d[k] = encode_to_device(r, data[k].data(), cfg, chunk[k], &v[k], &bytes[k]);
    decode_ms(ctx, t, v[k], d[k], d_dst, &s.shape);
    CHECK_CUDA(cudaMemcpy(out.data(), d_dst, raw, cudaMemcpyDeviceToHost));
    if (parz_chunk_decode(chunk[k].data(), bytes[k], ref.data(), raw, &err) != PARZ_OK ||
        memcmp(out.data(), ref.data(), raw) != 0 ||
        parz_omp_chunk_decode(chunk[k].data(), bytes[k], out.data(), raw, 0, &err) != PARZ_OK ||
        memcmp(out.data(), ref.data(), raw) != 0) {
      fprintf(stderr, "%s %s: the GPU or OpenMP output differs from the serial decoder's\n", r.name,
              variant);
      exit(1);
    }
  }
  for (int i = -2; i < reps; i++)
    for (int k = 0; k < 2; k++) {
      parz_error err;
      double x = decode_ms(ctx, t, v[k], d[k], d_dst, &s.shape);
      auto t0 = std::chrono::steady_clock::now();
      if (parz_omp_chunk_decode(chunk[k].data(), bytes[k], out.data(), raw, 0, &err) != PARZ_OK) {
        fprintf(stderr, "%s: OpenMP decode: %s\n", r.name, err.message);
        exit(1);
      }
      double y =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (i >= 0) {
        gpu[k].push_back(x);
        omp[k].push_back(y);
      }
    }
  const double g0 = median_of(gpu[0]), g1 = median_of(gpu[1]);
  const double o0 = median_of(omp[0]), o1 = median_of(omp[1]);
  auto gibs = [&](double ms) { return (double)raw / (ms * 1e-3) / 1073741824.0; };
  char row[640];
  snprintf(row, sizeof row,
           "| %s | %s | %s | %.1f%% | %u / %u | %.2f / %.2f | %.2f%% | %s | %.1f / %.1f | %.2f | "
           "%.2f / %.2f | %.2f |\n",
           r.name, label, variant, 100.0 * share, v[0].segment_blocks, v[1].segment_blocks,
           (double)raw / bytes[0], (double)raw / bytes[1],
           100.0 * (double)v[1].mask.section_bytes / (double)bytes[1], s.name, gibs(g0), gibs(g1),
           g0 / g1, gibs(o0), gibs(o1), o0 / o1);
  std::string mode(label);
  std::replace(mode.begin(), mode.end(), ' ', '_');
  fprintf(stderr, "mask-goal %s %s %s gpu %.3f omp %.3f\n", r.name, variant, mode.c_str(), g0 / g1,
          o0 / o1);
  for (int k = 0; k < 2; k++)
    CHECK_CUDA(cudaFree((void*)d[k]));
  return row;
}

/* The array cut along its first dimension into chunks of about `mib` MiB, whole blocks of
 * rows (the last one padded with zeros to full size, as HDF5 stores edge chunks), each encoded with cfg and decoded on the
 * device four ways: one launch set per chunk, all chunks in one launch set (both timed with CUDA
 * events, fault records checked outside the timed region), and, timed on the host, a loop of
 * parz_gpu_decode_device (which waits for every chunk) and one parz_gpu_decode_device_batch.
 * Throughput counts the decoded bytes. Every chunk's output is compared with the serial
 * decoder's. Returns a Markdown row. */
static std::string chunked_row(parz_gpu_context* ctx, timer& t, int reps, const raw_array& r,
                               const char* label, const parz_chunk_config& cfg, double mib) {
  parz_error err;
  char row[512];
  const size_t rows_all = r.a.shape[0], row_bytes = r.data.size() / rows_all;
  size_t rows = 4 * (size_t)llround(mib * 1048576.0 / row_bytes / 4);
  rows = rows < 1 ? 1 : rows > rows_all ? rows_all : rows;
  const size_t n = (rows_all + rows - 1) / rows, craw = rows * row_bytes;
  parz_array a = r.a;
  a.shape[0] = rows;
  if (rows == 1 && a.dims > 1) { /* a unit extent: dropped, as the filter does */
    a.dims--;
    memmove(a.shape, a.shape + 1, a.dims * sizeof a.shape[0]);
    a.shape[a.dims] = 0;
  }
  std::vector<unsigned char> host, ref(n * craw), piece(craw), enc(parz_chunk_bound(&a, &cfg));
  std::vector<size_t> at(n);
  std::vector<parz_chunk_view> views(n);
  for (size_t k = 0; k < n; k++) {
    size_t have = std::min(rows, rows_all - k * rows) * row_bytes, written = 0;
    memset(piece.data(), 0, craw);
    memcpy(piece.data(), r.data.data() + k * craw, have);
    if (parz_omp_chunk_encode(&a, piece.data(), &cfg, enc.data(), enc.size(), &written, 0, &err) !=
            PARZ_OK ||
        parz_chunk_decode(enc.data(), written, ref.data() + k * craw, craw, &err) != PARZ_OK) {
      snprintf(row, sizeof row, "| %s | %s | %g | error: %s |\n", r.name, label, mib, err.message);
      return row;
    }
    at[k] = host.size();
    host.insert(host.end(), enc.begin(), enc.begin() + written);
    host.resize((host.size() + 7) & ~(size_t)7); /* every chunk 8-byte aligned */
  }
  for (size_t k = 0; k < n; k++)
    parz_chunk_parse(host.data() + at[k], (k + 1 < n ? at[k + 1] : host.size()) - at[k], &views[k],
                     NULL);
  unsigned char *d_src, *d_out;
  CHECK_CUDA(cudaMalloc(&d_src, host.size()));
  CHECK_CUDA(cudaMalloc(&d_out, n * craw));
  CHECK_CUDA(cudaMemcpy(d_src, host.data(), host.size(), cudaMemcpyHostToDevice));
  std::vector<const void*> dc(n);
  std::vector<void*> dd(n);
  for (size_t k = 0; k < n; k++) {
    dc[k] = d_src + at[k];
    dd[k] = d_out + k * craw;
  }
  std::vector<parz_gpu_scratch> sc(n);
  int rc = parz_gpu_scratch_reserve(ctx, views.data(), n, sc.data(), &err);
  auto check = [&] {
    if (rc == PARZ_OK)
      rc = parz_gpu_fault_check(ctx, views.data(), n, t.st, NULL, &err);
  };
  double per_ms = median_ms(
      t, reps,
      [&] {
        if (rc == PARZ_OK)
          rc = parz_gpu_fault_clear(ctx, n, t.st, &err);
        for (size_t k = 0; k < n && rc == PARZ_OK; k++)
          rc = parz_gpu_enqueue_chunks(ctx, &views[k], &dc[k], &dd[k], 1, &sc[k], t.st, &err);
      },
      check);
  double batch_ms = median_ms(
      t, reps,
      [&] {
        if (rc == PARZ_OK)
          rc = parz_gpu_fault_clear(ctx, n, t.st, &err);
        if (rc == PARZ_OK)
          rc = parz_gpu_enqueue_chunks(ctx, views.data(), dc.data(), dd.data(), n, sc.data(), t.st,
                                       &err);
      },
      check);
  std::vector<unsigned char> out(n * craw);
  CHECK_CUDA(cudaMemcpy(out.data(), d_out, n * craw, cudaMemcpyDeviceToHost));
  const bool same = memcmp(out.data(), ref.data(), n * craw) == 0;
  std::vector<double> loop_s, api_s;
  for (int i = 0; i < reps + 1 && rc == PARZ_OK; i++) {
    auto t0 = std::chrono::steady_clock::now();
    for (size_t k = 0; k < n && rc == PARZ_OK; k++)
      rc = parz_gpu_decode_device(ctx, &views[k], dc[k], dd[k], t.st, &err);
    auto t1 = std::chrono::steady_clock::now();
    if (rc == PARZ_OK)
      rc = parz_gpu_decode_device_batch(ctx, n, views.data(), dc.data(), dd.data(), t.st, NULL,
                                        &err);
    auto t2 = std::chrono::steady_clock::now();
    if (i > 0) { /* the first is warm-up */
      loop_s.push_back(std::chrono::duration<double>(t1 - t0).count());
      api_s.push_back(std::chrono::duration<double>(t2 - t1).count());
    }
  }
  CHECK_CUDA(cudaFree(d_src));
  CHECK_CUDA(cudaFree(d_out));
  if (rc != PARZ_OK) {
    snprintf(row, sizeof row, "| %s | %s | %g | error: %s |\n", r.name, label, mib, err.message);
    return row;
  }
  const double gib = (double)(n * craw) / 1073741824.0;
  unsigned cmin = views[0].segment_blocks, cmax = cmin;
  for (const parz_chunk_view& v : views) {
    cmin = std::min(cmin, v.segment_blocks);
    cmax = std::max(cmax, v.segment_blocks);
  }
  snprintf(row, sizeof row,
           "| %s | %s | %.2f | %zu | %u-%u | %.2f | %.1f | %.1f%s | %.2fx | %.1f | %.1f |\n",
           r.name, label, (double)craw / 1048576.0, n, cmin, cmax,
           (double)(n * craw) / (double)host.size(), gib / (per_ms * 1e-3), gib / (batch_ms * 1e-3),
           same ? "" : " MISMATCH", per_ms / batch_ms, gib / median_of(loop_s),
           gib / median_of(api_s));
  return row;
}

int main(int argc, char** argv) {
  int reps = 10, P = 0;
  std::vector<double> cs = {1, 4, 8, 16, 32, 64, 128};
  std::vector<double> rels = {1e-4, 1e-3};
  std::vector<const char*> files;
  const char* only = NULL;           /* comma-separated shape names, e.g. "auto,G=8" */
  const char* only_modes = NULL;     /* any of "accuracy,precision,reversible" */
  std::vector<double> chunk_mib;     /* --chunk-mib: also decode the array cut into chunks */
  std::vector<double> run_qs = {0};  /* --run-q: the lossless chunks' run lengths (0: writers') */
  std::string chunked;               /* their table, printed after the main one */
  bool checksum = false;             /* --checksum: the cost of the payload checksums */
  std::string sums;                  /* its table */
  std::vector<std::string> variants; /* --mask: masked variants of each array */
  std::string masks;                 /* their table */
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--c") && i + 1 < argc)
      cs = parse_list(argv[++i]);
    else if (!strcmp(argv[i], "--p") && i + 1 < argc)
      P = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--rel") && i + 1 < argc)
      rels = parse_list(argv[++i]);
    else if (!strcmp(argv[i], "--shapes") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--modes") && i + 1 < argc)
      only_modes = argv[++i];
    else if (!strcmp(argv[i], "--chunk-mib") && i + 1 < argc)
      chunk_mib = parse_list(argv[++i]);
    else if (!strcmp(argv[i], "--run-q") && i + 1 < argc)
      run_qs = parse_list(argv[++i]);
    else if (!strcmp(argv[i], "--checksum"))
      checksum = true;
    else if (!strcmp(argv[i], "--mask") && i + 1 < argc)
      for (const char* p = argv[++i]; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        variants.push_back(std::string(p, strcspn(p, ",")));
    else
      files.push_back(argv[i]);
  }
  if (!parz_gpu_available()) {
    fprintf(stderr, "bench_gpu_kernel: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  parz_gpu_context* ctx;
  parz_error err;
  if (parz_gpu_context_create(&ctx, 0, &err) != PARZ_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  timer t;
  CHECK_CUDA(cudaEventCreate(&t.a));
  CHECK_CUDA(cudaEventCreate(&t.b));
  CHECK_CUDA(cudaStreamCreate(&t.st));
  printf("GPU: %s, %d SMs; reps %d (median); P = %d (0 = default %u)\n\n", prop.name,
         prop.multiProcessorCount, reps, P, PARZ_DEFAULT_PARTITION_SEGMENTS);
  printf(
      "| array | mode | C | ratio | table %% of payload | segments | shape | GiB/s | "
      "copy GiB/s | %% of copy |\n|---|---|---|---|---|---|---|---|---|---|\n");

  static const shape_variant all_shapes[] = {
      {"auto", {0, PARZ_GPU_SKIP_AUTO, PARZ_GPU_WAIT_AUTO}},
      {"grid-wait", {0, PARZ_GPU_SKIP_AUTO, PARZ_GPU_WAIT_GRID}},
      {"segment-wait", {0, PARZ_GPU_SKIP_AUTO, PARZ_GPU_WAIT_SEGMENT}},
      {"segment-parser", {0, PARZ_GPU_SKIP_SEGMENT, PARZ_GPU_WAIT_AUTO}},
      {"block-parser", {0, PARZ_GPU_SKIP_BLOCK, PARZ_GPU_WAIT_AUTO}},
      {"G=1", {1, PARZ_GPU_SKIP_AUTO, PARZ_GPU_WAIT_AUTO}},
      {"G=2", {2, PARZ_GPU_SKIP_AUTO, PARZ_GPU_WAIT_AUTO}},
      {"G=4", {4, PARZ_GPU_SKIP_AUTO, PARZ_GPU_WAIT_AUTO}},
      {"G=8", {8, PARZ_GPU_SKIP_AUTO, PARZ_GPU_WAIT_AUTO}},
      {"G=16", {16, PARZ_GPU_SKIP_AUTO, PARZ_GPU_WAIT_AUTO}},
      {"G=32", {32, PARZ_GPU_SKIP_AUTO, PARZ_GPU_WAIT_AUTO}}};
  std::vector<shape_variant> shapes;
  for (const shape_variant& s : all_shapes)
    if (!only || in_list(only, s.name))
      shapes.push_back(s);

  for (const char* path : files) {
    raw_array r;
    if (!raw_file_load(path, &r)) {
      fprintf(stderr,
              "bench_gpu_kernel: cannot read %s (name must say _f32le_/_f64le_ and shape)\n", path);
      continue;
    }
    size_t raw = r.data.size();
    void *d_dst, *d_copy, *d_chunk;
    CHECK_CUDA(cudaMalloc(&d_dst, raw));
    CHECK_CUDA(cudaMalloc(&d_copy, raw));
    double copy_ms = median_ms(
        t, reps,
        [&] { CHECK_CUDA(cudaMemcpyAsync(d_copy, d_dst, raw, cudaMemcpyDeviceToDevice, t.st)); },
        [] {});
    double copy_gibs = raw / (copy_ms * 1e-3) / 1073741824.0;
    std::vector<unsigned char> ref(raw), out(raw);

    struct mode {
      char label[48];
      parz_params p;
      unsigned codec; /* 0: zfp */
      unsigned run_q; /* the lossless codec's runs (0: the writers') */
    };
    std::vector<mode> modes;
    for (double rel : rels) {
      mode m = {};
      snprintf(m.label, sizeof m.label, "accuracy %.0e*range", rel);
      parz_params_accuracy(&m.p, rel * r.range, NULL, NULL);
      modes.push_back(m);
    }
    {
      mode m = {};
      snprintf(m.label, sizeof m.label, "precision 16");
      parz_params_precision(&m.p, 16, NULL);
      modes.push_back(m);
      snprintf(m.label, sizeof m.label, "reversible");
      parz_params_reversible(&m.p);
      modes.push_back(m);
      memset(&m.p, 0, sizeof m.p);
      m.codec = PARZ_CODEC_LOSSLESS;
      for (double q : run_qs) {
        m.run_q = (unsigned)q;
        if (m.run_q)
          snprintf(m.label, sizeof m.label, "lossless q=%u", m.run_q);
        else
          snprintf(m.label, sizeof m.label, "lossless");
        modes.push_back(m);
      }
    }
    for (const mode& m : modes) {
      if (only_modes && !in_list(only_modes, std::string(m.label, strcspn(m.label, " ")).c_str()))
        continue;
      for (double cd : cs) {
        parz_chunk_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.params = m.p;
        cfg.codec = m.codec;
        cfg.settings.run_q = m.run_q;
        cfg.segment_blocks = (uint32_t)cd;
        cfg.partition_segments = (uint32_t)P;
        size_t bound = parz_chunk_bound(&r.a, &cfg), written = 0;
        std::vector<unsigned char> chunk(bound);
        if (parz_omp_chunk_encode(&r.a, r.data.data(), &cfg, chunk.data(), bound, &written, 0,
                                  &err) != PARZ_OK) {
          fprintf(stderr, "%s: encode: %s\n", r.name, err.message);
          continue;
        }
        parz_chunk_view v;
        if (parz_chunk_parse(chunk.data(), written, &v, &err) != PARZ_OK ||
            parz_chunk_decode(chunk.data(), written, ref.data(), raw, &err) != PARZ_OK) {
          fprintf(stderr, "%s: parse/decode: %s\n", r.name, err.message);
          continue;
        }
        CHECK_CUDA(cudaMalloc(&d_chunk, written));
        CHECK_CUDA(cudaMemcpy(d_chunk, chunk.data(), written, cudaMemcpyHostToDevice));
        double ratio = (double)raw / written;
        double table_pct = 100.0 * v.table_bytes / v.payload_bytes;
        for (const shape_variant& s : shapes) {
          parz_gpu_scratch scratch;
          int rc = parz_gpu_scratch_reserve(ctx, &v, 1, &scratch, &err);
          /* the kernels of parz_gpu_decode_device, timed without its final wait and
           * read-back of the fault record (host latency, not decoding); checked after each */
          double ms = median_ms(
              t, reps,
              [&] {
                if (rc == PARZ_OK)
                  rc = parz_gpu_fault_clear(ctx, 1, t.st, &err);
                if (rc == PARZ_OK)
                  rc = parz_gpu_enqueue_chunk(ctx, &v, d_chunk, d_dst, &scratch, &s.shape, t.st,
                                              &err);
              },
              [&] {
                if (rc == PARZ_OK)
                  rc = parz_gpu_fault_check(ctx, &v, 1, t.st, NULL, &err);
              });
          if (rc != PARZ_OK) {
            printf("| %s | %s | %u | %.2f | %.3f | %llu | %s | error: %s | | |\n", r.name, m.label,
                   v.segment_blocks, ratio, table_pct, (unsigned long long)v.nsegments, s.name,
                   err.message);
            continue;
          }
          CHECK_CUDA(cudaMemcpy(out.data(), d_dst, raw, cudaMemcpyDeviceToHost));
          int same = memcmp(out.data(), ref.data(), raw) == 0;
          double gibs = raw / (ms * 1e-3) / 1073741824.0;
          printf("| %s | %s | %u | %.2f | %.3f | %llu | %s | %.1f%s | %.0f | %.1f |\n", r.name,
                 m.label, v.segment_blocks, ratio, table_pct, (unsigned long long)v.nsegments,
                 s.name, gibs, same ? "" : " MISMATCH", copy_gibs, 100.0 * gibs / copy_gibs);
          fflush(stdout);
          if (checksum)
            sums += checksum_row(ctx, t, reps, r, m.label, s, cfg, d_dst);
          for (const std::string& variant : variants)
            masks += mask_row(ctx, t, reps, r, m.label, s, cfg, d_dst, variant.c_str());
        }
        CHECK_CUDA(cudaFree(d_chunk));
        for (double mib : chunk_mib)
          chunked += chunked_row(ctx, t, reps, r, m.label, cfg, mib);
      }
    }
    CHECK_CUDA(cudaFree(d_dst));
    CHECK_CUDA(cudaFree(d_copy));
  }
  if (!chunked.empty())
    printf(
        "\nThe array cut into chunks along its first dimension (--chunk-mib), decoded with "
        "one launch set per chunk or one for all (parz_gpu_decode_device_batch); GPU time, "
        "then host time of a loop of parz_gpu_decode_device and of one batch call:\n\n"
        "| array | mode | chunk MiB | chunks | C | ratio | per chunk GiB/s | "
        "batch GiB/s | batch speed-up | device loop GiB/s (host) | batch call GiB/s "
        "(host) |\n|---|---|---|---|---|---|---|---|---|---|---|\n%s",
        chunked.c_str());
  if (!sums.empty())
    printf(
        "\nPayload checksums (--checksum): the same chunk with and without them, decoded "
        "alternately (GPU time, median of the reps):\n\n"
        "| array | mode | C | shape | partitions | with GiB/s | without GiB/s | cost | "
        "bytes more | with ms | without ms |\n|---|---|---|---|---|---|---|---|---|---|---|\n%s",
        sums.c_str());
  if (!masks.empty())
    printf(
        "\nMissing values (--mask): the array, and the array with some values NaN (masked), "
        "decoded alternately (GPU time of the kernels and host time of OpenMP on every core, "
        "medians of the reps; throughput counts the decoded bytes):\n\n"
        "| array | mode | variant | masked | C | ratio | mask %% of chunk | shape | GPU GiB/s "
        "| GPU masked / unmasked | OpenMP GiB/s | OpenMP masked / unmasked |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n%s",
        masks.c_str());
  parz_gpu_context_free(ctx);
  return 0;
}
