/* HDF5 read benchmark: the same real array stored with ParZ (filter 37050) and with H5Z-ZFP
 * (filter 32013) at the same fixed accuracy and the same chunks, read back side by side with
 * H5Dread through the plugins. ParZ is read at each PARZ_THREADS count (the policy is read per
 * call, so one process sweeps them); the speed ratio ParZ / H5Z-ZFP is printed for each. Both
 * filters write the same zfp stream for the same tolerance, so the arrays read back must be
 * identical: that is checked too.
 *
 * Each array is tiled along its slowest dimension to at least --min-mib MiB; 4D arrays are read
 * as 3D (the two slowest dimensions merged: same bytes) because H5Z-ZFP takes at most 3 non-unit
 * chunk dimensions. The chunk is the whole dataset unless --chunk-mib asks for slabs.
 *
 * At each thread count it also times parz_h5_read (parz_h5_read.h: the stored chunks read
 * unfiltered and decoded straight into the caller's array, no filter) against the H5Dread of the
 * same count; --breakdown then says where the time of both goes at the last count: the stored
 * chunks read (H5Dread_chunk), their decode as the filter does it (each into a fresh buffer) and
 * into one buffer kept warm, HDF5's copy into the caller's buffer, and what is left; and the
 * filter function itself, called on each stored chunk as HDF5 calls it (the plugin module HDF5
 * loaded, found on its plugin path): its own work beyond the decode (parse, checks, allocating
 * and faulting in its output, freeing), and HDF5's beyond the filter, read off as differences.
 *
 * Built with the CUDA decoder and a GPU present, it also times parz_h5_read_device (the whole
 * dataset read into GPU memory: compressed chunks up, decoded there) against the fastest ParZ
 * H5Dread above, which leaves the array in host memory, and checks that the arrays are equal;
 * then the same for a quarter of the dataset (a hyperslab, as one of four MPI ranks reads it).
 *
 * --cpu-time times everything in CPU time of the whole process instead of wall time: on a shared
 * machine, with PARZ_EXEC=serial or one thread, the work of each part without the time slices
 * other processes take (with more threads it also counts threads that wait by spinning).
 *
 * Plugins: HDF5_PLUGIN_PATH as usual; --plugin-dir DIR (repeatable) prepends a directory.
 * Usage: bench_h5read [--data DIR] [--only NAME] [--file scratch.h5] [--accuracy REL]
 *                     [--min-mib 16] [--chunk-mib 0] [--threads 1,2,4,8,16] [--reps 3]
 *                     [--exec omp] [--segment-blocks C] [--breakdown] [--cpu-time]
 *                     [--plugin-dir DIR]... */
#define _GNU_SOURCE /* RTLD_NOLOAD */
#include <dlfcn.h>
#include <math.h>
#include <sys/resource.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <H5PLextern.h>
#include <hdf5.h>

#include "H5Zparz.h"
#include "bench_clock.h"
#include "real_arrays.h"
#ifdef PARZ_BENCH_H5_READ
#include "parz_h5_read.h"
#include "parz_omp.h"
#endif
#ifdef PARZ_BENCH_H5_DEVICE
#include <cuda_runtime_api.h>

#include "parz_h5_device.h"
#endif

#define H5Z_FILTER_ZFP 32013
#define ZFP_MODE_ACCURACY 3
#define MAX_COUNTS 16

typedef struct {
  const char* data_dir;
  const char* only;
  const char* file;
  double accuracy;
  double min_mib, chunk_mib;
  int threads[MAX_COUNTS], nthreads;
  int reps;
  const char* exec;
  unsigned segment_blocks;
  int breakdown;
} options;

/* The clock of every timing: wall time, or with --cpu-time the process's CPU time. */
static double (*clock_now)(void) = bench_now;

static void usage(void) {
  fprintf(stderr,
          "usage: bench_h5read [--data DIR] [--only NAME] [--file scratch.h5] [--accuracy REL]\n"
          "                    [--min-mib 16] [--chunk-mib 0] [--threads 1,2,4,8,16] [--reps 3]\n"
          "                    [--exec omp] [--segment-blocks C] [--breakdown] [--cpu-time]\n"
          "                    [--plugin-dir DIR]...\n");
  exit(2);
}

static void parse_args(int argc, char** argv, options* o) {
  int i;
  o->data_dir = "../shared/data";
  o->only = NULL;
  o->file = "bench_h5read.h5";
  o->accuracy = 1e-4;
  o->min_mib = 16;
  o->chunk_mib = 0;
  o->nthreads = 0;
  o->reps = 3;
  o->exec = "omp";
  o->segment_blocks = 0;
  o->breakdown = 0;
  for (i = 1; i < argc; i += 2) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--breakdown")) {
      o->breakdown = 1;
      i--;
      continue;
    }
    if (!strcmp(a, "--cpu-time")) {
      clock_now = bench_process_cpu;
      i--;
      continue;
    }
    if (!v)
      usage();
    if (!strcmp(a, "--data"))
      o->data_dir = v;
    else if (!strcmp(a, "--only"))
      o->only = v;
    else if (!strcmp(a, "--file"))
      o->file = v;
    else if (!strcmp(a, "--accuracy"))
      o->accuracy = atof(v);
    else if (!strcmp(a, "--min-mib"))
      o->min_mib = atof(v);
    else if (!strcmp(a, "--chunk-mib"))
      o->chunk_mib = atof(v);
    else if (!strcmp(a, "--reps"))
      o->reps = atoi(v) > 0 ? atoi(v) : 1;
    else if (!strcmp(a, "--exec"))
      o->exec = v;
    else if (!strcmp(a, "--segment-blocks"))
      o->segment_blocks = (unsigned)atoi(v);
    else if (!strcmp(a, "--plugin-dir")) {
      if (H5PLprepend(v) < 0)
        fprintf(stderr, "bench_h5read: cannot add plugin directory %s\n", v);
    } else if (!strcmp(a, "--threads")) {
      const char* p = v;
      char* end;
      while (*p && o->nthreads < MAX_COUNTS) {
        long n = strtol(p, &end, 10);
        if (end == p || n < 1)
          usage();
        o->threads[o->nthreads++] = (int)n;
        p = *end == ',' ? end + 1 : end;
      }
    } else
      usage();
  }
  if (o->nthreads == 0) {
    static const int dflt[] = {1, 2, 4, 8, 16};
    memcpy(o->threads, dflt, sizeof dflt);
    o->nthreads = 5;
  }
}

/* H5Z-ZFP's accuracy cd_values: mode, unused, then the double as two native words. */
static size_t zfp_accuracy_cdata(double tol, unsigned* cd) {
  cd[0] = ZFP_MODE_ACCURACY;
  cd[1] = 0;
  memcpy(&cd[2], &tol, sizeof tol);
  return 4;
}

static int write_dataset(hid_t f, const char* name, hid_t type, int rank, const hsize_t* dims,
                         const hsize_t* chunk, H5Z_filter_t filter, size_t ncd, const unsigned* cd,
                         const void* data) {
  hid_t space = H5Screate_simple(rank, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE), d;
  int ok = 0;
  H5Pset_chunk(dcpl, rank, chunk);
  if (H5Pset_filter(dcpl, filter, H5Z_FLAG_MANDATORY, ncd, cd) < 0) {
    fprintf(stderr, "filter %d is not available: set HDF5_PLUGIN_PATH or --plugin-dir\n",
            (int)filter);
  } else {
    d = H5Dcreate2(f, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ok = d >= 0 && H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
    if (d >= 0)
      H5Dclose(d);
  }
  H5Pclose(dcpl);
  H5Sclose(space);
  return ok;
}

/* What the kernel counted while reads ran: this process's page faults and context switches
 * (getrusage), the machine's transparent huge page faults, their fallbacks to small pages and
 * the direct compactions they stalled on (/proc/vmstat), the CPU time other processes took and
 * the time the hypervisor took from the virtual CPUs (/proc/stat; zero where missing). A read
 * that is slow in every repetition while its parts timed alone are not shows here why. */
typedef struct {
  double minflt, majflt, nvcsw, nivcsw;
  double thp_fault_alloc, thp_fault_fallback, compact_stall;
  double cpu_ms, busy_ms, steal_ms; /* this process's CPU time; all CPUs' busy and stolen time */
} kernel_counts;

static void kernel_counts_now(kernel_counts* k) {
  struct rusage u;
  char name[64];
  unsigned long long v;
  FILE* f = fopen("/proc/vmstat", "r");
  memset(k, 0, sizeof *k);
  if (getrusage(RUSAGE_SELF, &u) == 0) {
    k->minflt = (double)u.ru_minflt;
    k->majflt = (double)u.ru_majflt;
    k->nvcsw = (double)u.ru_nvcsw;
    k->nivcsw = (double)u.ru_nivcsw;
    k->cpu_ms = 1e3 * (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
                1e-3 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
  }
  { /* the first line of /proc/stat: user nice system idle iowait irq softirq steal, in ticks */
    FILE* st = fopen("/proc/stat", "r");
    unsigned long long t[8] = {0};
    const double tick_ms = 1e3 / (double)sysconf(_SC_CLK_TCK);
    if (st && fscanf(st, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &t[0], &t[1], &t[2], &t[3],
                     &t[4], &t[5], &t[6], &t[7]) == 8) {
      k->busy_ms = tick_ms * (double)(t[0] + t[1] + t[2] + t[5] + t[6]);
      k->steal_ms = tick_ms * (double)t[7];
    }
    if (st)
      fclose(st);
  }
  while (f && fscanf(f, "%63s %llu", name, &v) == 2) {
    if (!strcmp(name, "thp_fault_alloc"))
      k->thp_fault_alloc = (double)v;
    else if (!strcmp(name, "thp_fault_fallback"))
      k->thp_fault_fallback = (double)v;
    else if (!strcmp(name, "compact_stall"))
      k->compact_stall = (double)v;
  }
  if (f)
    fclose(f);
}

/* The repetitions of a timed read: each one's time, and the kernel's counts over all of them. */
typedef struct {
  int n;
  double each[64];
  kernel_counts before, after;
} read_reps;

static void read_reps_print(const read_reps* r) {
  const kernel_counts *a = &r->before, *b = &r->after;
  const double n = r->n > 0 ? r->n : 1;
  printf("  the %d H5Dreads, ms:", r->n);
  for (int k = 0; k < r->n && k < 64; k++)
    printf(" %.2f", 1e3 * r->each[k]);
  printf(
      "; per read: minor faults %.0f, major %.0f, context switches %.0f voluntary, %.0f "
      "involuntary; the machine's huge page faults %.1f (fallbacks %.1f), compaction stalls "
      "%.1f; CPU time of other processes %.1f ms, stolen by the hypervisor %.1f ms (all CPUs, "
      "clock ticks)\n",
      (b->minflt - a->minflt) / n, (b->majflt - a->majflt) / n, (b->nvcsw - a->nvcsw) / n,
      (b->nivcsw - a->nivcsw) / n, (b->thp_fault_alloc - a->thp_fault_alloc) / n,
      (b->thp_fault_fallback - a->thp_fault_fallback) / n,
      (b->compact_stall - a->compact_stall) / n,
      ((b->busy_ms - a->busy_ms) - (b->cpu_ms - a->cpu_ms)) / n, (b->steal_ms - a->steal_ms) / n);
}

/* Best H5Dread time of the whole dataset; negative on failure. With `reps_out`, each time and
 * the kernel's counts too. */
static double time_read(hid_t f, const char* name, hid_t type, void* out, int reps, hsize_t* stored,
                        read_reps* reps_out) {
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  double best = INFINITY;
  int k;
  if (d < 0)
    return -1;
  *stored = H5Dget_storage_size(d);
  if (reps_out) {
    reps_out->n = 0;
    kernel_counts_now(&reps_out->before);
  }
  for (k = 0; k < reps; k++) {
    double t0 = clock_now(), t;
    if (H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0) {
      H5Dclose(d);
      return -1;
    }
    t = clock_now() - t0;
    best = t < best ? t : best;
    if (reps_out && k < 64)
      reps_out->each[reps_out->n++] = t;
  }
  if (reps_out)
    kernel_counts_now(&reps_out->after);
  H5Dclose(d);
  return best;
}

#ifdef PARZ_BENCH_H5_READ
/* Best parz_h5_read time of the whole dataset "parz" into out; negative on failure. */
static double time_parz_read(hid_t f, void* out, size_t bytes, int threads, int reps) {
  hid_t d = H5Dopen2(f, "parz", H5P_DEFAULT);
  double best = INFINITY;
  parz_error e;
  int k;
  for (k = 0; k < reps && d >= 0; k++) {
    double t0 = clock_now(), t;
    if (parz_h5_read(d, H5S_ALL, out, bytes, threads, &e) != PARZ_OK) {
      fprintf(stderr, "parz_h5_read: %s\n", e.message);
      best = -1;
      break;
    }
    t = clock_now() - t0;
    best = t < best ? t : best;
  }
  if (d >= 0)
    H5Dclose(d);
  return d >= 0 ? best : -1;
}

/* The stored chunks of dataset d (none missing: the benchmark writes them all), each read into a
 * buffer of its own as HDF5 reads it for the filter: their views, origins and bytes. */
typedef struct {
  size_t n;
  unsigned rank;
  hsize_t dims[H5S_MAX_RANK], chunk[H5S_MAX_RANK];
  unsigned char** bytes;
  size_t* sizes;
  hsize_t (*origin)[H5S_MAX_RANK];
  parz_chunk_view* views;
} stored_chunks;

static void stored_free(stored_chunks* c) {
  size_t i;
  for (i = 0; c->bytes && i < c->n; i++)
    free(c->bytes[i]);
  free(c->bytes);
  free(c->sizes);
  free(c->origin);
  free(c->views);
  memset(c, 0, sizeof *c);
}

/* Reads every chunk (fresh buffers); returns the time, negative on failure. */
static double stored_read(hid_t d, stored_chunks* c) {
  hid_t space = H5Dget_space(d), dcpl = H5Dget_create_plist(d);
  hsize_t at[H5S_MAX_RANK];
  double t0;
  size_t cap = 0;
  int k;
  memset(c, 0, sizeof *c);
  c->rank = (unsigned)H5Sget_simple_extent_dims(space, c->dims, NULL);
  H5Pget_chunk(dcpl, (int)c->rank, c->chunk);
  H5Sclose(space);
  H5Pclose(dcpl);
  memset(at, 0, sizeof at);
  t0 = clock_now();
  for (;;) {
    unsigned mask = 0;
    haddr_t addr;
    hsize_t size = 0;
    uint32_t filters = 0;
    if (c->n == cap) {
      cap = cap ? 2 * cap : 16;
      c->bytes = (unsigned char**)realloc(c->bytes, cap * sizeof *c->bytes);
      c->sizes = (size_t*)realloc(c->sizes, cap * sizeof *c->sizes);
      c->origin = (hsize_t(*)[H5S_MAX_RANK])realloc(c->origin, cap * sizeof *c->origin);
    }
    if (H5Dget_chunk_info_by_coord(d, at, &mask, &addr, &size) < 0 || size == 0 ||
        !(c->bytes[c->n] = (unsigned char*)malloc(size)) ||
        H5Dread_chunk(d, H5P_DEFAULT, at, &filters, c->bytes[c->n]) < 0)
      return -1;
    c->sizes[c->n] = (size_t)size;
    memcpy(c->origin[c->n], at, sizeof at);
    c->n++;
    for (k = (int)c->rank - 1; k >= 0; k--) {
      at[k] += c->chunk[k];
      if (at[k] < c->dims[k])
        break;
      at[k] = 0;
    }
    if (k < 0)
      break;
  }
  return clock_now() - t0;
}

/* The stored chunks' bytes read again straight from the file (the default sec2 driver's file
 * descriptor, each chunk at the address H5Dget_chunk_info_by_coord gives, no user block) with
 * pread on `threads` threads, into one buffer: the alternative to H5Dread_chunk one chunk after
 * another on one thread. Best time of reps; negative when the bytes differ or a call fails. */
static double time_pread(hid_t f, hid_t d, const stored_chunks* c, int threads, int reps) {
  void* handle = NULL;
  size_t i, total = 0, *at = (size_t*)malloc(c->n * sizeof *at);
  haddr_t* addr = (haddr_t*)malloc(c->n * sizeof *addr);
  unsigned char* buf;
  double best = INFINITY;
  int k, fd, ok = at && addr && H5Fget_vfd_handle(f, H5P_DEFAULT, &handle) >= 0 && handle;
  for (i = 0; ok && i < c->n; i++) {
    unsigned mask;
    hsize_t size;
    ok = H5Dget_chunk_info_by_coord(d, c->origin[i], &mask, &addr[i], &size) >= 0;
    at[i] = total;
    total += c->sizes[i];
  }
  buf = ok ? (unsigned char*)malloc(total) : NULL;
  fd = ok ? *(int*)handle : -1;
  for (k = 0; buf && k < reps; k++) {
    const int64_t parts = (int64_t)c->n * 16; /* 16 pieces a chunk */
    int64_t j;
    int failed = 0;
    double t0 = clock_now(), t;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) reduction(| : failed)
#endif
    for (j = 0; j < parts; j++) {
      const size_t ci = (size_t)(j / 16), a = c->sizes[ci] * (size_t)(j % 16) / 16,
                   b = c->sizes[ci] * (size_t)(j % 16 + 1) / 16;
      failed |=
          b > a && pread(fd, buf + at[ci] + a, b - a, (off_t)(addr[ci] + a)) != (ssize_t)(b - a);
    }
    t = clock_now() - t0;
    best = t < best ? t : best;
    ok = !failed;
  }
  for (i = 0; ok && buf && i < c->n; i++)
    ok = !memcmp(buf + at[i], c->bytes[i], c->sizes[i]);
  free(buf);
  free(at);
  free(addr);
  return ok && buf ? best : -1;
}

/* The filter function of the ParZ module HDF5 has loaded (after a read of a ParZ dataset),
 * looked up on HDF5's plugin path; NULL when it is not found. Asking the module for its class
 * binds it to this program's HDF5 again, the library that already runs it. */
static H5Z_func_t loaded_parz_filter(void) {
  unsigned count = 0, i;
  if (H5PLsize(&count) < 0)
    return NULL;
  for (i = 0; i < count; i++) {
    char dir[4096], path[4200];
    void* lib;
    const void* (*info)(void);
    if (H5PLget(i, dir, sizeof dir) <= 0)
      continue;
    snprintf(path, sizeof path, "%s/libH5Zparz.so", dir);
    if (!(lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD)))
      continue;
    *(void**)&info = dlsym(lib, "H5PLget_plugin_info");
    if (info && info())
      return ((const H5Z_class2_t*)info())->filter;
  }
  return NULL;
}

/* Best time (of reps) of the filter function called on every stored chunk as HDF5 calls it on a
 * read: the chunk's bytes in a buffer from H5allocate_memory, the decoded chunk returned in a
 * new one, which is freed (HDF5 frees it after its copy; the free is timed too). Negative when
 * the function is not found or fails. */
static double time_filter_calls(hid_t d, const stored_chunks* c, int reps) {
  H5Z_func_t filter = loaded_parz_filter();
  hid_t dcpl = H5Dget_create_plist(d);
  unsigned cd[64], flags = 0;
  size_t ncd = sizeof cd / sizeof *cd, i;
  double best = INFINITY;
  int k;
  if (!filter || dcpl < 0 ||
      H5Pget_filter_by_id2(dcpl, H5Z_FILTER_PARZ, &flags, &ncd, cd, 0, NULL, NULL) < 0) {
    if (dcpl >= 0)
      H5Pclose(dcpl);
    return -1;
  }
  H5Pclose(dcpl);
  for (k = 0; k < reps; k++) {
    double t = 0;
    for (i = 0; i < c->n; i++) {
      size_t size = c->sizes[i];
      void* buf = H5allocate_memory(size, 0);
      double t0;
      if (!buf)
        return -1;
      memcpy(buf, c->bytes[i], size);
      t0 = clock_now();
      if (filter(H5Z_FLAG_REVERSE, ncd, cd, c->sizes[i], &size, &buf) == 0) {
        H5free_memory(buf);
        return -1;
      }
      H5free_memory(buf);
      t += clock_now() - t0;
    }
    best = t < best ? t : best;
  }
  return best;
}

/* Where the time of a ParZ read goes at `threads` threads (best of reps for each part): the
 * filter path (H5Dread, t_h5dread) and parz_h5_read (t_read). */
static void breakdown(hid_t f, size_t bytes, int threads, int reps, double t_h5dread,
                      double t_read) {
  hid_t d = H5Dopen2(f, "parz", H5P_DEFAULT);
  stored_chunks c;
  double t_raw = INFINITY, t_fresh = INFINITY, t_warm = INFINITY, t_copy = INFINITY;
  double t_place = INFINITY, t_place_fresh = INFINITY;
  size_t i, raw_max = 0;
  unsigned char *warm = NULL, *user = (unsigned char*)malloc(bytes);
  parz_error e;
  int k, ok = d >= 0 && user;
  memset(&c, 0, sizeof c);
  for (k = 0; ok && k < reps; k++) {
    double t;
    stored_free(&c);
    ok = (t = stored_read(d, &c)) >= 0;
    t_raw = t < t_raw ? t : t_raw;
  }
  c.views = ok ? (parz_chunk_view*)calloc(c.n, sizeof *c.views) : NULL;
  for (i = 0; ok && i < c.n; i++) {
    ok = c.views && parz_chunk_parse(c.bytes[i], c.sizes[i], &c.views[i], &e) == PARZ_OK;
    raw_max = ok && c.views[i].raw_bytes > raw_max ? c.views[i].raw_bytes : raw_max;
  }
  if (ok && (warm = (unsigned char*)malloc(raw_max)) != NULL)
    memset(warm, 0, raw_max);
  memset(user, 0, bytes);
  for (k = 0; ok && warm && k < reps; k++) {
    double t0 = clock_now(), t1, t2, t3;
    /* as the filter: one chunk at a time, each into a fresh buffer, freed after HDF5's copy */
    for (i = 0; ok && i < c.n; i++) {
      unsigned char* out = (unsigned char*)malloc(c.views[i].raw_bytes);
      parz_chunk_dest dest;
      if (!out)
        ok = 0;
      else {
        parz_chunk_dest_whole(&c.views[i], out, &dest);
        ok = parz_omp_decode_chunks(1, &c.views[i], &dest, threads, NULL, &e) == PARZ_OK;
        free(out);
      }
    }
    t1 = clock_now();
    for (i = 0; ok && i < c.n; i++) {
      parz_chunk_dest dest;
      parz_chunk_dest_whole(&c.views[i], warm, &dest);
      ok = parz_omp_decode_chunks(1, &c.views[i], &dest, threads, NULL, &e) == PARZ_OK;
    }
    t2 = clock_now();
    /* HDF5's copy of each decoded chunk into the caller's buffer (as contiguous runs) */
    {
      size_t at = 0;
      for (i = 0; i < c.n && at < bytes; i++) {
        size_t m = c.views[i].raw_bytes < bytes - at ? c.views[i].raw_bytes : bytes - at;
        memcpy(user + at, warm, m);
        at += m;
      }
    }
    t3 = clock_now();
    t_fresh = t1 - t0 < t_fresh ? t1 - t0 : t_fresh;
    t_warm = t2 - t1 < t_warm ? t2 - t1 : t_warm;
    t_copy = t3 - t2 < t_copy ? t3 - t2 : t_copy;
  }
  /* parz_h5_read's decode: all chunks at once, in place, into the warm array and a fresh one */
  for (k = 0; ok && k < reps; k++) {
    parz_chunk_grid g;
    parz_chunk_ref* refs = (parz_chunk_ref*)calloc(c.n, sizeof *refs);
    size_t packed_bytes = 0;
    unsigned char* packed;
    unsigned char* fresh;
    double t0, t1, t2;
    memset(&g, 0, sizeof g);
    g.rank = c.rank;
    g.type = c.views[0].array.type;
    for (i = 0; i < c.rank; i++) {
      g.dims[i] = c.dims[i];
      g.chunk_dims[i] = c.chunk[i];
    }
    for (i = 0; i < c.n; i++)
      packed_bytes += (c.sizes[i] + 7) & ~(size_t)7;
    packed = (unsigned char*)malloc(packed_bytes);
    for (i = 0, packed_bytes = 0; packed && i < c.n; i++) {
      refs[i].at = packed_bytes;
      refs[i].bytes = c.sizes[i];
      memcpy(refs[i].origin, c.origin[i], c.rank * sizeof(uint64_t));
      memcpy(packed + packed_bytes, c.bytes[i], c.sizes[i]);
      packed_bytes += (c.sizes[i] + 7) & ~(size_t)7;
    }
    t0 = clock_now();
    ok = packed && parz_omp_assemble(&g, NULL, packed, packed_bytes, c.n, refs, NULL, user, threads,
                                     NULL, &e) == PARZ_OK;
    t1 = clock_now();
    fresh = (unsigned char*)malloc(bytes);
    ok = ok && fresh &&
         parz_omp_assemble(&g, NULL, packed, packed_bytes, c.n, refs, NULL, fresh, threads, NULL,
                           &e) == PARZ_OK;
    t2 = clock_now();
    free(fresh);
    free(packed);
    free(refs);
    t_place = t1 - t0 < t_place ? t1 - t0 : t_place;
    t_place_fresh = t2 - t1 < t_place_fresh ? t2 - t1 : t_place_fresh;
  }
  if (!ok)
    printf("  breakdown failed%s%s\n", e.message[0] ? ": " : "", e.message);
  else {
    const double t_pread = time_pread(f, d, &c, threads, reps);
    const double t_filter = time_filter_calls(d, &c, reps);
    char pread_ms[32] = "failed";
    if (t_pread >= 0)
      snprintf(pread_ms, sizeof pread_ms, "%.2f ms", 1e3 * t_pread);
    printf("  stored chunks: H5Dread_chunk one after another %.2f ms, pread on %d threads %s\n",
           1e3 * t_raw, threads, pread_ms);
    printf(
        "  breakdown, H5Dread %2d thr: %7.2f ms = stored chunks read %.2f + decoded into fresh "
        "buffers %.2f (into a warm one %.2f) + HDF5's copy %.2f + rest %.2f ms\n",
        threads, 1e3 * t_h5dread, 1e3 * t_raw, 1e3 * t_fresh, 1e3 * t_warm, 1e3 * t_copy,
        1e3 * (t_h5dread - t_raw - t_fresh - t_copy));
    if (t_filter >= 0)
      printf(
          "  breakdown, H5Dread %2d thr: %7.2f ms = stored chunks read %.2f + the filter "
          "function called as HDF5 calls it %.2f (decode into a warm buffer %.2f + the "
          "filter's own work %.2f) + HDF5's copy %.2f + HDF5's own rest %.2f ms\n",
          threads, 1e3 * t_h5dread, 1e3 * t_raw, 1e3 * t_filter, 1e3 * t_warm,
          1e3 * (t_filter - t_warm), 1e3 * t_copy, 1e3 * (t_h5dread - t_raw - t_filter - t_copy));
    else
      printf("  the filter function: not found on HDF5's plugin path, or it failed\n");
    if (t_read > 0)
      printf(
          "  breakdown, parz_h5_read %2d thr: %7.2f ms = stored chunks read %.2f + decoded in "
          "place %.2f (into a fresh array %.2f) + rest %.2f ms (negative: reads hidden "
          "behind the decode)\n",
          threads, 1e3 * t_read, 1e3 * t_raw, 1e3 * t_place, 1e3 * t_place_fresh,
          1e3 * (t_read - t_raw - t_place));
  }
  stored_free(&c);
  free(warm);
  free(user);
  if (d >= 0)
    H5Dclose(d);
}
#endif

#ifdef PARZ_BENCH_H5_DEVICE
/* The dataset "parz" read into GPU memory (best of reps), against the best H5Dread time `host`
 * of the same dataset; the array must equal H5Dread's (`ref`). */
static void time_device_read(hid_t f, hid_t type, size_t bytes, double host,
                             const unsigned char* ref, int reps) {
  parz_gpu_context* ctx = NULL;
  parz_error e;
  void* d = NULL;
  unsigned char* back = (unsigned char*)malloc(bytes);
  hid_t dset = H5Dopen2(f, "parz", H5P_DEFAULT);
  double best = INFINITY;
  int k, rc = PARZ_OK;
  if (!parz_gpu_available() || !back || dset < 0 ||
      parz_gpu_context_create(&ctx, 0, &e) != PARZ_OK || cudaMalloc(&d, bytes) != cudaSuccess) {
    printf("  ParZ into GPU memory      : not run (no GPU)\n");
    goto done;
  }
  for (k = 0; k < reps + 1 && rc == PARZ_OK; k++) { /* the first is warm-up */
    double t0 = clock_now(), t;
    rc = parz_h5_read_device(ctx, dset, H5S_ALL, d, bytes, NULL, &e);
    t = clock_now() - t0;
    if (k > 0 && t < best)
      best = t;
  }
  if (rc != PARZ_OK) {
    printf("  ParZ into GPU memory      : failed: %s\n", e.message);
    goto done;
  }
  cudaMemcpy(back, d, bytes, cudaMemcpyDeviceToHost);
  printf("  ParZ into GPU memory      : %8.1f MB/s %8.2f ms  against the best H5Dread %.2fx%s\n",
         bytes / best / 1e6, 1e3 * best, host / best,
         memcmp(back, ref, bytes) ? "  ARRAYS DIFFER" : "");
  {
    /* the second quarter of the slowest dimension, as one of four MPI ranks reads its part:
     * into GPU memory (only the chunks that meet it) and by H5Dread of the same hyperslab
     * (the filter's last policy and thread count) */
    hid_t fs = H5Dget_space(dset), ms = -1;
    hsize_t dims[H5S_MAX_RANK], start[H5S_MAX_RANK], count[H5S_MAX_RANK];
    const int rank = H5Sget_simple_extent_dims(fs, dims, NULL);
    double best_dev = INFINITY, best_host = INFINITY;
    if (rank > 0 && dims[0] >= 4) {
      const size_t row = bytes / dims[0];
      memset(start, 0, sizeof start);
      memcpy(count, dims, sizeof dims);
      start[0] = count[0] = dims[0] / 4;
      const size_t sbytes = count[0] * row;
      H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
      ms = H5Screate_simple(rank, count, NULL);
      for (k = 0; k < reps + 1 && rc == PARZ_OK; k++) {
        double t0 = clock_now(), t;
        rc = parz_h5_read_device(ctx, dset, fs, d, sbytes, NULL, &e);
        t = clock_now() - t0;
        if (k > 0 && t < best_dev)
          best_dev = t;
      }
      for (k = 0; k < reps && rc == PARZ_OK; k++) {
        double t0 = clock_now(), t;
        rc = H5Dread(dset, type, ms, fs, H5P_DEFAULT, back) < 0 ? PARZ_ERR_ARG : PARZ_OK;
        t = clock_now() - t0;
        best_host = t < best_host ? t : best_host;
      }
      const int host_same = rc == PARZ_OK && !memcmp(back, ref + start[0] * row, sbytes);
      if (rc == PARZ_OK)
        cudaMemcpy(back, d, sbytes, cudaMemcpyDeviceToHost);
      if (rc != PARZ_OK)
        printf("  quarter slab              : failed\n");
      else
        printf(
            "  quarter slab into GPU     : %8.1f MB/s %8.2f ms  H5Dread of it %.2f ms: "
            "%.2fx%s\n",
            sbytes / best_dev / 1e6, 1e3 * best_dev, 1e3 * best_host, best_host / best_dev,
            host_same && !memcmp(back, ref + start[0] * row, sbytes) ? "" : "  ARRAYS DIFFER");
      H5Sclose(ms);
    }
    H5Sclose(fs);
  }
done:
  if (dset >= 0)
    H5Dclose(dset);
  cudaFree(d);
  parz_gpu_context_free(ctx);
  free(back);
}
#endif

static void bench_array(const real_array* r, const options* o) {
  size_t copies = 1, bytes, k;
  hsize_t dims[4], chunk[4], s_parz = 0, s_zfp = 0;
  int rank = (int)r->array.dims, i;
  hid_t type = r->array.type == PARZ_FLOAT ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX], zcd[4];
  size_t ncd;
  double tol = o->accuracy * real_array_value_range(r), t_zfp, t, best_parz = INFINITY;
  read_reps parz_reps;
  unsigned char *data, *out_parz, *out_zfp;
  hid_t f;
  while ((double)(copies * r->bytes) < o->min_mib * 1048576.0)
    copies++;
  bytes = copies * r->bytes;
  data = (unsigned char*)malloc(bytes);
  out_parz = (unsigned char*)malloc(bytes);
  out_zfp = (unsigned char*)malloc(bytes);
  if (!data || !out_parz || !out_zfp) {
    fprintf(stderr, "%s: out of memory\n", r->name);
    goto done;
  }
  for (k = 0; k < copies; k++)
    memcpy(data + k * r->bytes, r->data, r->bytes);
  for (i = 0; i < rank; i++)
    dims[i] = r->array.shape[i];
  dims[0] *= copies;
  if (rank == 4) { /* H5Z-ZFP: at most 3 non-unit chunk dimensions */
    dims[1] *= dims[0];
    memmove(dims, dims + 1, 3 * sizeof *dims);
    rank = 3;
  }
  memcpy(chunk, dims, sizeof dims);
  if (o->chunk_mib > 0) {
    size_t rows = (size_t)(o->chunk_mib * 1048576.0 / (double)(bytes / dims[0]));
    chunk[0] = rows < 1 ? 1 : rows > dims[0] ? dims[0] : rows;
  }

  f = H5Fcreate(o->file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ncd = H5Z_parz_accuracy_cdata(tol, cd);
  if (o->segment_blocks)
    cd[ncd++] = o->segment_blocks;
  zfp_accuracy_cdata(tol, zcd);
  setenv("PARZ_EXEC", "omp", 1); /* writing: OpenMP encoder, whatever --exec reads with */
  unsetenv("PARZ_THREADS");
  if (f < 0 || !write_dataset(f, "parz", type, rank, dims, chunk, H5Z_FILTER_PARZ, ncd, cd, data) ||
      !write_dataset(f, "zfp", type, rank, dims, chunk, H5Z_FILTER_ZFP, 4, zcd, data)) {
    fprintf(stderr, "%s: writing %s failed\n", r->name, o->file);
    if (f >= 0)
      H5Fclose(f);
    goto done;
  }
  H5Fclose(f);

  f = H5Fopen(o->file, H5F_ACC_RDONLY, H5P_DEFAULT);
  t_zfp = time_read(f, "zfp", type, out_zfp, o->reps, &s_zfp, NULL);
  printf("%s: %.1f MiB, chunk", r->name, bytes / 1048576.0);
  for (i = 0; i < rank; i++)
    printf("%s%llu", i ? "x" : " ", (unsigned long long)chunk[i]);
  printf(", accuracy %.3g (%g x range)\n", tol, o->accuracy);
  if (t_zfp < 0) {
    printf("  H5Z-ZFP read failed\n");
    H5Fclose(f);
    goto done;
  }
  printf("  H5Z-ZFP  (32013)          : %8.1f MB/s %8.2f ms  stored %.2f MiB\n",
         bytes / t_zfp / 1e6, 1e3 * t_zfp, s_zfp / 1048576.0);
  setenv("PARZ_EXEC", o->exec, 1);
  for (i = 0; i < o->nthreads; i++) {
    char n[16];
    snprintf(n, sizeof n, "%d", o->threads[i]);
    setenv("PARZ_THREADS", n, 1);
    t = time_read(f, "parz", type, out_parz, o->reps, &s_parz, &parz_reps);
    if (t < 0) {
      printf("  ParZ read failed\n");
      break;
    }
    best_parz = t < best_parz ? t : best_parz;
    printf(
        "  ParZ %-5s %3d threads    : %8.1f MB/s %8.2f ms  stored %.2f MiB  ParZ/H5Z-ZFP "
        "speed %.2fx%s\n",
        o->exec, o->threads[i], bytes / t / 1e6, 1e3 * t, s_parz / 1048576.0, t_zfp / t,
        memcmp(out_parz, out_zfp, bytes) ? "  ARRAYS DIFFER" : "");
    if (o->breakdown)
      read_reps_print(&parz_reps);
#ifdef PARZ_BENCH_H5_READ
    {
      /* the dataset reader: the policy (o->exec) as for H5Dread, this many threads */
      unsigned char* out_read = (unsigned char*)calloc(1, bytes);
      double tr = out_read ? time_parz_read(f, out_read, bytes, o->threads[i], o->reps) : -1;
      if (tr > 0)
        printf(
            "  parz_h5_read %3d threads  : %8.1f MB/s %8.2f ms  against H5Dread %.2fx, "
            "H5Z-ZFP %.2fx%s\n",
            o->threads[i], bytes / tr / 1e6, 1e3 * tr, t / tr, t_zfp / tr,
            memcmp(out_read, out_zfp, bytes) ? "  ARRAYS DIFFER" : "");
      if (o->breakdown && i + 1 == o->nthreads)
        breakdown(f, bytes, o->threads[i], o->reps, t, tr);
      free(out_read);
    }
#endif
  }
  unsetenv("PARZ_THREADS");
#ifdef PARZ_BENCH_H5_DEVICE
  time_device_read(f, type, bytes, best_parz, out_parz, o->reps);
#endif
  H5Fclose(f);
done:
  free(data);
  free(out_parz);
  free(out_zfp);
}

int main(int argc, char** argv) {
  options o;
  size_t n = 0, i;
  real_array* list;
  parse_args(argc, argv, &o);
  list = real_arrays_load(o.data_dir, 0, &n);
  if (!list) {
    fprintf(stderr, "bench_h5read: no arrays in %s (use --data DIR)\n", o.data_dir);
    return 1;
  }
  for (i = 0; i < n; i++)
    if (!o.only || strstr(list[i].name, o.only))
      bench_array(&list[i], &o);
  real_arrays_free(list, n);
  remove(o.file);
  return 0;
}
