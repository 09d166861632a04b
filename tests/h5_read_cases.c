/* Datasets and checks shared by the dataset readers' tests (h5_read_cases.h). */
#include "h5_read_cases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "H5Zparz.h"
#include "check.h"
#include "test_plugin_patch.h"

#define POISON 0xA5u

/* Values of the dataset's native type: a smooth field, noise, NaN and Inf for floats. */
static void* make_values(hid_t mem_type, size_t n, unsigned seed) {
  const size_t size = H5Tget_size(mem_type);
  const int is_float = H5Tget_class(mem_type) == H5T_FLOAT;
  unsigned char* v = (unsigned char*)malloc(n * size);
  for (size_t i = 0; i < n; i++) {
    double x = 100.0 * sin(0.01 * (double)i + seed) + 0.001 * (double)((i * 2654435761u) % 1000);
    if (is_float && size == 4)
      ((float*)v)[i] = i % 997 == 5 ? NAN : i % 1009 == 7 ? INFINITY : (float)x;
    else if (is_float)
      ((double*)v)[i] = i % 997 == 5 ? NAN : (double)x;
    else if (size == 4)
      ((int*)v)[i] = (int)(x * 1000.0);
    else
      ((long long*)v)[i] = (long long)(x * 1e9);
  }
  return v;
}

/* fill_time: H5D_FILL_TIME_IFSET (HDF5's default) or another. */
static hid_t make_dataset(hid_t file, const char* name, hid_t file_type, int rank,
                          const hsize_t* dims, const hsize_t* chunk, const unsigned* cd, size_t n,
                          int shuffle, double fill, H5D_fill_time_t fill_time) {
  hid_t space = H5Screate_simple(rank, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (chunk) {
    H5Pset_chunk(dcpl, rank, chunk);
    if (cd)
      H5Pset_filter(dcpl, H5Z_FILTER_PARZ, H5Z_FLAG_MANDATORY, n, cd);
    if (shuffle) /* after ParZ: a filter before it would change the values it compresses */
      H5Pset_shuffle(dcpl);
  }
  H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &fill);
  H5Pset_fill_time(dcpl, fill_time);
  hid_t d = H5Dcreate2(file, name, file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  H5Sclose(space);
  return d;
}

/* Writes values over the whole dataset, then closes it. */
static void write_values(hid_t dset, hid_t mem_type, unsigned seed) {
  hid_t space = H5Dget_space(dset);
  const size_t n = (size_t)H5Sget_simple_extent_npoints(space);
  void* v = make_values(mem_type, n, seed);
  H5Sclose(space);
  CHECK(H5Dwrite(dset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  CHECK(H5Dclose(dset) >= 0);
  free(v);
}

/* Writes values into the box [start, start + count) only. */
static void write_box(hid_t dset, hid_t mem_type, const hsize_t* start, const hsize_t* count,
                      unsigned seed) {
  hid_t fs = H5Dget_space(dset);
  const int rank = H5Sget_simple_extent_ndims(fs);
  hid_t ms = H5Screate_simple(rank, count, NULL);
  size_t n = 1;
  for (int k = 0; k < rank; k++)
    n *= count[k];
  void* v = make_values(mem_type, n, seed);
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  CHECK(H5Dwrite(dset, mem_type, ms, fs, H5P_DEFAULT, v) >= 0);
  free(v);
  H5Sclose(ms);
  H5Sclose(fs);
}

/* The datasets read both ways (after the file is closed and opened again: H5Dread in the writing
 * process would return the chunk cache's unfiltered values). raw_big_endian: holds a chunk
 * stored without the filter in big-endian order. */
static const struct {
  const char* name;
  const char* what;
  int size, is_float, raw_big_endian;
} compared[] = {{"f32_2d", "f32 2D accuracy, edge chunks", 4, 1, 0},
                {"f64_3d", "f64 3D reversible", 8, 1, 0},
                {"i32_1d", "i32 1D precision", 4, 0, 0},
                {"i64_2d", "i64 2D rate", 8, 0, 0},
                {"f32_4d", "f32 4D", 4, 1, 0},
                {"unit", "unit extents, C = 4, P = 3", 4, 1, 0},
                {"f32_be", "big-endian dataset", 4, 1, 0},
                {"partial", "fill values and an unfiltered chunk", 4, 1, 0},
                {"fill_never", "chunks never written, fill time never", 4, 1, 0},
                {"raw_be", "big-endian, an unfiltered chunk", 8, 1, 1}};

static void shapes_and_modes(hid_t file) {
  unsigned cd[16];
  size_t n;
  const H5D_fill_time_t ifset = H5D_FILL_TIME_IFSET;
  {
    const hsize_t dims[2] = {200, 300}, chunk[2] = {64, 128};
    n = H5Z_parz_accuracy_cdata(1e-3, cd);
    hid_t d = make_dataset(file, "f32_2d", H5T_IEEE_F32LE, 2, dims, chunk, cd, n, 0, 0, ifset);
    write_values(d, H5T_NATIVE_FLOAT, 1);
  }
  {
    const hsize_t dims[3] = {20, 30, 40}, chunk[3] = {8, 16, 16};
    n = H5Z_parz_reversible_cdata(cd);
    hid_t d = make_dataset(file, "f64_3d", H5T_IEEE_F64LE, 3, dims, chunk, cd, n, 0, 0, ifset);
    write_values(d, H5T_NATIVE_DOUBLE, 2);
  }
  {
    const hsize_t dims[1] = {10000}, chunk[1] = {1024};
    n = H5Z_parz_precision_cdata(20, cd);
    hid_t d = make_dataset(file, "i32_1d", H5T_STD_I32LE, 1, dims, chunk, cd, n, 0, 0, ifset);
    write_values(d, H5T_NATIVE_INT, 3);
  }
  {
    const hsize_t dims[2] = {50, 70}, chunk[2] = {16, 16};
    n = H5Z_parz_rate_cdata(16, cd);
    hid_t d = make_dataset(file, "i64_2d", H5T_STD_I64LE, 2, dims, chunk, cd, n, 0, 0, ifset);
    write_values(d, H5T_NATIVE_LLONG, 4);
  }
  {
    const hsize_t dims[4] = {4, 5, 6, 7}, chunk[4] = {2, 3, 4, 5};
    n = H5Z_parz_accuracy_cdata(1e-2, cd);
    hid_t d = make_dataset(file, "f32_4d", H5T_IEEE_F32LE, 4, dims, chunk, cd, n, 0, 0, ifset);
    write_values(d, H5T_NATIVE_FLOAT, 5);
  }
  {
    const hsize_t dims[3] = {9, 1, 300}, chunk[3] = {1, 1, 300};
    n = H5Z_parz_accuracy_cdata(1e-3, cd);
    n = H5Z_parz_table_cdata(n, 4, 3, 0, cd);
    hid_t d = make_dataset(file, "unit", H5T_IEEE_F32LE, 3, dims, chunk, cd, n, 0, 0, ifset);
    write_values(d, H5T_NATIVE_FLOAT, 6);
  }
  {
    const hsize_t dims[2] = {40, 60}, chunk[2] = {16, 32};
    n = H5Z_parz_accuracy_cdata(1e-3, cd);
    hid_t d = make_dataset(file, "f32_be", H5T_IEEE_F32BE, 2, dims, chunk, cd, n, 0, 0, ifset);
    write_values(d, H5T_NATIVE_FLOAT, 7);
  }
}

/* Chunks never written take the fill value (or, with fill time never, are left alone as H5Dread
 * leaves them); chunks stored without the filter, in either byte order. */
static void fill_and_raw(hid_t file) {
  unsigned cd[16];
  const size_t n = H5Z_parz_accuracy_cdata(1e-3, cd);
  const hsize_t dims[2] = {100, 100}, chunk[2] = {32, 32};
  const hsize_t start[2] = {0, 0}, count[2] = {50, 40}, off[2] = {64, 64};
  hid_t d = make_dataset(file, "partial", H5T_IEEE_F32LE, 2, dims, chunk, cd, n, 0, -7.5,
                         H5D_FILL_TIME_IFSET);
  write_box(d, H5T_NATIVE_FLOAT, start, count, 8);
  {
    /* the chunk at (64, 64), raw values, the filter marked as skipped */
    float raw[32 * 32];
    for (int i = 0; i < 32 * 32; i++)
      raw[i] = 0.25f * (float)i;
    CHECK(H5Dwrite_chunk(d, H5P_DEFAULT, 1u, off, sizeof raw, raw) >= 0);
  }
  H5Dclose(d);

  d = make_dataset(file, "fill_never", H5T_IEEE_F32LE, 2, dims, chunk, cd, n, 0, 3.0,
                   H5D_FILL_TIME_NEVER);
  write_box(d, H5T_NATIVE_FLOAT, start, count, 9);
  H5Dclose(d);

  {
    /* float64 big-endian, and its chunk at (64, 64) stored raw: big-endian bytes */
    const hsize_t c2[2] = {32, 32};
    unsigned char raw[32 * 32 * 8];
    d = make_dataset(file, "raw_be", H5T_IEEE_F64BE, 2, dims, c2, cd, n, 0, 0, H5D_FILL_TIME_IFSET);
    write_values(d, H5T_NATIVE_DOUBLE, 10);
    d = H5Dopen2(file, "raw_be", H5P_DEFAULT);
    for (int i = 0; i < 32 * 32; i++) {
      const double x = 1.5 * (double)i - 100.0;
      uint64_t u;
      memcpy(&u, &x, 8);
      for (int b = 0; b < 8; b++)
        raw[8 * i + b] = (unsigned char)(u >> (8 * (7 - b)));
    }
    CHECK(H5Dwrite_chunk(d, H5P_DEFAULT, 1u, off, sizeof raw, raw) >= 0);
    H5Dclose(d);
  }
}

/* A ParZ chunk of `type` and shape rows x cols holding values, written raw (filter mask 0) over
 * the chunk at `off` of dataset d. */
static void write_foreign_chunk(hid_t d, parz_type type, size_t rows, size_t cols,
                                const hsize_t* off) {
  parz_array a;
  parz_chunk_config cfg;
  size_t written = 0, i;
  void* v = malloc(rows * cols * 8);
  memset(&a, 0, sizeof a);
  memset(&cfg, 0, sizeof cfg);
  a.type = type;
  a.dims = 2;
  a.shape[0] = rows;
  a.shape[1] = cols;
  for (i = 0; i < rows * cols; i++) {
    if (type == PARZ_FLOAT)
      ((float*)v)[i] = (float)i;
    else
      ((int*)v)[i] = (int)i;
  }
  parz_params_reversible(&cfg.params);
  const size_t cap = parz_chunk_bound(&a, &cfg);
  unsigned char* chunk = (unsigned char*)malloc(cap);
  CHECK(parz_chunk_encode(&a, v, &cfg, chunk, cap, &written, NULL) == PARZ_OK);
  CHECK(H5Dwrite_chunk(d, H5P_DEFAULT, 0, off, written, chunk) >= 0);
  free(chunk);
  free(v);
}

/* Datasets the readers must refuse, and one with a corrupt chunk (at (32, 0): one bit of its
 * payload flipped, which its payload checksum catches). */
static void write_refused(hid_t file) {
  unsigned cd[16];
  const size_t n = H5Z_parz_accuracy_cdata(1e-3, cd);
  const hsize_t dims[2] = {64, 64}, chunk[2] = {32, 32}, zero[2] = {0, 0};
  const H5D_fill_time_t ifset = H5D_FILL_TIME_IFSET;
  write_values(make_dataset(file, "shuffled", H5T_IEEE_F32LE, 2, dims, chunk, cd, n, 1, 0, ifset),
               H5T_NATIVE_FLOAT, 9);
  H5Dclose(make_dataset(file, "contiguous", H5T_IEEE_F32LE, 2, dims, NULL, NULL, 0, 0, 0, ifset));
  hid_t d = make_dataset(file, "corrupt", H5T_IEEE_F32LE, 2, dims, chunk, cd, n, 0, 0, ifset);
  write_values(d, H5T_NATIVE_FLOAT, 10);
  d = H5Dopen2(file, "corrupt", H5P_DEFAULT);
  const hsize_t off[2] = {32, 0};
  hsize_t size = 0;
  CHECK(H5Dget_chunk_storage_size(d, off, &size) >= 0 && size > 0);
  unsigned char* c = (unsigned char*)malloc(size);
  unsigned char* bad = (unsigned char*)malloc(size);
  float out[32 * 32];
  uint32_t mask = 0;
  parz_chunk_view view;
  CHECK(H5Dread_chunk(d, H5P_DEFAULT, off, &mask, c) >= 0);
  CHECK(parz_chunk_parse(c, size, &view, NULL) == PARZ_OK);
  /* a bit in the middle of the payload */
  memcpy(bad, c, size);
  bad[size - view.payload_bytes / 2] ^= 0x10u;
  CHECK(parz_chunk_decode(bad, size, out, sizeof out, NULL) == PARZ_ERR_CHECKSUM);
  CHECK(H5Dwrite_chunk(d, H5P_DEFAULT, 0, off, size, bad) >= 0);
  free(c);
  free(bad);
  H5Dclose(d);

  /* valid ParZ chunks of the same 1024 values, 16x64 floats and 32x32 int32s, written raw over
   * the chunk at (0, 0): decoded into place they would scramble values, so readers refuse them */
  d = make_dataset(file, "foreign", H5T_IEEE_F32LE, 2, dims, chunk, cd, n, 0, 0, ifset);
  write_values(d, H5T_NATIVE_FLOAT, 11);
  d = H5Dopen2(file, "foreign", H5P_DEFAULT);
  write_foreign_chunk(d, PARZ_FLOAT, 16, 64, zero);
  H5Dclose(d);
  d = make_dataset(file, "foreign_type", H5T_IEEE_F32LE, 2, dims, chunk, cd, n, 0, 0, ifset);
  write_values(d, H5T_NATIVE_FLOAT, 12);
  d = H5Dopen2(file, "foreign_type", H5P_DEFAULT);
  write_foreign_chunk(d, PARZ_INT32, 32, 32, zero);
  H5Dclose(d);
}

/* Datasets whose stored cd_values are rewritten (craft_cd_values) to disagree with their type,
 * byte order or chunk shape: H5Dread refuses them, and so must the readers. */
static void write_crafted(hid_t file) {
  unsigned cd[16];
  const size_t n = H5Z_parz_reversible_cdata(cd);
  const hsize_t dims[2] = {64, 64}, endian[2] = {24, 32}, type[2] = {32, 24}, shape[2] = {8, 64};
  const H5D_fill_time_t ifset = H5D_FILL_TIME_IFSET;
  write_values(make_dataset(file, "cd_endian", H5T_IEEE_F32LE, 2, dims, endian, cd, n, 0, 0, ifset),
               H5T_NATIVE_FLOAT, 12);
  write_values(make_dataset(file, "cd_type", H5T_IEEE_F64LE, 2, dims, type, cd, n, 0, 0, ifset),
               H5T_NATIVE_DOUBLE, 13);
  write_values(make_dataset(file, "cd_shape", H5T_IEEE_F32LE, 2, dims, shape, cd, n, 0, 0, ifset),
               H5T_NATIVE_FLOAT, 14);
}

/* cd_endian: big-endian; cd_type: float32; cd_shape: 4x4 chunks (the file closed). */
static void craft_cd_values(const char* path) {
  CHECK(test_patch_cd(path, 24, 32, PARZ_CD_V1_TYPE, PARZ_FLOAT + PARZ_CD_BIG_ENDIAN) == 1);
  CHECK(test_patch_cd(path, 32, 24, PARZ_CD_V1_TYPE, PARZ_FLOAT) == 1);
  CHECK(test_patch_cd(path, 8, 64, PARZ_CD_SHAPE, 4) == 1 &&
        test_patch_cd(path, 4, 64, PARZ_CD_SHAPE + 1, 4) == 1);
}

int h5_read_cases_write(const char* path) {
  hid_t file;
  if (!H5Zfilter_avail(H5Z_FILTER_PARZ)) {
    fprintf(stderr, "the ParZ filter is not available (HDF5_PLUGIN_PATH?)\n");
    return 1;
  }
  file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(file >= 0);
  shapes_and_modes(file);
  fill_and_raw(file);
  write_refused(file);
  write_crafted(file);
  H5Fclose(file);
  craft_cd_values(path);
  return failures;
}

/* Reads dset both ways and compares, the whole of it (start NULL) or the box of count[] values
 * from start[]; returns the reader's status. Both buffers start poisoned alike, so places
 * H5Dread leaves alone must be left alone too, and nothing may be written past the values. */
static int compare(const h5_reader* r, hid_t dset, hid_t mem_type, const char* what,
                   const hsize_t* start, const hsize_t* count) {
  hid_t fs = H5S_ALL, ms = H5S_ALL;
  size_t n;
  if (start) {
    fs = H5Dget_space(dset);
    ms = H5Screate_simple(H5Sget_simple_extent_ndims(fs), count, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    n = (size_t)H5Sget_select_npoints(fs);
  } else {
    hid_t space = H5Dget_space(dset);
    n = (size_t)H5Sget_simple_extent_npoints(space);
    H5Sclose(space);
  }
  const size_t size = H5Tget_size(mem_type), bytes = n * size;
  unsigned char* ref = (unsigned char*)malloc(bytes + 1);
  unsigned char* got = (unsigned char*)malloc(bytes + 1);
  parz_error e;
  int rc;
  memset(ref, POISON, bytes + 1);
  memset(got, POISON, bytes + 1);
  CHECK(H5Dread(dset, mem_type, ms, fs, H5P_DEFAULT, ref) >= 0);
  rc = r->read(r->ctx, dset, fs, got, bytes, &e);
  if (rc != PARZ_OK) {
    fprintf(stderr, "%s: %s: %s\n", r->name, what, e.message);
  } else {
    CHECK(got[bytes] == POISON);
    if (memcmp(got, ref, bytes)) {
      size_t first = bytes, differ = 0;
      for (size_t i = 0; i < n; i++)
        if (memcmp(got + i * size, ref + i * size, size)) {
          differ++;
          first = first < bytes ? first : i;
        }
      unsigned long long a = 0, b = 0;
      memcpy(&a, ref + first * size, size);
      memcpy(&b, got + first * size, size);
      fprintf(stderr,
              "%s: %s: differs from H5Dread in %zu of %zu values, first at %zu "
              "(%llx, not %llx)\n",
              r->name, what, differ, n, first, b, a);
      failures++;
    }
  }
  if (start) {
    H5Sclose(ms);
    H5Sclose(fs);
  }
  free(ref);
  free(got);
  return rc;
}

/* The whole dataset, then boxes of it: the middle half in every dimension (across chunks), the
 * last value (an edge chunk), and a slab one value thick in the first dimension across all the
 * others (as an MPI rank reads its part). */
static void compare_boxes(const h5_reader* r, hid_t dset, hid_t mem_type, const char* what) {
  hid_t space = H5Dget_space(dset);
  hsize_t dims[H5S_MAX_RANK], start[H5S_MAX_RANK], count[H5S_MAX_RANK];
  char label[160];
  const int rank = H5Sget_simple_extent_dims(space, dims, NULL);
  H5Sclose(space);
  CHECK(compare(r, dset, mem_type, what, NULL, NULL) == PARZ_OK);
  for (int b = 0; b < 3; b++) {
    for (int k = 0; k < rank; k++) {
      start[k] = b == 0 ? dims[k] / 4 : b == 1 ? dims[k] - 1 : k == 0 ? dims[0] / 2 : 0;
      count[k] = b == 0 ? (dims[k] / 2 ? dims[k] / 2 : 1) : b == 1 || k == 0 ? 1 : dims[k];
    }
    snprintf(label, sizeof label, "%s, %s", what,
             b == 0   ? "middle box"
             : b == 1 ? "last value"
                      : "slab");
    CHECK(compare(r, dset, mem_type, label, start, count) == PARZ_OK);
  }
}

/* Reads dataset `name` whole into a buffer of `bytes`; returns the reader's status. */
static int read_whole(const h5_reader* r, hid_t file, const char* name, size_t bytes,
                      parz_error* e) {
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  unsigned char* buf = (unsigned char*)malloc(bytes ? bytes : 1);
  int rc = r->read(r->ctx, d, H5S_ALL, buf, bytes, e);
  free(buf);
  H5Dclose(d);
  return rc;
}

/* Selections: none (nothing written), a short buffer for a box, and refusals of selections that
 * are not one box or not of the dataset's extent. */
static void check_selections(const h5_reader* r, hid_t file) {
  parz_error e;
  hid_t d = H5Dopen2(file, "f32_2d", H5P_DEFAULT); /* 200 x 300 */
  hid_t fs = H5Dget_space(d);
  unsigned char buf[64 * 64 * 4];
  memset(buf, POISON, sizeof buf);
  H5Sselect_none(fs);
  CHECK(r->read(r->ctx, d, fs, buf, sizeof buf, &e) == PARZ_OK);
  CHECK(buf[0] == POISON && buf[sizeof buf - 1] == POISON);
  const hsize_t start[2] = {10, 20}, count[2] = {5, 6}, start2[2] = {100, 200};
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  CHECK(r->read(r->ctx, d, fs, buf, 5 * 6 * 4 - 1, &e) == PARZ_ERR_BUFFER);
  H5Sselect_hyperslab(fs, H5S_SELECT_OR, start2, NULL, count, NULL);
  CHECK(r->read(r->ctx, d, fs, buf, sizeof buf, &e) == PARZ_ERR_UNSUPPORTED);
  printf("  %s, two boxes: %s\n", r->name, e.message);
  const hsize_t points[3][2] = {{0, 0}, {5, 7}, {199, 299}};
  H5Sselect_elements(fs, H5S_SELECT_SET, 3, &points[0][0]);
  CHECK(r->read(r->ctx, d, fs, buf, sizeof buf, &e) == PARZ_ERR_UNSUPPORTED);
  printf("  %s, points: %s\n", r->name, e.message);
  H5Sclose(fs);
  const hsize_t other[2] = {200, 301};
  fs = H5Screate_simple(2, other, NULL);
  CHECK(r->read(r->ctx, d, fs, buf, sizeof buf, &e) == PARZ_ERR_DIMS);
  printf("  %s, another extent: %s\n", r->name, e.message);
  H5Sclose(fs);
  H5Dclose(d);
}

static void check_refused(const h5_reader* r, hid_t file) {
  parz_error e;
  const size_t bytes = 64 * 64 * 4;
  int rc;
  CHECK(read_whole(r, file, "shuffled", bytes, &e) == PARZ_ERR_UNSUPPORTED);
  CHECK(read_whole(r, file, "contiguous", bytes, &e) == PARZ_ERR_UNSUPPORTED);
  CHECK(read_whole(r, file, "corrupt", bytes - 1, &e) == PARZ_ERR_BUFFER);
  rc = read_whole(r, file, "corrupt", bytes, &e);
  CHECK(rc == PARZ_ERR_CHECKSUM);
  CHECK(rc == PARZ_OK || (strstr(e.message, "the chunk at [32,0]") != NULL &&
                          strstr(e.message, "payload checksum") != NULL));
  printf("  %s, corrupt chunk: %s\n", r->name, e.message);
  {
    /* boxes that stay clear of the corrupt chunk do not read it: the values of the other
     * chunks, as H5Dread gives them */
    static const hsize_t start[2][2] = {{0, 10}, {0, 32}}, count[2][2] = {{32, 54}, {64, 32}};
    hid_t d = H5Dopen2(file, "corrupt", H5P_DEFAULT);
    for (int b = 0; b < 2; b++)
      CHECK(compare(r, d, H5T_NATIVE_FLOAT, "beside the corrupt chunk", start[b], count[b]) ==
            PARZ_OK);
    H5Dclose(d);
  }
  rc = read_whole(r, file, "foreign", bytes, &e);
  CHECK(rc == PARZ_ERR_FORMAT && strstr(e.message, "the chunk at [0,0]"));
  printf("  %s, foreign shape: %s\n", r->name, e.message);
  rc = read_whole(r, file, "foreign_type", bytes, &e);
  CHECK(rc == PARZ_ERR_FORMAT && strstr(e.message, "the chunk at [0,0]"));
  printf("  %s, foreign type: %s\n", r->name, e.message);
  {
    static const char* const crafted[3] = {"cd_endian", "cd_type", "cd_shape"};
    for (int i = 0; i < 3; i++) {
      rc = read_whole(r, file, crafted[i], 64 * 64 * 8, &e);
      CHECK(rc == PARZ_ERR_FORMAT && strstr(e.message, "cd_values describe") != NULL);
      printf("  %s, %s: %s\n", r->name, crafted[i], e.message);
    }
  }
  check_selections(r, file);
}

int h5_read_cases_check(const char* path, const h5_reader* r) {
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  const int before = failures;
  CHECK(file >= 0);
  for (size_t i = 0; i < sizeof compared / sizeof compared[0]; i++) {
    hid_t d = H5Dopen2(file, compared[i].name, H5P_DEFAULT);
    hid_t t = compared[i].is_float ? (compared[i].size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE)
                                   : (compared[i].size == 4 ? H5T_NATIVE_INT : H5T_NATIVE_LLONG);
    if (compared[i].raw_big_endian && !r->raw_big_endian) {
      parz_error e;
      CHECK(read_whole(r, file, compared[i].name, 100 * 100 * 8, &e) == PARZ_ERR_UNSUPPORTED);
      printf("  %s, %s: %s\n", r->name, compared[i].what, e.message);
    } else {
      compare_boxes(r, d, t, compared[i].what);
    }
    H5Dclose(d);
  }
  check_refused(r, file);
  H5Fclose(file);
  return failures - before;
}
