/* Real arrays from ../shared/data, each encoded as one chunk in accuracy mode with tolerance
 * 1e-3 of its value range: checks the error bound and prints the table overhead (table bytes /
 * payload bytes) at the default C and P, and the CPU times of the chunk path next to the bare codec.
 * With --sweep, also the overhead for C in {8, 16, 32, 64, 128, 256, 1024}; with --repeat N the
 * times are the best of N runs (the numbers in codec/FORMAT.md and the reports).
 * Usage: test_chunk_realdata DATA_DIR [--sweep] [--repeat N] */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_chunk_common.h"

static const char* files[] = {
    "etopo5_relief_f32le_2161x4320.bin",      "levitus_temp_f32le_20x180x360.bin",
    "egm96_geoid_f32le_721x1440.bin",         "ccsm_trefht_ens_f32le_8x110x64x128.bin",
    "vasp_fepo4_chgcar_f64le_72x192x160.bin", "hst_acs_hrc_ngc104_sci_f32le_1024x1024.bin",
};

/* Process CPU time: single-threaded code measured on a shared machine is then less at the mercy
 * of other processes than with wall-clock time. */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Shape and type from a name like "x_f32le_20x180x360.bin". */
static int parse_name(const char* name, parz_array* a) {
  const char* p = strstr(name, "le_");
  unsigned d = 0;
  memset(a, 0, sizeof *a);
  if (!p)
    return 0;
  a->type = strstr(name, "_f64le_") ? PARZ_DOUBLE : PARZ_FLOAT;
  p += 3;
  while (d < 4) {
    char* end;
    a->shape[d++] = strtoul(p, &end, 10);
    if (*end != 'x')
      break;
    p = end + 1;
  }
  a->dims = d;
  return 1;
}

static double value(const parz_array* a, const void* d, size_t i) {
  return a->type == PARZ_DOUBLE ? ((const double*)d)[i] : ((const float*)d)[i];
}

int main(int argc, char** argv) {
  static const uint32_t sweep[] = {8, 16, 32, 64, 128, 256, 1024};
  int do_sweep = 0, repeat = 1, i0;
  size_t f;
  for (i0 = 2; i0 < argc; i0++) {
    if (!strcmp(argv[i0], "--sweep"))
      do_sweep = 1;
    else if (!strcmp(argv[i0], "--repeat") && i0 + 1 < argc)
      repeat = atoi(argv[++i0]);
  }
  if (repeat < 1)
    repeat = 1;
  if (argc < 2) {
    fprintf(stderr, "usage: %s DATA_DIR [--sweep]\n", argv[0]);
    return 2;
  }
  printf("%-44s %8s %10s %8s %9s | %8s %8s %8s %8s\n", "array (accuracy 1e-3 * range)", "ratio",
         "payload", "table", "overhead", "enc ms", "zfp-enc", "dec ms", "zfp-dec");
  for (f = 0; f < sizeof files / sizeof files[0]; f++) {
    char path[1024];
    parz_array a;
    parz_chunk_config cfg;
    parz_chunk_view v;
    parz_error err;
    size_t n, raw, i, bytes = 0, cap, zbytes = 0;
    void *data, *back, *zbuf;
    unsigned char* chunk;
    double lo = INFINITY, hi = -INFINITY, tol, maxerr = 0, t0;
    double t_enc = INFINITY, t_dec = INFINITY, t_zenc = INFINITY, t_zdec = INFINITY;
    int rep;
    FILE* fp;
    snprintf(path, sizeof path, "%s/%s", argv[1], files[f]);
    parse_name(files[f], &a);
    n = test_count(&a);
    raw = n * parz_type_size(a.type);
    data = malloc(raw);
    back = malloc(raw);
    fp = fopen(path, "rb");
    if (!fp || fread(data, 1, raw, fp) != raw) {
      fprintf(stderr, "cannot read %s\n", path);
      return 2;
    }
    fclose(fp);
    for (i = 0; i < n; i++) {
      double x = value(&a, data, i);
      if (x < lo)
        lo = x;
      if (x > hi)
        hi = x;
    }
    tol = 1e-3 * (hi - lo);
    memset(&cfg, 0, sizeof cfg);
    parz_params_accuracy(&cfg.params, tol, NULL, NULL);
    cap = parz_chunk_bound(&a, &cfg);
    chunk = malloc(cap);
    zbuf = malloc(parz_stream_bound(a.type, a.dims, &cfg.params, parz_block_count(&a)));
    for (rep = 0; rep < repeat; rep++) { /* interleaved, best of `repeat` */
      size_t zcap = parz_stream_bound(a.type, a.dims, &cfg.params, parz_block_count(&a));
      t0 = now();
      CHECK(parz_chunk_encode(&a, data, &cfg, chunk, cap, &bytes, &err) == PARZ_OK, "%s: %s",
            files[f], err.message);
      t_enc = fmin(t_enc, now() - t0);
      t0 = now();
      CHECK(parz_chunk_decode(chunk, bytes, back, raw, &err) == PARZ_OK, "%s: %s", files[f],
            err.message);
      t_dec = fmin(t_dec, now() - t0);
      /* the bare codec on the same data, for comparison */
      t0 = now();
      parz_compress(&a, data, &cfg.params, zbuf, zcap, &zbytes, NULL);
      t_zenc = fmin(t_zenc, now() - t0);
      t0 = now();
      parz_decompress(&a, back, &cfg.params, zbuf, zbytes, NULL);
      t_zdec = fmin(t_zdec, now() - t0);
    }
    parz_chunk_decode(chunk, bytes, back, raw, &err);
    for (i = 0; i < n; i++) {
      double e = fabs(value(&a, data, i) - value(&a, back, i));
      if (e > maxerr)
        maxerr = e;
    }
    CHECK(maxerr <= tol, "%s: max error %g above tolerance %g", files[f], maxerr, tol);
    parz_chunk_parse(chunk, bytes, &v, &err);
    printf("%-44.44s %8.2f %10zu %8zu %8.3f%% | %8.1f %8.1f %8.1f %8.1f\n", files[f],
           (double)raw / bytes, v.payload_bytes, v.table_bytes,
           100.0 * v.table_bytes / v.payload_bytes, 1e3 * t_enc, 1e3 * t_zenc, 1e3 * t_dec,
           1e3 * t_zdec);
    CHECK(v.payload_bytes == zbytes, "%s: chunk payload %zu vs bare stream %zu", files[f],
          v.payload_bytes, zbytes);
    if (do_sweep) {
      size_t k;
      printf("    C:");
      for (k = 0; k < sizeof sweep / sizeof sweep[0]; k++) {
        size_t b2 = 0;
        parz_chunk_view v2;
        cfg.segment_blocks = sweep[k];
        parz_chunk_encode(&a, data, &cfg, chunk, cap, &b2, NULL);
        parz_chunk_parse(chunk, b2, &v2, NULL);
        printf("  %u: %.3f%%", sweep[k], 100.0 * v2.table_bytes / v2.payload_bytes);
      }
      printf("\n");
      cfg.segment_blocks = 0;
    }
    free(zbuf);
    free(chunk);
    free(data);
    free(back);
  }
  return test_finish("test_chunk_realdata");
}
