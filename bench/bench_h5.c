/* Peers through HDF5: the same array stored with ParZ (filter 37050), with H5Z-ZFP (filter
 * 32013, Debian hdf5-filter-plugin-zfp-serial) and without a filter, each read back whole with
 * H5Dread. Filters are found through HDF5_PLUGIN_PATH (scripts/bench.sh sets it). Built only
 * when HDF5 is found (PARZ_BENCH_HAVE_HDF5). Also loads user datasets named "file.h5:/path". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifdef PARZ_BENCH_HAVE_HDF5
#include <hdf5.h>

#include "H5Zparz.h"

#define H5Z_FILTER_ZFP 32013

struct bench_h5 {
  char path[4096];
  hid_t file, dset, mem_type;
  void* out;
};

int bench_h5_available(void) { return 1; }

static H5Z_filter_t filter_id(bench_h5_filter f) {
  return f == BENCH_H5_PARZ ? H5Z_FILTER_PARZ : H5Z_FILTER_ZFP;
}

int bench_h5_filter_available(bench_h5_filter f) {
  htri_t ok;
  if (f == BENCH_H5_NONE)
    return 1;
  H5E_BEGIN_TRY { ok = H5Zfilter_avail(filter_id(f)); }
  H5E_END_TRY;
  return ok > 0;
}

/* H5Z-ZFP's generic cd_values: mode, an unused word, then the mode's value; doubles are stored
 * as the two native words of the value (its own convention). */
static size_t zfp_cdata(const bench_setting* s, unsigned* cd) {
  memset(cd, 0, 6 * sizeof *cd);
  if (!strcmp(s->mode, "reversible")) {
    cd[0] = 5;
    return 1;
  }
  if (!strcmp(s->mode, "precision")) {
    cd[0] = 2;
    cd[2] = (unsigned)s->value;
    return 3;
  }
  cd[0] = !strcmp(s->mode, "rate") ? 1 : 3;
  memcpy(&cd[2], &s->value, sizeof s->value);
  return 4;
}

static size_t parz_cdata(const bench_setting* s, unsigned* cd) {
  if (!strcmp(s->mode, "reversible"))
    return H5Z_parz_reversible_cdata(cd);
  if (!strcmp(s->mode, "precision"))
    return H5Z_parz_precision_cdata((unsigned)s->value, cd);
  if (!strcmp(s->mode, "rate"))
    return H5Z_parz_rate_cdata(s->value, cd);
  return H5Z_parz_accuracy_cdata(s->value, cd);
}

static int h5_dims(const bench_data* d, hsize_t* dims) {
  int rank = (int)d->array.dims, i;
  for (i = 0; i < rank; i++)
    dims[i] = d->array.shape[i];
  if (rank == 4) {
    dims[1] *= dims[0];
    memmove(dims, dims + 1, 3 * sizeof *dims);
    rank = 3;
  }
  return rank;
}

static hid_t mem_type(const bench_data* d) {
  return d->array.type == PARZ_FLOAT ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
}

/* Creates the file (fapl: where it lives), writes d as dataset "data" (one chunk, filter f) and
 * closes it; 0 on success. The chunk is written, so filtered, by H5Dwrite. */
static int write_file(const char* path, hid_t fapl, const bench_data* d, const bench_setting* s,
                      bench_h5_filter f) {
  hsize_t dims[4];
  int rank = h5_dims(d, dims);
  hid_t file = -1, space = -1, dcpl = -1, dset = -1;
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t ncd;
  herr_t ok = -1;
  H5E_BEGIN_TRY {
    file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    space = H5Screate_simple(rank, dims, NULL);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (file >= 0 && space >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, rank, dims) >= 0) {
      ok = 0;
      if (f != BENCH_H5_NONE) {
        ncd = f == BENCH_H5_PARZ ? parz_cdata(s, cd) : zfp_cdata(s, cd);
        ok = H5Pset_filter(dcpl, filter_id(f), H5Z_FLAG_MANDATORY, ncd, cd);
      }
      if (ok >= 0) {
        dset = H5Dcreate2(file, "data", mem_type(d), space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        ok = dset >= 0 ? H5Dwrite(dset, mem_type(d), H5S_ALL, H5S_ALL, H5P_DEFAULT, d->data) : -1;
      }
    }
    if (dset >= 0 && H5Dclose(dset) < 0)
      ok = -1;
    if (dcpl >= 0)
      H5Pclose(dcpl);
    if (space >= 0)
      H5Sclose(space);
    if (file >= 0 && H5Fclose(file) < 0)
      ok = -1;
  }
  H5E_END_TRY;
  return ok >= 0 ? 0 : -1;
}

/* Sets the filter's execution policy in the environment (it reads it per call). */
static void set_policy(const char* exec, int threads) {
  char n[16];
  if (exec) {
    snprintf(n, sizeof n, "%d", threads);
    setenv("PARZ_EXEC", exec, 1);
    setenv("PARZ_THREADS", n, 1);
  } else {
    unsetenv("PARZ_EXEC");
    unsetenv("PARZ_THREADS");
  }
}

double bench_h5_write(void* ctx) {
  const bench_h5_writer* w = (const bench_h5_writer*)ctx;
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  size_t grow = w->d->bytes > (1u << 20) ? w->d->bytes : (1u << 20);
  double t0;
  int ok;
  /* a file in memory (core driver, no backing store): the filter and HDF5 are timed, no disk */
  if (fapl < 0 || H5Pset_fapl_core(fapl, grow, 0) < 0) {
    if (fapl >= 0)
      H5Pclose(fapl);
    return -1;
  }
  set_policy(w->exec, w->threads);
  t0 = bench_now();
  ok = write_file("parz-bench-write.h5", fapl, w->d, w->s, w->f) == 0;
  t0 = bench_now() - t0;
  H5Pclose(fapl);
  return ok ? t0 : -1;
}

bench_h5* bench_h5_create(const char* path, const bench_data* d, const bench_setting* s,
                          bench_h5_filter f, bench_quality* q) {
  bench_h5* h = (bench_h5*)calloc(1, sizeof *h);
  int ok;
  if (!h)
    return NULL;
  h->file = h->dset = -1;
  h->mem_type = mem_type(d);
  snprintf(h->path, sizeof h->path, "%s", path);
  h->out = malloc(d->bytes);
  if (!h->out)
    goto fail;
  bench_touch(h->out, d->bytes);
  set_policy(NULL, 0);
  ok = write_file(path, H5P_DEFAULT, d, s, f) == 0;
  H5E_BEGIN_TRY {
    /* reopened read-only: reads then come from the file, not from a cached chunk */
    h->file = ok ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
    h->dset = h->file >= 0 ? H5Dopen2(h->file, "data", H5P_DEFAULT) : -1;
  }
  H5E_END_TRY;
  if (h->dset < 0)
    goto fail;
  q->compressed_bytes = (double)H5Dget_storage_size(h->dset);
  q->payload_bytes = q->compressed_bytes;
  q->table_bytes = -1;
  {
    bench_h5_reader r = {h, NULL, 0};
    if (bench_h5_read(&r) < 0)
      goto fail;
  }
  bench_errors(&d->array, d->data, h->out, d->range, q);
  return h;
fail:
  bench_h5_free(h);
  return NULL;
}

double bench_h5_read(void* ctx) {
  const bench_h5_reader* r = (const bench_h5_reader*)ctx;
  bench_h5* h = r->h;
  double t0;
  herr_t ok;
  set_policy(r->exec, r->threads);
  t0 = bench_now();
  H5E_BEGIN_TRY { ok = H5Dread(h->dset, h->mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, h->out); }
  H5E_END_TRY;
  return ok >= 0 ? bench_now() - t0 : -1;
}

void bench_h5_free(bench_h5* h) {
  if (!h)
    return;
  if (h->dset >= 0)
    H5Dclose(h->dset);
  if (h->file >= 0) {
    H5Fclose(h->file);
    remove(h->path);
  }
  free(h->out);
  free(h);
}

int bench_h5_load(const char* spec, bench_data* d, char* msg, size_t msg_bytes) {
  char file[4096];
  const char* colon = strrchr(spec, ':');
  hid_t f = -1, ds = -1, sp = -1, t = -1;
  hsize_t dims[H5S_MAX_RANK];
  int rank = 0, i, ok = 0;
  unsigned kept = 0;
  memset(d, 0, sizeof *d);
  if (!colon || (size_t)(colon - spec) >= sizeof file) {
    snprintf(msg, msg_bytes, "%s: expected FILE.h5:/dataset", spec);
    return 0;
  }
  memcpy(file, spec, (size_t)(colon - spec));
  file[colon - spec] = '\0';
  H5E_BEGIN_TRY {
    f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    ds = f >= 0 ? H5Dopen2(f, colon + 1, H5P_DEFAULT) : -1;
    sp = ds >= 0 ? H5Dget_space(ds) : -1;
    t = ds >= 0 ? H5Dget_type(ds) : -1;
    rank = sp >= 0 ? H5Sget_simple_extent_dims(sp, dims, NULL) : -1;
  }
  H5E_END_TRY;
  if (rank <= 0 || t < 0 || H5Tget_class(t) != H5T_FLOAT) {
    snprintf(msg, msg_bytes, "%s: cannot open, or not a floating-point dataset", spec);
    goto done;
  }
  d->array.type = H5Tget_size(t) == 4 ? PARZ_FLOAT : PARZ_DOUBLE;
  for (i = 0; i < rank; i++) { /* unit dimensions are squeezed, as the filter does */
    if (dims[i] == 1)
      continue;
    if (kept == 4) {
      snprintf(msg, msg_bytes, "%s: more than 4 non-unit dimensions", spec);
      goto done;
    }
    d->array.shape[kept++] = (size_t)dims[i];
  }
  if (!kept)
    d->array.shape[kept++] = 1;
  d->array.dims = kept;
  d->bytes = parz_array_count(&d->array) * parz_type_size(d->array.type);
  d->data = malloc(d->bytes);
  if (!d->data) {
    snprintf(msg, msg_bytes, "%s: out of memory", spec);
    goto done;
  }
  H5E_BEGIN_TRY {
    ok = H5Dread(ds, d->array.type == PARZ_FLOAT ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, H5S_ALL,
                 H5S_ALL, H5P_DEFAULT, d->data) >= 0;
  }
  H5E_END_TRY;
  if (!ok) {
    snprintf(msg, msg_bytes, "%s: H5Dread failed (filter missing?)", spec);
    free(d->data);
    d->data = NULL;
  }
  snprintf(d->name, sizeof d->name, "%s", colon + 1 + (colon[1] == '/'));
done:
  H5E_BEGIN_TRY {
    if (t >= 0)
      H5Tclose(t);
    if (sp >= 0)
      H5Sclose(sp);
    if (ds >= 0)
      H5Dclose(ds);
    if (f >= 0)
      H5Fclose(f);
  }
  H5E_END_TRY;
  return ok;
}

#else /* no HDF5: these peers are reported as missing */

int bench_h5_available(void) { return 0; }
int bench_h5_filter_available(bench_h5_filter f) {
  (void)f;
  return 0;
}
int bench_h5_load(const char* spec, bench_data* d, char* msg, size_t msg_bytes) {
  (void)d;
  snprintf(msg, msg_bytes, "%s: this build has no HDF5", spec);
  return 0;
}
bench_h5* bench_h5_create(const char* path, const bench_data* d, const bench_setting* s,
                          bench_h5_filter f, bench_quality* q) {
  (void)path, (void)d, (void)s, (void)f, (void)q;
  return NULL;
}
void bench_h5_free(bench_h5* h) { (void)h; }
double bench_h5_read(void* r) {
  (void)r;
  return -1;
}
double bench_h5_write(void* w) {
  (void)w;
  return -1;
}

#endif
