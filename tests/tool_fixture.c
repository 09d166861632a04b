/* Writes the files the `parz` tool is tested on (tool_cli.cmake), through the plugin
 * (HDF5_PLUGIN_PATH):
 *   good.h5  ParZ datasets in every mode and table kind, ranks 1 to 3, int and float, with
 *            non-finite values, a chunk stored without ParZ, an unwritten chunk, ParZ followed by
 *            fletcher32, a sparse dataset of 2^40 values; and datasets that are not ParZ
 *            (contiguous, deflate);
 *   bad.h5   the same, then four chunks damaged: a table byte flipped, a chunk cut short, a
 *            valid chunk of another dataset written in place of one, a payload byte flipped
 *            behind fletcher32.
 * It prints one line per ParZ dataset of good.h5 with what `parz inspect` must report:
 *   PATH STORED_BYTES ALLOCATED_CHUNKS EXCEPTIONS
 * and one per damaged chunk of bad.h5:  bad PATH [ORIGIN]
 * Usage: tool_fixture <scratch dir> */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "H5Zparz.h"
#include "check.h"

typedef struct {
  const char* path;
  hid_t mem_type, file_type;
  int rank;
  hsize_t dims[3], chunk[3];
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t ncd;
  int fletcher32; /* fletcher32 after ParZ */
  int nonfinite;  /* this many NaN / Inf values among the first ones */
  int skip_last;  /* leave the last chunk along dimension 0 unwritten */
} spec;

static hid_t create(hid_t file, const spec* s) {
  hid_t space = H5Screate_simple(s->rank, s->dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  CHECK(H5Pset_create_intermediate_group(lcpl, 1) >= 0);
  CHECK(H5Pset_chunk(dcpl, s->rank, s->chunk) >= 0);
  CHECK(H5Pset_filter(dcpl, H5Z_FILTER_PARZ, H5Z_FLAG_MANDATORY, s->ncd, s->cd) >= 0);
  if (s->fletcher32)
    CHECK(H5Pset_fletcher32(dcpl) >= 0);
  hid_t d = H5Dcreate2(file, s->path, s->file_type, space, lcpl, dcpl, H5P_DEFAULT);
  CHECK(d >= 0);
  H5Pclose(lcpl);
  H5Pclose(dcpl);
  H5Sclose(space);
  return d;
}

/* Smooth values with some structure; the first `nonfinite` are NaN, +Inf, -Inf in turn. */
static void* values(const spec* s, size_t* count) {
  size_t n = 1;
  for (int k = 0; k < s->rank; k++)
    n *= s->dims[k];
  *count = n;
  size_t size = H5Tget_size(s->mem_type);
  unsigned char* v = malloc(n * size);
  for (size_t i = 0; i < n; i++) {
    double x = 100.0 * sin(0.01 * (double)i) + 0.5 * cos(0.37 * (double)i);
    if ((int)i < s->nonfinite)
      x = i % 3 == 0 ? NAN : i % 3 == 1 ? INFINITY : -INFINITY;
    if (H5Tequal(s->mem_type, H5T_NATIVE_FLOAT) > 0) {
      float f = (float)x;
      memcpy(v + i * size, &f, size);
    } else if (H5Tequal(s->mem_type, H5T_NATIVE_DOUBLE) > 0) {
      memcpy(v + i * size, &x, size);
    } else if (size == 4) {
      int32_t k = (int32_t)(1000.0 * x);
      memcpy(v + i * size, &k, size);
    } else {
      int64_t k = (int64_t)(1e6 * x);
      memcpy(v + i * size, &k, size);
    }
  }
  return v;
}

static void write_dataset(hid_t file, const spec* s) {
  hid_t d = create(file, s);
  size_t n;
  void* v = values(s, &n);
  hid_t fs = H5Dget_space(d), ms;
  if (s->skip_last) {
    hsize_t start[3] = {0, 0, 0}, count[3];
    for (int k = 0; k < s->rank; k++)
      count[k] = s->dims[k];
    count[0] -= s->chunk[0];
    CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0);
    ms = H5Screate_simple(s->rank, count, NULL);
  } else {
    ms = H5Scopy(fs);
  }
  CHECK(H5Dwrite(d, s->mem_type, ms, fs, H5P_DEFAULT, v) >= 0);
  H5Sclose(ms);
  H5Sclose(fs);
  free(v);
  H5Dclose(d);
}

/* A 1-D float32 dataset whose chunk at 64 is stored without ParZ (filter mask 1), as HDF5
 * stores a chunk when an optional filter fails. */
static void write_raw_chunk(hid_t file) {
  spec s = {"/raw_chunk", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, 1, {256}, {64}, {0}, 0, 0, 0, 0};
  s.ncd = H5Z_parz_accuracy_cdata(1e-3, s.cd);
  write_dataset(file, &s);
  hid_t d = H5Dopen2(file, s.path, H5P_DEFAULT);
  float raw[64];
  for (int i = 0; i < 64; i++)
    raw[i] = (float)i;
  hsize_t at[1] = {64};
  CHECK(H5Dwrite_chunk(d, H5P_DEFAULT, 1u, at, sizeof raw, raw) >= 0);
  H5Dclose(d);
}

/* A dataset of 2^40 values (extendible) of which two chunks are written, far apart: the tool
 * must not walk the 2^28 chunks of its grid. */
static void write_sparse(hid_t file) {
  hsize_t dims[1] = {(hsize_t)1 << 40}, maxdims[1] = {H5S_UNLIMITED}, chunk[1] = {4096};
  hsize_t starts[2] = {0, dims[0] - chunk[0]};
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = H5Z_parz_reversible_cdata(cd);
  hid_t space = H5Screate_simple(1, dims, maxdims);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  CHECK(H5Pset_chunk(dcpl, 1, chunk) >= 0);
  CHECK(H5Pset_filter(dcpl, H5Z_FILTER_PARZ, H5Z_FLAG_MANDATORY, n, cd) >= 0);
  hid_t d = H5Dcreate2(file, "/sparse", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  CHECK(d >= 0);
  float v[4096];
  for (int i = 0; i < 4096; i++)
    v[i] = (float)i;
  hid_t mem = H5Screate_simple(1, chunk, NULL);
  for (int k = 0; k < 2; k++) {
    CHECK(H5Sselect_hyperslab(space, H5S_SELECT_SET, &starts[k], NULL, chunk, NULL) >= 0);
    CHECK(H5Dwrite(d, H5T_NATIVE_FLOAT, mem, space, H5P_DEFAULT, v) >= 0);
  }
  H5Sclose(mem);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
}

static void write_other(hid_t file) {
  hsize_t dims[2] = {20, 30}, chunk[2] = {10, 30};
  double v[600];
  for (int i = 0; i < 600; i++)
    v[i] = i;
  hid_t space = H5Screate_simple(2, dims, NULL);
  hid_t d =
      H5Dcreate2(file, "/plain", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  H5Dclose(d);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  CHECK(H5Pset_chunk(dcpl, 2, chunk) >= 0 && H5Pset_deflate(dcpl, 4) >= 0);
  d = H5Dcreate2(file, "/gzip", H5T_STD_I16LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
}

static spec specs[8];
static int nspecs = 0;

static void define_specs(void) {
  spec* s = specs;
  /* float32 2D, accuracy, non-finite values (exceptions), default table */
  *s = (spec){"/fields/accuracy",
              H5T_NATIVE_FLOAT,
              H5T_IEEE_F32LE,
              2,
              {100, 96},
              {50, 48},
              {0},
              0,
              0,
              7,
              0};
  s->ncd = H5Z_parz_accuracy_cdata(1e-3, s->cd);
  s++;
  /* float64 3D big-endian, reversible, one chunk never written */
  *s = (spec){"/fields/reversible",
              H5T_NATIVE_DOUBLE,
              H5T_IEEE_F64BE,
              3,
              {12, 16, 16},
              {4, 16, 16},
              {0},
              0,
              0,
              3,
              1};
  s->ncd = H5Z_parz_reversible_cdata(s->cd);
  s++;
  /* int32 2D, fixed rate: no table */
  *s =
      (spec){"/ints/rate", H5T_NATIVE_INT32, H5T_STD_I32LE, 2, {64, 64}, {32, 64}, {0}, 0, 0, 0, 0};
  s->ncd = H5Z_parz_rate_cdata(16.0, s->cd);
  s++;
  /* int64 1D, precision, C = 4 with a LENGTHS table */
  *s =
      (spec){"/ints/precision", H5T_NATIVE_INT64, H5T_STD_I64LE, 1, {1000}, {256}, {0}, 0, 0, 0, 0};
  s->ncd = H5Z_parz_table_cdata(H5Z_parz_precision_cdata(40, s->cd), 4, 0, 3, s->cd);
  s++;
  /* float32 2D, expert, OFFSETS table */
  *s = (spec){"/expert", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, 2, {40, 40}, {40, 40}, {0}, 0, 0, 0, 0};
  s->ncd = H5Z_parz_table_cdata(H5Z_parz_expert_cdata(1, 16658, 20, -1074, s->cd), 2, 0, 2, s->cd);
  s++;
  /* HYBRID with C = 1 and P = 8, then fletcher32 */
  *s = (spec){
      "/with_checksum", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, 1, {4096}, {2048}, {0}, 0, 1, 0, 0};
  s->ncd = H5Z_parz_table_cdata(H5Z_parz_accuracy_cdata(1e-2, s->cd), 1, 8, 4, s->cd);
  s++;
  nspecs = (int)(s - specs);
}

/* Stored bytes and allocated chunks of a dataset, as HDF5 counts them, and its exceptions: the
 * infinities among its first `nonfinite` values (the NaN among them, every third, are masked). */
static void facts(hid_t file, const char* path, int nonfinite) {
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  hsize_t n = 0;
  hid_t space = H5Dget_space(d); /* HDF5 1.10 refuses H5S_ALL here */
  CHECK(H5Dget_num_chunks(d, space, &n) >= 0);
  H5Sclose(space);
  printf("%s %llu %llu %d\n", path, (unsigned long long)H5Dget_storage_size(d),
         (unsigned long long)n, nonfinite - (nonfinite + 2) / 3);
  H5Dclose(d);
}

static void write_file(const char* path, int print_facts) {
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(f >= 0);
  for (int i = 0; i < nspecs; i++)
    write_dataset(f, &specs[i]);
  write_raw_chunk(f);
  write_sparse(f);
  write_other(f);
  if (print_facts) {
    for (int i = 0; i < nspecs; i++)
      facts(f, specs[i].path, specs[i].nonfinite);
    facts(f, "/raw_chunk", 0);
    facts(f, "/sparse", 0);
  }
  H5Fclose(f);
}

/* Reads the stored chunk at `at` into a buffer of DAMAGE_ROOM bytes, lets `damage` change it (and
 * its size), and writes it back. */
#define DAMAGE_ROOM (1u << 20)
static void damage_chunk(hid_t file, const char* path, const hsize_t* at, const char* where,
                         void (*damage)(hid_t file, unsigned char* bytes, hsize_t* size)) {
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  hsize_t size = 0;
  uint32_t mask = 0;
  CHECK(H5Dget_chunk_storage_size(d, at, &size) >= 0 && size > 200 && size <= DAMAGE_ROOM);
  unsigned char* bytes = malloc(DAMAGE_ROOM);
  CHECK(H5Dread_chunk(d, H5P_DEFAULT, at, &mask, bytes) >= 0);
  damage(file, bytes, &size);
  CHECK(H5Dwrite_chunk(d, H5P_DEFAULT, mask, at, size, bytes) >= 0);
  free(bytes);
  H5Dclose(d);
  printf("bad %s %s\n", path, where);
}

static void flip_table_byte(hid_t file, unsigned char* bytes, hsize_t* size) {
  (void)file, (void)size;
  /* a segment length of the table, after the 112-byte header and (format version 2) the
   * section directory, 16 bytes per section counted at offset 104 */
  size_t table = 112 + (bytes[4] >= 2 ? 16u * bytes[104] : 0);
  bytes[table + 9] ^= 0x10;
}

static void cut_short(hid_t file, unsigned char* bytes, hsize_t* size) {
  (void)file, (void)bytes;
  *size -= 16;
}

static void flip_payload_byte(hid_t file, unsigned char* bytes, hsize_t* size) {
  (void)file;
  bytes[*size / 2] ^= 0x01; /* fletcher32 covers it */
}

/* Replaces the chunk by the first chunk of /expert (valid, 40x40, not this dataset's shape). */
static void put_foreign(hid_t file, unsigned char* bytes, hsize_t* size) {
  hid_t other = H5Dopen2(file, "/expert", H5P_DEFAULT);
  hsize_t zero[2] = {0, 0}, osize = 0;
  uint32_t mask = 0;
  CHECK(H5Dget_chunk_storage_size(other, zero, &osize) >= 0 && osize <= DAMAGE_ROOM);
  CHECK(H5Dread_chunk(other, H5P_DEFAULT, zero, &mask, bytes) >= 0);
  *size = osize;
  H5Dclose(other);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: tool_fixture <scratch dir>\n");
    return 2;
  }
  if (H5Zfilter_avail(H5Z_FILTER_PARZ) <= 0) {
    fprintf(stderr, "the ParZ plugin is not available: set HDF5_PLUGIN_PATH\n");
    return 2;
  }
  char good[1024], bad[1024];
  snprintf(good, sizeof good, "%s/good.h5", argv[1]);
  snprintf(bad, sizeof bad, "%s/bad.h5", argv[1]);
  define_specs();
  write_file(good, 1);
  write_file(bad, 0);
  hid_t f = H5Fopen(bad, H5F_ACC_RDWR, H5P_DEFAULT);
  damage_chunk(f, "/fields/accuracy", (const hsize_t[]){50, 48}, "[50,48]", flip_table_byte);
  damage_chunk(f, "/ints/rate", (const hsize_t[]){32, 0}, "[32,0]", cut_short);
  damage_chunk(f, "/ints/precision", (const hsize_t[]){512}, "[512]", put_foreign);
  damage_chunk(f, "/with_checksum", (const hsize_t[]){2048}, "[2048]", flip_payload_byte);
  H5Fclose(f);
  return failures != 0;
}
