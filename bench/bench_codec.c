/* Serial codec throughput, ParZ vs libzfp 1.0, on the same arrays and the same parameters,
 * measured side by side. Each repetition runs all four codings (our encode, libzfp's encode,
 * our decode, libzfp's decode) and alternates which library goes first, so that machine noise
 * (other processes, frequency changes) hits both alike. Reported per dataset, mode and
 * setting: median MB/s of each, and the median over repetitions of the per-repetition ratio
 * ours/libzfp (a paired statistic: a slow repetition slows both sides of its ratio). Times are
 * thread CPU times, MB/s are of the uncompressed array (10^6 bytes).
 *
 *   bench_codec [--reps N] [--max-values N] [--dir D] [--mode M] [--only NAME] [--tol REL]
 *               [FILE.bin ...]
 *
 * Default files: ../shared/data/ *.bin (or --dir). --mode keeps one mode (accuracy, precision,
 * rate, reversible); --only keeps datasets whose name contains NAME; --tol replaces the two
 * accuracy tolerances (1e-3 and 1e-5 of the value range) by the one REL x value range. Files are raw
 * little-endian arrays named <name>_f32le_AxBxC.bin (or f64le). Before timing, each setting is
 * checked: both streams must be byte-identical and both decoders must return the same array. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zfp.h>

#include "parz.h"

#define MAX_REPS 99

/* The calling thread's CPU time: on a shared machine, time slices spent descheduled (other
 * processes) count for neither library. Both run serially on this one thread. */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(const double* v, int n) {
  double s[MAX_REPS];
  memcpy(s, v, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp);
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

static int parse_name(const char* name, parz_array* a) {
  const char* p = strstr(name, "_f32le_");
  unsigned d = 0;
  memset(a, 0, sizeof *a);
  if (p)
    a->type = PARZ_FLOAT;
  else if ((p = strstr(name, "_f64le_")))
    a->type = PARZ_DOUBLE;
  else
    return 0;
  p += 7;
  while (*p >= '0' && *p <= '9' && d < 4) {
    char* q;
    a->shape[d++] = strtoul(p, &q, 10);
    p = *q == 'x' ? q + 1 : q;
  }
  a->dims = d;
  return d > 0 && !strcmp(p, ".bin");
}

static zfp_field* field(const parz_array* a, void* data) {
  const size_t* s = a->shape;
  zfp_type t = a->type == PARZ_FLOAT ? zfp_type_float : zfp_type_double;
  switch (a->dims) {
    case 1: return zfp_field_1d(data, t, s[0]);
    case 2: return zfp_field_2d(data, t, s[1], s[0]);
    case 3: return zfp_field_3d(data, t, s[2], s[1], s[0]);
    default: return zfp_field_4d(data, t, s[3], s[2], s[1], s[0]);
  }
}

static size_t zfp_enc(const parz_array* a, const void* data, const parz_params* p, void* out,
                      size_t cap) {
  zfp_field* f = field(a, (void*)data);
  zfp_stream* z = zfp_stream_open(NULL);
  bitstream* b = stream_open(out, cap);
  size_t n;
  zfp_stream_set_bit_stream(z, b);
  zfp_stream_set_params(z, p->minbits, p->maxbits, p->maxprec, p->minexp);
  n = zfp_compress(z, f);
  stream_close(b);
  zfp_stream_close(z);
  zfp_field_free(f);
  return n;
}

static void zfp_dec(const parz_array* a, void* data, const parz_params* p, void* src, size_t n) {
  zfp_field* f = field(a, data);
  zfp_stream* z = zfp_stream_open(NULL);
  bitstream* b = stream_open(src, n);
  zfp_stream_set_bit_stream(z, b);
  zfp_stream_set_params(z, p->minbits, p->maxbits, p->maxprec, p->minexp);
  zfp_decompress(z, f);
  stream_close(b);
  zfp_stream_close(z);
  zfp_field_free(f);
}

typedef struct {
  const char* mode;
  char setting[32];
  parz_params p;
} setting;

/* Two settings per lossy mode (coarse and fine) and reversible. Accuracy tolerances are
 * relative to the value range, which ignores fill values (|v| >= 1e9, e.g. levitus' -1e10). */
static int settings(const parz_array* a, const void* data, double tol_rel, setting* s) {
  size_t n = parz_array_count(a), i;
  double lo = INFINITY, hi = -INFINITY;
  const double rel[2] = {tol_rel > 0 ? tol_rel : 1e-3, 1e-5};
  const int ntol = tol_rel > 0 ? 1 : 2;
  const unsigned prec[2][2] = {{12, 20}, {24, 40}}; /* float, double */
  const double rate[2][2] = {{4, 12}, {8, 24}};
  int f = a->type == PARZ_FLOAT, k, m = 0;
  for (i = 0; i < n; i++) {
    double v = f ? ((const float*)data)[i] : ((const double*)data)[i];
    if (fabs(v) < 1e9) {
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
  }
  for (k = 0; k < ntol; k++, m++) {
    double tol = rel[k] * (hi > lo ? hi - lo : 1.0);
    s[m].mode = "accuracy";
    snprintf(s[m].setting, sizeof s[m].setting, "%.3g", tol);
    parz_params_accuracy(&s[m].p, tol, NULL, NULL);
  }
  for (k = 0; k < 2; k++, m++) {
    s[m].mode = "precision";
    snprintf(s[m].setting, sizeof s[m].setting, "%u", prec[!f][k]);
    parz_params_precision(&s[m].p, prec[!f][k], NULL);
  }
  for (k = 0; k < 2; k++, m++) {
    s[m].mode = "rate";
    snprintf(s[m].setting, sizeof s[m].setting, "%g", rate[!f][k]);
    parz_params_rate(&s[m].p, rate[!f][k], a->type, a->dims, NULL, NULL);
  }
  s[m].mode = "reversible";
  snprintf(s[m].setting, sizeof s[m].setting, "-");
  parz_params_reversible(&s[m].p);
  return m + 1;
}

static void bench(const char* name, const parz_array* a, const void* data, int reps,
                  const char* only_mode, double tol_rel) {
  size_t n = parz_array_count(a), es = parz_type_size(a->type);
  double mb = (double)(n * es) / 1e6;
  setting set[8];
  int ns = settings(a, data, tol_rel, set), m;
  for (m = 0; m < ns; m++) {
    const parz_params* p = &set[m].p;
    size_t cap = parz_stream_bound(a->type, a->dims, p, parz_block_count(a)) + 64;
    unsigned char* s = malloc(cap);
    unsigned char* z = malloc(cap);
    void* out = malloc(n * es);
    void* out_zfp = malloc(n * es);
    double t[4][MAX_REPS], re[MAX_REPS], rd[MAX_REPS];
    size_t sn = 0, zn = 0;
    int r, ok = 1;
    if (only_mode && strcmp(only_mode, set[m].mode))
      goto next;
    /* correctness first: same bytes, same decoded array */
    if (parz_compress(a, data, p, s, cap, &sn, NULL) || parz_decompress(a, out, p, s, sn, NULL))
      ok = 0;
    zn = zfp_enc(a, data, p, z, cap);
    zfp_dec(a, out_zfp, p, z, zn);
    if (!ok || (zn + 7) / 8 * 8 != sn || memcmp(s, z, zn) || memcmp(out, out_zfp, n * es)) {
      printf("| %-8s | %-10s | %-8s | MISMATCH with libzfp: not timed |\n", name, set[m].mode,
             set[m].setting);
      goto next;
    }
    for (r = 0; r < reps; r++) {
      int o, first = r & 1; /* who goes first alternates: 0 = ours, 1 = libzfp */
      for (o = 0; o < 2; o++) {
        double t0 = now();
        if ((o ^ first) == 0)
          parz_compress(a, data, p, s, cap, &sn, NULL);
        else
          zn = zfp_enc(a, data, p, z, cap);
        t[(o ^ first) ? 1 : 0][r] = now() - t0;
      }
      for (o = 0; o < 2; o++) {
        double t0 = now();
        if ((o ^ first) == 0)
          parz_decompress(a, out, p, s, sn, NULL);
        else
          zfp_dec(a, out_zfp, p, z, zn);
        t[(o ^ first) ? 3 : 2][r] = now() - t0;
      }
      re[r] = t[1][r] / t[0][r];
      rd[r] = t[3][r] / t[2][r];
    }
    printf("| %-8s | %-10s | %-8s | %6.2f | %7.1f | %7.1f | %5.2fx | %7.1f | %7.1f | %5.2fx |\n",
           name, set[m].mode, set[m].setting, (double)(n * es) / (double)sn,
           mb / median(t[0], reps), mb / median(t[1], reps), median(re, reps),
           mb / median(t[2], reps), mb / median(t[3], reps), median(rd, reps));
    fflush(stdout);
  next:
    free(s);
    free(z);
    free(out);
    free(out_zfp);
  }
}

int main(int argc, char** argv) {
  int reps = 5, i, nfiles = 0;
  size_t maxvals = 0;
  char* files[64];
  const char* dir = "../shared/data";
  const char* only_mode = NULL;
  const char* only = NULL;
  double tol_rel = 0;
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--max-values") && i + 1 < argc)
      maxvals = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else if (!strcmp(argv[i], "--mode") && i + 1 < argc)
      only_mode = argv[++i];
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--tol") && i + 1 < argc)
      tol_rel = atof(argv[++i]);
    else if (nfiles < 64)
      files[nfiles++] = argv[i];
  }
  if (reps < 1 || reps > MAX_REPS)
    reps = 5;
  if (!nfiles) {
    DIR* d = opendir(dir);
    struct dirent* e;
    if (!d) {
      fprintf(stderr, "no files given and %s cannot be read\n", dir);
      return 1;
    }
    while ((e = readdir(d)) && nfiles < 64)
      if (strstr(e->d_name, ".bin")) {
        files[nfiles] = malloc(strlen(dir) + strlen(e->d_name) + 2);
        sprintf(files[nfiles++], "%s/%s", dir, e->d_name);
      }
    closedir(d);
  }
  printf(
      "serial codec throughput, MB/s of raw data per thread CPU second; medians of %d "
      "repetitions, ours and libzfp interleaved; ratio = median of per-repetition "
      "ours/libzfp speed\n",
      reps);
  printf("| %-8s | %-10s | %-8s | %6s | %7s | %7s | %6s | %7s | %7s | %6s |\n", "dataset", "mode",
         "setting", "ratio", "enc ours", "enc zfp", "enc", "dec ours", "dec zfp", "dec");
  printf(
      "|----------|------------|----------|--------|---------|---------|--------|---------|"
      "---------|--------|\n");
  for (i = 0; i < nfiles; i++) {
    parz_array a;
    const char* base = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];
    FILE* f;
    void* data;
    size_t n, es;
    char name[64];
    if (!parse_name(base, &a))
      continue;
    snprintf(name, sizeof name, "%.*s", (int)(strchr(base, '_') - base), base);
    if (only && !strstr(name, only))
      continue;
    n = parz_array_count(&a);
    es = parz_type_size(a.type);
    data = malloc(n * es);
    f = fopen(files[i], "rb");
    if (!f || fread(data, es, n, f) != n) {
      fprintf(stderr, "%s: cannot read\n", files[i]);
      if (f)
        fclose(f);
      free(data);
      continue;
    }
    fclose(f);
    if (maxvals && n > maxvals) {
      size_t slab = n / a.shape[0];
      a.shape[0] = maxvals / slab ? maxvals / slab : 1;
    }
    bench(name, &a, data, reps, only_mode, tol_rel);
    free(data);
  }
  return 0;
}
