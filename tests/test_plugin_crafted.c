/* Crafted files through HDF5: datasets whose stored ParZ cd_values and chunk headers agree with
 * each other but not with the dataset's own datatype and layout messages. HDF5 copies a whole
 * chunk of the dataset out of the buffer the filter returns (and writes into it on a partial
 * write), so decoding such a chunk would read and write outside that buffer; the filter must
 * refuse it with its own message, on a read and on a partial write alike:
 *   - cd_values and chunk header saying 4x4 in a dataset of 64x64 chunks (16 KiB copied out of
 *     a 64-byte buffer);
 *   - cd_values saying float32 on a float64 dataset (2 KiB out of 1 KiB);
 *   - cd_values saying big-endian on a little-endian dataset (values swapped);
 *   - the same 4x4 chunk in a second dataset while an honest dataset with the same cd_values
 *     is open too (the dataset being read is the one checked, not the first found).
 * Honest datasets in the same files read correctly. Under scripts/sanitize.sh a read outside a
 * buffer fails the run (ASan intercepts HDF5's memcpy).
 * Usage: test_plugin_crafted <scratch dir> */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "H5Zparz.h"

#include "check.h"
#include "test_plugin_patch.h"

static const char* scratch_dir;

static void path_of(char* out, size_t size, const char* name) {
  snprintf(out, size, "%s/%s", scratch_dir, name);
}

/* The innermost ParZ message of the current error stack. */
static herr_t find_parz(unsigned n, const H5E_error2_t* e, void* data) {
  (void)n;
  char* out = (char*)data;
  if (out[0] == 0 && e->desc && strstr(e->desc, "parz"))
    snprintf(out, 512, "%s", e->desc);
  return 0;
}

static void parz_message(char msg[512]) {
  msg[0] = 0;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, find_parz, msg);
}

static hid_t make_dataset(hid_t file, const char* name, hid_t type, hsize_t rows, hsize_t cols,
                          hsize_t chunk_rows, hsize_t chunk_cols) {
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  const size_t n = H5Z_parz_reversible_cdata(cd);
  const hsize_t dims[2] = {rows, cols}, chunk[2] = {chunk_rows, chunk_cols};
  hid_t space = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 2, chunk);
  H5Pset_filter(dcpl, H5Z_FILTER_PARZ, H5Z_FLAG_MANDATORY, n, cd);
  hid_t d = H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  H5Sclose(space);
  return d;
}

/* A value that tells every position apart: row * 1000 + column. */
static void fill(double* v, hsize_t rows, hsize_t cols) {
  for (hsize_t r = 0; r < rows; r++)
    for (hsize_t c = 0; c < cols; c++)
      v[r * cols + c] = (double)(r * 1000 + c);
}

/* Dataset `name` of `file`: fill()'s rows x cols values as float32, in one chunk. */
static void add_honest(hid_t file, const char* name, hsize_t rows, hsize_t cols) {
  double* v = (double*)malloc(rows * cols * sizeof *v);
  hid_t d = make_dataset(file, name, H5T_IEEE_F32LE, rows, cols, rows, cols);
  fill(v, rows, cols);
  CHECK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  H5Dclose(d);
  free(v);
}

/* The stored (compressed) chunk of add_honest()'s dataset of rows x cols float32 values. */
static unsigned char* donor_chunk(const char* name, hsize_t rows, hsize_t cols, size_t* bytes) {
  char path[1024];
  path_of(path, sizeof path, name);
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  add_honest(file, "donor", rows, cols);
  hid_t d = H5Dopen2(file, "donor", H5P_DEFAULT);
  const hsize_t origin[2] = {0, 0};
  hsize_t size = 0;
  uint32_t mask = 0;
  CHECK(H5Dget_chunk_storage_size(d, origin, &size) >= 0 && size > 0);
  unsigned char* c = (unsigned char*)malloc(size);
  CHECK(H5Dread_chunk(d, H5P_DEFAULT, origin, &mask, c) >= 0);
  H5Dclose(d);
  H5Fclose(file);
  remove(path);
  *bytes = (size_t)size;
  return c;
}

/* A read or write of a crafted dataset (status st) must have failed with ParZ's message. */
static void check_refusal(herr_t st, const char* what, const char* how) {
  char msg[512];
  parz_message(msg);
  CHECK(st < 0);
  CHECK(strstr(msg, "cd_values describe") != NULL);
  printf("  %s, %s: %s\n", what, how, msg[0] ? msg : "(no ParZ message)");
}

/* Reads dataset `name` whole and writes one value into it (a partial chunk write, which makes
 * HDF5 decode the chunk first); both must fail with a ParZ message naming the mismatch. */
static void expect_refused(const char* path, const char* name, hid_t mem_type, size_t values,
                           const char* what) {
  hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  CHECK(file >= 0);
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  CHECK(d >= 0);
  double* v = (double*)calloc(values, sizeof *v);
  herr_t st = -1;
  H5E_BEGIN_TRY { st = H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v); }
  H5E_END_TRY;
  check_refusal(st, what, "read");

  const hsize_t start[2] = {1, 1}, count[2] = {1, 1};
  hid_t fs = H5Dget_space(d), ms = H5Screate_simple(2, count, NULL);
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  H5E_BEGIN_TRY { st = H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, v); }
  H5E_END_TRY;
  check_refusal(st, what, "partial write");
  H5Sclose(ms);
  H5Sclose(fs);
  free(v);
  H5E_BEGIN_TRY {
    H5Dclose(d);
    H5Fclose(file);
  }
  H5E_END_TRY;
}

/* Dataset `name` of the file reads back fill()'s values. */
static void expect_honest(const char* path, const char* name, hsize_t rows, hsize_t cols) {
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  double* v = (double*)malloc(rows * cols * sizeof *v);
  double* want = (double*)malloc(rows * cols * sizeof *want);
  fill(want, rows, cols);
  CHECK(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  CHECK(memcmp(v, want, rows * cols * sizeof *v) == 0);
  free(v);
  free(want);
  H5Dclose(d);
  H5Fclose(file);
}

/* Dataset "x" of `file`: rows x cols values of `type` in one chunk, whose stored bytes are
 * those of a chunk of donor_chunk(). */
static void add_foreign(hid_t file, hid_t type, hsize_t rows, hsize_t cols,
                        const unsigned char* chunk, size_t bytes) {
  const hsize_t origin[2] = {0, 0};
  hid_t d = make_dataset(file, "x", type, rows, cols, rows, cols);
  CHECK(H5Dwrite_chunk(d, H5P_DEFAULT, 0, origin, bytes, chunk) >= 0);
  H5Dclose(d);
}

/* A dataset "x" of one n x n chunk of `type` holding a ParZ chunk of donor_n x donor_n float32
 * values, its stored cd_values rewritten by up to two patches (test_patch_cd's arguments). */
typedef struct {
  const char* what;
  const char* file;
  hsize_t donor_n;
  int is_double; /* the dataset's values: float64, else float32 */
  hsize_t n;
  unsigned patch[2][4]; /* rows, cols, index, value; rows 0: none */
} foreign_case;

static const foreign_case foreign_cases[] = {
    /* cd_values and chunk say 4x4, the dataset has 64x64 chunks: 16 KiB copied out of 64 bytes */
    {"4x4 chunk in a 64x64 dataset",
     "crafted_shape.h5",
     4,
     0,
     64,
     {{64, 64, PARZ_CD_SHAPE, 4}, {4, 64, PARZ_CD_SHAPE + 1, 4}}},
    /* cd_values and chunk say float32 on a float64 dataset: 2 KiB out of 1 KiB */
    {"float32 cd_values on float64",
     "crafted_type.h5",
     16,
     1,
     16,
     {{16, 16, PARZ_CD_V1_TYPE, PARZ_FLOAT}, {0, 0, 0, 0}}},
};

static void foreign_chunk(const foreign_case* c) {
  char path[1024];
  size_t bytes;
  unsigned char* chunk = donor_chunk("crafted_donor.h5", c->donor_n, c->donor_n, &bytes);
  path_of(path, sizeof path, c->file);
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  add_foreign(file, c->is_double ? H5T_IEEE_F64LE : H5T_IEEE_F32LE, c->n, c->n, chunk, bytes);
  H5Fclose(file);
  for (int i = 0; i < 2 && c->patch[i][0]; i++)
    CHECK(test_patch_cd(path, c->patch[i][0], c->patch[i][1], (int)c->patch[i][2],
                        c->patch[i][3]) == 1);
  expect_refused(path, "x", c->is_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT,
                 (size_t)(c->n * c->n), c->what);
  free(chunk);
}

/* A little-endian dataset whose cd_values say big-endian, next to an honest one. */
static void big_endian_flag(void) {
  char path[1024];
  path_of(path, sizeof path, "crafted_endian.h5");
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  add_honest(file, "x", 16, 16);
  add_honest(file, "honest", 32, 8);
  H5Fclose(file);
  CHECK(test_patch_cd(path, 16, 16, PARZ_CD_V1_TYPE, PARZ_FLOAT + PARZ_CD_BIG_ENDIAN) == 1);
  expect_refused(path, "x", H5T_NATIVE_FLOAT, 16 * 16, "big-endian cd_values on little-endian");
  expect_honest(path, "honest", 32, 8);
}

/* Two datasets with the same stored cd_values (4x4 float32): an honest one with 4x4 chunks and
 * one with 64x64 chunks holding a 4x4 chunk. With the honest one open (and examined first) the
 * crafted one must still be refused, and the honest one still read. */
static void twin_cd_values(void) {
  char path[1024];
  size_t bytes;
  unsigned char* small = donor_chunk("crafted_donor_twin.h5", 4, 4, &bytes);
  double v[4 * 4];
  fill(v, 4, 4);
  path_of(path, sizeof path, "crafted_twin.h5");
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  add_honest(file, "honest", 4, 4);
  add_foreign(file, H5T_IEEE_F32LE, 64, 64, small, bytes);
  H5Fclose(file);
  CHECK(test_patch_cd(path, 64, 64, PARZ_CD_SHAPE, 4) == 1 &&
        test_patch_cd(path, 4, 64, PARZ_CD_SHAPE + 1, 4) == 1);
  hid_t keep = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t honest = H5Dopen2(keep, "honest", H5P_DEFAULT);
  float back[16];
  CHECK(H5Dread(honest, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0);
  expect_refused(path, "x", H5T_NATIVE_FLOAT, 64 * 64, "4x4 chunk, honest twin open");
  CHECK(H5Dread(honest, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0);
  for (int i = 0; i < 16; i++)
    CHECK(back[i] == (float)v[i]);
  H5Dclose(honest);
  H5Fclose(keep);
  free(small);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <scratch dir>\n", argv[0]);
    return 2;
  }
  scratch_dir = argv[1];
  if (H5Zfilter_avail(H5Z_FILTER_PARZ) <= 0) {
    fprintf(stderr, "the ParZ filter is not available (HDF5_PLUGIN_PATH?)\n");
    return 1;
  }
  for (size_t i = 0; i < sizeof foreign_cases / sizeof foreign_cases[0]; i++)
    foreign_chunk(&foreign_cases[i]);
  big_endian_flag();
  twin_cd_values();
  printf("%s\n", failures ? "FAILED" : "every crafted dataset refused");
  return failures ? 1 : 0;
}
