/* OpenMP decode benchmark on the real arrays, through the library (parz_omp_chunk_decode).
 *
 * Each array is tiled along its slowest dimension up to at least --min-mib MiB and encoded as
 * ONE chunk in accuracy mode (tolerance = --accuracy times the array's value range, fill values
 * of magnitude >= 1e9 left out of the range) and in precision mode (--precision bits). Decode
 * throughput (decoded MB/s, best of --reps) is measured at each thread count with parallel
 * efficiency T(1) / (n T(n)); every parallel result is checked against the serial decoder. The
 * offset table is reported as a fraction of the payload at the default C and P and at
 * --cpu-c (a CPU-oriented table with long segments).
 *
 * --threshold instead times small chunks serially and in parallel (no serial cut-off) to find
 * where parallel decoding starts to win: the measurement behind PARZ_OMP_DECODE_MIN_BYTES.
 *
 * Usage: bench_omp [--data DIR] [--threads 1,2,4,8,16] [--min-mib 16] [--reps 3]
 *                  [--accuracy 1e-4] [--precision 16] [--cpu-c 1024] [--only NAME]
 *                  [--threshold] [--ceiling]
 *
 * --ceiling adds, per thread count, the efficiency of n independent serial decodes of the same
 * chunk at once: the machine's own limit for this work.
 *
 * --checksum instead measures what the payload checksums cost: each chunk is encoded with and
 * without them (the same payload) and the two are decoded alternately, best of --reps each, at
 * every thread count (1 = the serial decoder); it prints the time with checksums over the time
 * without.
 *
 * --compare-c 0,32,1 instead encodes each array at each C of the list (0 = auto C; the chosen C
 * is printed) and decodes the chunks side by side, the C values alternating within each of
 * --reps rounds: serially, split into the parse, the payload checksums and the decode proper
 * (CPU time of the thread: best of rounds), and whole at each --threads count (wall time, and
 * the CPU time of all threads: the work done, which a shared machine does not inflate). Ratios
 * are against the first C of the list. --merge-4d reads 4D arrays as 3D (the two slowest
 * dimensions merged), the shape bench_h5read stores them in.
 *
 * --balance T instead looks at the decoder's load balance on T threads, free of this machine's
 * noise: the array (tiled, --merge-4d as above) is cut along its slowest dimension into chunks
 * of --chunk-mib MiB (0: one chunk) and encoded; for several work units per thread the driver's
 * plan (team.h) is made for T threads, each unit is timed alone on one thread (CPU time, best of
 * --reps), and the team's dynamic schedule is replayed with those times: the make-span against
 * the ideal (all work / T) is the efficiency the work distribution allows, before memory and
 * clocks take their share. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parz_omp.h"
#include "team.h"
#include "bench_clock.h"
#include "real_arrays.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define MAX_COUNTS 16

typedef struct {
  const char* data_dir;
  int threads[MAX_COUNTS];
  int nthreads;
  double min_mib;
  int reps;
  double accuracy;
  unsigned precision;
  unsigned cpu_c;
  const char* only;
  int threshold;
  int ceiling;
  int checksum;
  int compare_c[MAX_COUNTS];
  int ncompare;
  int merge_4d;
  int balance;
  double chunk_mib;
} options;

static void usage(void) {
  fprintf(stderr,
          "usage: bench_omp [--data DIR] [--threads 1,2,4,8,16] [--min-mib 16] [--reps 3]\n"
          "                 [--accuracy REL] [--precision BITS] [--cpu-c C] [--only NAME]\n"
          "                 [--threshold] [--ceiling] [--checksum]\n"
          "                 [--compare-c 0,32,1 | --balance T [--chunk-mib 0]] [--merge-4d]\n");
  exit(2);
}

/* A comma-separated list of at most MAX_COUNTS integers, each at least `least`: their count. */
static int parse_list(const char* v, long least, int* out) {
  int n = 0;
  while (*v && n < MAX_COUNTS) {
    char* end;
    long x = strtol(v, &end, 10);
    if (end == v || x < least)
      usage();
    out[n++] = (int)x;
    v = *end == ',' ? end + 1 : end;
  }
  return n;
}

static void parse_args(int argc, char** argv, options* o) {
  int i;
  o->data_dir = "../shared/data";
  o->nthreads = 0;
  o->min_mib = 16;
  o->reps = 3;
  o->accuracy = 1e-4;
  o->precision = 16;
  o->cpu_c = 1024;
  o->only = NULL;
  o->threshold = 0;
  o->ceiling = 0;
  o->checksum = 0;
  o->ncompare = 0;
  o->merge_4d = 0;
  o->balance = 0;
  o->chunk_mib = 0;
  for (i = 1; i < argc; i++) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--threshold") || !strcmp(a, "--ceiling") || !strcmp(a, "--checksum")) {
      *(a[2] == 't' ? &o->threshold : a[3] == 'e' ? &o->ceiling : &o->checksum) = 1;
      continue;
    }
    if (!strcmp(a, "--merge-4d")) {
      o->merge_4d = 1;
      continue;
    }
    if (!v)
      usage();
    i++;
    if (!strcmp(a, "--data"))
      o->data_dir = v;
    else if (!strcmp(a, "--threads"))
      o->nthreads = parse_list(v, 1, o->threads);
    else if (!strcmp(a, "--compare-c"))
      o->ncompare = parse_list(v, 0, o->compare_c);
    else if (!strcmp(a, "--balance"))
      o->balance = atoi(v) > 0 ? atoi(v) : 1;
    else if (!strcmp(a, "--chunk-mib"))
      o->chunk_mib = atof(v);
    else if (!strcmp(a, "--min-mib"))
      o->min_mib = atof(v);
    else if (!strcmp(a, "--reps"))
      o->reps = atoi(v) > 0 ? atoi(v) : 1;
    else if (!strcmp(a, "--accuracy"))
      o->accuracy = atof(v);
    else if (!strcmp(a, "--precision"))
      o->precision = (unsigned)atoi(v);
    else if (!strcmp(a, "--cpu-c"))
      o->cpu_c = (unsigned)atoi(v);
    else if (!strcmp(a, "--only"))
      o->only = v;
    else
      usage();
  }
  if (o->nthreads == 0) {
    static const int dflt[] = {1, 2, 4, 8, 16};
    memcpy(o->threads, dflt, sizeof dflt);
    o->nthreads = 5;
  }
}

/* The array repeated along dimension 0 until it holds at least min_bytes. */
static real_array tile(const real_array* r, size_t min_bytes) {
  real_array t = *r;
  size_t copies = min_bytes > r->bytes ? (min_bytes + r->bytes - 1) / r->bytes : 1, k;
  t.array.shape[0] *= copies;
  t.bytes = r->bytes * copies;
  t.data = malloc(t.bytes);
  for (k = 0; t.data && k < copies; k++)
    memcpy((char*)t.data + k * r->bytes, r->data, r->bytes);
  return t;
}

static unsigned char* encode(const real_array* r, const parz_chunk_config* cfg, size_t* n) {
  size_t cap = parz_chunk_bound(&r->array, cfg);
  unsigned char* chunk = (unsigned char*)malloc(cap ? cap : 1);
  parz_error err;
  if (!cap || parz_omp_chunk_encode(&r->array, r->data, cfg, chunk, cap, n, 0, &err) != PARZ_OK) {
    fprintf(stderr, "%s: encode failed: %s\n", r->name, cap ? err.message : "no bound");
    free(chunk);
    return NULL;
  }
  return chunk;
}

static double time_decode(const unsigned char* chunk, size_t n, void* dst, size_t raw, int threads,
                          size_t min_bytes, int reps) {
  double best = INFINITY;
  int k;
  for (k = 0; k < reps; k++) {
    parz_error err;
    double t0 = bench_now(), t;
    if (parz_omp_chunk_decode_above(chunk, n, dst, raw, threads, min_bytes, 0, &err) != PARZ_OK) {
      fprintf(stderr, "decode failed: %s\n", err.message);
      exit(1);
    }
    t = bench_now() - t0;
    best = t < best ? t : best;
  }
  return best;
}

/* The hardware's ceiling for the same work: n threads each decode their own copy of the chunk
 * serially (nothing shared, no table), timed together. Its efficiency separates what the
 * machine loses at n busy cores (turbo clocks, shared caches, SMT siblings) from what the
 * driver loses. */
static double time_independent(const unsigned char* chunk, size_t n, size_t raw, int threads,
                               int reps) {
  double best = INFINITY;
  unsigned char* dst = (unsigned char*)malloc(raw * (size_t)threads);
  int k;
  if (!dst)
    return NAN;
  memset(dst, 0, raw * (size_t)threads);
  for (k = 0; k < reps; k++) {
    double t0 = bench_now(), t;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
    {
      int me = 0;
#ifdef _OPENMP
      me = omp_get_thread_num();
#endif
      parz_chunk_decode(chunk, n, dst + raw * (size_t)me, raw, NULL);
    }
    t = bench_now() - t0;
    best = t < best ? t : best;
  }
  free(dst);
  return best;
}

/* Encode throughput at the first and last thread counts; the chunk must be the same bytes. */
static void encode_line(const real_array* r, const parz_chunk_config* cfg, const unsigned char* ref,
                        size_t nref, const options* o) {
  size_t cap = parz_chunk_bound(&r->array, cfg);
  unsigned char* chunk = (unsigned char*)malloc(cap ? cap : 1);
  int ends[2], e;
  ends[0] = o->threads[0];
  ends[1] = o->threads[o->nthreads - 1];
  printf("    encode:");
  for (e = 0; e < 2 && chunk; e++) {
    double best = INFINITY;
    size_t n = 0;
    int k, same = 1;
    for (k = 0; k < o->reps; k++) {
      double t0 = bench_now(), t;
      parz_omp_chunk_encode(&r->array, r->data, cfg, chunk, cap, &n, ends[e], NULL);
      t = bench_now() - t0;
      best = t < best ? t : best;
      same = same && n == nref && !memcmp(chunk, ref, n);
    }
    printf("  %d threads %.1f MB/s%s", ends[e], r->bytes / best / 1e6,
           same ? "" : " (BYTES DIFFER)");
  }
  printf("\n");
  free(chunk);
}

static void table_fractions(const real_array* r, const options* o, parz_params p) {
  unsigned cs[2];
  int k;
  cs[0] = 0;
  cs[1] = o->cpu_c;
  for (k = 0; k < 2; k++) {
    parz_chunk_config cfg;
    parz_chunk_view v;
    size_t n = 0;
    unsigned char* chunk;
    memset(&cfg, 0, sizeof cfg);
    cfg.params = p;
    cfg.segment_blocks = cs[k];
    chunk = encode(r, &cfg, &n);
    if (chunk && parz_chunk_parse(chunk, n, &v, NULL) == PARZ_OK)
      printf("    table C=%-5u P=%-3u %-6s: %9zu B = %.4f%% of the %zu B payload\n",
             v.segment_blocks, v.partition_segments, k ? "(CPU)" : "(dflt)", v.table_bytes,
             100.0 * (double)v.table_bytes / (double)v.payload_bytes, v.payload_bytes);
    free(chunk);
  }
}

/* Decode time with payload checksums over the time without, per thread count: the same
 * payload both ways, decoded alternately so that load on the machine hits both alike. */
static void checksum_cost(const real_array* r, const parz_chunk_config* cfg, const options* o) {
  parz_chunk_config off = *cfg;
  size_t n_on = 0, n_off = 0;
  unsigned char *on_chunk, *off_chunk, *dst = (unsigned char*)malloc(r->bytes);
  int k, rep;
  off.checksum = PARZ_CHECKSUM_OFF;
  on_chunk = encode(r, cfg, &n_on);
  off_chunk = encode(r, &off, &n_off);
  if (!on_chunk || !off_chunk || !dst) {
    free(on_chunk), free(off_chunk), free(dst);
    return;
  }
  printf("    payload checksums: %zu bytes more (%.4f%% of the chunk)\n", n_on - n_off,
         100.0 * (double)(n_on - n_off) / (double)n_off);
  { /* the verification alone against the serial decode alone: the added work, less noisy */
    parz_chunk_view v;
    parz_chunk_dest whole;
    double best_v = INFINITY, best_d = INFINITY;
    parz_chunk_parse(on_chunk, n_on, &v, NULL);
    parz_chunk_dest_whole(&v, dst, &whole);
    for (rep = 0; rep < o->reps; rep++) {
      double t0 = bench_now(), t1, t2;
      parz_chunk_verify(&v, 0, v.nchecksums, NULL);
      t1 = bench_now();
      parz_chunk_decode_segments_unverified(&v, &whole, 0, v.nsegments, NULL);
      t2 = bench_now();
      best_v = t1 - t0 < best_v ? t1 - t0 : best_v;
      best_d = t2 - t1 < best_d ? t2 - t1 : best_d;
    }
    printf(
        "    verification alone %.3f ms (%.2f GB/s of payload), serial decode alone %.2f ms: "
        "%.2f%%\n",
        1e3 * best_v, v.payload_bytes / best_v / 1e9, 1e3 * best_d, 100.0 * best_v / best_d);
  }
  for (k = 0; k < o->nthreads; k++) {
    int th = o->threads[k];
    double best_on = INFINITY, best_off = INFINITY;
    for (rep = 0; rep < o->reps; rep++) {
      double a = time_decode(on_chunk, n_on, dst, r->bytes, th, 0, 1);
      double b = time_decode(off_chunk, n_off, dst, r->bytes, th, 0, 1);
      best_on = a < best_on ? a : best_on;
      best_off = b < best_off ? b : best_off;
    }
    printf("    %2d threads: with checksums %8.2f ms, without %8.2f ms: ratio %.4f (%+.2f%%)\n", th,
           1e3 * best_on, 1e3 * best_off, best_on / best_off, 100.0 * (best_on / best_off - 1));
  }
  free(on_chunk);
  free(off_chunk);
  free(dst);
}

static void bench_array(const real_array* r, const options* o) {
  real_array t = tile(r, (size_t)(o->min_mib * 1048576.0));
  double range = real_array_value_range(r);
  int m;
  if (!t.data)
    return;
  for (m = 0; m < 2; m++) {
    parz_chunk_config cfg;
    size_t n = 0;
    unsigned char* chunk;
    unsigned char *ref = (unsigned char*)malloc(t.bytes), *dst = (unsigned char*)malloc(t.bytes);
    double t1 = 0, c1 = 0;
    int k;
    memset(&cfg, 0, sizeof cfg);
    if (m == 0)
      parz_params_accuracy(&cfg.params, o->accuracy * range, NULL, NULL);
    else
      parz_params_precision(&cfg.params, o->precision, NULL);
    if (o->checksum) { /* its own chunks, with and without checksums */
      if (m)
        printf("  precision %u, chunk %.1f MiB\n", o->precision, t.bytes / 1048576.0);
      else
        printf("  accuracy (tolerance %.3g = %g x range), chunk %.1f MiB\n", o->accuracy * range,
               o->accuracy, t.bytes / 1048576.0);
      checksum_cost(&t, &cfg, o);
      free(ref), free(dst);
      continue;
    }
    chunk = encode(&t, &cfg, &n);
    if (!chunk || !ref || !dst) {
      free(chunk), free(ref), free(dst);
      continue;
    }
    if (m)
      printf("  precision %u", o->precision);
    else
      printf("  accuracy (tolerance %.3g = %g x range)", o->accuracy * range, o->accuracy);
    printf(": chunk %.1f MiB -> %.2f MiB (ratio %.2f)\n", t.bytes / 1048576.0, n / 1048576.0,
           (double)t.bytes / n);
    time_decode(chunk, n, ref, t.bytes, 1, 0, 1); /* reference array; warms the pages */
    for (k = 0; k < o->nthreads; k++) {
      int th = o->threads[k];
      double s = time_decode(chunk, n, dst, t.bytes, th, 0, o->reps);
      if (k == 0)
        t1 = s * th; /* efficiency relative to the first count (normally 1) */
      double c = o->ceiling ? time_independent(chunk, n, t.bytes, th, o->reps) : 0;
      if (k == 0)
        c1 = c;
      printf("    %2d threads: %8.1f MB/s  %7.2f ms  speed-up %5.2f  efficiency %5.1f%%", th,
             t.bytes / s / 1e6, 1e3 * s, t1 / s, 100.0 * t1 / (s * th));
      if (o->ceiling)
        printf("  (ceiling: %d independent serial decodes, efficiency %5.1f%%)", th,
               100.0 * c1 / c);
      printf("%s\n", memcmp(dst, ref, t.bytes) ? "  MISMATCH" : "");
    }
    encode_line(&t, &cfg, chunk, n, o);
    table_fractions(&t, o, cfg.params);
    free(chunk);
    free(ref);
    free(dst);
  }
  free(t.data);
}

/* A 4D array read as 3D, its two slowest dimensions merged (as bench_h5read stores it). */
static void merge_4d(parz_array* a) {
  if (a->dims != 4)
    return;
  a->shape[0] *= a->shape[1];
  memmove(&a->shape[1], &a->shape[2], 2 * sizeof a->shape[0]);
  a->shape[3] = 0;
  a->dims = 3;
}

/* One row of --compare-c's table: the times (s) in ms, then each over the first. */
static void times_row(const char* label, const double* t, int n) {
  int c;
  printf("%s", label);
  for (c = 0; c < n; c++)
    printf(" %11.3f", 1e3 * t[c]);
  printf("  ");
  for (c = 1; c < n; c++)
    printf(" %6.3f", t[c] / t[0]);
  printf("\n");
}

/* --compare-c: one array at each C of the list, decoded side by side (see the top). */
#define SPLIT_PARTS 3 /* parse, payload checksums, decode proper */
static void compare_c(const real_array* r, const options* o) {
  real_array t = tile(r, (size_t)(o->min_mib * 1048576.0));
  const int nc = o->ncompare, nt = o->nthreads;
  unsigned char* chunk[MAX_COUNTS];
  size_t size[MAX_COUNTS];
  parz_chunk_view view[MAX_COUNTS];
  double split[MAX_COUNTS][SPLIT_PARTS], wall[MAX_COUNTS][MAX_COUNTS], cpu[MAX_COUNTS][MAX_COUNTS];
  unsigned char *ref = (unsigned char*)malloc(t.bytes), *dst = (unsigned char*)malloc(t.bytes);
  parz_chunk_config cfg;
  int c, k, rep, ok = t.data && ref && dst;
  if (ok && o->merge_4d)
    merge_4d(&t.array);
  memset(&cfg, 0, sizeof cfg);
  parz_params_accuracy(&cfg.params, o->accuracy * real_array_value_range(r), NULL, NULL);
  printf("  accuracy %g x range, chunk %.1f MiB, shape", o->accuracy, t.bytes / 1048576.0);
  for (k = 0; k < (int)t.array.dims; k++)
    printf("%s%zu", k ? "x" : " ", t.array.shape[k]);
  printf("\n");
  for (c = 0; c < nc; c++) {
    chunk[c] = NULL;
    cfg.segment_blocks = (uint32_t)o->compare_c[c];
    if (ok && (!(chunk[c] = encode(&t, &cfg, &size[c])) ||
               parz_chunk_parse(chunk[c], size[c], &view[c], NULL) != PARZ_OK))
      ok = 0;
    for (k = 0; k < SPLIT_PARTS; k++)
      split[c][k] = INFINITY;
    for (k = 0; k < nt; k++)
      wall[c][k] = cpu[c][k] = INFINITY;
    if (ok)
      printf("    C=%-4s -> C=%-2u: %9llu segments, table %.2f%% of the payload, ratio %.2f\n",
             o->compare_c[c] ? "" : "auto", view[c].segment_blocks,
             (unsigned long long)view[c].nsegments,
             100.0 * (double)view[c].table_bytes / (double)view[c].payload_bytes,
             (double)t.bytes / (double)size[c]);
  }
  if (ok)
    time_decode(chunk[0], size[0], ref, t.bytes, 1, 0, 1); /* reference array; warms the pages */
  for (rep = 0; ok && rep < o->reps; rep++) {
    for (c = 0; c < nc; c++) {
      parz_chunk_view v;
      parz_chunk_dest whole;
      double t0 = bench_thread_cpu(), t1, t2, t3;
      parz_chunk_parse(chunk[c], size[c], &v, NULL);
      t1 = bench_thread_cpu();
      parz_chunk_verify(&v, 0, v.nchecksums, NULL);
      t2 = bench_thread_cpu();
      parz_chunk_dest_whole(&v, dst, &whole);
      parz_chunk_decode_segments_unverified(&v, &whole, 0, v.nsegments, NULL);
      t3 = bench_thread_cpu();
      split[c][0] = t1 - t0 < split[c][0] ? t1 - t0 : split[c][0];
      split[c][1] = t2 - t1 < split[c][1] ? t2 - t1 : split[c][1];
      split[c][2] = t3 - t2 < split[c][2] ? t3 - t2 : split[c][2];
      for (k = 0; k < nt; k++) {
        double w0 = bench_now(), c0 = bench_process_cpu(), w, u;
        parz_error err;
        if (parz_omp_chunk_decode_above(chunk[c], size[c], dst, t.bytes, o->threads[k], 0, 0,
                                        &err) != PARZ_OK) {
          fprintf(stderr, "decode failed: %s\n", err.message);
          exit(1);
        }
        w = bench_now() - w0;
        u = bench_process_cpu() - c0;
        wall[c][k] = w < wall[c][k] ? w : wall[c][k];
        cpu[c][k] = u < cpu[c][k] ? u : cpu[c][k];
        if (memcmp(dst, ref, t.bytes))
          printf("    C=%d, %d threads: MISMATCH\n", o->compare_c[c], o->threads[k]);
      }
    }
  }
  if (ok) {
    static const char* part[SPLIT_PARTS] = {"parse", "checksums", "decode"};
    double row[MAX_COUNTS];
    char label[64];
    printf("    %-26s", "serial, thread CPU ms");
    for (c = 0; c < nc; c++)
      printf(" %9s%-2u", c ? "C=" : "C=auto|", view[c].segment_blocks);
    printf("   ratios to the first\n");
    for (k = 0; k < SPLIT_PARTS; k++) {
      for (c = 0; c < nc; c++)
        row[c] = split[c][k];
      snprintf(label, sizeof label, "      %-24s", part[k]);
      times_row(label, row, nc);
    }
    for (k = 0; k < nt; k++) {
      for (c = 0; c < nc; c++)
        row[c] = wall[c][k];
      snprintf(label, sizeof label, "    %2d thr, whole decode, wall ms", o->threads[k]);
      times_row(label, row, nc);
      for (c = 0; c < nc; c++)
        row[c] = cpu[c][k];
      snprintf(label, sizeof label, "    %2d thr, whole decode, CPU ms ", o->threads[k]);
      times_row(label, row, nc);
    }
  }
  for (c = 0; c < nc; c++)
    free(chunk[c]);
  free(ref);
  free(dst);
  free(t.data);
}

/* --balance: the plan's schedule on o->balance threads replayed with each unit's own time. */
#define MAX_SLABS 256
static void balance(const real_array* r, const options* o) {
  static const unsigned per_thread[] = {0, 8, 16, 32, 64, 128}; /* 0: the driver's default */
  real_array t = tile(r, (size_t)(o->min_mib * 1048576.0));
  const int T = o->balance;
  size_t row, rows, nslab = 0, i, k;
  unsigned char* chunk[MAX_SLABS];
  size_t size[MAX_SLABS];
  parz_chunk_view views[MAX_SLABS];
  parz_chunk_dest dests[MAX_SLABS];
  unsigned char* dst = (unsigned char*)malloc(t.bytes);
  parz_chunk_config cfg;
  int ok = t.data && dst;
  if (!ok) {
    free(t.data), free(dst);
    return;
  }
  if (o->merge_4d)
    merge_4d(&t.array);
  memset(dst, 0, t.bytes);
  row = t.bytes / t.array.shape[0];
  rows = o->chunk_mib > 0 ? (size_t)(o->chunk_mib * 1048576.0 / (double)row) : t.array.shape[0];
  rows = rows < 1 ? 1 : rows;
  if ((t.array.shape[0] + rows - 1) / rows > MAX_SLABS)
    rows = (t.array.shape[0] + MAX_SLABS - 1) / MAX_SLABS;
  memset(&cfg, 0, sizeof cfg);
  parz_params_accuracy(&cfg.params, o->accuracy * real_array_value_range(r), NULL, NULL);
  for (i = 0; ok && i < t.array.shape[0]; i += rows, nslab++) {
    real_array slab = t;
    slab.array.shape[0] = rows < t.array.shape[0] - i ? rows : t.array.shape[0] - i;
    slab.data = (unsigned char*)t.data + i * row;
    slab.bytes = slab.array.shape[0] * row;
    ok = (chunk[nslab] = encode(&slab, &cfg, &size[nslab])) != NULL &&
         parz_chunk_parse(chunk[nslab], size[nslab], &views[nslab], NULL) == PARZ_OK;
    if (ok)
      parz_chunk_dest_whole(&views[nslab], dst + i * row, &dests[nslab]);
    else
      free(chunk[nslab]);
  }
  printf("  accuracy %g x range, %.1f MiB in %zu chunks of %zu rows, C = %u, %d threads\n",
         o->accuracy, t.bytes / 1048576.0, nslab, rows, nslab ? views[0].segment_blocks : 0, T);
  for (k = 0; ok && k < sizeof per_thread / sizeof *per_thread; k++) {
    size_t nunits = 0, nfirst = 0, u;
    uint64_t ndecode = 0;
    parz_omp_unit* units =
        parz_omp_decode_plan(nslab, views, T, per_thread[k], &nunits, &nfirst, &ndecode);
    double *cost = units ? (double*)malloc(nunits * sizeof *cost) : NULL, finish[1024];
    double sum = 0, make = 0, largest = 0, verify = 0;
    int rep, th;
    if (!cost || T > 1024) {
      free(units), free(cost);
      break;
    }
    for (u = 0; u < nunits; u++)
      cost[u] = INFINITY;
    for (rep = 0; rep < o->reps; rep++)
      for (u = 0; u < nunits; u++) {
        parz_error e;
        double t0 = bench_thread_cpu(), c;
        parz_omp_run_unit(&units[u], views, dests, &e);
        c = bench_thread_cpu() - t0;
        cost[u] = c < cost[u] ? c : cost[u];
      }
    /* dynamic, one unit at a time: each goes to the thread that is free first; the patch units
     * wait for every earlier one */
    for (th = 0; th < T; th++)
      finish[th] = 0;
    for (u = 0; u < nunits; u++) {
      int first = 0;
      if (u == nfirst)
        for (th = 0; th < T; th++)
          finish[th] = make;
      for (th = 1; th < T; th++)
        first = finish[th] < finish[first] ? th : first;
      finish[first] += cost[u];
      make = finish[first] > make ? finish[first] : make;
      sum += cost[u];
      largest = cost[u] > largest ? cost[u] : largest;
      verify += units[u].kind == PARZ_OMP_VERIFY ? cost[u] : 0;
    }
    printf(
        "    %3u%s units/thread: %5zu items (%llu decode units), work %8.2f ms (checksums "
        "%.2f), largest %.3f ms; on %d threads ideal %.3f ms, schedule %.3f ms: "
        "efficiency %.1f%%\n",
        per_thread[k], per_thread[k] ? "" : " (default)", nfirst, (unsigned long long)ndecode,
        1e3 * sum, 1e3 * verify, 1e3 * largest, T, 1e3 * sum / T, 1e3 * make,
        100.0 * sum / T / make);
    free(units);
    free(cost);
  }
  for (i = 0; i < nslab; i++)
    free(chunk[i]);
  free(dst);
  free(t.data);
}

/* Serial vs parallel (all threads of the last --threads count) decode time of small chunks cut
 * from the first array (2D slabs keep the real data's structure). */
static void threshold(const real_array* list, size_t n, const options* o) {
  static const size_t sizes[] = {4096,   8192,   16384,  32768,   65536,
                                 131072, 262144, 524288, 1048576, 4194304};
  int th = o->threads[o->nthreads - 1];
  size_t i, k;
  for (i = 0; i < n; i++) {
    const real_array* r = &list[i];
    printf("%s, accuracy %g x range, %d threads vs serial (best of %d):\n", r->name, o->accuracy,
           th, o->reps * 5);
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
      real_array s = *r;
      parz_chunk_config cfg;
      size_t nb = 0, vals = sizes[k] / parz_type_size(r->array.type);
      unsigned char *chunk, *dst;
      double ts, tp;
      if (sizes[k] > r->bytes)
        break;
      s.array.dims = 1; /* a contiguous run of values: the size is exact */
      s.array.shape[0] = vals;
      s.bytes = sizes[k];
      memset(&cfg, 0, sizeof cfg);
      parz_params_accuracy(&cfg.params, o->accuracy * real_array_value_range(r), NULL, NULL);
      chunk = encode(&s, &cfg, &nb);
      dst = (unsigned char*)malloc(s.bytes);
      ts = time_decode(chunk, nb, dst, s.bytes, 1, 0, o->reps * 5);
      tp = time_decode(chunk, nb, dst, s.bytes, th, 0, o->reps * 5);
      printf("  %8zu B: serial %8.1f us  parallel %8.1f us  parallel/serial %.2f\n", sizes[k],
             1e6 * ts, 1e6 * tp, tp / ts);
      free(chunk);
      free(dst);
    }
  }
}

int main(int argc, char** argv) {
  options o;
  size_t n = 0, i;
  real_array* list;
  parse_args(argc, argv, &o);
  list = real_arrays_load(o.data_dir, 0, &n);
  if (!list) {
    fprintf(stderr, "bench_omp: no arrays in %s (use --data DIR)\n", o.data_dir);
    return 1;
  }
#ifdef _OPENMP
  printf("OpenMP: max threads %d, %d processors\n", omp_get_max_threads(), omp_get_num_procs());
#else
  printf("OpenMP: not in this build (serial)\n");
#endif
  if (o.threshold) {
    threshold(list, n, &o);
  } else {
    if (o.ncompare > 0)
      printf("%d rounds, C values alternated in each\n", o.reps);
    for (i = 0; i < n; i++) {
      if (o.only && !strstr(list[i].name, o.only))
        continue;
      printf("%s (%s, %.1f MiB)\n", list[i].name, list[i].array.type == PARZ_FLOAT ? "f32" : "f64",
             list[i].bytes / 1048576.0);
      if (o.balance > 0)
        balance(&list[i], &o);
      else if (o.ncompare > 0)
        compare_c(&list[i], &o);
      else
        bench_array(&list[i], &o);
    }
  }
  real_arrays_free(list, n);
  return 0;
}
