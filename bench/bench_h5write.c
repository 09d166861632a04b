/* HDF5 write benchmark: H5Dwrite of a real array through the ParZ filter (fixed accuracy) with
 * PARZ_EXEC=omp at --threads threads and with PARZ_EXEC=cuda, side by side, for several chunk
 * sizes, with an uncompressed H5Dwrite of the same array as the baseline. A write is timed from
 * H5Dcreate to H5Fclose (every chunk filtered and written; the file lands in the page cache or
 * wherever --file points), best of --reps after one untimed write per policy (the GPU context is
 * created there). Every chunk of the two ParZ files is then read raw (H5Dread_chunk) and
 * compared: the GPU and the CPU must write the same bytes.
 *
 * Each array is tiled along its slowest dimension to at least --min-mib MiB; a chunk is a slab of
 * whole rows of about --chunk-mib MiB.
 *
 * Built with the CUDA encoder, it also times the filter's two encoders alone on the first chunk
 * (host array in, host chunk out, as the filter calls them, best of 5 after one untimed call):
 * parz_omp_chunk_encode at --threads threads and parz_gpu_chunk_encode, the GPU one split into
 * its upload (parz_gpu_upload), encode (parz_gpu_encode_device on the uploaded chunk, to its
 * end) and download of the chunk; and, per chunk, what H5Dwrite adds to each encoder (its time
 * per chunk less the encoder's: copying each chunk out of the array, allocating, writing it).
 * Every build also writes through a filter that does no work and stores as many bytes as the
 * GPU's chunks (as the OpenMP ones without CUDA): HDF5's own work per chunk, under which no
 * encoder's H5Dwrite can go. A second write through each of the two encoders and the no-work
 * filter is clocked: the time inside each call of the filter, and HDF5's own time between
 * calls; with the GPU encoder alone timed once more, each call after host work like HDF5's.
 *
 * Built with the dataset writers (libparz_h5), it also writes the host array with parz_h5_write
 * (the chunks encoded from the array in place, stored with H5Dwrite_chunk: Python's parz.write)
 * under PARZ_EXEC=omp at --threads threads and, with a GPU, cuda; its chunks must be those of
 * H5Dwrite through the filter.
 *
 * Built with the dataset writers as well (libparz_h5), it times a checkpoint written from GPU
 * memory, the array resident there: parz_h5_write_device, against a device-to-host copy
 * (cudaMemcpy into a pageable buffer touched before) followed by H5Dwrite through the filter
 * with PARZ_EXEC=omp at --threads threads, and followed by an uncompressed H5Dwrite; each from
 * H5Fcreate to H5Fclose, best of --reps; the files of the first two must hold the same chunks.
 *
 * Plugins: HDF5_PLUGIN_PATH as usual; --plugin-dir DIR (repeatable) prepends a directory.
 * --nan-above V turns the values above V into NaN (etopo5's land at 0), which the datasets'
 * default mask stores as masked values: the writes of arrays with missing values.
 *
 * Usage: bench_h5write [--data DIR] [--only NAME] [--file scratch] [--accuracy REL]
 *                      [--min-mib 150] [--chunk-mib 4,16,64] [--threads 16] [--reps 3]
 *                      [--nan-above V] [--plugin-dir DIR]... */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/resource.h>

#include <hdf5.h>

#include "H5Zparz.h"
#include "bench_clock.h"
#include "parz_omp.h"
#include "real_arrays.h"
#ifdef PARZ_BENCH_GPU
#include <cuda_runtime_api.h>

#include "parz_gpu.h"
#endif
#ifdef PARZ_BENCH_H5_WRITE
#include "parz_h5_write.h"
#endif
#ifdef PARZ_BENCH_H5_DEVICE
#include "parz_h5_device.h"
#endif

#define MAX_SIZES 8

typedef struct {
  const char* data_dir;
  const char* only;
  const char* file;
  double accuracy, min_mib;
  double nan_above; /* values above it become NaN (masked); NAN: none */
  double chunk_mib[MAX_SIZES];
  int nsizes, threads, reps;
} options;

static void usage(void) {
  fprintf(stderr,
          "usage: bench_h5write [--data DIR] [--only NAME] [--file scratch] [--accuracy REL]\n"
          "                     [--min-mib 150] [--chunk-mib 4,16,64] [--threads 16] [--reps 3]\n"
          "                     [--nan-above V] [--plugin-dir DIR]...\n");
  exit(2);
}

static void parse_args(int argc, char** argv, options* o) {
  int i;
  o->data_dir = "../shared/data";
  o->only = NULL;
  o->file = "bench_h5write";
  o->accuracy = 1e-2;
  o->nan_above = NAN;
  o->min_mib = 150;
  o->nsizes = 0;
  o->threads = 16;
  o->reps = 3;
  for (i = 1; i + 1 < argc; i += 2) {
    const char *a = argv[i], *v = argv[i + 1];
    if (!strcmp(a, "--data"))
      o->data_dir = v;
    else if (!strcmp(a, "--only"))
      o->only = v;
    else if (!strcmp(a, "--file"))
      o->file = v;
    else if (!strcmp(a, "--accuracy"))
      o->accuracy = atof(v);
    else if (!strcmp(a, "--nan-above"))
      o->nan_above = atof(v);
    else if (!strcmp(a, "--min-mib"))
      o->min_mib = atof(v);
    else if (!strcmp(a, "--threads"))
      o->threads = atoi(v) > 0 ? atoi(v) : 16;
    else if (!strcmp(a, "--reps"))
      o->reps = atoi(v) > 0 ? atoi(v) : 1;
    else if (!strcmp(a, "--plugin-dir")) {
      if (H5PLprepend(v) < 0)
        fprintf(stderr, "bench_h5write: cannot add plugin directory %s\n", v);
    } else if (!strcmp(a, "--chunk-mib")) {
      const char* p = v;
      char* end;
      while (*p && o->nsizes < MAX_SIZES) {
        double m = strtod(p, &end);
        if (end == p || m <= 0)
          usage();
        o->chunk_mib[o->nsizes++] = m;
        p = *end == ',' ? end + 1 : end;
      }
    } else
      usage();
  }
  if (i != argc)
    usage();
  if (o->nsizes == 0) {
    o->chunk_mib[0] = 4, o->chunk_mib[1] = 16, o->chunk_mib[2] = 64;
    o->nsizes = 3;
  }
}

/* A filter that does no work, the floor under any encoder in H5Dwrite: it hands HDF5 the first
 * cd_values[0] millionths of each chunk, in place, as the chunk's stored form, so that HDF5 does
 * all its own work (the chunk's buffer, cleared, the values gathered into it, the stored bytes
 * written) and no encoder runs. Its files are never read. */
#define NO_WORK_FILTER ((H5Z_filter_t)300) /* 256-511: reserved for testing */

static size_t no_work_filter(unsigned flags, size_t ncd, const unsigned cd[], size_t nbytes,
                             size_t* buf_size, void** buf) {
  size_t keep;
  (void)buf_size;
  (void)buf;
  if ((flags & H5Z_FLAG_REVERSE) || ncd < 1)
    return 0;
  keep = (size_t)((double)nbytes * cd[0] / 1e6);
  return keep ? keep : 1;
}

static const H5Z_class2_t no_work_class = {H5Z_CLASS_T_VERS,  NO_WORK_FILTER, 1,    1,
                                           "no work (bench)", NULL,           NULL, no_work_filter};

/* A clocked write: the filter under test is registered anew for the write, the same class with
 * its filter function wrapped in two reads of the clock, and its own class afterwards. The record
 * sums the time inside each call and HDF5's own time between one call's end and the next call's
 * start. Filter functions take no argument, hence the static record and inner function; the
 * benchmark is single-threaded. ParZ's class comes from its plugin module (the file HDF5 loads,
 * found on HDF5's plugin path: the same module, so the same GPU context). */
typedef struct {
  double in, out;         /* the last call's clocks */
  double inside, between; /* sums, seconds */
  size_t calls;
} filter_clock;

static filter_clock clock_record;
static H5Z_func_t clock_inner;

static size_t clocked_filter(unsigned flags, size_t ncd, const unsigned cd[], size_t nbytes,
                             size_t* buf_size, void** buf) {
  size_t n;
  clock_record.in = bench_now();
  if (clock_record.calls)
    clock_record.between += clock_record.in - clock_record.out;
  n = clock_inner(flags, ncd, cd, nbytes, buf_size, buf);
  clock_record.out = bench_now();
  clock_record.inside += clock_record.out - clock_record.in;
  clock_record.calls++;
  return n;
}

/* ParZ's class from the plugin module on HDF5's plugin path; NULL when none is found. */
static const H5Z_class2_t* parz_class(void) {
  static const H5Z_class2_t* cls;
  char dir[4096], path[4096 + 32];
  unsigned k, n = 0;
  if (cls || H5PLsize(&n) < 0)
    return cls;
  for (k = 0; k < n && !cls; k++) {
    void* module;
    const void* (*info)(void);
    if (H5PLget(k, dir, sizeof dir) <= 0)
      continue;
    snprintf(path, sizeof path, "%s/libH5Zparz.so", dir);
    module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!module)
      continue;
    *(void**)&info = dlsym(module, "H5PLget_plugin_info");
    cls = info ? (const H5Z_class2_t*)info() : NULL;
  }
  return cls;
}

/* The class of a filter a clocked write may test, NULL when not found. */
static const H5Z_class2_t* test_class(H5Z_filter_t filter) {
  return filter == NO_WORK_FILTER    ? &no_work_class
         : filter == H5Z_FILTER_PARZ ? parz_class()
                                     : NULL;
}

/* How the values get into the dataset: H5Dwrite from host memory (writer NULL), or a writer of
 * the values at `data` (GPU memory), which returns 0 on success. */
typedef int (*write_fn)(void* ctx, hid_t dset, hid_t type, const void* data, size_t bytes);

/* Seconds to write the array into a new file as dataset "a" (through `filter` with its ncd cd
 * values, unfiltered when it is H5Z_FILTER_NONE; its calls clocked when clocked), from
 * H5Dcreate to H5Fclose; negative on failure. */
static double write_file(const char* path, hid_t type, int rank, const hsize_t* dims,
                         const hsize_t* chunk, H5Z_filter_t filter, size_t ncd, const unsigned* cd,
                         const void* data, size_t bytes, write_fn writer, void* ctx, int clocked) {
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t space = H5Screate_simple(rank, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE), d;
  double t0, t = -1;
  const H5Z_class2_t* inner = clocked ? test_class(filter) : NULL;
  H5Z_class2_t wrapped;
  H5Pset_chunk(dcpl, rank, chunk);
  if (inner) {
    wrapped = *inner;
    wrapped.filter = clocked_filter;
    clock_inner = inner->filter;
  }
  if (f < 0 || (clocked && (!inner || H5Zregister(&wrapped) < 0)) ||
      (filter != H5Z_FILTER_NONE && H5Pset_filter(dcpl, filter, H5Z_FLAG_MANDATORY, ncd, cd) < 0)) {
    fprintf(stderr, "cannot create %s with filter %d: set HDF5_PLUGIN_PATH\n", path, (int)filter);
  } else {
    memset(&clock_record, 0, sizeof clock_record);
    t0 = bench_now();
    d = H5Dcreate2(f, "a", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d >= 0 &&
        (writer ? writer(ctx, d, type, data, bytes) == 0
                : H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0) &&
        H5Dclose(d) >= 0 && H5Fclose(f) >= 0) {
      t = bench_now() - t0;
      f = -1;
    }
  }
  if (f >= 0)
    H5Fclose(f);
  if (inner)
    H5Zregister(inner);
  H5Pclose(dcpl);
  H5Sclose(space);
  return t;
}

/* Page faults of this process so far (minor: pages mapped afresh). */
static long minor_faults(void) {
  struct rusage u;
  return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_minflt : 0;
}

/* Best of reps writes (one untimed write first); *faults (when given): the minor page faults
 * of the best one; *clock (when given): the write is clocked, and this is the best one's
 * record. */
static double best_write_with(const char* path, hid_t type, int rank, const hsize_t* dims,
                              const hsize_t* chunk, H5Z_filter_t filter, size_t ncd,
                              const unsigned* cd, const void* data, size_t bytes, write_fn writer,
                              void* ctx, int reps, long* faults, filter_clock* clock) {
  double best = INFINITY, t;
  int k;
  for (k = 0; k <= reps; k++) {
    long f0 = minor_faults();
    t = write_file(path, type, rank, dims, chunk, filter, ncd, cd, data, bytes, writer, ctx,
                   clock != NULL);
    if (t < 0)
      return -1;
    if (k > 0 && t < best) {
      best = t;
      if (faults)
        *faults = minor_faults() - f0;
      if (clock)
        *clock = clock_record;
    }
  }
  return best;
}

static double best_write(const char* path, hid_t type, int rank, const hsize_t* dims,
                         const hsize_t* chunk, H5Z_filter_t filter, size_t ncd, const unsigned* cd,
                         const void* data, int reps, long* faults) {
  return best_write_with(path, type, rank, dims, chunk, filter, ncd, cd, data, 0, NULL, NULL, reps,
                         faults, NULL);
}

/* Bytes the chunks of dataset "a" take in the file, 0 on failure. */
static hsize_t stored_bytes(const char* path) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = f >= 0 ? H5Dopen2(f, "a", H5P_DEFAULT) : -1;
  hsize_t n = d >= 0 ? H5Dget_storage_size(d) : 0;
  if (d >= 0)
    H5Dclose(d);
  if (f >= 0)
    H5Fclose(f);
  return n;
}

#ifdef PARZ_BENCH_GPU
/* The GPU filter path's three steps on one chunk, best seconds of 5 each (after one untimed
 * round): up (the host chunk into device memory), enc (parz_gpu_encode_device to its end), down
 * (the chunk into pinned memory and on to a host buffer). 0 on success. */
static int gpu_steps(parz_gpu_context* ctx, const parz_array* a, const void* data, double tol,
                     double* up, double* enc, double* down) {
  parz_chunk_config cfg;
  const size_t raw = parz_array_count(a) * parz_type_size(a->type);
  size_t cap, n = 0;
  void *d_in = NULL, *d_out = NULL, *h_out = NULL;
  unsigned char* out;
  int k, rc = 0;
  memset(&cfg, 0, sizeof cfg);
  parz_params_accuracy(&cfg.params, tol, NULL, NULL);
  cap = parz_chunk_bound(a, &cfg);
  out = (unsigned char*)malloc(cap);
  *up = *enc = *down = INFINITY;
  if (!out || cudaMalloc(&d_in, raw) != cudaSuccess || cudaMalloc(&d_out, cap) != cudaSuccess ||
      cudaMallocHost(&h_out, cap) != cudaSuccess)
    rc = -1;
  for (k = 0; k < 6 && rc == 0; k++) {
    double t0 = bench_now(), t1, t2, t3;
    rc |= parz_gpu_upload(ctx, data, d_in, raw, NULL, NULL);
    t1 = bench_now();
    rc |= parz_gpu_encode_device(ctx, a, d_in, &cfg, d_out, cap, &n, NULL, NULL);
    rc |= cudaStreamSynchronize(NULL) != cudaSuccess;
    t2 = bench_now();
    rc |= cudaMemcpy(h_out, d_out, n, cudaMemcpyDeviceToHost) != cudaSuccess;
    memcpy(out, h_out, n);
    t3 = bench_now();
    if (k > 0) {
      *up = t1 - t0 < *up ? t1 - t0 : *up;
      *enc = t2 - t1 < *enc ? t2 - t1 : *enc;
      *down = t3 - t2 < *down ? t3 - t2 : *down;
    }
  }
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFreeHost(h_out);
  free(out);
  return rc;
}
#endif

/* Best seconds of 5 calls of the OpenMP (gpu == NULL) or the GPU encoder on one chunk (after one
 * untimed call); negative on failure. With host_work, each call follows what HDF5 does before
 * it calls the filter, on this thread alone: a buffer of the chunk's size cleared and the
 * values copied into it, which the encoder then takes. */
static double time_filter(const parz_array* a, const void* data, double tol, int threads, void* gpu,
                          int host_work) {
  parz_chunk_config cfg;
  const size_t raw = parz_array_count(a) * parz_type_size(a->type);
  size_t cap, n = 0;
  unsigned char *out, *in = host_work ? (unsigned char*)malloc(raw) : NULL;
  double best = INFINITY;
  int k, rc = PARZ_OK;
#ifndef PARZ_BENCH_GPU
  (void)gpu;
#endif
  memset(&cfg, 0, sizeof cfg);
  parz_params_accuracy(&cfg.params, tol, NULL, NULL);
  cap = parz_chunk_bound(a, &cfg);
  out = (unsigned char*)malloc(cap);
  if (host_work && !in) {
    free(out);
    return -1;
  }
  for (k = 0; out && k < 6 && rc == PARZ_OK; k++) {
    double t0, t;
    if (in) {
      memset(in, 0, raw);
      memcpy(in, data, raw);
      data = in;
    }
    t0 = bench_now();
#ifdef PARZ_BENCH_GPU
    if (gpu)
      rc = parz_gpu_chunk_encode((parz_gpu_context*)gpu, a, data, &cfg, out, cap, NULL, NULL, &n,
                                 NULL);
    else
#endif
      rc = parz_omp_chunk_encode(a, data, &cfg, out, cap, &n, threads, NULL);
    t = bench_now() - t0;
    if (k > 0 && t < best)
      best = t;
  }
  free(out);
  free(in);
  return out && rc == PARZ_OK ? best : -1;
}

/* Whether every stored chunk of dataset "a" is the same bytes in both files. */
static int same_chunks(const char* p1, const char* p2, int rank) {
  hid_t f1 = H5Fopen(p1, H5F_ACC_RDONLY, H5P_DEFAULT),
        f2 = H5Fopen(p2, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d1 = f1 >= 0 ? H5Dopen2(f1, "a", H5P_DEFAULT) : -1;
  hid_t d2 = f2 >= 0 ? H5Dopen2(f2, "a", H5P_DEFAULT) : -1;
  hid_t s1 = d1 >= 0 ? H5Dget_space(d1) : -1;
  hsize_t n1 = 0, n2 = 0, i;
  int same = d1 >= 0 && d2 >= 0 && H5Dget_num_chunks(d1, s1, &n1) >= 0 &&
             H5Dget_num_chunks(d2, s1, &n2) >= 0 && n1 == n2 && n1 > 0;
  for (i = 0; same && i < n1; i++) {
    hsize_t off[H5S_MAX_RANK], size1 = 0, size2 = 0;
    unsigned mask;
    haddr_t addr;
    unsigned char *b1, *b2;
    uint32_t f1mask = 0, f2mask = 0;
    (void)rank;
    same = H5Dget_chunk_info(d1, s1, i, off, &mask, &addr, &size1) >= 0 &&
           H5Dget_chunk_storage_size(d2, off, &size2) >= 0 && size1 == size2;
    if (!same)
      break;
    b1 = (unsigned char*)malloc(size1);
    b2 = (unsigned char*)malloc(size2);
    same = b1 && b2 && H5Dread_chunk(d1, H5P_DEFAULT, off, &f1mask, b1) >= 0 &&
           H5Dread_chunk(d2, H5P_DEFAULT, off, &f2mask, b2) >= 0 && f1mask == f2mask &&
           !memcmp(b1, b2, size1);
    free(b1);
    free(b2);
  }
  if (s1 >= 0)
    H5Sclose(s1);
  if (d1 >= 0)
    H5Dclose(d1);
  if (d2 >= 0)
    H5Dclose(d2);
  if (f1 >= 0)
    H5Fclose(f1);
  if (f2 >= 0)
    H5Fclose(f2);
  return same;
}

#ifdef PARZ_BENCH_H5_WRITE
/* The host array written by parz_h5_write (PARZ_EXEC and PARZ_THREADS as set by the caller). */
static int write_host(void* ctx, hid_t dset, hid_t type, const void* data, size_t bytes) {
  parz_error e = {0, ""};
  (void)ctx;
  (void)type;
  if (parz_h5_write(dset, H5S_ALL, data, bytes, 0, &e) == PARZ_OK)
    return 0;
  fprintf(stderr, "parz_h5_write: %s\n", e.message);
  return -1;
}
#endif

#ifdef PARZ_BENCH_H5_DEVICE
static int write_device(void* ctx, hid_t dset, hid_t type, const void* d_data, size_t bytes) {
  parz_error e = {0, ""};
  (void)type;
  if (parz_h5_write_device((parz_gpu_context*)ctx, dset, H5S_ALL, d_data, bytes, NULL, &e) ==
      PARZ_OK)
    return 0;
  fprintf(stderr, "parz_h5_write_device: %s\n", e.message);
  return -1;
}

/* The checkpoint the usual way: the array copied down into `ctx` (a host buffer), then H5Dwrite. */
static int copy_then_write(void* ctx, hid_t dset, hid_t type, const void* d_data, size_t bytes) {
  if (cudaMemcpy(ctx, d_data, bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
    return -1;
  return H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, ctx) >= 0 ? 0 : -1;
}

/* parz_h5_write_device against the copy down and H5Dwrite, through the filter (omp) and
 * uncompressed, for every chunk size. */
static void bench_device(const real_array* r, const options* o, parz_gpu_context* gpu,
                         const unsigned char* data, size_t bytes, int rank, const hsize_t* dims,
                         size_t ncd, const unsigned* cd) {
  const hid_t type = r->array.type == PARZ_FLOAT ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  const size_t row = bytes / dims[0];
  char f_dev[512], f_omp[512], f_raw[512], nthreads[16];
  void* d_data = NULL;
  unsigned char* host = (unsigned char*)malloc(bytes);
  int s, k;
  if (!host || cudaMalloc(&d_data, bytes) != cudaSuccess ||
      cudaMemcpy(d_data, data, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    fprintf(stderr, "%s: no room for the array on the GPU\n", r->name);
    free(host);
    cudaFree(d_data);
    return;
  }
  memset(host, 0, bytes); /* its pages in place, as a program's buffer would have them */
  snprintf(f_dev, sizeof f_dev, "%s.device.h5", o->file);
  snprintf(f_omp, sizeof f_omp, "%s.d2h_omp.h5", o->file);
  snprintf(f_raw, sizeof f_raw, "%s.d2h_raw.h5", o->file);
  snprintf(nthreads, sizeof nthreads, "%d", o->threads);
  printf(
      "\n%s resident on the GPU (%.1f MiB): parz_h5_write_device against a copy to the "
      "host (cudaMemcpy) and H5Dwrite\n",
      r->name, bytes / 1048576.0);
  printf(
      "| chunk | chunk MiB | write_device MB/s | copy alone MB/s | copy + omp %d threads "
      "MB/s | copy + uncompressed MB/s | device / (copy + omp) | device / (copy + "
      "uncompressed) | same chunks |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n",
      o->threads);
  for (s = 0; s < o->nsizes; s++) {
    size_t rows = (size_t)(o->chunk_mib[s] * 1048576.0 / (double)row);
    hsize_t chunk[4];
    double t_dev, t_omp, t_raw, t_copy = INFINITY;
    memcpy(chunk, dims, sizeof chunk);
    chunk[0] = rows < 1 ? 1 : rows > dims[0] ? dims[0] : rows;
    for (k = 0; k <= o->reps; k++) {
      double t0 = bench_now(), t;
      cudaMemcpy(host, d_data, bytes, cudaMemcpyDeviceToHost);
      t = bench_now() - t0;
      if (k > 0 && t < t_copy)
        t_copy = t;
    }
    t_dev = best_write_with(f_dev, type, rank, dims, chunk, H5Z_FILTER_PARZ, ncd, cd, d_data, bytes,
                            write_device, gpu, o->reps, NULL, NULL);
    setenv("PARZ_EXEC", "omp", 1);
    setenv("PARZ_THREADS", nthreads, 1);
    t_omp = best_write_with(f_omp, type, rank, dims, chunk, H5Z_FILTER_PARZ, ncd, cd, d_data, bytes,
                            copy_then_write, host, o->reps, NULL, NULL);
    unsetenv("PARZ_THREADS");
    unsetenv("PARZ_EXEC");
    t_raw = best_write_with(f_raw, type, rank, dims, chunk, H5Z_FILTER_NONE, 0, cd, d_data, bytes,
                            copy_then_write, host, o->reps, NULL, NULL);
    printf("| ");
    for (k = 0; k < rank; k++)
      printf("%s%llu", k ? "x" : "", (unsigned long long)chunk[k]);
    if (t_dev < 0 || t_omp < 0 || t_raw < 0) {
      printf(" | failed |\n");
      continue;
    }
    printf(" | %.1f | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %s |\n", chunk[0] * row / 1048576.0,
           bytes / t_dev / 1e6, bytes / t_copy / 1e6, bytes / t_omp / 1e6, bytes / t_raw / 1e6,
           t_omp / t_dev, t_raw / t_dev, same_chunks(f_omp, f_dev, rank) ? "yes" : "NO");
  }
  remove(f_dev);
  remove(f_omp);
  remove(f_raw);
  cudaFree(d_data);
  free(host);
}
#endif

/* Per chunk, in milliseconds: each H5Dwrite, each encoder alone, the GPU encoder's steps, and
 * what H5Dwrite adds to each encoder. */
typedef struct {
  double raw, omp, cuda, f_omp, f_gpu, up, enc, down, floor;
  double host_omp, host_cuda; /* parz_h5_write of the host array, the whole write */
  int host_same;              /* its chunks and H5Dwrite's (omp) are the same bytes */
  long faults_omp, faults_cuda, faults_floor; /* minor page faults of the whole write */
  size_t nchunks;
  filter_clock clock_omp, clock_cuda, clock_floor; /* a second write of each, clocked */
  double f_gpu_after; /* the GPU encoder alone after host work like HDF5's */
} chunk_times;

static void bench_array(const real_array* r, const options* o, void* gpu) {
  size_t copies = 1, bytes, k, row;
  hsize_t dims[4], chunk[4];
  int rank = (int)r->array.dims, i, s;
  hid_t type = r->array.type == PARZ_FLOAT ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  double tol = o->accuracy * real_array_value_range(r);
  size_t ncd = H5Z_parz_accuracy_cdata(tol, cd);
  unsigned char* data;
  char f_omp[512], f_cuda[512], f_raw[512], f_none[512], f_host[512], f_clocked[512];
  char nthreads[16];
  chunk_times per[MAX_SIZES];
  while ((double)(copies * r->bytes) < o->min_mib * 1048576.0)
    copies++;
  bytes = copies * r->bytes;
  data = (unsigned char*)malloc(bytes);
  if (!data) {
    fprintf(stderr, "%s: out of memory\n", r->name);
    return;
  }
  for (k = 0; k < copies; k++)
    memcpy(data + k * r->bytes, r->data, r->bytes);
  if (!isnan(o->nan_above)) {
    size_t n = bytes / parz_type_size(r->array.type), masked = 0;
    for (k = 0; k < n; k++) {
      if (r->array.type == PARZ_FLOAT && ((float*)data)[k] > o->nan_above)
        ((float*)data)[k] = NAN, masked++;
      else if (r->array.type == PARZ_DOUBLE && ((double*)data)[k] > o->nan_above)
        ((double*)data)[k] = NAN, masked++;
    }
    printf("%s: %.1f%% of the values above %g made NaN\n", r->name, 100.0 * masked / n,
           o->nan_above);
  }
  for (i = 0; i < rank; i++)
    dims[i] = r->array.shape[i];
  dims[0] *= copies;
  row = bytes / dims[0];
  snprintf(f_omp, sizeof f_omp, "%s.omp.h5", o->file);
  snprintf(f_cuda, sizeof f_cuda, "%s.cuda.h5", o->file);
  snprintf(f_raw, sizeof f_raw, "%s.raw.h5", o->file);
  snprintf(f_none, sizeof f_none, "%s.no_work.h5", o->file);
  snprintf(f_host, sizeof f_host, "%s.host.h5", o->file);
  snprintf(f_clocked, sizeof f_clocked, "%s.clocked.h5", o->file);
  snprintf(nthreads, sizeof nthreads, "%d", o->threads);
  printf("%s: %.1f MiB, accuracy %.3g (%g x range)\n", r->name, bytes / 1048576.0, tol,
         o->accuracy);
  printf(
      "| chunk | chunk MiB | uncompressed MB/s | omp %d threads MB/s | cuda MB/s | "
      "cuda / omp | same chunks | filter alone: omp MB/s | cuda MB/s | cuda / omp |\n"
      "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|\n",
      o->threads);
  for (s = 0; s < o->nsizes; s++) {
    size_t rows = (size_t)(o->chunk_mib[s] * 1048576.0 / (double)row), nchunks;
    double t_raw, t_omp, t_cuda;
    chunk_times* c = &per[s];
    memset(c, 0, sizeof *c);
    memcpy(chunk, dims, sizeof dims);
    chunk[0] = rows < 1 ? 1 : rows > dims[0] ? dims[0] : rows;
    nchunks = (size_t)((dims[0] + chunk[0] - 1) / chunk[0]);
    t_raw = best_write(f_raw, type, rank, dims, chunk, H5Z_FILTER_NONE, 0, cd, data, o->reps, NULL);
    setenv("PARZ_EXEC", "omp", 1);
    setenv("PARZ_THREADS", nthreads, 1);
    t_omp = best_write(f_omp, type, rank, dims, chunk, H5Z_FILTER_PARZ, ncd, cd, data, o->reps,
                       &c->faults_omp);
    setenv("PARZ_EXEC", "cuda", 1);
    unsetenv("PARZ_THREADS");
    t_cuda = best_write(f_cuda, type, rank, dims, chunk, H5Z_FILTER_PARZ, ncd, cd, data, o->reps,
                        &c->faults_cuda);
    {
      /* the floor: HDF5's own work, storing as many bytes as the GPU's chunks take */
      unsigned keep = (unsigned)(1e6 * (double)stored_bytes(f_cuda) / (double)bytes + 0.5);
      double t_floor = best_write(f_none, type, rank, dims, chunk, NO_WORK_FILTER, 1, &keep, data,
                                  o->reps, &c->faults_floor);
      c->floor = t_floor > 0 ? 1e3 * t_floor / (double)nchunks : 0;
      c->nchunks = nchunks;
      best_write_with(f_none, type, rank, dims, chunk, NO_WORK_FILTER, 1, &keep, data, 0, NULL,
                      NULL, o->reps, NULL, &c->clock_floor);
    }
    setenv("PARZ_EXEC", "omp", 1);
    setenv("PARZ_THREADS", nthreads, 1);
    best_write_with(f_clocked, type, rank, dims, chunk, H5Z_FILTER_PARZ, ncd, cd, data, 0, NULL,
                    NULL, o->reps, NULL, &c->clock_omp);
    unsetenv("PARZ_THREADS");
    setenv("PARZ_EXEC", "cuda", 1);
    best_write_with(f_clocked, type, rank, dims, chunk, H5Z_FILTER_PARZ, ncd, cd, data, 0, NULL,
                    NULL, o->reps, NULL, &c->clock_cuda);
#ifdef PARZ_BENCH_H5_WRITE
    setenv("PARZ_EXEC", "omp", 1);
    setenv("PARZ_THREADS", nthreads, 1);
    c->host_omp = best_write_with(f_host, type, rank, dims, chunk, H5Z_FILTER_PARZ, ncd, cd, data,
                                  bytes, write_host, NULL, o->reps, NULL, NULL);
    c->host_same = c->host_omp > 0 && same_chunks(f_omp, f_host, rank);
    unsetenv("PARZ_THREADS");
    if (gpu) {
      setenv("PARZ_EXEC", "cuda", 1);
      c->host_cuda = best_write_with(f_host, type, rank, dims, chunk, H5Z_FILTER_PARZ, ncd, cd,
                                     data, bytes, write_host, NULL, o->reps, NULL, NULL);
      c->host_same = c->host_same && c->host_cuda > 0 && same_chunks(f_omp, f_host, rank);
    }
#endif
    printf("| ");
    for (i = 0; i < rank; i++)
      printf("%s%llu", i ? "x" : "", (unsigned long long)chunk[i]);
    if (t_raw < 0 || t_omp < 0 || t_cuda < 0) {
      printf(" | failed |\n");
      continue;
    }
    c->raw = 1e3 * t_raw / (double)nchunks;
    c->omp = 1e3 * t_omp / (double)nchunks;
    c->cuda = 1e3 * t_cuda / (double)nchunks;
    printf(" | %.1f | %.0f | %.0f | %.0f | %.2f | %s |", chunk[0] * row / 1048576.0,
           bytes / t_raw / 1e6, bytes / t_omp / 1e6, bytes / t_cuda / 1e6, t_omp / t_cuda,
           same_chunks(f_omp, f_cuda, rank) ? "yes" : "NO");
    {
      /* the first chunk, a slab of whole rows */
      parz_array a = r->array;
      double f_omp_t, f_gpu_t = -1;
      a.shape[0] = chunk[0];
      f_omp_t = time_filter(&a, data, tol, o->threads, NULL, 0);
      if (gpu) {
        f_gpu_t = time_filter(&a, data, tol, o->threads, gpu, 0);
        c->f_gpu_after = 1e3 * time_filter(&a, data, tol, o->threads, gpu, 1);
      }
#ifdef PARZ_BENCH_GPU
      if (gpu && gpu_steps((parz_gpu_context*)gpu, &a, data, tol, &c->up, &c->enc, &c->down))
        c->up = c->enc = c->down = 0;
#endif
      c->f_omp = 1e3 * f_omp_t;
      c->f_gpu = 1e3 * f_gpu_t;
      if (f_omp_t > 0 && f_gpu_t > 0)
        printf(" %.0f | %.0f | %.2f |\n", chunk[0] * row / f_omp_t / 1e6,
               chunk[0] * row / f_gpu_t / 1e6, f_omp_t / f_gpu_t);
      else if (f_omp_t > 0)
        printf(" %.0f | | |\n", chunk[0] * row / f_omp_t / 1e6);
      else
        printf(" failed | | |\n");
    }
  }
  unsetenv("PARZ_EXEC");
  printf(
      "\nper chunk, ms: H5Dwrite uncompressed / omp / cuda; the encoders alone; the GPU "
      "encoder's steps; H5Dwrite's own share (its time less the encoder's); H5Dwrite through a "
      "filter that does no work and stores as many bytes as cuda (HDF5's own work), and omp "
      "over it (the most any encoder could gain over omp in H5Dwrite)\n"
      "| chunk MiB | H5Dwrite none | omp | cuda | omp alone | cuda alone | up | encode | "
      "down | H5Dwrite own, omp | cuda | no-work filter | omp / no-work |\n"
      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (s = 0; s < o->nsizes; s++) {
    const chunk_times* c = &per[s];
    if (c->omp <= 0)
      continue;
    printf(
        "| %.1f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | "
        "%.2f |\n",
        o->chunk_mib[s], c->raw, c->omp, c->cuda, c->f_omp, c->f_gpu, 1e3 * c->up, 1e3 * c->enc,
        1e3 * c->down, c->omp - c->f_omp, c->cuda - c->f_gpu, c->floor,
        c->floor > 0 ? c->omp / c->floor : 0);
  }
  printf(
      "\ninside H5Dwrite (a second write of each, the filter's calls clocked), per "
      "chunk, ms: the filter's call, and HDF5's own work from one call's end to the next one's "
      "start; the GPU encoder alone (as above) and alone after host work like HDF5's (a buffer "
      "of the chunk's size cleared and filled on one thread before each call)\n"
      "| chunk MiB | omp call | cuda call | no-work call | between, omp | cuda | no-work | cuda "
      "alone | cuda alone after host work |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (s = 0; s < o->nsizes; s++) {
    const chunk_times* c = &per[s];
    const filter_clock* k[3] = {&c->clock_omp, &c->clock_cuda, &c->clock_floor};
    if (c->omp <= 0)
      continue;
    printf("| %.1f |", o->chunk_mib[s]);
    for (i = 0; i < 3; i++)
      printf(" %.3f |", k[i]->calls ? 1e3 * k[i]->inside / (double)k[i]->calls : 0);
    for (i = 0; i < 3; i++)
      printf(" %.3f |", k[i]->calls > 1 ? 1e3 * k[i]->between / (double)(k[i]->calls - 1) : 0);
    printf(" %.3f | %.3f |\n", c->f_gpu, c->f_gpu_after);
  }
  printf(
      "\nminor page faults per chunk in H5Dwrite (pages of 4 KiB mapped afresh): omp / cuda / "
      "the no-work filter\n| chunk MiB | omp | cuda | no-work filter |\n|---:|---:|---:|---:|\n");
  for (s = 0; s < o->nsizes; s++) {
    const chunk_times* c = &per[s];
    if (c->omp <= 0 || c->nchunks == 0)
      continue;
    printf("| %.1f | %.0f | %.0f | %.0f |\n", o->chunk_mib[s],
           (double)c->faults_omp / (double)c->nchunks, (double)c->faults_cuda / (double)c->nchunks,
           (double)c->faults_floor / (double)c->nchunks);
  }
#ifdef PARZ_BENCH_H5_WRITE
  printf(
      "\n%s in host memory: parz_h5_write (chunks encoded from the array in place and stored "
      "with H5Dwrite_chunk) with PARZ_EXEC=omp at %d threads and with cuda, against H5Dwrite "
      "through the filter (omp, %d threads)\n"
      "| chunk MiB | H5Dwrite omp MB/s | parz_h5_write omp MB/s | cuda MB/s | write omp / "
      "H5Dwrite omp | write cuda / H5Dwrite omp | same chunks |\n"
      "|---:|---:|---:|---:|---:|---:|---|\n",
      r->name, o->threads, o->threads);
  for (s = 0; s < o->nsizes; s++) {
    const chunk_times* c = &per[s];
    double t_omp = c->omp * (double)c->nchunks / 1e3;
    if (c->omp <= 0 || c->host_omp <= 0)
      continue;
    printf("| %.1f | %.0f | %.0f |", o->chunk_mib[s], bytes / t_omp / 1e6,
           bytes / c->host_omp / 1e6);
    if (c->host_cuda > 0)
      printf(" %.0f | %.2f | %.2f |", bytes / c->host_cuda / 1e6, t_omp / c->host_omp,
             t_omp / c->host_cuda);
    else
      printf(" | %.2f | |", t_omp / c->host_omp);
    printf(" %s |\n", c->host_same ? "yes" : "NO");
  }
#endif
#ifdef PARZ_BENCH_H5_DEVICE
  if (gpu)
    bench_device(r, o, (parz_gpu_context*)gpu, data, bytes, rank, dims, ncd, cd);
#endif
  remove(f_omp);
  remove(f_cuda);
  remove(f_raw);
  remove(f_none);
  remove(f_host);
  remove(f_clocked);
  free(data);
}

int main(int argc, char** argv) {
  options o;
  size_t n = 0, i;
  real_array* list;
  parse_args(argc, argv, &o);
  if (H5Zregister(&no_work_class) < 0) {
    fprintf(stderr, "bench_h5write: cannot register the no-work filter\n");
    return 1;
  }
  list = real_arrays_load(o.data_dir, 0, &n);
  if (!list) {
    fprintf(stderr, "bench_h5write: no arrays in %s (use --data DIR)\n", o.data_dir);
    return 1;
  }
  void* gpu = NULL;
#ifdef PARZ_BENCH_GPU
  if (parz_gpu_available() && parz_gpu_context_create((parz_gpu_context**)&gpu, 0, NULL))
    gpu = NULL;
#endif
  for (i = 0; i < n; i++)
    if (!o.only || strstr(list[i].name, o.only))
      bench_array(&list[i], &o, gpu);
  real_arrays_free(list, n);
#ifdef PARZ_BENCH_GPU
  parz_gpu_context_free((parz_gpu_context*)gpu);
#endif
  return 0;
}
