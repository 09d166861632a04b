/* parz_bench: ParZ and its peers on the same arrays, in the same run.
 *
 * For every dataset and every setting (fixed accuracy at tolerances relative to the value range,
 * fixed precision, fixed rate, reversible) one *case* is measured: the array is compressed as ONE
 * ParZ chunk (default table) and decoded by every path -- serial, OpenMP at each thread count,
 * CUDA kernel and end-to-end -- next to libzfp serial with the same parameters, H5Z-ZFP and
 * uncompressed HDF5 reads and writes of the same array. All probes of a case run round-robin
 * (warm-up rounds, then timed rounds), so noise hits ParZ and its peers alike. A table-size sweep
 * (segment_blocks C) decodes one accuracy setting per dataset on the GPU and on all CPU threads.
 * A rate-distortion sweep (untimed) adds size and error points at more settings for the plot.
 *
 * Output: OUT/results.csv (one row per probe; throughput in GB/s of uncompressed bytes, median
 * and min-max over the timed rounds) and OUT/meta.txt (machine and run settings). The report
 * (Markdown and plots) is drawn from them by bench_report.py. Progress goes to stderr.
 *
 * Usage: parz_bench [--out DIR] [--data PATH]... [--threads 1,2,4] [--reps N] [--warmup N]
 *                   [--accuracy 1e-2,1e-3] [--precision 12,20] [--rate 4,8] [--no-reversible]
 *                   [--sweep-c 1,4,16,64] [--sweep-accuracy 1e-3] [--max-mib M] [--only NAME]
 *                   [--rd-accuracy L] [--rd-precision L] [--rd-rate L] [--no-rd]
 *                   [--time-limit S] [--quick]
 * PATH: a directory of raw arrays named like the shared ones (name_f32le_AxB.bin), one such
 * file, or FILE.h5:/dataset. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "parz_omp.h"
#include "real_arrays.h"

#define MAX_LIST 16
#define MAX_DATA 64
#define MAX_PROBES 96

typedef struct {
  double v[MAX_LIST];
  int n;
} list;

typedef struct {
  const char* out_dir;
  const char* data[MAX_DATA];
  int ndata;
  list threads, accuracy, precision, rate, sweep_c;
  list rd_accuracy, rd_precision, rd_rate; /* rate-distortion sweep (untimed) */
  double sweep_accuracy;
  double time_limit; /* seconds; 0 = none. Cases that would end past it are skipped. */
  int reversible;
  int reps, warmup;
  double max_mib;
  const char* only;
  int quick;
} options;

static void usage(void) {
  fprintf(stderr,
          "usage: parz_bench [--out DIR] [--data PATH]... [--threads 1,2,4] [--reps N]\n"
          "                  [--warmup N] [--accuracy 1e-2,1e-3] [--precision 12,20]\n"
          "                  [--rate 4,8] [--no-reversible] [--sweep-c 1,4,16,64]\n"
          "                  [--sweep-accuracy 1e-3] [--max-mib M] [--only NAME]\n"
          "                  [--rd-accuracy L] [--rd-precision L] [--rd-rate L] [--no-rd]\n"
          "                  [--time-limit SECONDS] [--quick]\n"
          "PATH: directory of name_f32le_AxB.bin arrays, one such file, or FILE.h5:/dataset\n");
  exit(2);
}

static void parse_list(const char* s, list* l) {
  char* end;
  l->n = 0;
  while (*s && l->n < MAX_LIST) {
    double v = strtod(s, &end);
    if (end == s || !(v > 0))
      usage();
    l->v[l->n++] = v;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',')
      usage();
  }
}

static void set_list(list* l, int n, const double* v) {
  l->n = n;
  memcpy(l->v, v, (size_t)n * sizeof *v);
}

static void parse_args(int argc, char** argv, options* o) {
  static const double acc[] = {1e-2, 1e-3, 1e-4}, prec[] = {12, 20}, rate[] = {4, 8, 16},
                      sweep[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
  static const double q_acc[] = {1e-2, 1e-4}, q_prec[] = {16}, q_rate[] = {8},
                      q_sweep[] = {1, 4, 16, 64, 256};
  static const double rd_acc[] = {1e-1, 3e-2, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6},
                      rd_prec[] = {6, 8, 12, 16, 20, 24, 28}, rd_rate[] = {1, 2, 4, 8, 12, 16, 24},
                      q_rd_acc[] = {1e-1, 1e-3, 1e-5}, q_rd_prec[] = {8, 12, 20},
                      q_rd_rate[] = {2, 4, 16};
  int i, explicit_reps = 0, explicit_mib = 0, explicit_limit = 0;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  memset(o, 0, sizeof *o);
  o->out_dir = "bench-out";
  o->reversible = 1;
  o->reps = 5;
  o->warmup = 1;
  o->sweep_accuracy = 1e-3;
  for (i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--quick"))
      o->quick = 1;
  set_list(&o->accuracy, o->quick ? 2 : 3, o->quick ? q_acc : acc);
  set_list(&o->precision, o->quick ? 1 : 2, o->quick ? q_prec : prec);
  set_list(&o->rate, o->quick ? 1 : 3, o->quick ? q_rate : rate);
  set_list(&o->sweep_c, o->quick ? 5 : 9, o->quick ? q_sweep : sweep);
  set_list(&o->rd_accuracy, o->quick ? 3 : 7, o->quick ? q_rd_acc : rd_acc);
  set_list(&o->rd_precision, o->quick ? 3 : 7, o->quick ? q_rd_prec : rd_prec);
  set_list(&o->rd_rate, o->quick ? 3 : 7, o->quick ? q_rd_rate : rd_rate);
  /* default thread counts: powers of two up to the core count, and the core count */
  for (o->threads.n = 0; o->threads.n < MAX_LIST && (1L << o->threads.n) <= ncpu; o->threads.n++)
    o->threads.v[o->threads.n] = (double)(1L << o->threads.n);
  if (o->threads.n < MAX_LIST && o->threads.v[o->threads.n - 1] != (double)ncpu)
    o->threads.v[o->threads.n++] = (double)ncpu;
  for (i = 1; i < argc; i++) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--quick"))
      continue;
    if (!strcmp(a, "--no-reversible")) {
      o->reversible = 0;
      continue;
    }
    if (!strcmp(a, "--no-rd")) {
      o->rd_accuracy.n = o->rd_precision.n = o->rd_rate.n = 0;
      continue;
    }
    if (!v || !strcmp(a, "--help"))
      usage();
    i++;
    if (!strcmp(a, "--out"))
      o->out_dir = v;
    else if (!strcmp(a, "--data") && o->ndata < MAX_DATA)
      o->data[o->ndata++] = v;
    else if (!strcmp(a, "--threads"))
      parse_list(v, &o->threads);
    else if (!strcmp(a, "--accuracy"))
      parse_list(v, &o->accuracy);
    else if (!strcmp(a, "--precision"))
      parse_list(v, &o->precision);
    else if (!strcmp(a, "--rate"))
      parse_list(v, &o->rate);
    else if (!strcmp(a, "--sweep-c"))
      parse_list(v, &o->sweep_c);
    else if (!strcmp(a, "--rd-accuracy"))
      parse_list(v, &o->rd_accuracy);
    else if (!strcmp(a, "--rd-precision"))
      parse_list(v, &o->rd_precision);
    else if (!strcmp(a, "--rd-rate"))
      parse_list(v, &o->rd_rate);
    else if (!strcmp(a, "--time-limit"))
      o->time_limit = atof(v), explicit_limit = 1;
    else if (!strcmp(a, "--sweep-accuracy"))
      o->sweep_accuracy = atof(v);
    else if (!strcmp(a, "--reps"))
      o->reps = atoi(v), explicit_reps = 1;
    else if (!strcmp(a, "--warmup"))
      o->warmup = atoi(v);
    else if (!strcmp(a, "--max-mib"))
      o->max_mib = atof(v), explicit_mib = 1;
    else if (!strcmp(a, "--only"))
      o->only = v;
    else
      usage();
  }
  if (o->quick && !explicit_reps)
    o->reps = 3;
  if (o->quick && !explicit_mib)
    o->max_mib = 2;
  if (o->quick && !explicit_limit) /* the promise of --quick: under two minutes in all */
    o->time_limit = 90;
  if (o->reps < 1 || o->reps + o->warmup > BENCH_MAX_REPS || o->warmup < 0 || o->threads.n < 1)
    usage();
  for (i = 0; i < o->threads.n; i++)
    if (o->threads.v[i] > 1024)
      usage();
  if (!o->ndata)
    o->data[o->ndata++] =
        getenv("PARZ_SHARED_DATA") ? getenv("PARZ_SHARED_DATA") : "../shared/data";
}

/* ---------------------------------------------------------------------------------------------
 * Datasets */

typedef struct {
  bench_data* v;
  int n;
} dataset_list;

/* Drops unit dimensions (as the filter does with HDF5 chunks): an extent of 1 would pad every
 * block of that dimension to 4 values. */
static void squeeze(parz_array* a) {
  unsigned k, n = 0;
  for (k = 0; k < a->dims; k++)
    if (a->shape[k] != 1)
      a->shape[n++] = a->shape[k];
  for (k = n; k < 4; k++)
    a->shape[k] = 0;
  if (!n)
    a->shape[n++] = 1;
  a->dims = n;
}

/* --max-mib: keeps the leading slices of the slowest dimension that fit (at least one);
 * returns the bytes kept. */
static size_t cap_rows(parz_array* a, size_t bytes, double max_mib) {
  size_t slice = bytes / a->shape[0], keep;
  if (max_mib <= 0 || (double)bytes <= max_mib * 1048576.0)
    return bytes;
  keep = (size_t)(max_mib * 1048576.0 / (double)slice);
  a->shape[0] = keep ? keep : 1;
  return a->shape[0] * slice;
}

static int add_raw(const char* path, const char* base, const options* o, dataset_list* l) {
  real_array r;
  bench_data* d;
  FILE* f;
  if (!real_array_parse_name(base, &r))
    return 0;
  if (o->only && !strstr(r.name, o->only))
    return 1;
  r.bytes = cap_rows(&r.array, r.bytes, o->max_mib);
  squeeze(&r.array);
  if (l->n == MAX_DATA)
    return 1;
  d = &l->v[l->n];
  memset(d, 0, sizeof *d);
  snprintf(d->name, sizeof d->name, "%s", r.name);
  d->array = r.array;
  d->bytes = r.bytes;
  d->data = malloc(d->bytes);
  f = fopen(path, "rb");
  if (!d->data || !f || fread(d->data, 1, d->bytes, f) != d->bytes) {
    fprintf(stderr, "parz_bench: cannot read %s\n", path);
    free(d->data);
    if (f)
      fclose(f);
    return 1;
  }
  fclose(f);
  l->n++;
  return 1;
}

static int by_name(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

static void load_path(const char* path, const options* o, dataset_list* l) {
  DIR* dir = opendir(path);
  const char* base = strrchr(path, '/');
  char msg[512];
  if (dir) {
    struct dirent* e;
    char* names[256];
    int n = 0, i;
    while ((e = readdir(dir)) != NULL && n < 256)
      if (strstr(e->d_name, ".bin"))
        names[n++] = strdup(e->d_name);
    closedir(dir);
    qsort(names, (size_t)n, sizeof *names, by_name);
    for (i = 0; i < n; i++) {
      char full[4096];
      snprintf(full, sizeof full, "%s/%s", path, names[i]);
      add_raw(full, names[i], o, l);
      free(names[i]);
    }
    return;
  }
  if (add_raw(path, base ? base + 1 : path, o, l))
    return;
  if (strchr(path, ':') && l->n < MAX_DATA) {
    if (bench_h5_load(path, &l->v[l->n], msg, sizeof msg)) {
      bench_data* d = &l->v[l->n];
      d->bytes = cap_rows(&d->array, d->bytes, o->max_mib); /* the C-order prefix */
      if (!o->only || strstr(d->name, o->only))
        l->n++;
      else
        free(l->v[l->n].data);
    } else {
      fprintf(stderr, "parz_bench: %s\n", msg);
    }
    return;
  }
  fprintf(stderr,
          "parz_bench: %s: not a directory, a name_f32le_AxB.bin file or FILE.h5:/dataset\n", path);
}

/* ---------------------------------------------------------------------------------------------
 * Settings */

/* Settings of every mode from the lists (accuracy relative to the dataset's value range). */
static int make_settings_from(const list* acc, const list* prec, const list* rate, int reversible,
                              const bench_data* d, bench_setting* s) {
  int n = 0, i;
  for (i = 0; i < acc->n; i++, n++) {
    s[n].mode = "accuracy";
    snprintf(s[n].label, sizeof s[n].label, "%.0e", acc->v[i]);
    s[n].value = acc->v[i] * d->range;
    parz_params_accuracy(&s[n].params, s[n].value, NULL, NULL);
  }
  for (i = 0; i < prec->n; i++, n++) {
    s[n].mode = "precision";
    snprintf(s[n].label, sizeof s[n].label, "%g", prec->v[i]);
    s[n].value = prec->v[i];
    parz_params_precision(&s[n].params, (unsigned)s[n].value, NULL);
  }
  for (i = 0; i < rate->n; i++, n++) {
    s[n].mode = "rate";
    snprintf(s[n].label, sizeof s[n].label, "%g", rate->v[i]);
    s[n].value = rate->v[i];
    parz_params_rate(&s[n].params, s[n].value, d->array.type, d->array.dims, NULL, NULL);
  }
  if (reversible) {
    s[n].mode = "reversible";
    snprintf(s[n].label, sizeof s[n].label, "-");
    s[n].value = 0;
    parz_params_reversible(&s[n].params);
    n++;
  }
  return n;
}

static int make_settings(const options* o, const bench_data* d, bench_setting* s) {
  return make_settings_from(&o->accuracy, &o->precision, &o->rate, o->reversible, d, s);
}

/* ---------------------------------------------------------------------------------------------
 * ParZ probes */

typedef struct {
  const bench_data* d;
  parz_chunk_config cfg;
  const unsigned char* chunk; /* the case's chunk, decoded by the decode probes */
  size_t chunk_bytes;
  unsigned char* enc; /* scratch for the encode probes */
  size_t enc_bytes;
  void* out;
  int threads;
} parz_ctx;

static double parz_encode_serial(void* p) {
  parz_ctx* c = (parz_ctx*)p;
  size_t w;
  double t0 = bench_now();
  return parz_chunk_encode(&c->d->array, c->d->data, &c->cfg, c->enc, c->enc_bytes, &w, NULL)
             ? -1
             : bench_now() - t0;
}

static double parz_encode_omp(void* p) {
  parz_ctx* c = (parz_ctx*)p;
  size_t w;
  double t0 = bench_now();
  return parz_omp_chunk_encode(&c->d->array, c->d->data, &c->cfg, c->enc, c->enc_bytes, &w,
                               c->threads, NULL)
             ? -1
             : bench_now() - t0;
}

static double parz_decode_serial(void* p) {
  parz_ctx* c = (parz_ctx*)p;
  double t0 = bench_now();
  return parz_chunk_decode(c->chunk, c->chunk_bytes, c->out, c->d->bytes, NULL) ? -1
                                                                                : bench_now() - t0;
}

static double parz_decode_omp(void* p) {
  parz_ctx* c = (parz_ctx*)p;
  double t0 = bench_now();
  return parz_omp_chunk_decode(c->chunk, c->chunk_bytes, c->out, c->d->bytes, c->threads, NULL)
             ? -1
             : bench_now() - t0;
}

/* Encodes d as one chunk under cfg into a malloc'd buffer; fills q from a decode into out.
 * threads 0: the serial encoder and decoder; else OpenMP (bit-identical, faster). */
static unsigned char* parz_case_chunk(const bench_data* d, const parz_chunk_config* cfg,
                                      int threads, void* out, bench_quality* q, size_t* bytes) {
  size_t cap = parz_chunk_bound(&d->array, cfg);
  unsigned char* chunk = cap ? (unsigned char*)malloc(cap) : NULL;
  parz_chunk_view v;
  parz_error err;
  snprintf(err.message, sizeof err.message, "no memory");
  if (!chunk ||
      (threads ? parz_omp_chunk_encode(&d->array, d->data, cfg, chunk, cap, bytes, threads, &err)
               : parz_chunk_encode(&d->array, d->data, cfg, chunk, cap, bytes, &err)) ||
      parz_chunk_parse(chunk, *bytes, &v, &err) ||
      (threads ? parz_omp_chunk_decode(chunk, *bytes, out, d->bytes, threads, &err)
               : parz_chunk_decode(chunk, *bytes, out, d->bytes, &err))) {
    fprintf(stderr, "parz_bench: %s: ParZ failed: %s\n", d->name, err.message);
    free(chunk);
    return NULL;
  }
  q->compressed_bytes = (double)*bytes;
  q->table_bytes = (double)v.table_bytes;
  q->payload_bytes = (double)v.payload_bytes;
  q->segment_blocks = v.segment_blocks;
  bench_errors(&d->array, d->data, out, d->range, q);
  return chunk;
}

static int max_threads(const options* o) {
  int i, t = 1;
  for (i = 0; i < o->threads.n; i++)
    t = (int)o->threads.v[i] > t ? (int)o->threads.v[i] : t;
  return t;
}

/* ---------------------------------------------------------------------------------------------
 * Probe table, round-robin timing, CSV */

typedef struct {
  bench_probe p[MAX_PROBES];
  int n;
} probe_set;

static bench_probe* add_probe(probe_set* s, const char* codec, const char* op, const char* exec,
                              int threads, unsigned c, bench_run_fn run, void* ctx,
                              const bench_quality* q) {
  bench_probe* p;
  if (s->n == MAX_PROBES || !ctx)
    return NULL;
  p = &s->p[s->n++];
  memset(p, 0, sizeof *p);
  snprintf(p->codec, sizeof p->codec, "%s", codec);
  snprintf(p->op, sizeof p->op, "%s", op);
  snprintf(p->exec, sizeof p->exec, "%s", exec);
  p->threads = threads;
  p->segment_blocks = c;
  p->run = run;
  p->ctx = ctx;
  p->quality = q;
  return p;
}

static void run_rounds(probe_set* s, const options* o) {
  int r, i;
  for (r = 0; r < o->warmup + o->reps; r++)
    for (i = 0; i < s->n; i++) {
      bench_probe* p = &s->p[i];
      double t;
      if (p->failed)
        continue;
      t = p->run(p->ctx);
      if (t < 0)
        p->failed = 1;
      else if (r >= o->warmup)
        p->samples[p->nsamples++] = t;
    }
}

static FILE* g_csv;

static void csv_header(void) {
  fprintf(g_csv,
          "dataset,dtype,shape,raw_bytes,mode,setting,value,codec,op,exec,threads,"
          "segment_blocks,ratio,bits_per_value,table_overhead,max_err,rms_err,psnr,"
          "gbps_median,gbps_min,gbps_max,reps,status\n");
}

static void csv_rows(const bench_data* d, const bench_setting* st, const probe_set* s) {
  char shape[64] = "";
  int i;
  unsigned k;
  for (k = 0; k < d->array.dims; k++)
    snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%zu", k ? "x" : "",
             d->array.shape[k]);
  for (i = 0; i < s->n; i++) {
    const bench_probe* p = &s->p[i];
    const bench_quality* q = p->quality;
    double med, lo, hi, n = (double)parz_array_count(&d->array);
    bench_throughput(p, (double)d->bytes, &med, &lo, &hi);
    fprintf(g_csv, "%s,%s,%s,%zu,%s,%s,%.17g,%s,%s,%s,%d,%u,", d->name,
            d->array.type == PARZ_FLOAT ? "f32" : "f64", shape, d->bytes, st->mode, st->label,
            st->value, p->codec, p->op, p->exec, p->threads,
            p->segment_blocks ? p->segment_blocks
            : q               ? q->segment_blocks
                              : 0);
    if (q && q->compressed_bytes > 0)
      fprintf(g_csv, "%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,", (double)d->bytes / q->compressed_bytes,
              8.0 * q->compressed_bytes / n,
              q->table_bytes >= 0 ? q->table_bytes / q->payload_bytes : NAN, q->max_err, q->rms_err,
              q->psnr);
    else
      fprintf(g_csv, ",,,,,,");
    if (p->nsamples)
      fprintf(g_csv, "%.6g,%.6g,%.6g,", med, lo, hi);
    else
      fprintf(g_csv, ",,,");
    fprintf(g_csv, "%d,%s\n", p->nsamples, p->failed ? "failed" : "ok");
  }
  fflush(g_csv);
}

/* ---------------------------------------------------------------------------------------------
 * Progress */

static double g_start;

/* One line per step; on a terminal the line is redrawn in place. left < 0: not known yet. */
static void progress(int done, int total, const bench_data* d, const char* what, double left) {
  int tty = isatty(2);
  fprintf(stderr, "%s[%3d/%3d] %5.0fs  %-24.24s %-22.22s", tty ? "\r" : "", done, total,
          bench_now() - g_start, d->name, what);
  if (left >= 0 && done < total)
    fprintf(stderr, " ~%.0fs left ", left);
  fputs(tty ? "" : "\n", stderr);
  fflush(stderr);
}

/* The HDF5 files of a case live in $TMPDIR (else /tmp), not in the output folder: a run killed
 * part-way leaves no stray files among the results. The process id keeps parallel runs apart. */
static void scratch_path(char* path, size_t n, int case_id, const char* what) {
  const char* dir = getenv("TMPDIR");
  snprintf(path, n, "%s/parz-bench-%ld-%d-%s.h5", dir && *dir ? dir : "/tmp", (long)getpid(),
           case_id, what);
}

/* ---------------------------------------------------------------------------------------------
 * One case: a dataset under one setting, every path. */

typedef struct {
  int zfp, h5, h5_parz, h5_zfp, gpu;
} peers;

static void run_case(const options* o, const peers* have, const bench_data* d,
                     const bench_setting* st, int case_id) {
  probe_set* s = (probe_set*)calloc(1, sizeof *s);
  parz_ctx base, ctx_enc[MAX_LIST + 1], ctx_dec[MAX_LIST + 1];
  bench_quality q_parz = {0}, q_zfp = {0}, q_none = {0}, q_h5zfp = {0}, q_h5parz = {0};
  bench_zfp* z = NULL;
  bench_gpu* g = NULL;
  bench_h5 *h_none = NULL, *h_zfp = NULL, *h_parz = NULL;
  bench_h5_reader rd_none, rd_zfp, rd_parz[MAX_LIST + 1];
  bench_h5_writer wr_none = {d, st, BENCH_H5_NONE, NULL, 0},
                  wr_zfp = {d, st, BENCH_H5_ZFP, NULL, 0},
                  wr_parz1 = {d, st, BENCH_H5_PARZ, "omp", 1},
                  wr_parzT = {d, st, BENCH_H5_PARZ, "omp", max_threads(o)};
  char path[4096];
  void* ref = malloc(d->bytes);
  int i;
  memset(&base, 0, sizeof base);
  base.d = d;
  base.cfg.params = st->params;
  base.out = malloc(d->bytes);
  if (!s || !ref || !base.out)
    goto done;
  bench_touch(base.out, d->bytes);
  base.chunk = parz_case_chunk(d, &base.cfg, 0, ref, &q_parz, &base.chunk_bytes);
  base.enc_bytes = parz_chunk_bound(&d->array, &base.cfg);
  base.enc = (unsigned char*)malloc(base.enc_bytes);
  if (!base.chunk || !base.enc)
    goto done;
  bench_touch(base.enc, base.enc_bytes);

  /* ParZ, library calls */
  ctx_enc[0] = base;
  ctx_dec[0] = base;
  add_probe(s, "parz", "encode", "serial", 1, 0, parz_encode_serial, &ctx_enc[0], &q_parz);
  add_probe(s, "parz", "decode", "serial", 1, 0, parz_decode_serial, &ctx_dec[0], &q_parz);
  for (i = 0; i < o->threads.n; i++) {
    ctx_enc[i + 1] = base;
    ctx_enc[i + 1].threads = (int)o->threads.v[i];
    ctx_dec[i + 1] = ctx_enc[i + 1];
    add_probe(s, "parz", "encode", "omp", ctx_enc[i + 1].threads, 0, parz_encode_omp,
              &ctx_enc[i + 1], &q_parz);
    add_probe(s, "parz", "decode", "omp", ctx_dec[i + 1].threads, 0, parz_decode_omp,
              &ctx_dec[i + 1], &q_parz);
  }
  /* GPU */
  if (have->gpu && (g = bench_gpu_create(base.chunk, base.chunk_bytes, d)) != NULL) {
    if (bench_gpu_kernel(g) < 0 || bench_gpu_e2e(g) < 0 || !bench_gpu_check(g, ref)) {
      fprintf(stderr, "\nparz_bench: %s %s %s: GPU decode failed or differs from serial\n", d->name,
              st->mode, st->label);
    } else {
      add_probe(s, "parz", "decode", "cuda-kernel", 0, 0, bench_gpu_kernel, g, &q_parz);
      add_probe(s, "parz", "decode", "cuda-e2e", 0, 0, bench_gpu_e2e, g, &q_parz);
      add_probe(s, "cuda-copy", "copy", "cuda-d2d", 0, 0, bench_gpu_d2d, g, NULL);
    }
  }
  /* libzfp */
  if (have->zfp && (z = bench_zfp_create(d, st, &q_zfp)) != NULL) {
    add_probe(s, "zfp", "encode", "serial", 1, 0, bench_zfp_encode, z, &q_zfp);
    add_probe(s, "zfp", "decode", "serial", 1, 0, bench_zfp_decode, z, &q_zfp);
  }
  /* HDF5 reads: no filter, H5Z-ZFP, ParZ at each thread count (and CUDA) */
  if (have->h5) {
    scratch_path(path, sizeof path, case_id, "none");
    if ((h_none = bench_h5_create(path, d, st, BENCH_H5_NONE, &q_none)) != NULL) {
      rd_none.h = h_none, rd_none.exec = NULL, rd_none.threads = 0;
      add_probe(s, "hdf5-none", "read", "hdf5", 1, 0, bench_h5_read, &rd_none, &q_none);
      add_probe(s, "hdf5-none", "write", "hdf5", 1, 0, bench_h5_write, &wr_none, &q_none);
    }
    scratch_path(path, sizeof path, case_id, "zfp");
    if (have->h5_zfp && (h_zfp = bench_h5_create(path, d, st, BENCH_H5_ZFP, &q_h5zfp)) != NULL) {
      rd_zfp.h = h_zfp, rd_zfp.exec = NULL, rd_zfp.threads = 0;
      add_probe(s, "h5z-zfp", "read", "hdf5", 1, 0, bench_h5_read, &rd_zfp, &q_h5zfp);
      add_probe(s, "h5z-zfp", "write", "hdf5", 1, 0, bench_h5_write, &wr_zfp, &q_h5zfp);
    }
    scratch_path(path, sizeof path, case_id, "parz");
    if (have->h5_parz &&
        (h_parz = bench_h5_create(path, d, st, BENCH_H5_PARZ, &q_h5parz)) != NULL) {
      for (i = 0; i < o->threads.n; i++) {
        rd_parz[i].h = h_parz, rd_parz[i].exec = "omp", rd_parz[i].threads = (int)o->threads.v[i];
        add_probe(s, "parz", "read", "hdf5-omp", rd_parz[i].threads, 0, bench_h5_read, &rd_parz[i],
                  &q_h5parz);
      }
      if (have->gpu) {
        rd_parz[i].h = h_parz, rd_parz[i].exec = "cuda", rd_parz[i].threads = 0;
        add_probe(s, "parz", "read", "hdf5-cuda", 0, 0, bench_h5_read, &rd_parz[i], &q_h5parz);
      }
      /* writes (the filter encodes with OpenMP): one thread and the most threads */
      add_probe(s, "parz", "write", "hdf5-omp", 1, 0, bench_h5_write, &wr_parz1, &q_h5parz);
      if (wr_parzT.threads > 1)
        add_probe(s, "parz", "write", "hdf5-omp", wr_parzT.threads, 0, bench_h5_write, &wr_parzT,
                  &q_h5parz);
    }
  }
  run_rounds(s, o);
  /* every parallel decode must give the serial array */
  for (i = 0; i < o->threads.n; i++)
    if (parz_omp_chunk_decode(base.chunk, base.chunk_bytes, base.out, d->bytes,
                              (int)o->threads.v[i], NULL) ||
        memcmp(base.out, ref, d->bytes))
      fprintf(stderr, "\nparz_bench: %s %s %s: OpenMP decode at %d threads differs\n", d->name,
              st->mode, st->label, (int)o->threads.v[i]);
  csv_rows(d, st, s);
done:
  bench_gpu_free(g);
  bench_zfp_free(z);
  bench_h5_free(h_none);
  bench_h5_free(h_zfp);
  bench_h5_free(h_parz);
  free((void*)base.chunk);
  free(base.enc);
  free(base.out);
  free(ref);
  free(s);
}

/* Table-size sweep: one accuracy setting, segment_blocks C over a list, decoded by the GPU
 * kernel (when present) and by OpenMP on the most threads. */
static void run_sweep(const options* o, const peers* have, const bench_data* d) {
  probe_set* s = (probe_set*)calloc(1, sizeof *s);
  parz_ctx ctx[MAX_LIST];
  bench_quality q[MAX_LIST];
  bench_gpu* g[MAX_LIST] = {0};
  bench_setting st;
  void* ref = malloc(d->bytes);
  int i, maxt = max_threads(o);
  memset(ctx, 0, sizeof ctx);
  memset(q, 0, sizeof q);
  st.mode = "accuracy";
  snprintf(st.label, sizeof st.label, "%.0e", o->sweep_accuracy);
  st.value = o->sweep_accuracy * d->range;
  parz_params_accuracy(&st.params, st.value, NULL, NULL);
  if (!s || !ref)
    goto done;
  for (i = 0; i < o->sweep_c.n; i++) {
    parz_ctx* c = &ctx[i];
    c->d = d;
    c->cfg.params = st.params;
    c->cfg.segment_blocks = (uint32_t)o->sweep_c.v[i];
    c->threads = maxt;
    c->out = malloc(d->bytes);
    if (!c->out)
      continue;
    bench_touch(c->out, d->bytes);
    c->chunk = parz_case_chunk(d, &c->cfg, maxt, ref, &q[i], &c->chunk_bytes);
    if (!c->chunk)
      continue;
    add_probe(s, "parz", "decode", "omp", maxt, c->cfg.segment_blocks, parz_decode_omp, c, &q[i]);
    if (have->gpu && (g[i] = bench_gpu_create(c->chunk, c->chunk_bytes, d)) != NULL &&
        bench_gpu_kernel(g[i]) >= 0 && bench_gpu_check(g[i], ref))
      add_probe(s, "parz", "decode", "cuda-kernel", 0, c->cfg.segment_blocks, bench_gpu_kernel,
                g[i], &q[i]);
  }
  run_rounds(s, o);
  st.mode = "sweep"; /* rows of the sweep are told apart from the cases by their mode */
  csv_rows(d, &st, s);
done:
  for (i = 0; i < o->sweep_c.n; i++) {
    bench_gpu_free(g[i]);
    free((void*)ctx[i].chunk);
    free(ctx[i].out);
  }
  free(ref);
  free(s);
}

/* The values of `a` that are not in `b`. */
static list list_minus(const list* a, const list* b) {
  list r;
  int i, j;
  r.n = 0;
  for (i = 0; i < a->n; i++) {
    for (j = 0; j < b->n && b->v[j] != a->v[i]; j++)
      ;
    if (j == b->n)
      r.v[r.n++] = a->v[i];
  }
  return r;
}

/* Rate-distortion sweep: size and error only (no timing), at the settings the cases do not
 * measure, for ParZ (OpenMP encode and decode, bit-identical to serial) and libzfp. H5Z-ZFP
 * stores libzfp's stream behind its own small header: its points come from the cases. */
static void run_rd(const options* o, const peers* have, const bench_data* d) {
  bench_setting st[3 * MAX_LIST + 1];
  list acc = list_minus(&o->rd_accuracy, &o->accuracy);
  list prec = list_minus(&o->rd_precision, &o->precision);
  list rate = list_minus(&o->rd_rate, &o->rate);
  int n = make_settings_from(&acc, &prec, &rate, 0, d, st), k;
  void* out = malloc(d->bytes);
  for (k = 0; out && k < n; k++) {
    probe_set s;
    bench_quality qp = {0}, qz = {0};
    parz_chunk_config cfg;
    size_t bytes;
    unsigned char* chunk;
    bench_zfp* z;
    s.n = 0;
    memset(&cfg, 0, sizeof cfg);
    cfg.params = st[k].params;
    if ((chunk = parz_case_chunk(d, &cfg, max_threads(o), out, &qp, &bytes)) != NULL)
      add_probe(&s, "parz", "quality", "rd", 0, 0, NULL, out, &qp);
    free(chunk);
    if (have->zfp && (z = bench_zfp_create(d, &st[k], &qz)) != NULL) {
      add_probe(&s, "zfp", "quality", "rd", 0, 0, NULL, out, &qz);
      bench_zfp_free(z);
    }
    csv_rows(d, &st[k], &s);
  }
  free(out);
}

/* The 1, 5 and 15 minute load averages: a busy machine makes every number of the run suspect. */
static const char* loadavg(char* buf, size_t n) {
  FILE* f = fopen("/proc/loadavg", "r");
  snprintf(buf, n, "?");
  if (f) {
    double a, b, c;
    if (fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
      snprintf(buf, n, "%.2f %.2f %.2f", a, b, c);
    fclose(f);
  }
  return buf;
}

/* The C that the default table (auto C) gives d at the sweep's accuracy; 0 if encoding fails. */
static unsigned sweep_auto_c(const options* o, const bench_data* d) {
  parz_chunk_config cfg;
  bench_quality q;
  size_t bytes = 0;
  void* out = malloc(d->bytes);
  memset(&cfg, 0, sizeof cfg);
  memset(&q, 0, sizeof q);
  parz_params_accuracy(&cfg.params, o->sweep_accuracy * d->range, NULL, NULL);
  if (out)
    free(parz_case_chunk(d, &cfg, max_threads(o), out, &q, &bytes));
  free(out);
  return q.segment_blocks;
}

static void write_meta(const options* o, const peers* have, const dataset_list* l) {
  char path[4096], host[256] = "?", cpu[256] = "?", line[512];
  FILE *f, *c = fopen("/proc/cpuinfo", "r");
  struct utsname u;
  time_t now = time(NULL);
  int i;
  if (c) {
    while (fgets(line, sizeof line, c))
      if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
        snprintf(cpu, sizeof cpu, "%s", strchr(line, ':') + 2);
        cpu[strcspn(cpu, "\n")] = '\0';
        break;
      }
    fclose(c);
  }
  if (!uname(&u))
    snprintf(host, sizeof host, "%s %s", u.nodename, u.machine);
  snprintf(path, sizeof path, "%s/meta.txt", o->out_dir);
  if (!(f = fopen(path, "w")))
    return;
  fprintf(f, "date: %s", asctime(gmtime(&now)));
  fprintf(f, "host: %s\ncpu: %s\ncores: %ld\n", host, cpu, sysconf(_SC_NPROCESSORS_ONLN));
  fprintf(f, "gpu: %s\n", have->gpu ? bench_gpu_name() : "none");
  fprintf(f, "load average at start: %s\n", loadavg(line, sizeof line));
  fprintf(f, "openmp: %s\n", parz_omp_enabled() ? "yes" : "no");
  fprintf(f, "threads:");
  for (i = 0; i < o->threads.n; i++)
    fprintf(f, " %g", o->threads.v[i]);
  fprintf(f, "\nreps: %d timed + %d warm-up, round-robin over all probes of a case\n", o->reps,
          o->warmup);
  fprintf(f, "quick: %s\nmax_mib: %g\n", o->quick ? "yes" : "no", o->max_mib);
  fprintf(f, "peers: libzfp=%s hdf5=%s h5z-zfp=%s parz-plugin=%s\n", have->zfp ? "yes" : "no",
          have->h5 ? "yes" : "no", have->h5_zfp ? "yes" : "no", have->h5_parz ? "yes" : "no");
  fprintf(f,
          "table: default, auto C for variable rate (each case's C in results.csv, auto_c "
          "below at the sweep's setting), C=%u for fixed rate, P=%u (sweep at accuracy %g x "
          "range)\n",
          PARZ_DEFAULT_SEGMENT_BLOCKS, PARZ_DEFAULT_PARTITION_SEGMENTS, o->sweep_accuracy);
  for (i = 0; i < l->n; i++)
    fprintf(f, "dataset: %s %s %zu bytes range %.6g fill_values %zu auto_c %u\n", l->v[i].name,
            l->v[i].array.type == PARZ_FLOAT ? "f32" : "f64", l->v[i].bytes, l->v[i].range,
            bench_fill_values(&l->v[i].array, l->v[i].data), sweep_auto_c(o, &l->v[i]));
  fclose(f);
}

/* ---------------------------------------------------------------------------------------------
 * The plan: every step of the run, in the order that loses least when --time-limit cuts it short:
 * the table-size sweeps (cheap, and the GPU's table-size numbers), then the cases setting by
 * setting across all datasets -- first one setting of every mode, then the others -- then the
 * rate-distortion sweeps (the cases already give some of their points). */

enum { STEP_SWEEP, STEP_CASE, STEP_RD };

typedef struct {
  int kind, dataset, setting;
} step;

static int g_skipped;

static void run_plan(const options* o, const peers* have, const dataset_list* l) {
  bench_setting settings[3 * MAX_LIST + 1];
  int nset = make_settings(o, &l->v[0], settings), order[3 * MAX_LIST + 1], norder = 0;
  int has_rd = o->rd_accuracy.n + o->rd_precision.n + o->rd_rate.n > 0;
  int i, k, n = 0, case_id = 0;
  double spent[3] = {0, 0, 0}, done_bytes[3] = {0, 0, 0};
  step* plan = (step*)malloc(sizeof(step) * (size_t)l->n * (size_t)(nset + 2));
  if (!plan)
    return;
  for (k = 0; k < nset; k++) /* the first setting of each mode, then the rest */
    if (k == 0 || strcmp(settings[k].mode, settings[k - 1].mode))
      order[norder++] = k;
  for (k = 0; k < nset; k++)
    if (!(k == 0 || strcmp(settings[k].mode, settings[k - 1].mode)))
      order[norder++] = k;
  for (i = 0; o->sweep_c.n > 0 && i < l->n; i++)
    plan[n++] = (step){STEP_SWEEP, i, 0};
  for (k = 0; k < norder; k++)
    for (i = 0; i < l->n; i++)
      plan[n++] = (step){STEP_CASE, i, order[k]};
  for (i = 0; has_rd && i < l->n; i++)
    plan[n++] = (step){STEP_RD, i, 0};

  g_start = bench_now();
  for (k = 0; k < n; k++) {
    const bench_data* d = &l->v[plan[k].dataset];
    int kind = plan[k].kind, j;
    char what[64];
    double t0 = bench_now(), left = 0;
    /* seconds per byte of each kind so far (a case's rate until a kind has its own) */
    double rate[3];
    for (j = 0; j < 3; j++)
      rate[j] = done_bytes[j] > 0           ? spent[j] / done_bytes[j]
                : done_bytes[STEP_CASE] > 0 ? spent[STEP_CASE] / done_bytes[STEP_CASE]
                                            : -1;
    for (j = k; j < n && left >= 0; j++)
      left = rate[plan[j].kind] < 0
                 ? -1
                 : left + rate[plan[j].kind] * (double)l->v[plan[j].dataset].bytes;
    nset = make_settings(o, d, settings);
    if (kind == STEP_CASE)
      snprintf(what, sizeof what, "%s %s", settings[plan[k].setting].mode,
               settings[plan[k].setting].label);
    else
      snprintf(what, sizeof what,
               kind == STEP_SWEEP ? "table-size sweep" : "rate-distortion sweep");
    if (o->time_limit > 0 &&
        t0 - g_start + (rate[kind] > 0 ? rate[kind] * (double)d->bytes : 0) > o->time_limit) {
      fprintf(stderr, "%sparz_bench: %s %s skipped: it would end past --time-limit %g s\n",
              isatty(2) ? "\n" : "", d->name, what, o->time_limit);
      g_skipped++;
      continue;
    }
    progress(k, n, d, what, left);
    if (kind == STEP_CASE)
      run_case(o, have, d, &settings[plan[k].setting], case_id++);
    else if (kind == STEP_SWEEP)
      run_sweep(o, have, d);
    else
      run_rd(o, have, d);
    spent[kind] += bench_now() - t0;
    done_bytes[kind] += (double)d->bytes;
  }
  progress(n, n, &l->v[l->n - 1], "done", 0);
  free(plan);
}

/* What is known only at the end: run time and steps skipped under --time-limit. */
static void append_meta(const options* o, double seconds) {
  char path[4096], line[128];
  FILE* f;
  snprintf(path, sizeof path, "%s/meta.txt", o->out_dir);
  if (!(f = fopen(path, "a")))
    return;
  fprintf(f, "run_seconds: %.0f\nload average at end: %s\n", seconds, loadavg(line, sizeof line));
  if (o->time_limit > 0)
    fprintf(f, "time_limit: %g s, steps skipped: %d\n", o->time_limit, g_skipped);
  fclose(f);
}

int main(int argc, char** argv) {
  options o;
  peers have;
  dataset_list l;
  char path[4096];
  int i;
  parse_args(argc, argv, &o);
  l.v = (bench_data*)calloc(MAX_DATA, sizeof *l.v);
  l.n = 0;
  for (i = 0; l.v && i < o.ndata; i++)
    load_path(o.data[i], &o, &l);
  if (!l.n) {
    fprintf(stderr, "parz_bench: no dataset loaded\n");
    return 1;
  }
  have.zfp = bench_zfp_available();
  have.h5 = bench_h5_available();
  have.h5_zfp = have.h5 && bench_h5_filter_available(BENCH_H5_ZFP);
  have.h5_parz = have.h5 && bench_h5_filter_available(BENCH_H5_PARZ);
  have.gpu = bench_gpu_available();
  fprintf(stderr,
          "parz_bench: %d datasets; peers: libzfp %s, HDF5 %s, H5Z-ZFP %s, ParZ plugin %s, "
          "GPU %s\n",
          l.n, have.zfp ? "yes" : "MISSING", have.h5 ? "yes" : "MISSING",
          have.h5_zfp ? "yes" : "MISSING", have.h5_parz ? "yes" : "MISSING",
          have.gpu ? bench_gpu_name() : "none");
  snprintf(path, sizeof path, "%s/results.csv", o.out_dir);
  if (!(g_csv = fopen(path, "w"))) {
    fprintf(stderr, "parz_bench: cannot write %s\n", path);
    return 1;
  }
  csv_header();
  for (i = 0; i < l.n; i++)
    l.v[i].range = bench_range(&l.v[i].array, l.v[i].data);
  write_meta(&o, &have, &l);
  run_plan(&o, &have, &l);
  fprintf(stderr, "%sparz_bench: %.0f s, wrote %s\n", isatty(2) ? "\n" : "", bench_now() - g_start,
          path);
  fclose(g_csv);
  append_meta(&o, bench_now() - g_start);
  for (i = 0; i < l.n; i++)
    free(l.v[i].data);
  free(l.v);
  return 0;
}
