/* The dataset writers against H5Dwrite through the filter: every case is written both ways into
 * two datasets of one creation list, H5Dwrite under PARZ_EXEC=omp and the writer under test, and
 * the stored chunks must be the same, chunk by chunk: present or not alike, the same filter mask,
 * the same bytes (H5Dread_chunk). Cases: every mode, float32, float64, int32 and int64, ranks 1 to
 * 5, unit chunk extents, chunks of one value, table kinds, payload checksums on and off, edge
 * chunks padded with the default
 * fill value, a user fill value, fill time never and chunks allocated early, a big-endian
 * dataset, NaN and Inf, the array written in two boxes, and a box alone.
 *
 * Writers: parz_h5_write under PARZ_EXEC=omp (2 threads and OpenMP's default) and serial, and,
 * in CUDA builds with a GPU, under PARZ_EXEC=cuda, then parz_h5_write_device from device memory
 * on a stream and parz_h5_write_cuda. Without a GPU those are skipped (the output says so); the
 * refusals run everywhere, for parz_h5_write_cuda too, which checks the dataset and the
 * selection before it needs a GPU: selections that cut chunks, are not one box or not of the
 * dataset's extent, a short buffer, NULL, other filters, a contiguous dataset, partial chunks
 * stored unfiltered; nothing may be stored after a refusal.
 *
 * usage: test_h5_write SCRATCH_DIR [--device-small]
 *   --device-small: parz_h5_write_device alone, on the cases under 256 KiB (compute-sanitizer). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "H5Zparz.h"
#include "parz_h5_write.h"
#include "check.h"
#ifdef PARZ_TEST_DEVICE
#include <cuda_runtime_api.h>

#include "parz_h5_device.h"
#endif

/* A writer under test: writes the values at `host` (bytes long) into the selection. */
typedef struct {
  const char* name;
  const char* exec; /* PARZ_EXEC while it writes; NULL: unset */
  int (*write)(void* ctx, hid_t dset, hid_t file_space, const void* host, size_t bytes,
               parz_error* e); /* NULL: H5Dwrite, the filter under `exec` */
  void* ctx;
  int stores; /* 0: refuses what it is given (parz_h5_write_cuda without a GPU) */
} writer;

static int write_host(void* ctx, hid_t dset, hid_t fs, const void* host, size_t bytes,
                      parz_error* e) {
  return parz_h5_write(dset, fs, host, bytes, *(const int*)ctx, e);
}

#ifdef PARZ_TEST_DEVICE
/* Without a GPU: host memory straight to parz_h5_write_cuda, which checks the dataset and the
 * selection first (the refusals), then finds no GPU. */
static int write_cuda_no_gpu(void* ctx, hid_t dset, hid_t fs, const void* host, size_t bytes,
                             parz_error* e) {
  (void)ctx;
  return parz_h5_write_cuda(dset, fs, host, bytes, NULL, e);
}

/* The values copied into device memory first; ctx: a parz_gpu_context, or NULL for
 * parz_h5_write_cuda. */
static int write_device(void* ctx, hid_t dset, hid_t fs, const void* host, size_t bytes,
                        parz_error* e) {
  void* d = NULL;
  cudaStream_t st = NULL;
  int rc;
  if (cudaMalloc(&d, bytes ? bytes : 1) != cudaSuccess || cudaStreamCreate(&st) != cudaSuccess)
    return parz_fail(e, PARZ_ERR_DEVICE, "cudaMalloc of %zu bytes failed", bytes);
  if (host) /* ordered before the write */
    cudaMemcpyAsync(d, host, bytes, cudaMemcpyHostToDevice, st);
  /* a NULL host buffer stays NULL: the writers' refusal of it is under test */
  rc = ctx ? parz_h5_write_device((parz_gpu_context*)ctx, dset, fs, host ? d : NULL, bytes, st, e)
           : parz_h5_write_cuda(dset, fs, host ? d : NULL, bytes, st, e);
  cudaStreamDestroy(st);
  cudaFree(d);
  return rc;
}
#endif

/* Values of a native type: a smooth field, noise, NaN and Inf for floats, the extremes for
 * integers. */
static void* make_values(hid_t mem_type, size_t n, unsigned seed) {
  const size_t size = H5Tget_size(mem_type);
  const int is_float = H5Tget_class(mem_type) == H5T_FLOAT;
  unsigned char* v = (unsigned char*)malloc(n * size + 1);
  for (size_t i = 0; i < n; i++) {
    double x = 100.0 * sin(0.01 * (double)i + seed) + 0.001 * (double)((i * 2654435761u) % 1000);
    if (is_float && size == 4)
      ((float*)v)[i] = i % 997 == 5 ? NAN : i % 1009 == 7 ? -INFINITY : (float)x;
    else if (is_float)
      ((double*)v)[i] = i % 997 == 5 ? NAN : i % 1013 == 9 ? INFINITY : x;
    else if (size == 4) /* the extremes: exceptions in the lossy modes */
      ((int*)v)[i] = i % 1001 == 3 ? INT_MAX : (int)(x * 1000.0);
    else
      ((long long*)v)[i] = i % 1001 == 3 ? LLONG_MIN : (long long)(x * 1e9);
  }
  return v;
}

typedef struct {
  const char* name;
  int type;       /* 0 float32, 1 float64, 2 int32, 3 int64 */
  int big_endian; /* of the dataset's values */
  int rank;
  hsize_t dims[5], chunk[5];
  int mode;             /* 0 accuracy 1e-3, 1 reversible, 2 precision 20, 3 rate 16, 4 expert */
  unsigned C, P, table; /* the table; 0: the filter's choice */
  int no_checksums;     /* payload checksums off (format version 1) */
  int masked;           /* the mask left on (NaN, and the fill value when set, masked); else off
                         * (NaN as exceptions) */
  int fill_set;         /* 1: fill value `fill` */
  double fill;
  int fill_when; /* 0 HDF5's default (if set), 1 never, 2 at allocation */
  H5D_alloc_time_t alloc;
  int split; /* 0: the whole array at once; 1: in two boxes; 2: only the box [box_start, +count) */
  hsize_t box_start[5], box_count[5];
  hid_t file_type, mem_type; /* from type and big_endian, at run time */
} write_case;

static size_t case_cd(const write_case* c, unsigned* cd) {
  size_t n;
  switch (c->mode) {
    case 1: n = H5Z_parz_reversible_cdata(cd); break;
    case 2: n = H5Z_parz_precision_cdata(20, cd); break;
    case 3: n = H5Z_parz_rate_cdata(16, cd); break;
    case 4: n = H5Z_parz_expert_cdata(1, 400, 40, -60, cd); break;
    default: n = H5Z_parz_accuracy_cdata(1e-3, cd); break;
  }
  if (c->C || c->P || c->table)
    n = H5Z_parz_table_cdata(n, c->C, c->P, c->table, cd);
  if (c->no_checksums)
    n = H5Z_parz_checksum_cdata(n, H5Z_PARZ_CHECKSUM_OFF, cd);
  return c->masked ? n : H5Z_parz_mask_cdata(n, H5Z_PARZ_MASK_OFF, cd);
}

static hid_t case_dcpl(const write_case* c) {
  unsigned cd[16];
  const size_t n = case_cd(c, cd);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, c->rank, c->chunk);
  H5Pset_filter(dcpl, H5Z_FILTER_PARZ, H5Z_FLAG_MANDATORY, n, cd);
  if (c->fill_set)
    H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &c->fill);
  H5Pset_fill_time(dcpl, c->fill_when == 1   ? H5D_FILL_TIME_NEVER
                         : c->fill_when == 2 ? H5D_FILL_TIME_ALLOC
                                             : H5D_FILL_TIME_IFSET);
  H5Pset_alloc_time(dcpl, c->alloc);
  return dcpl;
}

static size_t count_of(int rank, const hsize_t* count) {
  size_t n = 1;
  for (int k = 0; k < rank; k++)
    n *= count[k];
  return n;
}

/* The values of the box [start, start + count) of the whole array `all` (C order). */
static void* box_values(const write_case* c, const unsigned char* all, const hsize_t* start,
                        const hsize_t* count) {
  const size_t size = H5Tget_size(c->mem_type), n = count_of(c->rank, count);
  unsigned char* v = (unsigned char*)malloc(n * size + 1);
  for (size_t i = 0; i < n; i++) {
    size_t rem = i, at = 0, run = 1;
    for (int k = c->rank - 1; k >= 0; k--) {
      at += (start[k] + rem % count[k]) * run;
      rem /= count[k];
      run *= c->dims[k];
    }
    memcpy(v + i * size, all + at * size, size);
  }
  return v;
}

/* Writes the box with H5Dwrite (w NULL) or with the writer; returns the writer's status. */
static int write_box(const writer* w, hid_t d, const write_case* c, const unsigned char* all,
                     const hsize_t* start, const hsize_t* count) {
  hid_t fs = H5Dget_space(d), ms = H5Screate_simple(c->rank, count, NULL);
  void* v = box_values(c, all, start, count);
  const size_t bytes = count_of(c->rank, count) * H5Tget_size(c->mem_type);
  parz_error e = {0, ""};
  int rc = PARZ_OK;
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  if (!w || !w->write) {
    setenv("PARZ_EXEC", w ? w->exec : "omp", 1);
    CHECK(H5Dwrite(d, c->mem_type, ms, fs, H5P_DEFAULT, v) >= 0);
  } else {
    if (w->exec)
      setenv("PARZ_EXEC", w->exec, 1);
    else
      unsetenv("PARZ_EXEC");
    rc = w->write(w->ctx, d, fs, v, bytes, &e);
    if (rc != PARZ_OK)
      fprintf(stderr, "%s: %s: %s\n", w->name, c->name, e.message);
  }
  unsetenv("PARZ_EXEC");
  free(v);
  H5Sclose(ms);
  H5Sclose(fs);
  return rc;
}

/* Writes the case's values (w NULL: H5Dwrite) into a new dataset `name`, then closes it. */
static void write_case_values(const writer* w, hid_t file, const char* name, const write_case* c,
                              const unsigned char* all) {
  hid_t space = H5Screate_simple(c->rank, c->dims, NULL), dcpl = case_dcpl(c);
  hid_t d = H5Dcreate2(file, name, c->file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  hsize_t start[5] = {0}, count[5];
  CHECK(d >= 0);
  memcpy(count, c->dims, sizeof count);
  if (c->split == 2) {
    CHECK(write_box(w, d, c, all, c->box_start, c->box_count) == PARZ_OK);
  } else if (c->split == 1) {
    /* two boxes along the first dimension, split at a chunk boundary */
    hsize_t rest[5];
    count[0] = (c->dims[0] / c->chunk[0] / 2) * c->chunk[0];
    memcpy(rest, c->dims, sizeof rest);
    rest[0] = c->dims[0] - count[0];
    CHECK(write_box(w, d, c, all, start, count) == PARZ_OK);
    start[0] = count[0];
    CHECK(write_box(w, d, c, all, start, rest) == PARZ_OK);
  } else {
    CHECK(write_box(w, d, c, all, start, count) == PARZ_OK);
  }
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Dclose(d);
}

/* Every chunk of the two datasets: stored alike, the same bytes; then the values read back. */
static void compare_datasets(const writer* w, hid_t file, const char* ref_name,
                             const char* got_name, const write_case* c) {
  hid_t a = H5Dopen2(file, ref_name, H5P_DEFAULT), b = H5Dopen2(file, got_name, H5P_DEFAULT);
  hsize_t at[5] = {0};
  size_t chunks = 0, stored = 0, differ = 0;
  for (;;) {
    unsigned ma = 0, mb = 0;
    haddr_t aa = HADDR_UNDEF, ab = HADDR_UNDEF;
    hsize_t sa = 0, sb = 0;
    int k;
    chunks++;
    CHECK(H5Dget_chunk_info_by_coord(a, at, &ma, &aa, &sa) >= 0);
    CHECK(H5Dget_chunk_info_by_coord(b, at, &mb, &ab, &sb) >= 0);
    if ((aa == HADDR_UNDEF) != (ab == HADDR_UNDEF) || ma != mb || sa != sb) {
      differ++;
    } else if (aa != HADDR_UNDEF) {
      unsigned char* ca = (unsigned char*)malloc(sa ? sa : 1);
      unsigned char* cb = (unsigned char*)malloc(sb ? sb : 1);
      uint32_t fa = 0, fb = 0;
      CHECK(H5Dread_chunk(a, H5P_DEFAULT, at, &fa, ca) >= 0);
      CHECK(H5Dread_chunk(b, H5P_DEFAULT, at, &fb, cb) >= 0);
      stored++;
      differ += memcmp(ca, cb, sa) != 0;
      free(ca);
      free(cb);
    }
    for (k = c->rank - 1; k >= 0; k--) {
      at[k] += c->chunk[k];
      if (at[k] < c->dims[k])
        break;
      at[k] = 0;
    }
    if (k < 0)
      break;
  }
  if (differ) {
    fprintf(stderr, "%s: %s: %zu of %zu chunks differ from H5Dwrite's\n", w->name, c->name, differ,
            chunks);
    failures++;
  }
  CHECK(stored > 0);
  {
    const size_t n = count_of(c->rank, c->dims), size = H5Tget_size(c->mem_type);
    unsigned char* va = (unsigned char*)malloc(n * size);
    unsigned char* vb = (unsigned char*)malloc(n * size);
    memset(va, 0x5A, n * size);
    memset(vb, 0x5A, n * size);
    CHECK(H5Dread(a, c->mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, va) >= 0);
    CHECK(H5Dread(b, c->mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, vb) >= 0);
    CHECK(memcmp(va, vb, n * size) == 0);
    free(va);
    free(vb);
  }
  H5Dclose(a);
  H5Dclose(b);
}

#define DIMS(...) .dims = {__VA_ARGS__}
#define CHUNK(...) .chunk = {__VA_ARGS__}
static write_case cases[] = {
    {.name = "f32 2D accuracy, edge chunks", .rank = 2, DIMS(200, 300), CHUNK(64, 128)},
    {.name = "f64 3D reversible",
     .type = 1,
     .rank = 3,
     DIMS(20, 30, 40),
     CHUNK(8, 16, 16),
     .mode = 1},
    {.name = "i32 1D precision", .type = 2, .rank = 1, DIMS(10000), CHUNK(1024), .mode = 2},
    {.name = "i64 2D rate", .type = 3, .rank = 2, DIMS(50, 70), CHUNK(16, 16), .mode = 3},
    {.name = "f32 4D", .rank = 4, DIMS(4, 5, 6, 7), CHUNK(2, 3, 4, 5)},
    {.name = "f64 5D, unit chunk extents, expert",
     .type = 1,
     .rank = 5,
     DIMS(3, 4, 5, 6, 7),
     CHUNK(1, 2, 5, 3, 7),
     .mode = 4},
    {.name = "unit extents, C = 4, P = 3",
     .rank = 3,
     DIMS(9, 1, 300),
     CHUNK(1, 1, 300),
     .C = 4,
     .P = 3},
    {.name = "chunks of one value", .rank = 2, DIMS(5, 6), CHUNK(1, 1), .mode = 1},
    {.name = "table none, rate",
     .rank = 2,
     DIMS(70, 90),
     CHUNK(32, 32),
     .mode = 3,
     .C = 1,
     .table = 1},
    {.name = "table offsets, C = 8",
     .type = 1,
     .rank = 2,
     DIMS(70, 90),
     CHUNK(32, 32),
     .C = 8,
     .table = 2},
    {.name = "table lengths, C = 2", .rank = 2, DIMS(70, 90), CHUNK(32, 32), .C = 2, .table = 3},
    {.name = "payload checksums off", .rank = 2, DIMS(200, 300), CHUNK(64, 128), .no_checksums = 1},
    {.name = "checksums off, int64 extremes (version 2)",
     .type = 3,
     .rank = 2,
     DIMS(50, 70),
     CHUNK(16, 16),
     .mode = 3,
     .no_checksums = 1},
    {.name = "big-endian float32", .big_endian = 1, .rank = 2, DIMS(40, 60), CHUNK(16, 32)},
    {.name = "big-endian int64",
     .type = 3,
     .big_endian = 1,
     .rank = 2,
     DIMS(40, 60),
     CHUNK(16, 32),
     .mode = 1},
    {.name = "user fill value, edge chunks",
     .rank = 2,
     DIMS(100, 100),
     CHUNK(32, 32),
     .fill_set = 1,
     .fill = -7.5},
    {.name = "int32 fill value, edge chunks",
     .type = 2,
     .rank = 2,
     DIMS(33, 47),
     CHUNK(16, 16),
     .mode = 1,
     .fill_set = 1,
     .fill = 42},
    {.name = "fill time never",
     .rank = 2,
     DIMS(100, 100),
     CHUNK(32, 32),
     .fill_set = 1,
     .fill = 3.0,
     .fill_when = 1},
    {.name = "fill at allocation, allocated early",
     .type = 1,
     .rank = 2,
     DIMS(100, 100),
     CHUNK(32, 32),
     .mode = 1,
     .fill_set = 1,
     .fill = 2.5,
     .fill_when = 2,
     .alloc = H5D_ALLOC_TIME_EARLY},
    {.name = "two boxes", .rank = 2, DIMS(200, 300), CHUNK(64, 128), .split = 1},
    {.name = "a box alone, to the edge",
     .rank = 2,
     DIMS(100, 100),
     CHUNK(32, 32),
     .fill_set = 1,
     .fill = 5,
     .split = 2,
     .box_start = {32, 64},
     .box_count = {64, 36}},
    {.name = "chunks of 1 MiB", .rank = 2, DIMS(600, 1024), CHUNK(256, 1024)},
    {.name = "chunks of 4 MiB, an edge chunk", .rank = 2, DIMS(1100, 1024), CHUNK(1024, 1024)},
    /* masked: the same chunks from every writer, the device writers' included */
    {.name = "masked: NaN, chunks of 4 MiB",
     .rank = 2,
     DIMS(1100, 1024),
     CHUNK(1024, 1024),
     .masked = 1},
    {.name = "masked: float64 fill value and NaN",
     .type = 1,
     .rank = 2,
     DIMS(100, 100),
     CHUNK(32, 32),
     .masked = 1,
     .fill_set = 1,
     .fill = -7.5},
    {.name = "masked: int32 fill value",
     .type = 2,
     .rank = 2,
     DIMS(33, 47),
     CHUNK(16, 16),
     .mode = 1,
     .masked = 1,
     .fill_set = 1,
     .fill = 42},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* The case's HDF5 types. */
static void resolve_types(write_case* c) {
  const int be = c->big_endian;
  switch (c->type) {
    case 0:
      c->mem_type = H5T_NATIVE_FLOAT, c->file_type = be ? H5T_IEEE_F32BE : H5T_IEEE_F32LE;
      break;
    case 1:
      c->mem_type = H5T_NATIVE_DOUBLE, c->file_type = be ? H5T_IEEE_F64BE : H5T_IEEE_F64LE;
      break;
    case 2: c->mem_type = H5T_NATIVE_INT, c->file_type = be ? H5T_STD_I32BE : H5T_STD_I32LE; break;
    default: c->mem_type = H5T_NATIVE_LLONG, c->file_type = be ? H5T_STD_I64BE : H5T_STD_I64LE;
  }
}

enum { ALL_CASES, MASKED_CASES };

/* Every case of `which` kind (of fewer than max_bytes values, when not 0) written both ways into
 * a new file, then compared. */
static void check_writer(const writer* w, const char* dir, size_t max_bytes, int which) {
  char path[1024], ref[32], got[32];
  const int before = failures;
  snprintf(path, sizeof path, "%s/h5_write.h5", dir);
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(file >= 0);
  for (size_t i = 0; i < NCASES; i++) {
    write_case* c = &cases[i];
    resolve_types(c);
    if ((max_bytes && count_of(c->rank, c->dims) * H5Tget_size(c->mem_type) >= max_bytes) ||
        (which == MASKED_CASES && !c->masked))
      continue;
    unsigned char* all =
        (unsigned char*)make_values(c->mem_type, count_of(c->rank, c->dims), (unsigned)i + 1);
    snprintf(ref, sizeof ref, "ref%zu", i);
    snprintf(got, sizeof got, "got%zu", i);
    write_case_values(NULL, file, ref, c, all);
    write_case_values(w, file, got, c, all);
    compare_datasets(w, file, ref, got, c);
    free(all);
  }
  H5Fclose(file);
  remove(path);
  printf("%s: %s%s cases %s\n", w->name, max_bytes ? "the small " : "",
         which == MASKED_CASES ? "masked" : "all",
         failures == before ? "stored the chunks H5Dwrite stores" : "FAILED");
}

/* ---- refusals ------------------------------------------------------------------------------ */

static hid_t new_dataset(hid_t file, const char* name, int parz, int gzip, int fletcher,
                         int chunked, int partial_unfiltered) {
  const hsize_t dims[2] = {100, 100}, chunk[2] = {32, 32};
  unsigned cd[16];
  size_t n = H5Z_parz_accuracy_cdata(1e-3, cd);
  if (parz != 2) /* 2: the mask left on */
    n = H5Z_parz_mask_cdata(n, H5Z_PARZ_MASK_OFF, cd);
  hid_t space = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (chunked)
    H5Pset_chunk(dcpl, 2, chunk);
  if (parz)
    H5Pset_filter(dcpl, H5Z_FILTER_PARZ, H5Z_FLAG_MANDATORY, n, cd);
  if (gzip)
    H5Pset_deflate(dcpl, 1);
  if (fletcher)
    H5Pset_fletcher32(dcpl);
  if (partial_unfiltered)
    H5Pset_chunk_opts(dcpl, H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS);
  hid_t d = H5Dcreate2(file, name, H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  H5Sclose(space);
  return d;
}

/* One refusal: status `want`, a message, and nothing stored. */
static void refused(const writer* w, hid_t d, hid_t fs, const void* v, size_t bytes, int want,
                    const char* what) {
  parz_error e = {0, ""};
  int rc = w->write(w->ctx, d, fs, v, bytes, &e);
  if (rc != want) {
    fprintf(stderr, "%s: %s: status %d, not %d (%s)\n", w->name, what, rc, want, e.message);
    failures++;
  }
  CHECK(rc == PARZ_OK || e.message[0]);
  CHECK(d < 0 || H5Dget_storage_size(d) == 0);
  printf("  %s, %s: %s\n", w->name, what, e.message);
}

static void check_refusals(const writer* w, const char* dir) {
  H5E_auto2_t print;
  void* print_data;
  char path[1024];
  float* v = (float*)calloc(100 * 100 + 1, sizeof *v);
  const size_t all = 100 * 100 * sizeof *v;
  snprintf(path, sizeof path, "%s/h5_write_refused.h5", dir);
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t d = new_dataset(file, "parz", 1, 0, 0, 1, 0), fs = H5Dget_space(d);
  H5Eget_auto2(H5E_DEFAULT, &print, &print_data); /* the writers' messages, not HDF5's */
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  {
    const hsize_t start[2] = {10, 0}, count[2] = {32, 32};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    refused(w, d, fs, v, all, PARZ_ERR_UNSUPPORTED, "a box starting inside a chunk");
  }
  {
    const hsize_t start[2] = {0, 0}, count[2] = {32, 50};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    refused(w, d, fs, v, all, PARZ_ERR_UNSUPPORTED, "a box ending inside a chunk");
  }
  {
    const hsize_t start[2] = {0, 0}, start2[2] = {64, 64}, count[2] = {32, 32};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_OR, start2, NULL, count, NULL);
    refused(w, d, fs, v, all, PARZ_ERR_UNSUPPORTED, "two boxes");
  }
  {
    const hsize_t points[2][2] = {{0, 0}, {99, 99}};
    H5Sselect_elements(fs, H5S_SELECT_SET, 2, &points[0][0]);
    refused(w, d, fs, v, all, PARZ_ERR_UNSUPPORTED, "points");
  }
  {
    const hsize_t other[2] = {100, 101};
    hid_t s2 = H5Screate_simple(2, other, NULL);
    refused(w, d, s2, v, all, PARZ_ERR_DIMS, "a dataspace of another extent");
    H5Sclose(s2);
  }
  refused(w, d, H5S_ALL, v, all - 1, PARZ_ERR_BUFFER, "a short buffer");
  {
    /* a dataset that masks NaN (the default): stored by every writer that stores (the device
     * writer without a GPU reports that instead) */
    hid_t m = new_dataset(file, "masked", 2, 0, 0, 1, 0);
    parz_error e = {0, ""};
    CHECK(w->write(w->ctx, m, H5S_ALL, v, all, &e) == (w->stores ? PARZ_OK : PARZ_ERR_DEVICE), "%s",
          e.message);
    CHECK((H5Dget_storage_size(m) > 0) == (w->stores != 0));
    H5Dclose(m);
  }
  refused(w, d, H5S_ALL, NULL, all, PARZ_ERR_ARG, "a NULL buffer");
  refused(w, -1, H5S_ALL, v, all, PARZ_ERR_ARG, "no dataset");
  H5Sselect_none(fs);
  refused(w, d, fs, NULL, 0, PARZ_OK, "nothing selected");
  H5Sclose(fs);
  H5Dclose(d);
  {
    static const struct {
      const char* name;
      int parz, gzip, fletcher, chunked;
    } other[] = {{"gzip", 0, 1, 0, 1},
                 {"ParZ and fletcher32", 1, 0, 1, 1},
                 {"contiguous", 0, 0, 0, 0},
                 {"chunked, no filter", 0, 0, 0, 1}};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
      d = new_dataset(file, other[i].name, other[i].parz, other[i].gzip, other[i].fletcher,
                      other[i].chunked, 0);
      refused(w, d, H5S_ALL, v, all, PARZ_ERR_UNSUPPORTED, other[i].name);
      H5Dclose(d);
    }
  }
  {
    /* partial chunks stored unfiltered: refused where the box holds one, written where not */
    const hsize_t start[2] = {0, 0}, count[2] = {64, 96};
    d = new_dataset(file, "partial unfiltered", 1, 0, 0, 1, 1);
    refused(w, d, H5S_ALL, v, all, PARZ_ERR_UNSUPPORTED, "partial chunks stored unfiltered");
    fs = H5Dget_space(d);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    parz_error e = {0, ""};
    CHECK(w->write(w->ctx, d, fs, v, all, &e) == (w->stores ? PARZ_OK : PARZ_ERR_DEVICE));
    CHECK((H5Dget_storage_size(d) > 0) == (w->stores != 0));
    H5Sclose(fs);
    H5Dclose(d);
  }
  H5Eset_auto2(H5E_DEFAULT, print, print_data);
  H5Fclose(file);
  remove(path);
  free(v);
}

int main(int argc, char** argv) {
  static const int threads[] = {2, 0, 1};
  const int device_small = argc > 2 && !strcmp(argv[2], "--device-small");
  if (argc < 2) {
    fprintf(stderr, "usage: %s SCRATCH_DIR [--device-small]\n", argv[0]);
    return 2;
  }
  if (!H5Zfilter_avail(H5Z_FILTER_PARZ)) {
    fprintf(stderr, "the ParZ filter is not available (HDF5_PLUGIN_PATH?)\n");
    return 1;
  }
  {
    const writer host[] = {
        {"parz_h5_write, omp, 2 threads", "omp", write_host, (void*)&threads[0], 1},
        {"parz_h5_write, omp", "omp", write_host, (void*)&threads[1], 1},
        {"parz_h5_write, serial", "serial", write_host, (void*)&threads[2], 1}};
    /* masked datasets under the policies that may pick the GPU: the CPU's chunks, by
     * parz_h5_write and by the filter, on the GPU where one is usable */
    const writer masked[] = {{"parz_h5_write, cuda", "cuda", write_host, (void*)&threads[1], 1},
                             {"parz_h5_write, auto", "auto", write_host, (void*)&threads[1], 1},
                             {"H5Dwrite, cuda", "cuda", NULL, NULL, 1},
                             {"H5Dwrite, auto", "auto", NULL, NULL, 1}};
    for (size_t i = 0; i < sizeof host / sizeof host[0] && !device_small; i++)
      check_writer(&host[i], argv[1], 0, ALL_CASES);
    for (size_t i = 0; i < sizeof masked / sizeof masked[0] && !device_small; i++)
      check_writer(&masked[i], argv[1], 0, MASKED_CASES);
    if (!device_small)
      check_refusals(&host[1], argv[1]);
  }
#ifdef PARZ_TEST_DEVICE
  {
    const writer cuda = {"parz_h5_write_cuda", NULL, write_device, NULL, 1};
    const writer no_gpu = {"parz_h5_write_cuda, no GPU", NULL, write_cuda_no_gpu, NULL, 0};
    parz_gpu_context* ctx = NULL;
    parz_error e;
    if (!device_small)
      check_refusals(parz_gpu_available() ? &cuda : &no_gpu, argv[1]);
    if (!parz_gpu_available()) {
      printf("device writes: skipped (no CUDA device)\n");
    } else if (parz_gpu_context_create(&ctx, 0, &e) != PARZ_OK) {
      fprintf(stderr, "context: %s\n", e.message);
      failures++;
    } else {
      const writer gpu[] = {{"parz_h5_write, cuda", "cuda", write_host, (void*)&threads[1], 1},
                            {"parz_h5_write_device", NULL, write_device, ctx, 1},
                            {"parz_h5_write_cuda", NULL, write_device, NULL, 1}};
      const int before = failures;
      for (size_t i = device_small; i < (device_small ? 2 : sizeof gpu / sizeof gpu[0]); i++)
        check_writer(&gpu[i], argv[1], device_small ? (size_t)256 << 10 : 0, ALL_CASES);
      {
        /* host memory handed to the device writer */
        static float host[100 * 100];
        const writer direct = {"parz_h5_write_device, host memory", NULL, NULL, ctx, 0};
        char path[1024];
        snprintf(path, sizeof path, "%s/h5_write_host.h5", argv[1]);
        hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        hid_t d = new_dataset(file, "parz", 1, 0, 0, 1, 0);
        CHECK(parz_h5_write_device(ctx, d, H5S_ALL, host, sizeof host, NULL, &e) == PARZ_ERR_ARG);
        CHECK(H5Dget_storage_size(d) == 0);
        printf("  %s: %s\n", direct.name, e.message);
        H5Dclose(d);
        H5Fclose(file);
        remove(path);
      }
      printf("device writes: %s\n", failures == before ? "checked" : "FAILED");
      parz_gpu_context_free(ctx);
    }
  }
#else
  printf("device writes: not built (no CUDA)\n");
#endif
  return test_finish("test_h5_write");
}
