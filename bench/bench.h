/* ParZ benchmark suite: shared types of the driver parz_bench and its peer modules.
 *
 * The driver measures one *case* at a time (a dataset compressed under one setting). Every way
 * of encoding or decoding it is a *probe*: a callback that runs once and returns its seconds.
 * All probes of a case are run round-robin (warm-up rounds, then timed rounds), so machine
 * noise hits ParZ and its peers alike; each probe keeps its samples and reports the median and
 * the min-max spread. One CSV row per probe. */
#ifndef PARZ_BENCH_H
#define PARZ_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "bench_clock.h"
#include "parz_chunk.h"

#define BENCH_MAX_REPS 64
#define BENCH_MAX_THREADS 16

/* A dataset in memory: contiguous C order. */
typedef struct {
  char name[96];
  parz_array array;
  void* data;
  size_t bytes;
  double range; /* value range used for tolerances and PSNR (see bench_range) */
} bench_data;

/* One setting of one mode. */
typedef struct {
  const char* mode; /* "accuracy", "precision", "rate", "reversible" */
  char label[32];   /* "1e-03" (relative tolerance), "16", "8", "-" */
  double value;     /* absolute tolerance, precision or rate */
  parz_params params;
} bench_setting;

/* Quality of one compressed representation, filled once per probe group. */
typedef struct {
  double compressed_bytes; /* 0 = not measured */
  double table_bytes;      /* ParZ only; -1 = not applicable */
  double payload_bytes;
  double max_err, rms_err, psnr;
  unsigned segment_blocks; /* ParZ only: the C of the chunk (auto C's pick by default) */
} bench_quality;

/* A probe runs the measured operation once; returns its seconds (< 0: failed). */
typedef double (*bench_run_fn)(void* ctx);

typedef struct {
  char codec[16]; /* parz, zfp, h5z-zfp, hdf5-none */
  char op[8];     /* encode, decode, read, write, copy; "quality": untimed RD point */
  char exec[16];  /* serial, omp, cuda-kernel, cuda-e2e, hdf5, hdf5-omp, hdf5-cuda */
  int threads;    /* 0 = not applicable */
  unsigned segment_blocks;
  bench_run_fn run;
  void* ctx;
  const bench_quality* quality;
  double samples[BENCH_MAX_REPS];
  int nsamples;
  int failed;
} bench_probe;

/* Finite values of this magnitude or more are taken as fill values (levitus marks land with
 * -1e10): left out of the value range and of the error statistics. */
#define BENCH_FILL_MAGNITUDE 1e9

/* Value range over finite values below BENCH_FILL_MAGNITUDE; 1 when the array is constant. */
double bench_range(const parz_array* a, const void* data);

/* Finite values of BENCH_FILL_MAGNITUDE or more. */
size_t bench_fill_values(const parz_array* a, const void* data);

/* Error of `out` against `ref` over the values bench_range counts (non-finite and fill values
 * skipped: the codec keeps them, but their errors would drown those of the data); PSNR from
 * `range`. */
void bench_errors(const parz_array* a, const void* ref, const void* out, double range,
                  bench_quality* q);

/* Median, min and max of the probe's samples, as throughput in GB/s of `bytes`. */
void bench_throughput(const bench_probe* p, double bytes, double* med, double* lo, double* hi);

/* Pages in a buffer so first-touch faults are not timed. */
void bench_touch(void* p, size_t bytes);

/* ---- peers, each compiled only when its library is found ---- */

/* libzfp serial, the same expert parameters as ParZ. */
typedef struct bench_zfp bench_zfp;
int bench_zfp_available(void);
bench_zfp* bench_zfp_create(const bench_data* d, const bench_setting* s, bench_quality* q);
double bench_zfp_encode(void* z);
double bench_zfp_decode(void* z);
void bench_zfp_free(bench_zfp* z);

/* HDF5: one scratch file per dataset and filter, written once per case, read with H5Dread.
 * Arrays of rank 4 are stored as rank 3 (the two slowest dimensions merged, the same bytes):
 * H5Z-ZFP takes at most 3 non-unit chunk dimensions, and every filter sees the same layout.
 * The chunk is the whole dataset. */
typedef enum { BENCH_H5_NONE = 0, BENCH_H5_PARZ, BENCH_H5_ZFP } bench_h5_filter;
typedef struct bench_h5 bench_h5;
int bench_h5_available(void);
int bench_h5_filter_available(bench_h5_filter f);
/* Loads "file.h5:/path/to/dataset" (float or double, at most 4 non-unit dims) into d. */
int bench_h5_load(const char* spec, bench_data* d, char* msg, size_t msg_bytes);
bench_h5* bench_h5_create(const char* path, const bench_data* d, const bench_setting* s,
                          bench_h5_filter f, bench_quality* q);
void bench_h5_free(bench_h5* h);
/* A read probe: the execution policy (PARZ_EXEC, PARZ_THREADS) is set in the environment before
 * each read (the filter reads it per call); exec NULL leaves both unset. */
typedef struct {
  bench_h5* h;
  const char* exec;
  int threads;
} bench_h5_reader;
double bench_h5_read(void* reader);
/* A write probe: creates a file in memory (HDF5 core driver), writes the array as one chunk
 * through filter f under the given policy (as for reads), closes it. */
typedef struct {
  const bench_data* d;
  const bench_setting* s;
  bench_h5_filter f;
  const char* exec;
  int threads;
} bench_h5_writer;
double bench_h5_write(void* writer);

/* CUDA: kernel time (device events, chunk resident on the device) and end-to-end filter path. */
typedef struct bench_gpu bench_gpu;
int bench_gpu_available(void);
bench_gpu* bench_gpu_create(const unsigned char* chunk, size_t chunk_bytes, const bench_data* d);
double bench_gpu_kernel(void* g);
double bench_gpu_e2e(void* g);
/* Device-to-device copy of the decoded array's size: the memory-bandwidth anchor. */
double bench_gpu_d2d(void* g);
/* Nonzero when the last decoded arrays (the kernel's on the device and, once bench_gpu_e2e ran,
 * the end-to-end one on the host) equal ref bit for bit. */
int bench_gpu_check(bench_gpu* g, const void* ref);
void bench_gpu_free(bench_gpu* g);
const char* bench_gpu_name(void);

#endif
