/* The lossless lab: codes each real array with every peer and every candidate, checks each
 * decode bit for bit, and prints ratio and one-core encode and decode MB/s (raw bytes over the
 * thread's CPU time, best of --reps rounds) as Markdown tables, with the geomean over the
 * arrays. Usage:
 *   lossless_lab [--reps N] [--max-mib M] [--only NAME] [--methods TEXT] [--ndzip BINARY] PATH...
 * --only: the arrays whose name holds NAME; --methods: the methods whose name holds TEXT.
 * PATH: a directory of name_f32le_AxB.bin arrays or one such file. Arrays of one dimension, or
 * of two whose rows are series (a directory named "series"), also get the 1D candidates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_clock.h"
#include "lab.h"
#include "real_arrays.h"

#define MAX_METHODS 64
#define MAX_ARRAYS 64

typedef struct {
  double ratio, enc, dec; /* 0 ratio: failed */
  int exact;
} cell;

static lab_method methods[MAX_METHODS];
static size_t nmethods;
static cell cells[MAX_ARRAYS][MAX_METHODS];

static void to_lab(const real_array* r, lab_array* a) {
  memset(a, 0, sizeof *a);
  a->name = r->name;
  a->data = r->data;
  a->f64 = r->array.type == PARZ_DOUBLE;
  for (unsigned i = 0; i < r->array.dims; i++)
    if (r->array.shape[i] > 1)
      a->dims[a->ndim++] = r->array.shape[i];
  if (a->ndim == 0)
    a->dims[a->ndim++] = 1;
  a->n = 1;
  for (int i = 0; i < a->ndim; i++)
    a->n *= a->dims[i];
  a->bytes = a->n * (a->f64 ? 8 : 4);
}

static cell measure(const lab_method* m, const lab_array* a, int reps) {
  cell c = {0, 0, 0, 0};
  size_t cap = a->bytes * 2 + (1 << 20), len = 0;
  uint8_t* buf = malloc(cap);
  uint8_t* back = malloc(a->bytes + 64);
  double enc = 1e30, dec = 1e30;
  int bad = 0;
  for (int r = 0; r < reps && !bad; r++) {
    double t0 = bench_thread_cpu();
    len = m->encode(a, buf, cap, m->arg);
    double t1 = bench_thread_cpu();
    if (!len) {
      bad = 1;
      break;
    }
    memset(back, 0xa5, a->bytes);
    double t2 = bench_thread_cpu();
    int rc = m->decode(buf, len, a, back, m->arg);
    double t3 = bench_thread_cpu();
    if (rc || memcmp(back, a->data, a->bytes) != 0) {
      fprintf(stderr, "%s on %s: %s\n", m->name, a->name, rc ? "decode failed" : "NOT EXACT");
      bad = 1;
      break;
    }
    if (t1 - t0 < enc)
      enc = t1 - t0;
    if (t3 - t2 < dec)
      dec = t3 - t2;
  }
  if (!bad) {
    c.ratio = (double)a->bytes / (double)len;
    c.enc = a->bytes / 1e6 / (enc > 1e-9 ? enc : 1e-9);
    c.dec = a->bytes / 1e6 / (dec > 1e-9 ? dec : 1e-9);
    c.exact = 1;
  }
  free(buf);
  free(back);
  return c;
}

/* ndzip, the peer with no library here: its command-line tool, timed by wall clock around the
 * process (file reads from the page cache included), one thread. */
static cell measure_ndzip(const char* tool, const char* file, const lab_array* a, int reps) {
  cell c = {0, 0, 0, 0};
  if (a->ndim > 3)
    return c;
  char dims[96] = "", cmd[1024], zfile[256], back[256];
  for (int i = 0; i < a->ndim; i++)
    snprintf(dims + strlen(dims), sizeof dims - strlen(dims), " %zu", a->dims[i]);
  snprintf(zfile, sizeof zfile, "/tmp/lossless_lab_%d.ndz", (int)getpid());
  snprintf(back, sizeof back, "/tmp/lossless_lab_%d.back", (int)getpid());
  double enc = 1e30, dec = 1e30;
  for (int r = 0; r < reps; r++) {
    snprintf(cmd, sizeof cmd, "%s -T 1 -t %s -n%s -i %s -o %s > /dev/null 2>&1", tool,
             a->f64 ? "double" : "float", dims, file, zfile);
    double t0 = bench_now();
    if (system(cmd) != 0)
      return c;
    double t1 = bench_now();
    snprintf(cmd, sizeof cmd, "%s -d -T 1 -t %s -n%s -i %s -o %s > /dev/null 2>&1", tool,
             a->f64 ? "double" : "float", dims, zfile, back);
    if (system(cmd) != 0)
      return c;
    double t2 = bench_now();
    if (t1 - t0 < enc)
      enc = t1 - t0;
    if (t2 - t1 < dec)
      dec = t2 - t1;
  }
  struct stat sz;
  FILE* f = fopen(back, "rb");
  uint8_t* got = malloc(a->bytes);
  int same = f && fread(got, 1, a->bytes, f) == a->bytes && !memcmp(got, a->data, a->bytes);
  if (f)
    fclose(f);
  free(got);
  if (same && stat(zfile, &sz) == 0) {
    c.ratio = (double)a->bytes / (double)sz.st_size;
    c.enc = a->bytes / 1e6 / enc;
    c.dec = a->bytes / 1e6 / dec;
    c.exact = 1;
  }
  remove(zfile);
  remove(back);
  return c;
}

int main(int argc, char** argv) {
  int reps = 3;
  double max_mib = 0;
  const char *only = NULL, *ndzip = NULL, *which = NULL;
  real_array arrays[MAX_ARRAYS];
  char files[MAX_ARRAYS][512];
  int series[MAX_ARRAYS];
  size_t na = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--max-mib") && i + 1 < argc) {
      max_mib = atof(argv[++i]);
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
    } else if (!strcmp(argv[i], "--methods") && i + 1 < argc) {
      which = argv[++i];
    } else if (!strcmp(argv[i], "--ndzip") && i + 1 < argc) {
      ndzip = argv[++i];
    } else {
      size_t n = 0;
      real_array* list = real_arrays_load(argv[i], (size_t)(max_mib * 1048576), &n);
      int is_series = strstr(argv[i], "series") != NULL;
      for (size_t k = 0; k < n && na < MAX_ARRAYS; k++) {
        if (only && !strstr(list[k].name, only))
          continue;
        arrays[na] = list[k];
        list[k].data = NULL;
        series[na] = is_series || list[k].array.dims == 1;
        snprintf(files[na], sizeof files[na], "%s/%s", argv[i], "");
        na++;
      }
      real_arrays_free(list, n);
    }
  }
  if (!na) {
    fprintf(stderr,
            "usage: %s [--reps N] [--max-mib M] [--only NAME] [--methods TEXT] [--ndzip BIN] "
            "DIR...\n",
            argv[0]);
    return 2;
  }
  nmethods = lab_peer_methods(methods, 0, MAX_METHODS);
  size_t npeers = nmethods;
  nmethods = lab_grid_methods(methods, nmethods, MAX_METHODS);
  nmethods = lab_core_methods(methods, nmethods, MAX_METHODS);
  size_t ngrid = nmethods;
  nmethods = lab_series_methods(methods, nmethods, MAX_METHODS);
  int have_ndzip = ndzip != NULL;

  printf("| array | dtype | shape | method | ratio | encode MB/s | decode MB/s |\n");
  printf("|---|---|---|---|---:|---:|---:|\n");
  for (size_t k = 0; k < na; k++) {
    lab_array a;
    to_lab(&arrays[k], &a);
    char shape[64] = "";
    for (int i = 0; i < a.ndim; i++)
      snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%zu", i ? "x" : "",
               a.dims[i]);
    for (size_t m = 0; m < nmethods; m++) {
      if ((methods[m].series_only && !series[k]) || (which && !strstr(methods[m].name, which)))
        continue;
      cells[k][m] = measure(&methods[m], &a, reps);
      cell* c = &cells[k][m];
      printf("| %s | %s | %s | %s | %.3f | %.0f | %.0f |\n", a.name, a.f64 ? "f64" : "f32", shape,
             methods[m].name, c->ratio, c->enc, c->dec);
      fflush(stdout);
    }
    if (have_ndzip) {
      /* ndzip reads the raw file: write the (possibly cut) array out for it. */
      char raw[256];
      snprintf(raw, sizeof raw, "/tmp/lossless_lab_%d.raw", (int)getpid());
      FILE* f = fopen(raw, "wb");
      if (f) {
        fwrite(a.data, 1, a.bytes, f);
        fclose(f);
      }
      cell c = measure_ndzip(ndzip, raw, &a, reps);
      remove(raw);
      cells[k][nmethods] = c;
      printf("| %s | %s | %s | ndzip (process wall) | %.3f | %.0f | %.0f |\n", a.name,
             a.f64 ? "f64" : "f32", shape, c.ratio, c.enc, c.dec);
      fflush(stdout);
    }
  }

  /* Geomeans over the grid arrays (the 1D series apart). */
  printf(
      "\n| method | geomean ratio (grids) | geomean ratio (series) | encode MB/s (grids, "
      "geomean) | decode MB/s (grids, geomean) | arrays |\n|---|---:|---:|---:|---:|---:|\n");
  for (size_t m = 0; m < nmethods + (size_t)have_ndzip; m++) {
    if (m < nmethods && which && !strstr(methods[m].name, which))
      continue;
    double lg[2] = {0, 0}, le = 0, ld = 0;
    int cnt[2] = {0, 0}, fail = 0;
    for (size_t k = 0; k < na; k++) {
      if (m < nmethods && methods[m].series_only && !series[k])
        continue;
      cell* c = &cells[k][m];
      if (!c->exact) {
        fail++;
        continue;
      }
      int s = series[k];
      lg[s] += log(c->ratio);
      cnt[s]++;
      if (!s) {
        le += log(c->enc);
        ld += log(c->dec);
      }
    }
    const char* name = m < nmethods ? methods[m].name : "ndzip (process wall)";
    printf("| %s | %.3f | %.3f | %.0f | %.0f | %d%s |\n", name, cnt[0] ? exp(lg[0] / cnt[0]) : 0,
           cnt[1] ? exp(lg[1] / cnt[1]) : 0, cnt[0] ? exp(le / cnt[0]) : 0,
           cnt[0] ? exp(ld / cnt[0]) : 0, cnt[0] + cnt[1], fail ? " (some failed)" : "");
  }
  (void)npeers;
  (void)ngrid;
  for (size_t k = 0; k < na; k++)
    free(arrays[k].data);
  return 0;
}
