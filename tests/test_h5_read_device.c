/* parz_h5_read_device against H5Dread: datasets written through the plugin (HDF5_PLUGIN_PATH),
 * read both ways, must give the same bytes (native values): every mode, float32, float64, int32
 * and int64, ranks 1 to 4, edge chunks, chunks with unit extents, a big-endian dataset, chunks
 * never written (fill value), a chunk HDF5 stored without the filter; and clear errors for a
 * corrupt chunk (named by its place), a ParZ chunk of another shape, other filters, a contiguous
 * dataset, a short buffer, stored cd_values that disagree with the dataset's type, byte order
 * or chunk shape. Boxes of every dataset (hyperslabs of one block) against H5Dread of
 * the same selection, and refusals of other selections.
 * Exits 77 (ctest SKIP) when no CUDA device is present.
 *
 * usage: test_h5_read_device SCRATCH_DIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <hdf5.h>

#include "H5Zparz.h"
#include "parz_h5_device.h"
#include "test_plugin_common.h"
#include "test_plugin_patch.h"

static parz_gpu_context* ctx;

/* Values of the dataset's native type: a smooth field, noise, NaN and Inf for floats. */
static void* make_values(hid_t mem_type, size_t n, unsigned seed)
{
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

static hid_t make_dataset(hid_t file, const char* name, hid_t file_type, int rank,
                          const hsize_t* dims, const hsize_t* chunk, const unsigned* cd, size_t n,
                          int shuffle, double fill)
{
  hid_t space = H5Screate_simple(rank, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (chunk) {
    H5Pset_chunk(dcpl, rank, chunk);
    if (cd)
      H5Pset_filter(dcpl, H5Z_FILTER_PARZ, H5Z_FLAG_MANDATORY, n, cd);
    if (shuffle) /* after ParZ: a filter before it would change the values it compresses */
      H5Pset_shuffle(dcpl);
  }
  H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &fill);
  hid_t d = H5Dcreate2(file, name, file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  H5Sclose(space);
  return d;
}

/* Reads dset both ways and compares, the whole of it (start NULL) or the box of count[] values
 * from start[]; returns the status of parz_h5_read_device. */
static int compare(hid_t dset, hid_t mem_type, const char* what, const hsize_t* start,
                   const hsize_t* count)
{
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
  const size_t bytes = n * H5Tget_size(mem_type);
  unsigned char* ref = (unsigned char*)malloc(bytes + 1);
  unsigned char* got = (unsigned char*)malloc(bytes + 1);
  void* d = NULL;
  parz_error e;
  int rc;
  CHECK(H5Dread(dset, mem_type, ms, fs, H5P_DEFAULT, ref) >= 0);
  CHECK(cudaMalloc(&d, bytes + 1) == cudaSuccess);
  cudaMemset(d, 0xA5, bytes + 1); /* poison: every value must be written, and nothing past */
  rc = parz_h5_read_device(ctx, dset, fs, d, bytes, NULL, &e);
  if (rc != PARZ_OK) {
    fprintf(stderr, "%s: %s\n", what, e.message);
  } else {
    cudaMemcpy(got, d, bytes + 1, cudaMemcpyDeviceToHost);
    CHECK(got[bytes] == 0xA5);
    if (memcmp(got, ref, bytes)) {
      const size_t size = H5Tget_size(mem_type);
      size_t first = bytes, differ = 0;
      for (size_t i = 0; i < n; i++)
        if (memcmp(got + i * size, ref + i * size, size)) {
          differ++;
          first = first < bytes ? first : i;
        }
      unsigned long long a = 0, b = 0;
      memcpy(&a, ref + first * size, size);
      memcpy(&b, got + first * size, size);
      fprintf(stderr, "%s: GPU read differs from H5Dread in %zu of %zu values, first at %zu "
              "(%llx, not %llx)\n", what, differ, n, first, b, a);
      failures++;
    }
  }
  if (start) {
    H5Sclose(ms);
    H5Sclose(fs);
  }
  cudaFree(d);
  free(ref);
  free(got);
  return rc;
}

/* The whole dataset, then boxes of it: the middle half in every dimension (across chunks), the
 * last value (an edge chunk), and a slab one value thick in the first dimension across all the
 * others (as an MPI rank reads its part). */
static void compare_boxes(hid_t dset, hid_t mem_type, const char* what)
{
  hid_t space = H5Dget_space(dset);
  hsize_t dims[H5S_MAX_RANK], start[H5S_MAX_RANK], count[H5S_MAX_RANK];
  char label[160];
  const int rank = H5Sget_simple_extent_dims(space, dims, NULL);
  H5Sclose(space);
  CHECK(compare(dset, mem_type, what, NULL, NULL) == PARZ_OK);
  for (int b = 0; b < 3; b++) {
    for (int k = 0; k < rank; k++) {
      start[k] = b == 0 ? dims[k] / 4 : b == 1 ? dims[k] - 1 : k == 0 ? dims[0] / 2 : 0;
      count[k] = b == 0 ? (dims[k] / 2 ? dims[k] / 2 : 1) : b == 1 || k == 0 ? 1 : dims[k];
    }
    snprintf(label, sizeof label, "%s, %s", what,
             b == 0 ? "middle box" : b == 1 ? "last value" : "slab");
    CHECK(compare(dset, mem_type, label, start, count) == PARZ_OK);
  }
}

/* Writes values over the whole dataset, then closes it. */
static void write_values(hid_t dset, hid_t mem_type, unsigned seed)
{
  hid_t space = H5Dget_space(dset);
  const size_t n = (size_t)H5Sget_simple_extent_npoints(space);
  void* v = make_values(mem_type, n, seed);
  H5Sclose(space);
  CHECK(H5Dwrite(dset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  CHECK(H5Dclose(dset) >= 0);
  free(v);
}

/* The datasets the write phase makes and the read phase compares (after the file is closed and
 * opened again: H5Dread in the writing process would return the chunk cache's unfiltered
 * values). */
static const struct {
  const char* name;
  const char* what;
  int size, is_float;
} compared[] = {{"f32_2d", "f32 2D accuracy, edge chunks", 4, 1},
                {"f64_3d", "f64 3D reversible", 8, 1},
                {"i32_1d", "i32 1D precision", 4, 0},
                {"i64_2d", "i64 2D rate", 8, 0},
                {"f32_4d", "f32 4D", 4, 1},
                {"unit", "unit extents, C = 4, P = 3", 4, 1},
                {"f32_be", "big-endian dataset", 4, 1},
                {"partial", "fill values and an unfiltered chunk", 4, 1}};

static void shapes_and_modes(hid_t file)
{
  unsigned cd[16];
  size_t n;
  {
    const hsize_t dims[2] = {200, 300}, chunk[2] = {64, 128};
    n = H5Z_parz_accuracy_cdata(1e-3, cd);
    hid_t d = make_dataset(file, "f32_2d", H5T_IEEE_F32LE, 2, dims, chunk, cd, n, 0, 0);
    write_values(d, H5T_NATIVE_FLOAT, 1);
  }
  {
    const hsize_t dims[3] = {20, 30, 40}, chunk[3] = {8, 16, 16};
    n = H5Z_parz_reversible_cdata(cd);
    hid_t d = make_dataset(file, "f64_3d", H5T_IEEE_F64LE, 3, dims, chunk, cd, n, 0, 0);
    write_values(d, H5T_NATIVE_DOUBLE, 2);
  }
  {
    const hsize_t dims[1] = {10000}, chunk[1] = {1024};
    n = H5Z_parz_precision_cdata(20, cd);
    hid_t d = make_dataset(file, "i32_1d", H5T_STD_I32LE, 1, dims, chunk, cd, n, 0, 0);
    write_values(d, H5T_NATIVE_INT, 3);
  }
  {
    const hsize_t dims[2] = {50, 70}, chunk[2] = {16, 16};
    n = H5Z_parz_rate_cdata(16, cd);
    hid_t d = make_dataset(file, "i64_2d", H5T_STD_I64LE, 2, dims, chunk, cd, n, 0, 0);
    write_values(d, H5T_NATIVE_LLONG, 4);
  }
  {
    const hsize_t dims[4] = {4, 5, 6, 7}, chunk[4] = {2, 3, 4, 5};
    n = H5Z_parz_accuracy_cdata(1e-2, cd);
    hid_t d = make_dataset(file, "f32_4d", H5T_IEEE_F32LE, 4, dims, chunk, cd, n, 0, 0);
    write_values(d, H5T_NATIVE_FLOAT, 5);
  }
  {
    const hsize_t dims[3] = {9, 1, 300}, chunk[3] = {1, 1, 300};
    n = H5Z_parz_accuracy_cdata(1e-3, cd);
    n = H5Z_parz_table_cdata(n, 4, 3, 0, cd);
    hid_t d = make_dataset(file, "unit", H5T_IEEE_F32LE, 3, dims, chunk, cd, n, 0, 0);
    write_values(d, H5T_NATIVE_FLOAT, 6);
  }
  {
    const hsize_t dims[2] = {40, 60}, chunk[2] = {16, 32};
    n = H5Z_parz_accuracy_cdata(1e-3, cd);
    hid_t d = make_dataset(file, "f32_be", H5T_IEEE_F32BE, 2, dims, chunk, cd, n, 0, 0);
    write_values(d, H5T_NATIVE_FLOAT, 7);
  }
}

/* Chunks never written take the fill value; one chunk stored without the filter. */
static void fill_and_raw(hid_t file)
{
  unsigned cd[16];
  const size_t n = H5Z_parz_accuracy_cdata(1e-3, cd);
  const hsize_t dims[2] = {100, 100}, chunk[2] = {32, 32};
  hid_t d = make_dataset(file, "partial", H5T_IEEE_F32LE, 2, dims, chunk, cd, n, 0, -7.5);
  {
    const hsize_t start[2] = {0, 0}, count[2] = {50, 40};
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(2, count, NULL);
    float* v = (float*)make_values(H5T_NATIVE_FLOAT, 50 * 40, 8);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    CHECK(H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, v) >= 0);
    free(v);
    H5Sclose(ms);
    H5Sclose(fs);
  }
  {
    /* the chunk at (64, 64), raw values, the filter marked as skipped */
    const hsize_t off[2] = {64, 64};
    float raw[32 * 32];
    for (int i = 0; i < 32 * 32; i++)
      raw[i] = 0.25f * (float)i;
    CHECK(H5Dwrite_chunk(d, H5P_DEFAULT, 1u, off, sizeof raw, raw) >= 0);
  }
  H5Dclose(d);
}

/* Datasets the reader must refuse, and one with a corrupt chunk (at (32, 0): payload bits
 * flipped until the serial decoder calls its payload checksum wrong). */
static void write_refused(hid_t file)
{
  unsigned cd[16];
  const size_t n = H5Z_parz_accuracy_cdata(1e-3, cd);
  const hsize_t dims[2] = {64, 64}, chunk[2] = {32, 32};
  write_values(make_dataset(file, "shuffled", H5T_IEEE_F32LE, 2, dims, chunk, cd, n, 1, 0),
               H5T_NATIVE_FLOAT, 9);
  H5Dclose(make_dataset(file, "contiguous", H5T_IEEE_F32LE, 2, dims, NULL, NULL, 0, 0, 0));
  hid_t d = make_dataset(file, "corrupt", H5T_IEEE_F32LE, 2, dims, chunk, cd, n, 0, 0);
  float* v = (float*)make_values(H5T_NATIVE_FLOAT, 64 * 64, 10);
  H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  free(v);
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
  int found = 0;
  unsigned seed = 1;
  for (int t = 0; t < 200 && !found; t++) {
    memcpy(bad, c, size);
    for (int f = 0; f < 4; f++) {
      seed = seed * 1103515245u + 12345u;
      size_t at = size - view.payload_bytes + (seed >> 8) % view.payload_bytes;
      bad[at] ^= (unsigned char)(1u << (seed % 8));
    }
    found = parz_chunk_decode(bad, size, out, sizeof out, NULL) == PARZ_ERR_CHECKSUM;
  }
  CHECK(found);
  CHECK(H5Dwrite_chunk(d, H5P_DEFAULT, 0, off, size, bad) >= 0);
  free(c);
  free(bad);
  H5Dclose(d);

  /* a valid ParZ chunk of the same 1024 values but 16x64, written raw over the chunk at (0, 0):
   * decoded into place it would scramble the values, so the reader must refuse it */
  d = make_dataset(file, "foreign", H5T_IEEE_F32LE, 2, dims, chunk, cd, n, 0, 0);
  v = (float*)make_values(H5T_NATIVE_FLOAT, 64 * 64, 11);
  H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  {
    parz_array a;
    parz_chunk_config cfg;
    size_t written = 0;
    memset(&a, 0, sizeof a);
    memset(&cfg, 0, sizeof cfg);
    a.type = PARZ_FLOAT;
    a.dims = 2;
    a.shape[0] = 16;
    a.shape[1] = 64;
    parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
    const size_t cap = parz_chunk_bound(&a, &cfg);
    unsigned char* other = (unsigned char*)malloc(cap);
    const hsize_t zero[2] = {0, 0};
    CHECK(parz_chunk_encode(&a, v, &cfg, other, cap, &written, NULL) == PARZ_OK);
    CHECK(H5Dwrite_chunk(d, H5P_DEFAULT, 0, zero, written, other) >= 0);
    free(other);
  }
  free(v);
  H5Dclose(d);
}

/* Datasets whose stored cd_values will be rewritten (craft_cd_values) to disagree with their
 * type, byte order or chunk shape: H5Dread refuses them, and so must the reader. */
static void write_crafted(hid_t file)
{
  unsigned cd[16];
  const size_t n = H5Z_parz_reversible_cdata(cd);
  const hsize_t dims[2] = {64, 64}, endian[2] = {24, 32}, type[2] = {32, 24}, shape[2] = {8, 64};
  write_values(make_dataset(file, "cd_endian", H5T_IEEE_F32LE, 2, dims, endian, cd, n, 0, 0),
               H5T_NATIVE_FLOAT, 12);
  write_values(make_dataset(file, "cd_type", H5T_IEEE_F64LE, 2, dims, type, cd, n, 0, 0),
               H5T_NATIVE_DOUBLE, 13);
  write_values(make_dataset(file, "cd_shape", H5T_IEEE_F32LE, 2, dims, shape, cd, n, 0, 0),
               H5T_NATIVE_FLOAT, 14);
}

/* cd_endian: big-endian; cd_type: float32; cd_shape: 4x4 chunks (file closed). */
static void craft_cd_values(const char* path)
{
  CHECK(test_patch_cd(path, 24, 32, 7, 3 + 16) == 1);
  CHECK(test_patch_cd(path, 32, 24, 7, 3) == 1);
  CHECK(test_patch_cd(path, 8, 64, 8, 4) == 1 && test_patch_cd(path, 4, 64, 9, 4) == 1);
}

static void check_crafted(hid_t file, void* d_buf, size_t bytes)
{
  static const char* const names[3] = {"cd_endian", "cd_type", "cd_shape"};
  parz_error e;
  for (int i = 0; i < 3; i++) {
    hid_t d = H5Dopen2(file, names[i], H5P_DEFAULT);
    const int rc = parz_h5_read_device(ctx, d, H5S_ALL, d_buf, bytes, NULL, &e);
    CHECK(rc == PARZ_ERR_FORMAT);
    CHECK(rc == PARZ_OK || strstr(e.message, "cd_values describe") != NULL);
    if (rc != PARZ_OK)
      printf("  %s: %s\n", names[i], e.message);
    H5Dclose(d);
  }
}

/* Selections: none (nothing written), a short buffer for a box, and refusals of selections that
 * are not one box or not of the dataset's extent. */
static void check_selections(hid_t file, void* d_buf, size_t bytes)
{
  parz_error e;
  hid_t d = H5Dopen2(file, "f32_2d", H5P_DEFAULT); /* 200 x 300 */
  hid_t fs = H5Dget_space(d);
  uint32_t word = 0;
  cudaMemset(d_buf, 0xA5, bytes);
  H5Sselect_none(fs);
  CHECK(parz_h5_read_device(ctx, d, fs, d_buf, bytes, NULL, &e) == PARZ_OK);
  cudaMemcpy(&word, d_buf, 4, cudaMemcpyDeviceToHost);
  CHECK(word == 0xA5A5A5A5u);
  const hsize_t start[2] = {10, 20}, count[2] = {5, 6}, start2[2] = {100, 200};
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  CHECK(parz_h5_read_device(ctx, d, fs, d_buf, 5 * 6 * 4 - 1, NULL, &e) == PARZ_ERR_BUFFER);
  H5Sselect_hyperslab(fs, H5S_SELECT_OR, start2, NULL, count, NULL);
  CHECK(parz_h5_read_device(ctx, d, fs, d_buf, bytes, NULL, &e) == PARZ_ERR_UNSUPPORTED);
  printf("  two boxes: %s\n", e.message);
  const hsize_t points[3][2] = {{0, 0}, {5, 7}, {199, 299}};
  H5Sselect_elements(fs, H5S_SELECT_SET, 3, &points[0][0]);
  CHECK(parz_h5_read_device(ctx, d, fs, d_buf, bytes, NULL, &e) == PARZ_ERR_UNSUPPORTED);
  printf("  points: %s\n", e.message);
  H5Sclose(fs);
  const hsize_t other[2] = {200, 301};
  fs = H5Screate_simple(2, other, NULL);
  CHECK(parz_h5_read_device(ctx, d, fs, d_buf, bytes, NULL, &e) == PARZ_ERR_DIMS);
  printf("  another extent: %s\n", e.message);
  H5Sclose(fs);
  H5Dclose(d);
}

static void check_refused(hid_t file)
{
  parz_error e;
  void* d_buf = NULL;
  const size_t bytes = 64 * 64 * 4;
  hid_t d;
  cudaMalloc(&d_buf, 64 * 64 * 8);
  d = H5Dopen2(file, "shuffled", H5P_DEFAULT);
  CHECK(parz_h5_read_device(ctx, d, H5S_ALL, d_buf, bytes, NULL, &e) == PARZ_ERR_UNSUPPORTED);
  H5Dclose(d);
  d = H5Dopen2(file, "contiguous", H5P_DEFAULT);
  CHECK(parz_h5_read_device(ctx, d, H5S_ALL, d_buf, bytes, NULL, &e) == PARZ_ERR_UNSUPPORTED);
  H5Dclose(d);
  d = H5Dopen2(file, "corrupt", H5P_DEFAULT);
  CHECK(parz_h5_read_device(ctx, d, H5S_ALL, d_buf, bytes - 1, NULL, &e) == PARZ_ERR_BUFFER);
  int rc = parz_h5_read_device(ctx, d, H5S_ALL, d_buf, bytes, NULL, &e);
  CHECK(rc == PARZ_ERR_CHECKSUM); /* the GPU decoder's verification, as the serial decoder's */
  CHECK(rc == PARZ_OK || strstr(e.message, "the chunk at [32,0]") != NULL);
  if (rc != PARZ_OK)
    printf("  corrupt chunk: %s\n", e.message);
  {
    /* a box that stays clear of the corrupt chunk reads it not, and succeeds */
    const hsize_t start[2] = {0, 10}, count[2] = {32, 54};
    hid_t fs = H5Dget_space(d);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    CHECK(parz_h5_read_device(ctx, d, fs, d_buf, bytes, NULL, &e) == PARZ_OK);
    H5Sclose(fs);
  }
  H5Dclose(d);
  check_selections(file, d_buf, bytes);
  d = H5Dopen2(file, "foreign", H5P_DEFAULT);
  rc = parz_h5_read_device(ctx, d, H5S_ALL, d_buf, bytes, NULL, &e);
  CHECK(rc == PARZ_ERR_FORMAT);
  if (rc != PARZ_OK)
    printf("  foreign chunk: %s\n", e.message);
  H5Dclose(d);
  check_crafted(file, d_buf, 64 * 64 * 8);
  cudaFree(d_buf);
}

int main(int argc, char** argv)
{
  char path[1024];
  parz_error e;
  if (argc < 2) {
    fprintf(stderr, "usage: %s SCRATCH_DIR\n", argv[0]);
    return 2;
  }
  if (!parz_gpu_available()) {
    printf("SKIP: no CUDA device\n");
    return 77;
  }
  if (parz_gpu_context_create(&ctx, 0, &e) != PARZ_OK) {
    fprintf(stderr, "context: %s\n", e.message);
    return 1;
  }
  if (!H5Zfilter_avail(H5Z_FILTER_PARZ)) {
    fprintf(stderr, "the ParZ filter is not available (HDF5_PLUGIN_PATH?)\n");
    return 1;
  }
  snprintf(path, sizeof path, "%s/h5_read_device.h5", argv[1]);
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(file >= 0);
  shapes_and_modes(file);
  fill_and_raw(file);
  write_refused(file);
  write_crafted(file);
  H5Fclose(file);
  craft_cd_values(path);
  file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  CHECK(file >= 0);
  for (size_t i = 0; i < sizeof compared / sizeof compared[0]; i++) {
    hid_t d = H5Dopen2(file, compared[i].name, H5P_DEFAULT);
    hid_t t = compared[i].is_float ? (compared[i].size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE)
                                   : (compared[i].size == 4 ? H5T_NATIVE_INT : H5T_NATIVE_LLONG);
    compare_boxes(d, t, compared[i].what);
    H5Dclose(d);
  }
  check_refused(file);
  H5Fclose(file);
  remove(path);
  parz_gpu_context_free(ctx);
  printf("%s\n", failures ? "FAILED" : "all reads matched H5Dread");
  return failures ? 1 : 0;
}
