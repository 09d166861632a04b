/* The error-bounded codec's chunk encoder and decoder alone, without HDF5: every real array cut
 * into chunks of at most --chunk-mib MiB (the largest extent halved until the chunk fits, as
 * bench_bounded.py cuts them), encoded and decoded serially and on a team of each thread count,
 * at eb = 1e-3 and 1e-5 x the value range. Per array and bound: the ratio, the FNV-1a hash of
 * every chunk's bytes (so two builds can be checked to write the same bytes), the best of --reps
 * of each step in MB/s of raw array, by the wall clock and by the process's CPU time.
 *
 *   bench_bounded_chunks DIR [--reps N] [--chunk-mib M] [--threads 1,2] [--only NAME]
 *                            [--eb 1e-3,1e-5] [--step encode|decode] [--lossless]
 *                            [--segment-codes 4096,1024] [--no-keep | --keep-both] [--span P]
 *
 * The chunks of a run share one keep (parz_keep, codec/parz_chunk.h), as the chunks of a dataset
 * read or write do; --no-keep gives every chunk blocks of its own (what a caller without a keep
 * gets). --keep-both decodes every chunk both ways, with the keep then without, in each round:
 * the columns "dec NT no keep" follow, measured side by side with the keep's.
 *
 * --lossless measures the lossless codec (codec 3, 4-D arrays as stacks) in the same chunks in
 * place of the error-bounded one: one row per array, its bound column "exact".
 *
 * --segment-codes gives the error-bounded codec's segment sizes C (codes per segment) to compare,
 * one row per C, each C's chunks encoded and decoded right after the previous C's (default: the
 * codec's own C, column 0).
 *
 * --span P measures the encoder's critical path in place of the table's speeds, on one thread
 * (bench_span.h), by CPU time: per array and bound, the serial encode (no jobs), the encode on
 * jobs cut as a team of P threads cuts them (its work), the work and span of that encode's begin
 * (the passes the codec runs on jobs), the rest (the segments, head and checksums, which the
 * team shares evenly), Brent's bound on the time of P threads, begin work / P + begin span +
 * rest / P, and the speed-up over the serial encode that bound promises at least.
 *
 * --step times one step alone (after one encode, for decode), for a profiler's record of it; the
 * other's columns read 0. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "bench_span.h"
#include "parz_chunk.h"
#include "parz_omp.h"
#include "real_arrays.h"

typedef struct {
  parz_array a; /* one chunk's shape, contiguous */
  void* data;
  void* out; /* the decoded values */
  unsigned char* coded;
  size_t cap, bytes;
} chunk;

/* The chunks of r: the largest extent halved until a chunk holds at most limit bytes. */
static chunk* cut(const real_array* r, size_t limit, size_t* count) {
  const size_t w = parz_type_size(r->array.type);
  size_t cs[4], nc[4], total = 1, k, i;
  chunk* out;
  for (k = 0; k < r->array.dims; k++)
    cs[k] = r->array.shape[k];
  for (;;) {
    size_t bytes = w, big = 0;
    for (k = 0; k < r->array.dims; k++) {
      bytes *= cs[k];
      if (cs[k] > cs[big])
        big = k;
    }
    if (bytes <= limit || cs[big] == 1)
      break;
    cs[big] = (cs[big] + 1) / 2;
  }
  for (k = 0; k < r->array.dims; k++) {
    nc[k] = (r->array.shape[k] + cs[k] - 1) / cs[k];
    total *= nc[k];
  }
  out = (chunk*)calloc(total, sizeof *out);
  for (i = 0; out && i < total; i++) {
    size_t lo[4], c[4], rest = i, n = 1, at = 0, j;
    parz_array* a = &out[i].a;
    memset(a, 0, sizeof *a);
    a->type = r->array.type;
    a->dims = r->array.dims;
    for (k = r->array.dims; k-- > 0;) {
      lo[k] = rest % nc[k] * cs[k];
      rest /= nc[k];
      a->shape[k] = lo[k] + cs[k] <= r->array.shape[k] ? cs[k] : r->array.shape[k] - lo[k];
      n *= a->shape[k];
    }
    out[i].data = malloc(n * w);
    out[i].out = malloc(n * w);
    /* rows along the last axis, copied out of the whole array */
    for (j = 0; j < n / a->shape[a->dims - 1]; j++) {
      size_t src = 0, rr = j;
      for (k = a->dims - 1; k-- > 0;) {
        c[k] = rr % a->shape[k];
        rr /= a->shape[k];
      }
      for (k = 0; k < a->dims; k++)
        src = src * r->array.shape[k] + lo[k] + (k + 1 < a->dims ? c[k] : 0);
      memcpy((unsigned char*)out[i].data + at * w, (const unsigned char*)r->data + src * w,
             a->shape[a->dims - 1] * w);
      at += a->shape[a->dims - 1];
    }
  }
  *count = total;
  return out;
}

static uint64_t fnv(uint64_t h, const unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

static double minimum(double a, double b) { return a < b ? a : b; }

/* A chunk decoded on `threads` threads (1: serially), its blocks from cfg's keep. */
static int decode_chunk(const chunk* c, const parz_chunk_config* cfg, int threads,
                        parz_error* err) {
  parz_chunk_view v;
  parz_chunk_dest d;
  int rc = parz_chunk_parse(c->coded, c->bytes, &v, err);
  if (rc)
    return rc;
  v.keep = cfg->keep;
  parz_chunk_dest_whole(&v, c->out, &d);
  return parz_omp_decode_chunks(1, &v, &d, threads, NULL, err);
}

/* The --span row of one array and bound: the best of reps of each sum over the chunks. */
static int span_row(chunk* ch, size_t nch, const parz_chunk_config* cfg, int reps, int nthreads,
                    const char* name, const char* bound) {
  double best[4] = {1e30, 1e30, 1e30, 1e30}; /* on jobs, begin's work, its span, serial */
  parz_jobs jobs;
  parz_error err;
  bench_span_jobs(&jobs, 4u * (uint64_t)nthreads);
  for (int rep = 0; rep < reps; rep++) {
    double sum[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < nch; i++) {
      parz_chunk_encoder* enc = NULL;
      double t0, work, span, total;
      if (!ch[i].coded) {
        ch[i].cap = parz_chunk_bound(&ch[i].a, cfg);
        ch[i].coded = (unsigned char*)malloc(ch[i].cap);
      }
      bench_span_begin();
      if (parz_chunk_encoder_begin_jobs(&enc, &ch[i].a, ch[i].data, cfg, &jobs, &err)) {
        fprintf(stderr, "%s: encode: %s\n", name, err.message);
        return 1;
      }
      bench_span_end(&work, &span);
      parz_chunk_encoder_free(enc);
      bench_span_begin(); /* the whole encode, its begin on the same jobs */
      if (parz_chunk_encode_jobs(&ch[i].a, ch[i].data, cfg, &jobs, ch[i].coded, ch[i].cap,
                                 &ch[i].bytes, &err)) {
        fprintf(stderr, "%s: encode: %s\n", name, err.message);
        return 1;
      }
      bench_span_end(&total, &t0);
      sum[0] += total;
      t0 = bench_thread_cpu();
      if (parz_chunk_encode(&ch[i].a, ch[i].data, cfg, ch[i].coded, ch[i].cap, &ch[i].bytes,
                            &err)) {
        fprintf(stderr, "%s: encode: %s\n", name, err.message);
        return 1;
      }
      sum[3] += bench_thread_cpu() - t0;
      sum[1] += work;
      sum[2] += span;
    }
    for (int k = 0; k < 4; k++)
      best[k] = minimum(best[k], sum[k]);
  }
  const double rest = best[0] > best[1] ? best[0] - best[1] : 0;
  const double team = best[1] / nthreads + best[2] + rest / nthreads;
  printf("| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1fx |\n", name, bound,
         1e3 * best[3], 1e3 * best[0], 1e3 * best[1], 1e3 * best[2], 1e3 * rest, 1e3 * team,
         best[3] / team);
  fflush(stdout);
  return 0;
}

/* Every chunk encoded (encode != 0) or decoded on `threads` threads, the wall-clock and CPU
 * seconds it took in *wall and *cpu; 0, or 1 after printing the error. */
static int run_chunks(chunk* ch, size_t nch, const parz_chunk_config* cfg, int threads, int encode,
                      const char* name, double* wall, double* cpu) {
  const double t0 = bench_now(), c0 = bench_process_cpu();
  parz_error err;
  for (size_t i = 0; i < nch; i++) {
    int rc;
    if (encode && !ch[i].coded) {
      ch[i].cap = parz_chunk_bound(&ch[i].a, cfg);
      ch[i].coded = (unsigned char*)malloc(ch[i].cap);
    }
    if (encode)
      rc = threads == 1 ? parz_chunk_encode(&ch[i].a, ch[i].data, cfg, ch[i].coded, ch[i].cap,
                                            &ch[i].bytes, &err)
                        : parz_omp_chunk_encode(&ch[i].a, ch[i].data, cfg, ch[i].coded, ch[i].cap,
                                                &ch[i].bytes, threads, &err);
    else
      rc = decode_chunk(&ch[i], cfg, threads, &err);
    if (rc) {
      fprintf(stderr, "%s: %s: %s\n", name, encode ? "encode" : "decode", err.message);
      return 1;
    }
  }
  *wall = bench_now() - t0;
  *cpu = bench_process_cpu() - c0;
  return 0;
}

int main(int argc, char** argv) {
  const char* dir = NULL;
  const char* only = NULL;
  int reps = 3, threads[8] = {1, 2}, nthreads = 2;
  double mib = 1, ebs[4] = {1e-3, 1e-5};
  int nebs = 2, steps = 3, lossless = 0;
  int keep = 1;             /* 0: no keep, 1: a keep, 2: both, side by side */
  unsigned sizes[4] = {0};  /* segment sizes C; 0: the codec's */
  int nsizes = 1, span = 0; /* span: the --span team size, 0 for the speeds */
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--chunk-mib") && i + 1 < argc) {
      mib = atof(argv[++i]);
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
    } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      char* s = argv[++i];
      for (nthreads = 0; *s && nthreads < 8; nthreads++) {
        threads[nthreads] = (int)strtol(s, &s, 10);
        s += *s == ',';
      }
    } else if (!strcmp(argv[i], "--eb") && i + 1 < argc) {
      char* s = argv[++i];
      for (nebs = 0; *s && nebs < 4; nebs++) {
        ebs[nebs] = strtod(s, &s);
        s += *s == ',';
      }
    } else if (!strcmp(argv[i], "--segment-codes") && i + 1 < argc) {
      char* s = argv[++i];
      for (nsizes = 0; *s && nsizes < 4; nsizes++) {
        sizes[nsizes] = (unsigned)strtoul(s, &s, 10);
        s += *s == ',';
      }
    } else if (!strcmp(argv[i], "--lossless")) {
      lossless = 1;
    } else if (!strcmp(argv[i], "--span") && i + 1 < argc) {
      span = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--no-keep")) {
      keep = 0;
    } else if (!strcmp(argv[i], "--keep-both")) {
      keep = 2;
    } else if (!strcmp(argv[i], "--step") && i + 1 < argc) {
      i++;
      steps = !strcmp(argv[i], "encode") ? 1 : !strcmp(argv[i], "decode") ? 2 : 0;
      if (!steps) {
        fprintf(stderr, "--step %s: encode or decode\n", argv[i]);
        return 2;
      }
    } else if (argv[i][0] != '-') {
      dir = argv[i];
    } else {
      fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  size_t narrays = 0;
  real_array* arrays = dir ? real_arrays_load(dir, 0, &narrays) : NULL;
  if (!narrays) {
    fprintf(stderr, "usage: bench_bounded_chunks DIR [options]: no arrays in %s\n",
            dir ? dir : "(none)");
    return 2;
  }
  if (span)
    printf(
        "| array | eb / range | serial ms | on jobs ms | begin work ms | begin span ms | rest ms | "
        "%dT ms at most | speed-up at least |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        span);
  else {
    printf("| array | eb / range | C | ratio | hash |");
    for (int t = 0; t < nthreads; t++)
      printf(" enc %dT | dec %dT |", threads[t], threads[t]);
    printf(" enc CPU 1T | dec CPU 1T |");
    for (int t = 0; keep == 2 && t < nthreads; t++)
      printf(" dec %dT no keep |", threads[t]);
    printf("\n|---|---:|---:|---:|---|");
    for (int t = 0; t < nthreads; t++)
      printf("---:|---:|");
    printf("---:|---:|");
    for (int t = 0; keep == 2 && t < nthreads; t++)
      printf("---:|");
    printf("\n");
  }
  for (size_t ai = 0; ai < narrays; ai++) {
    const real_array* r = &arrays[ai];
    if (only && !strstr(r->name, only))
      continue;
    size_t nch = 0;
    chunk* ch = cut(r, (size_t)(mib * (1 << 20)), &nch);
    const double range = real_array_value_range(r);
    for (int e = 0; e < (lossless ? 1 : nebs) * nsizes; e++) {
      parz_chunk_config cfg;
      double enc[8], dec[8], dec_alone[8], enc_cpu = 1e30, dec_cpu = 1e30;
      uint64_t hash = 0xcbf29ce484222325ULL;
      size_t total = 0;
      memset(&cfg, 0, sizeof cfg);
      cfg.codec = lossless ? PARZ_CODEC_LOSSLESS : PARZ_CODEC_BOUNDED;
      cfg.segment_blocks = sizes[e % nsizes];
      cfg.settings.error_bound = lossless ? 0.0 : ebs[e / nsizes] * range;
      cfg.settings.predictor = lossless && r->array.dims == 4 ? 1u : 0u; /* a stack of fields */
      cfg.keep = keep ? parz_keep_new(0) : NULL;
      if (!lossless &&
          strstr(r->name, "levitus")) { /* its fill value, masked as the filter masks it */
        float fill = -1e10f;
        uint32_t b;
        memcpy(&b, &fill, 4);
        cfg.fill = 1;
        cfg.fill_bits = b;
      }
      for (int t = 0; t < nthreads; t++)
        enc[t] = dec[t] = dec_alone[t] = 1e30;
      for (size_t i = 0; i < nch;
           i++) { /* room by this configuration's bound (C sizes the table) */
        free(ch[i].coded);
        ch[i].coded = NULL;
      }
      if (span) {
        char bound[32];
        snprintf(bound, sizeof bound, "%g", ebs[e / nsizes]);
        int rc = span_row(ch, nch, &cfg, reps, span, r->name, bound);
        parz_keep_free(cfg.keep);
        if (rc)
          return 1;
        continue;
      }
      if (steps == 2) { /* the chunks to decode */
        double wall, cpu;
        if (run_chunks(ch, nch, &cfg, 1, 1, r->name, &wall, &cpu))
          return 1;
      }
      for (int rep = 0; rep < reps; rep++)
        for (int t = 0; t < nthreads; t++) {
          double wall, cpu;
          if (steps & 1) {
            if (run_chunks(ch, nch, &cfg, threads[t], 1, r->name, &wall, &cpu))
              return 1;
            enc[t] = minimum(enc[t], wall);
            if (threads[t] == 1)
              enc_cpu = minimum(enc_cpu, cpu);
          }
          if (!(steps & 2))
            continue;
          if (run_chunks(ch, nch, &cfg, threads[t], 0, r->name, &wall, &cpu))
            return 1;
          dec[t] = minimum(dec[t], wall);
          if (threads[t] == 1)
            dec_cpu = minimum(dec_cpu, cpu);
          if (keep == 2) { /* the same chunks without the keep */
            parz_chunk_config alone = cfg;
            alone.keep = NULL;
            if (run_chunks(ch, nch, &alone, threads[t], 0, r->name, &wall, &cpu))
              return 1;
            dec_alone[t] = minimum(dec_alone[t], wall);
          }
        }
      parz_keep_free(cfg.keep);
      for (size_t i = 0; i < nch; i++) {
        hash = fnv(hash, ch[i].coded, ch[i].bytes);
        total += ch[i].bytes;
      }
      const double mb = (double)r->bytes / 1e6;
      char bound[32];
      if (lossless)
        snprintf(bound, sizeof bound, "exact");
      else
        snprintf(bound, sizeof bound, "%g", ebs[e / nsizes]);
      printf("| %s | %s | %u | %.2f | %016llx |", r->name, bound, sizes[e % nsizes],
             (double)r->bytes / (double)total, (unsigned long long)hash);
      for (int t = 0; t < nthreads; t++)
        printf(" %.0f | %.0f |", mb / enc[t], mb / dec[t]);
      printf(" %.0f | %.0f |", mb / enc_cpu, mb / dec_cpu);
      for (int t = 0; keep == 2 && t < nthreads; t++)
        printf(" %.0f |", mb / dec_alone[t]);
      printf("\n");
      fflush(stdout);
    }
    for (size_t i = 0; i < nch; i++)
      free(ch[i].data), free(ch[i].out), free(ch[i].coded);
    free(ch);
  }
  real_arrays_free(arrays, narrays);
  return 0;
}
