/* Serial codec throughput, ParZ vs libzfp 1.0, on the same arrays and the same parameters,
 * measured side by side: repetitions alternate between the two libraries, and each number is
 * the median. Prints MB/s (of uncompressed data) and the ratio ours/libzfp per dataset and
 * mode, for encode and decode.
 *
 *   bench_codec [--reps N] [--max-values N] [FILE.bin ...]   (default: ../shared/data/*.bin)
 *
 * Files are raw little-endian arrays named <name>_f32le_AxBxC.bin (or f64le). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zfp.h>

#include "parz.h"

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void* a, const void* b)
{
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(double* v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int parse_name(const char* name, parz_array* a)
{
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

static zfp_field* field(const parz_array* a, void* data)
{
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
                      size_t cap)
{
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

static void zfp_dec(const parz_array* a, void* data, const parz_params* p, void* src, size_t n)
{
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

static void bench(const char* name, const parz_array* a, const void* data, int reps)
{
  size_t n = parz_array_count(a), es = parz_type_size(a->type), i;
  double lo = INFINITY, hi = -INFINITY, mb = (double)(n * es) / 1e6;
  parz_params ps[4];
  const char* modes[4] = {"accuracy", "precision", "rate", "reversible"};
  int m;
  for (i = 0; i < n; i++) {
    double v = a->type == PARZ_FLOAT ? ((const float*)data)[i] : ((const double*)data)[i];
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  parz_params_accuracy(&ps[0], 1e-4 * (hi - lo), NULL, NULL);
  parz_params_precision(&ps[1], a->type == PARZ_FLOAT ? 16 : 32, NULL);
  parz_params_rate(&ps[2], a->type == PARZ_FLOAT ? 8 : 16, a->type, a->dims, NULL, NULL);
  parz_params_reversible(&ps[3]);
  for (m = 0; m < 4; m++) {
    size_t cap = parz_stream_bound(a->type, a->dims, &ps[m], parz_block_count(a)) + 64;
    unsigned char* s = malloc(cap);
    unsigned char* z = malloc(cap);
    void* out = malloc(n * es);
    double te[2][64], td[2][64];
    size_t sn = 0, zn = 0;
    int r;
    for (r = 0; r < reps; r++) {
      double t0 = now();
      parz_compress(a, data, &ps[m], s, cap, &sn, NULL);
      te[0][r] = now() - t0;
      t0 = now();
      zn = zfp_enc(a, data, &ps[m], z, cap);
      te[1][r] = now() - t0;
      t0 = now();
      parz_decompress(a, out, &ps[m], s, sn, NULL);
      td[0][r] = now() - t0;
      t0 = now();
      zfp_dec(a, out, &ps[m], z, zn);
      td[1][r] = now() - t0;
    }
    if ((zn + 7) / 8 * 8 != sn || memcmp(s, z, zn))
      printf("WARNING: %s %s: streams differ\n", name, modes[m]);
    {
      double e0 = mb / median(te[0], reps), e1 = mb / median(te[1], reps);
      double d0 = mb / median(td[0], reps), d1 = mb / median(td[1], reps);
      printf("| %-22s | %-10s | %6.2f | %7.1f | %7.1f | %5.2fx | %7.1f | %7.1f | %5.2fx |\n",
             name, modes[m], (double)(n * es) / (double)sn, e0, e1, e0 / e1, d0, d1, d0 / d1);
      fflush(stdout);
    }
    free(s);
    free(z);
    free(out);
  }
}

int main(int argc, char** argv)
{
  int reps = 5, i, nfiles = 0;
  size_t maxvals = 0;
  char* files[64];
  const char* dir = "../shared/data";
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--max-values") && i + 1 < argc)
      maxvals = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else if (nfiles < 64)
      files[nfiles++] = argv[i];
  }
  if (reps < 1 || reps > 64)
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
  printf("serial codec throughput, MB/s of raw data, median of %d interleaved repetitions\n",
         reps);
  printf("| %-22s | %-10s | %6s | %7s | %7s | %6s | %7s | %7s | %6s |\n", "dataset", "mode",
         "ratio", "enc ours", "enc zfp", "enc", "dec ours", "dec zfp", "dec");
  printf("|------------------------|------------|--------|---------|---------|--------|---------|"
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
    snprintf(name, sizeof name, "%.*s", (int)(strchr(base, '_') - base), base);
    bench(name, &a, data, reps);
    free(data);
  }
  return 0;
}
