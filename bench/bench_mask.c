/* Missing values (codec/FORMAT.md, "Mask"): masked variants of the real arrays through HDF5, ParZ
 * against gzip + shuffle and H5Z-ZFP, and the codec's decode speed masked against unmasked.
 *
 * Variants (those whose array is in --data):
 *   levitus nan        its -1e10 land as NaN
 *   levitus fill       land as shipped, -1e10 declared the dataset's fill value (h5py fillvalue=,
 *                      netCDF-4 _FillValue)
 *   levitus shipped    land as shipped, no fill value declared (every filter sees -1e10 values)
 *   etopo5 third       a third of its blocks NaN (by a hash of the block index)
 *   etopo5 land        its values above 0 NaN
 * Modes: accuracy --accuracy x the range of the valid values, and reversible. Chunks: levitus
 * 10x180x360, etopo5 1081x4320.
 *
 * Table 1, through HDF5 (H5Dwrite, H5Dread with the plugins; --plugin-dir or HDF5_PLUGIN_PATH):
 * per variant, mode and filter the ratio (array bytes / stored bytes), the largest error on the
 * valid values, whether the missing values came back bit for bit, and the best H5Dread time.
 * Filters: ParZ; ParZ with the mask off (NaN stored one by one, as before masks); gzip 4 after
 * shuffle (lossless); H5Z-ZFP (filter 32013) at the same tolerance, or reversible.
 *
 * Table 2, the codec alone (no HDF5): each variant as one chunk, against its unmasked twin (the
 * array itself; levitus with its land as 0), decoded alternately serially and with OpenMP
 * (--threads, 0 = every core), best of --reps; throughput counts the decoded bytes. Table 3: the
 * same encoded (the array's bytes per second).
 *
 * Usage: bench_mask [--data DIR] [--file scratch.h5] [--accuracy 1e-3] [--reps 5]
 *                   [--threads 0] [--plugin-dir DIR]... */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "H5Zparz.h"
#include "parz_omp.h"
#include "bench_clock.h"
#include "real_arrays.h"

#define H5Z_FILTER_ZFP 32013
#define ZFP_MODE_ACCURACY 3
#define ZFP_MODE_REVERSIBLE 5

typedef struct {
  const char* data_dir;
  const char* file;
  double accuracy;
  int reps, threads;
} options;

static void usage(void) {
  fprintf(stderr,
          "usage: bench_mask [--data DIR] [--file scratch.h5] [--accuracy 1e-3] "
          "[--reps 5] [--threads 0] [--plugin-dir DIR]...\n");
  exit(2);
}

/* A variant: the values (float32), which are missing, and the fill value when one is declared. */
typedef struct {
  const char* array;
  const char* name;
  parz_array a;
  float* data;
  unsigned char* missing; /* 1 where a value is missing */
  float* twin;            /* the unmasked array decoded against it */
  int has_fill;
  float fill;
  hsize_t chunk[3];
} variant;

static double range_of(const variant* v) {
  size_t n = parz_array_count(&v->a), i;
  double lo = INFINITY, hi = -INFINITY;
  for (i = 0; i < n; i++)
    if (!v->missing[i]) {
      lo = v->data[i] < lo ? v->data[i] : lo;
      hi = v->data[i] > hi ? v->data[i] : hi;
    }
  return hi > lo ? hi - lo : 1.0;
}

/* The variants of one real array (0, 2 or 3 of them). */
static int make_variants(const real_array* r, variant* out) {
  const size_t n = r->bytes / 4;
  const float nan = (float)NAN;
  size_t i;
  int k, count;
  if (strcmp(r->name, "levitus_temp") && strcmp(r->name, "etopo5_relief"))
    return 0;
  count = strcmp(r->name, "levitus_temp") ? 2 : 3;
  for (k = 0; k < count; k++) {
    variant* v = &out[k];
    memset(v, 0, sizeof *v);
    v->array = r->name;
    v->a = r->array;
    v->data = malloc(r->bytes);
    v->twin = malloc(r->bytes);
    v->missing = malloc(n);
    memcpy(v->data, r->data, r->bytes);
    memcpy(v->twin, r->data, r->bytes);
    for (i = 0; i < n; i++) {
      const float x = ((const float*)r->data)[i];
      if (!strcmp(r->name, "levitus_temp")) {
        v->missing[i] = x == -1e10f;
        if (v->missing[i])
          v->twin[i] = 0;
      } else if (k == 0) { /* a third of the blocks, by a hash of the block index */
        size_t y = i / r->array.shape[1], xx = i % r->array.shape[1];
        size_t block = y / 4 * ((r->array.shape[1] + 3) / 4) + xx / 4;
        v->missing[i] = ((block * 2654435761u) >> 7) % 3 == 0;
      } else {
        v->missing[i] = x > 0;
      }
    }
    if (!strcmp(r->name, "levitus_temp")) {
      static const char* const names[] = {"nan", "fill", "shipped"};
      v->name = names[k];
      v->has_fill = k == 1;
      v->fill = -1e10f;
      v->chunk[0] = 10;
      v->chunk[1] = 180;
      v->chunk[2] = 360;
    } else {
      v->name = k == 0 ? "third" : "land";
      v->chunk[0] = 1081;
      v->chunk[1] = 4320;
    }
    if (k == 0 || strcmp(r->name, "levitus_temp"))
      for (i = 0; i < n; i++)
        if (v->missing[i])
          v->data[i] = nan;
  }
  return count;
}

typedef struct {
  const char* name;
  H5Z_filter_t id; /* 0: gzip + shuffle */
  int mask_off;
} filter;

static const filter filters[] = {{"ParZ", H5Z_FILTER_PARZ, 0},
                                 {"ParZ mask off", H5Z_FILTER_PARZ, 1},
                                 {"gzip 4 + shuffle", 0, 0},
                                 {"H5Z-ZFP", H5Z_FILTER_ZFP, 0}};

/* The dataset creation properties of a filter in a mode (tol 0: reversible). */
static hid_t dcpl_for(const variant* v, const filter* f, double tol) {
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n;
  H5Pset_chunk(dcpl, (int)v->a.dims, v->chunk);
  if (v->has_fill)
    H5Pset_fill_value(dcpl, H5T_NATIVE_FLOAT, &v->fill);
  if (f->id == H5Z_FILTER_PARZ) {
    n = tol > 0 ? H5Z_parz_accuracy_cdata(tol, cd) : H5Z_parz_reversible_cdata(cd);
    if (f->mask_off)
      n = H5Z_parz_mask_cdata(n, H5Z_PARZ_MASK_OFF, cd);
    H5Pset_filter(dcpl, f->id, H5Z_FLAG_MANDATORY, n, cd);
  } else if (f->id == H5Z_FILTER_ZFP) {
    memset(cd, 0, sizeof cd);
    cd[0] = tol > 0 ? ZFP_MODE_ACCURACY : ZFP_MODE_REVERSIBLE;
    if (tol > 0)
      memcpy(&cd[2], &tol, sizeof tol); /* H5Z-ZFP's layout: a double as two native words */
    H5Pset_filter(dcpl, f->id, H5Z_FLAG_MANDATORY, 4, cd);
  } else {
    H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, 4);
  }
  return dcpl;
}

/* One row of table 1. */
static void hdf5_row(const variant* v, const filter* f, double tol, const options* o, float* back) {
  const size_t n = parz_array_count(&v->a);
  hsize_t dims[3] = {v->a.shape[0], v->a.shape[1], v->a.dims > 2 ? v->a.shape[2] : 1};
  hid_t file = H5Fcreate(o->file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t space = H5Screate_simple((int)v->a.dims, dims, NULL), dcpl = dcpl_for(v, f, tol), d;
  double best = INFINITY, err = 0;
  size_t i, exact = 1;
  hsize_t stored = 0;
  int k, ok;
  d = H5Dcreate2(file, "x", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ok = d >= 0 && H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v->data) >= 0;
  for (k = 0; ok && k < o->reps; k++) {
    double t0 = bench_now(), t;
    ok = H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0;
    t = bench_now() - t0;
    best = t < best ? t : best;
  }
  if (ok) {
    stored = H5Dget_storage_size(d);
    for (i = 0; i < n; i++) {
      if (v->missing[i]) {
        exact &= !memcmp(&back[i], &v->data[i], 4);
      } else {
        double e = fabs((double)back[i] - (double)v->data[i]);
        err = e > err || isnan(e) ? e : err;
      }
    }
    printf("| %s %s | %s | %s | %.2f | %.3g | %s | %.1f |\n", v->array, v->name,
           tol > 0 ? "accuracy" : "reversible", f->name, (double)(4 * n) / (double)stored, err,
           exact ? "yes" : "no", 1e3 * best);
  } else {
    printf("| %s %s | %s | %s | failed (filter missing? --plugin-dir) | | | |\n", v->array, v->name,
           tol > 0 ? "accuracy" : "reversible", f->name);
  }
  if (d >= 0)
    H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Fclose(file);
  H5Eclear2(H5E_DEFAULT);
}

/* One chunk of data under cfg (malloc'd, size in *bytes), or NULL. */
static unsigned char* encode(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                             size_t* bytes) {
  size_t cap = parz_chunk_bound_data(a, data, cfg);
  unsigned char* c = malloc(cap ? cap : 1);
  parz_error e;
  if (!c || parz_omp_chunk_encode(a, data, cfg, c, cap, bytes, 0, &e) != PARZ_OK) {
    fprintf(stderr, "encode: %s\n", e.message);
    free(c);
    return NULL;
  }
  return c;
}

/* The best times of step(arg, k, p) for the twin and the variant (k = 0, 1), serially and with
 * OpenMP (p = 0, 1), alternating, after a warm-up round; 0 when a step failed. */
typedef int (*timed_step)(void* arg, int k, int p);
static int best_of(int reps, timed_step step, void* arg, double best[2][2]) {
  int r, k, p;
  for (k = 0; k < 2; k++)
    best[k][0] = best[k][1] = INFINITY;
  for (r = 0; r < reps + 1; r++)
    for (k = 0; k < 2; k++)
      for (p = 0; p < 2; p++) {
        double t0 = bench_now(), t;
        if (!step(arg, k, p))
          return 0;
        t = bench_now() - t0;
        if (r > 0 && t < best[k][p])
          best[k][p] = t;
      }
  return 1;
}

/* The variant and its twin (data[k]), each one chunk (c[k], bytes[k]) under cfg. */
typedef struct {
  const variant* v;
  const options* o;
  parz_chunk_config cfg;
  const void* data[2];
  unsigned char* c[2];
  size_t bytes[2], cap[2];
  float* back;
} codec_case;

static int decode_step(void* arg, int k, int p) {
  codec_case* x = (codec_case*)arg;
  parz_error e;
  if (parz_omp_chunk_decode(x->c[k], x->bytes[k], x->back, 4 * parz_array_count(&x->v->a),
                            p ? x->o->threads : 1, &e) == PARZ_OK)
    return 1;
  fprintf(stderr, "decode: %s\n", e.message);
  return 0;
}

static int encode_step(void* arg, int k, int p) {
  codec_case* x = (codec_case*)arg;
  parz_error e;
  size_t n;
  if (parz_omp_chunk_encode(&x->v->a, x->data[k], &x->cfg, x->c[k], x->cap[k], &n,
                            p ? x->o->threads : 1, &e) == PARZ_OK &&
      n == x->bytes[k])
    return 1;
  fprintf(stderr, "encode: %s\n", e.message);
  return 0;
}

/* One row of table 2 (decoding) or 3 (encoding): the variant and its twin, each one chunk. */
static void codec_row(const variant* v, double tol, const options* o, float* back, int enc) {
  const size_t raw = 4 * parz_array_count(&v->a);
  codec_case x;
  double best[2][2];
  int k;
  memset(&x, 0, sizeof x);
  x.v = v;
  x.o = o;
  x.back = back;
  x.data[0] = v->twin;
  x.data[1] = v->data;
  if (tol > 0)
    parz_params_accuracy(&x.cfg.params, tol, NULL, NULL);
  else
    parz_params_reversible(&x.cfg.params);
  x.cfg.fill = v->has_fill;
  memcpy(&x.cfg.fill_bits, &v->fill, 4);
  x.cfg.fill_bits &= 0xffffffffu;
  for (k = 0; k < 2; k++) {
    x.c[k] = encode(&v->a, x.data[k], &x.cfg, &x.bytes[k]);
    x.cap[k] = parz_chunk_bound_data(&v->a, x.data[k], &x.cfg);
  }
  if (x.c[0] && x.c[1] && best_of(o->reps, enc ? encode_step : decode_step, &x, best))
    printf("| %s %s | %s | %.2f / %.2f | %.0f / %.0f | %.2f | %.0f / %.0f | %.2f |\n", v->array,
           v->name, tol > 0 ? "accuracy" : "reversible", (double)raw / (double)x.bytes[0],
           (double)raw / (double)x.bytes[1], raw / best[0][0] / 1e6, raw / best[1][0] / 1e6,
           best[0][0] / best[1][0], raw / best[0][1] / 1e6, raw / best[1][1] / 1e6,
           best[0][1] / best[1][1]);
  free(x.c[0]);
  free(x.c[1]);
}

int main(int argc, char** argv) {
  options o = {NULL, "bench_mask.h5", 1e-3, 5, 0};
  variant vs[8];
  real_array* arrays;
  size_t narrays, i;
  int nv = 0, k, f, m;
  for (k = 1; k < argc; k++) {
    if (!strcmp(argv[k], "--data") && k + 1 < argc)
      o.data_dir = argv[++k];
    else if (!strcmp(argv[k], "--file") && k + 1 < argc)
      o.file = argv[++k];
    else if (!strcmp(argv[k], "--accuracy") && k + 1 < argc)
      o.accuracy = atof(argv[++k]);
    else if (!strcmp(argv[k], "--reps") && k + 1 < argc)
      o.reps = atoi(argv[++k]);
    else if (!strcmp(argv[k], "--threads") && k + 1 < argc)
      o.threads = atoi(argv[++k]);
    else if (!strcmp(argv[k], "--plugin-dir") && k + 1 < argc)
      H5PLprepend(argv[++k]);
    else
      usage();
  }
  if (!o.data_dir)
    o.data_dir = getenv("PARZ_SHARED_DATA");
  arrays = real_arrays_load(o.data_dir ? o.data_dir : "../shared/data", 0, &narrays);
  for (i = 0; i < narrays; i++)
    nv += make_variants(&arrays[i], vs + nv);
  if (!nv) {
    fprintf(stderr, "bench_mask: neither levitus nor etopo5 in %s\n", o.data_dir);
    return 1;
  }
  printf(
      "Missing values through HDF5: ratio, largest error on the valid values, missing values "
      "back bit for bit, best H5Dread ms of %d (accuracy %g x the valid range)\n\n"
      "| variant | mode | filter | ratio | max error (valid) | missing exact | read ms |\n"
      "|---|---|---|---|---|---|---|\n",
      o.reps, o.accuracy);
  for (k = 0; k < nv; k++) {
    float* back = malloc(4 * parz_array_count(&vs[k].a));
    for (m = 0; m < 2; m++)
      for (f = 0; f < (int)(sizeof filters / sizeof filters[0]); f++)
        hdf5_row(&vs[k], &filters[f], m ? 0 : o.accuracy * range_of(&vs[k]), &o, back);
    free(back);
    fflush(stdout);
  }
  printf(
      "\nThe codec alone, each variant one chunk against its unmasked twin (the array; "
      "levitus with land 0), decoded alternately, best of %d: MB/s serial and with OpenMP "
      "(%d threads, 0 = every core)\n\n"
      "| variant | mode | ratio unmasked / masked | serial MB/s unmasked / masked | "
      "masked / unmasked | OpenMP MB/s unmasked / masked | masked / unmasked |\n"
      "|---|---|---|---|---|---|---|\n",
      o.reps, o.threads);
  for (f = 0; f < 2; f++) {
    if (f)
      printf(
          "\nThe same, encoded alternately (the chunks above rewritten): MB/s serial and with "
          "OpenMP\n\n"
          "| variant | mode | ratio unmasked / masked | serial MB/s unmasked / masked | "
          "masked / unmasked | OpenMP MB/s unmasked / masked | masked / unmasked |\n"
          "|---|---|---|---|---|---|---|\n");
    for (k = 0; k < nv; k++) {
      float* back = malloc(4 * parz_array_count(&vs[k].a));
      if (strcmp(vs[k].name, "shipped"))
        for (m = 0; m < 2; m++)
          codec_row(&vs[k], m ? 0 : o.accuracy * range_of(&vs[k]), &o, back, f);
      free(back);
      fflush(stdout);
    }
  }
  for (k = 0; k < nv; k++) {
    free(vs[k].data);
    free(vs[k].twin);
    free(vs[k].missing);
  }
  remove(o.file);
  real_arrays_free(arrays, narrays);
  return 0;
}
