/* The ParZ filter through HDF5 from C (H5Pset_filter), loaded as a plugin from HDF5_PLUGIN_PATH:
 * real arrays in every mode with their error bounds, partial edge chunks, ranks 1-5 with unit
 * chunk dims, big-endian datasets, refusals with clear messages that write nothing, and corrupt,
 * truncated and foreign chunks that fail only their own read.
 * Usage: test_plugin_hdf5 <shared data dir> <scratch dir> */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "H5Zparz.h"

#include "check.h"

static const char* data_dir;
static const char* scratch_dir;

static void* load(const char* name, size_t bytes) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", data_dir, name);
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(2);
  }
  void* p = malloc(bytes);
  if (!p || fread(p, 1, bytes, f) != bytes) {
    fprintf(stderr, "cannot read %zu bytes of %s\n", bytes, path);
    exit(2);
  }
  fclose(f);
  return p;
}

static hid_t create_file(const char* name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", scratch_dir, name);
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0)
    exit(2);
  return f;
}

/* The ParZ message on the current error stack (h5py shows the innermost one). */
static herr_t find_parz(unsigned n, const H5E_error2_t* e, void* data);
static void last_error(char msg[512]) {
  msg[0] = 0;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, find_parz, msg);
}

/* The ParZ message of the last failed dataset creation (captured before any other call clears
 * the error stack). */
static char create_error[512];
static herr_t find_parz(unsigned n, const H5E_error2_t* e, void* data) {
  (void)n;
  char* out = data;
  if (e->desc && strstr(e->desc, "parz"))
    snprintf(out, 512, "%s", e->desc);
  return 0;
}

/* Creates dataset "x" with the ParZ filter; returns the dataset id or a negative value. */
static hid_t create_dataset(hid_t file, const char* name, hid_t file_type, int rank,
                            const hsize_t* dims, const hsize_t* chunk, size_t n,
                            const unsigned* cd) {
  hid_t space = H5Screate_simple(rank, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (chunk)
    H5Pset_chunk(dcpl, rank, chunk);
  H5Pset_filter(dcpl, H5Z_FILTER_PARZ, H5Z_FLAG_MANDATORY, n, cd);
  hid_t d = H5Dcreate2(file, name, file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  create_error[0] = 0;
  if (d < 0)
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, find_parz, create_error);
  H5Pclose(dcpl);
  H5Sclose(space);
  return d;
}

/* Writes `data` (mem_type) through the filter, reads it back into `out`; returns the stored
 * size in bytes (0 on failure). */
static hsize_t round_trip(const char* file_name, hid_t mem_type, hid_t file_type, int rank,
                          const hsize_t* dims, const hsize_t* chunk, size_t n, const unsigned* cd,
                          const void* data, void* out) {
  hid_t f = create_file(file_name);
  hid_t d = create_dataset(f, "x", file_type, rank, dims, chunk, n, cd);
  hsize_t stored = 0;
  if (d < 0) {
    H5Eprint2(H5E_DEFAULT, stderr);
  } else {
    if (H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0) {
      H5Dclose(d);
      H5Fclose(f);
      char path[1024];
      snprintf(path, sizeof path, "%s/%s", scratch_dir, file_name);
      f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
      d = H5Dopen2(f, "x", H5P_DEFAULT);
      if (H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0)
        stored = H5Dget_storage_size(d);
    }
    H5Dclose(d);
  }
  H5Fclose(f);
  CHECK(stored > 0);
  return stored;
}

static double max_err_f(const float* a, const float* b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++) {
    double e = fabs((double)a[i] - (double)b[i]);
    if (!(e <= m))
      m = e; /* NaN propagates */
  }
  return m;
}
static double max_err_d(const double* a, const double* b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++) {
    double e = fabs(a[i] - b[i]);
    if (!(e <= m))
      m = e;
  }
  return m;
}

/* EGM96 geoid, float32 721x1440, chunks 100x128: partial edge chunks in both dimensions. */
static void test_float_modes(void) {
  const hsize_t dims[2] = {721, 1440}, chunk[2] = {100, 128};
  size_t count = 721 * 1440;
  float* in = load("egm96_geoid_f32le_721x1440.bin", count * 4);
  float* out = malloc(count * 4);
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n;
  double err;
  hsize_t stored;

  static const double tolerances[] = {1e-1, 1e-3};
  for (int i = 0; i < 2; i++) {
    n = H5Z_parz_accuracy_cdata(tolerances[i], cd);
    stored = round_trip("float_accuracy.h5", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, 2, dims, chunk, n,
                        cd, in, out);
    err = max_err_f(in, out, count);
    printf("egm96 accuracy %g: ratio %.2f, max error %.3g\n", tolerances[i],
           (double)count * 4 / (double)stored, err);
    CHECK(err <= tolerances[i]);
    CHECK(stored < count * 4 / 2);
  }

  n = H5Z_parz_reversible_cdata(cd);
  stored = round_trip("float_reversible.h5", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, 2, dims, chunk, n,
                      cd, in, out);
  CHECK(memcmp(in, out, count * 4) == 0);
  printf("egm96 reversible: ratio %.2f, bit exact\n", (double)count * 4 / (double)stored);

  /* Fixed rate: every block takes exactly rate * 16 bits. HDF5 hands the filter whole chunks
   * (edge chunks padded), so 8 x 12 chunks of 100x128 values at one byte per value, plus one
   * 112-byte header each and the payload checksums (a 16-byte directory entry, the section's
   * 8-byte header and 8 bytes for each of the 2 partitions of 64 segments), nothing else (no
   * table for fixed rate). */
  n = H5Z_parz_rate_cdata(8.0, cd);
  stored =
      round_trip("float_rate.h5", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, 2, dims, chunk, n, cd, in, out);
  err = max_err_f(in, out, count);
  printf("egm96 rate 8: stored %llu bytes, max error %.3g\n", (unsigned long long)stored, err);
  CHECK(stored >= 96 * 100 * 128 && stored <= 96 * (100 * 128 + 112 + 40 + 8));
  CHECK(err < 2.0); /* values span -107..85 m; 8 bits per value keeps them to ~1 m */

  n = H5Z_parz_precision_cdata(24, cd);
  round_trip("float_precision.h5", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, 2, dims, chunk, n, cd, in,
             out);
  err = max_err_f(in, out, count);
  printf("egm96 precision 24: max error %.3g\n", err);
  CHECK(err < 1e-2);

  /* Expert mode equal to accuracy 2^-10 (minexp -10, maxprec 64, no rate limits). */
  n = H5Z_parz_expert_cdata(1, 16658, 64, -10, cd);
  round_trip("float_expert.h5", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, 2, dims, chunk, n, cd, in, out);
  err = max_err_f(in, out, count);
  CHECK(err <= ldexp(1.0, -10));

  /* Big-endian dataset: HDF5 hands the filter big-endian bytes, the filter swaps them. */
  n = H5Z_parz_accuracy_cdata(1e-2, cd);
  round_trip("float_be.h5", H5T_NATIVE_FLOAT, H5T_IEEE_F32BE, 2, dims, chunk, n, cd, in, out);
  err = max_err_f(in, out, count);
  CHECK(err <= 1e-2);
  free(in);
  free(out);
}

/* VASP charge density, float64, the first 24 z planes of 72x192x160, chunks 10x64x48. */
static void test_double_modes(void) {
  const hsize_t dims[3] = {24, 192, 160}, chunk[3] = {10, 64, 48};
  size_t count = 24 * 192 * 160;
  double* in = load("vasp_fepo4_chgcar_f64le_72x192x160.bin", count * 8);
  double* out = malloc(count * 8);
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = H5Z_parz_accuracy_cdata(1e-6, cd);
  hsize_t stored = round_trip("double_accuracy.h5", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 3, dims,
                              chunk, n, cd, in, out);
  double err = max_err_d(in, out, count);
  printf("vasp accuracy 1e-6: ratio %.2f, max error %.3g\n", (double)count * 8 / (double)stored,
         err);
  CHECK(err <= 1e-6);
  n = H5Z_parz_reversible_cdata(cd);
  round_trip("double_reversible.h5", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 3, dims, chunk, n, cd, in,
             out);
  CHECK(memcmp(in, out, count * 8) == 0);
  free(in);
  free(out);
}

/* ETOPO5 relief (whole metres) as int32 and int64: reversible is exact. */
static void test_integer_modes(void) {
  const hsize_t dims[2] = {300, 4320}, chunk[2] = {64, 200};
  size_t count = 300 * 4320;
  float* f = load("etopo5_relief_f32le_2161x4320.bin", count * 4);
  int32_t* i32 = malloc(count * 4);
  int32_t* o32 = malloc(count * 4);
  int64_t* i64 = malloc(count * 8);
  int64_t* o64 = malloc(count * 8);
  for (size_t i = 0; i < count; i++) {
    i32[i] = (int32_t)f[i];
    i64[i] = (int64_t)f[i] * 1000003;
  }
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = H5Z_parz_reversible_cdata(cd);
  round_trip("int32.h5", H5T_NATIVE_INT32, H5T_STD_I32LE, 2, dims, chunk, n, cd, i32, o32);
  CHECK(memcmp(i32, o32, count * 4) == 0);
  round_trip("int64.h5", H5T_NATIVE_INT64, H5T_STD_I64LE, 2, dims, chunk, n, cd, i64, o64);
  CHECK(memcmp(i64, o64, count * 8) == 0);
  round_trip("int32_be.h5", H5T_NATIVE_INT32, H5T_STD_I32BE, 2, dims, chunk, n, cd, i32, o32);
  CHECK(memcmp(i32, o32, count * 4) == 0);
  /* Precision mode on integers is lossy but close: 28 of 32 bit planes. */
  n = H5Z_parz_precision_cdata(28, cd);
  round_trip("int32_prec.h5", H5T_NATIVE_INT32, H5T_STD_I32LE, 2, dims, chunk, n, cd, i32, o32);
  int64_t worst = 0;
  for (size_t i = 0; i < count; i++) {
    int64_t e = (int64_t)i32[i] - o32[i];
    if (e < 0)
      e = -e;
    if (e > worst)
      worst = e;
  }
  printf("etopo int32 precision 28: max error %lld\n", (long long)worst);
  CHECK(worst > 0 && worst <= 256);
  free(f);
  free(i32);
  free(o32);
  free(i64);
  free(o64);
}

/* The lossless codec from C (H5Z_parz_lossless_cdata): every bit pattern of the four types
 * back, big-endian files included, ranks 1 to 5 (the CCSM ensemble, its 4-D chunks as a stack
 * too), and smaller than the values on real data. */
static void test_lossless(void) {
  const hsize_t dims[2] = {300, 4320}, chunk[2] = {64, 200};
  const size_t count = 300 * 4320;
  float* f = load("etopo5_relief_f32le_2161x4320.bin", count * 4);
  unsigned char* in = malloc(count * 8);
  unsigned char* out = malloc(count * 8);
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = H5Z_parz_lossless_cdata(H5Z_PARZ_LOSSLESS_LORENZO, cd);
  hsize_t stored;
  CHECK(n == 1 && cd[0] == 3u * 65536u + 1u);
  /* float32 with NaN payloads, -0.0, infinities and subnormals among the relief */
  memcpy(in, f, count * 4);
  for (size_t i = 0; i < count; i += 997) {
    static const uint32_t special[] = {0x7fc00001u, 0x80000000u, 0x7f800000u,
                                       0xff800000u, 0x00000001u, 0xffc12345u};
    memcpy(in + 4 * i, &special[(i / 997) % 6], 4);
  }
  stored = round_trip("lossless_f32.h5", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, 2, dims, chunk, n, cd,
                      in, out);
  CHECK(memcmp(in, out, count * 4) == 0);
  CHECK(stored > 0 && stored < count * 4 / 2);
  printf("etopo float32 lossless: ratio %.2f\n", stored ? (double)count * 4 / (double)stored : 0.0);
  stored = round_trip("lossless_f32_be.h5", H5T_NATIVE_FLOAT, H5T_IEEE_F32BE, 2, dims, chunk, n, cd,
                      in, out);
  CHECK(memcmp(in, out, count * 4) == 0);
  for (size_t i = 0; i < count; i++) { /* float64 of the same, and int32/int64 */
    double d = (double)f[i] / 3.0;
    int64_t k = (int64_t)f[i] * 1000003;
    memcpy(in + 8 * i, i % 1001 ? (const void*)&d : (const void*)&k, 8);
  }
  round_trip("lossless_f64.h5", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 2, dims, chunk, n, cd, in, out);
  CHECK(memcmp(in, out, count * 8) == 0);
  round_trip("lossless_i64.h5", H5T_NATIVE_INT64, H5T_STD_I64LE, 2, dims, chunk, n, cd, in, out);
  CHECK(memcmp(in, out, count * 8) == 0);
  round_trip("lossless_i32.h5", H5T_NATIVE_INT32, H5T_STD_I32BE, 2, dims, chunk, n, cd, in, out);
  CHECK(memcmp(in, out, count * 4) == 0);
  free(f);
  free(in);
  free(out);
  {
    const size_t m = 8 * 110 * 64 * 128;
    const hsize_t d4[4] = {8, 110, 64, 128}, c4[4] = {3, 10, 64, 64};
    const hsize_t d5[5] = {8, 110, 1, 64, 128}, c5[5] = {1, 11, 1, 64, 50};
    float* e = load("ccsm_trefht_ens_f32le_8x110x64x128.bin", m * 4);
    float* back = malloc(m * 4);
    unsigned mode;
    for (mode = H5Z_PARZ_LOSSLESS_LORENZO; mode <= H5Z_PARZ_LOSSLESS_STACK; mode++) {
      n = H5Z_parz_lossless_cdata(mode, cd);
      memset(back, 0, m * 4);
      round_trip("lossless_4d.h5", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, 4, d4, c4, n, cd, e, back);
      CHECK(memcmp(e, back, m * 4) == 0);
    }
    memset(back, 0, m * 4);
    round_trip("lossless_5d.h5", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, 5, d5, c5, n, cd, e, back);
    CHECK(memcmp(e, back, m * 4) == 0);
    free(e);
    free(back);
  }
}

/* Ranks 1 to 5 whose chunks squeeze to at most 4 dimensions, data from the CCSM ensemble. */
static void test_ranks(void) {
  size_t count = 8 * 110 * 64 * 128;
  float* in = load("ccsm_trefht_ens_f32le_8x110x64x128.bin", count * 4);
  float* out = malloc(count * 4);
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = H5Z_parz_accuracy_cdata(1e-2, cd);
  struct {
    int rank;
    hsize_t dims[5], chunk[5];
  } cases[] = {
      {1, {100000}, {30000}},
      {2, {880, 8192}, {1, 1000}},
      {3, {880, 64, 128}, {7, 64, 50}},
      {4, {8, 110, 64, 128}, {3, 10, 64, 64}},
      {5, {8, 110, 1, 64, 128}, {1, 11, 1, 64, 50}},
      {5, {8, 10, 11, 64, 128}, {2, 1, 11, 30, 128}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    size_t m = 1;
    for (int i = 0; i < cases[c].rank; i++)
      m *= cases[c].dims[i];
    memset(out, 0, m * 4);
    round_trip("ranks.h5", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, cases[c].rank, cases[c].dims,
               cases[c].chunk, n, cd, in, out);
    double err = max_err_f(in, out, m);
    if (!(err <= 1e-2))
      fprintf(stderr, "rank case %zu: max error %g\n", c, err);
    CHECK(err <= 1e-2);
  }
  free(in);
  free(out);
}

/* Dataset creation that must fail with a message containing `needle`, leaving no dataset. */
static void expect_create_refused(hid_t file_type, int rank, const hsize_t* dims,
                                  const hsize_t* chunk, size_t n, const unsigned* cd,
                                  const char* needle) {
  hid_t f = create_file("refused.h5");
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t d = create_dataset(f, "x", file_type, rank, dims, chunk, n, cd);
  H5Eset_auto2(H5E_DEFAULT, (H5E_auto2_t)H5Eprint2, stderr);
  CHECK(d < 0);
  if (d >= 0)
    H5Dclose(d);
  if (strstr(create_error, needle) == NULL) {
    fprintf(stderr, "refusal message \"%s\" lacks \"%s\"\n", create_error, needle);
    failures++;
  }
  CHECK(H5Lexists(f, "x", H5P_DEFAULT) == 0);
  H5Fclose(f);
}

static void test_refusals(void) {
  const hsize_t dims[2] = {64, 64}, chunk[2] = {32, 32};
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = H5Z_parz_accuracy_cdata(1e-3, cd);
  hid_t str = H5Tcopy(H5T_C_S1);
  H5Tset_size(str, 8);
  expect_create_refused(str, 2, dims, chunk, n, cd, "string");
  H5Tclose(str);
  hid_t cmp = H5Tcreate(H5T_COMPOUND, 8);
  H5Tinsert(cmp, "a", 0, H5T_NATIVE_FLOAT);
  H5Tinsert(cmp, "b", 4, H5T_NATIVE_FLOAT);
  expect_create_refused(cmp, 2, dims, chunk, n, cd, "compound");
  H5Tclose(cmp);
  expect_create_refused(H5T_STD_U32LE, 2, dims, chunk, n, cd, "unsigned");
  expect_create_refused(H5T_STD_I16LE, 2, dims, chunk, n, cd, "not supported");
  expect_create_refused(H5T_NATIVE_INT32, 2, dims, chunk, n, cd, "floating-point");
  const hsize_t d5[5] = {4, 4, 4, 4, 4}, c5[5] = {2, 2, 2, 2, 2};
  expect_create_refused(H5T_NATIVE_FLOAT, 5, d5, c5, n, cd, "more than 4 dimensions");
  cd[0] = 7;
  expect_create_refused(H5T_NATIVE_FLOAT, 2, dims, chunk, 1, cd, "unknown mode 7");
  n = H5Z_parz_accuracy_cdata(-1.0, cd);
  expect_create_refused(H5T_NATIVE_FLOAT, 2, dims, chunk, n, cd, "");
  n = H5Z_parz_precision_cdata(99, cd);
  expect_create_refused(H5T_NATIVE_FLOAT, 2, dims, chunk, n, cd, "");
  n = H5Z_parz_reversible_cdata(cd);
  n = H5Z_parz_table_cdata(n, 0, 0, 9, cd);
  expect_create_refused(H5T_NATIVE_FLOAT, 2, dims, chunk, n, cd, "table kind 9");
  n = H5Z_parz_accuracy_cdata(1e-3, cd);
  cd[1] = 5;
  expect_create_refused(H5T_NATIVE_FLOAT, 2, dims, chunk, 2, cd, "needs 2 values");
}

/* Writes a 4-chunk dataset, then damages chunk 1 in `how` and checks that reading it fails with a
 * ParZ message while chunks 0, 2, 3 still read exactly as before. */
enum { CORRUPT_HEADER, TRUNCATE, FOREIGN };
static void test_bad_chunk(int how) {
  const hsize_t dims[2] = {128, 128}, chunk[2] = {64, 64};
  size_t count = 128 * 128;
  float* in = load("hst_acs_hrc_ngc104_sci_f32le_1024x1024.bin", count * 4);
  float* out = malloc(count * 4);
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = H5Z_parz_accuracy_cdata(0.5, cd);
  hid_t f = create_file("bad_chunk.h5");
  hid_t d = create_dataset(f, "x", H5T_IEEE_F32LE, 2, dims, chunk, n, cd);
  CHECK(H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, in) >= 0);
  H5Dclose(d); /* read back through the filter, not from the chunk cache */
  d = H5Dopen2(f, "x", H5P_DEFAULT);
  CHECK(H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0);
  float* good = malloc(count * 4);
  memcpy(good, out, count * 4);

  hsize_t offset[2] = {0, 64};
  uint32_t mask = 0;
  hsize_t size = 0;
  CHECK(H5Dget_chunk_storage_size(d, offset, &size) >= 0 && size > 64);
  unsigned char* bytes = malloc(size);
  CHECK(H5Dread_chunk(d, H5P_DEFAULT, offset, &mask, bytes) >= 0);
  if (how == CORRUPT_HEADER) {
    bytes[20] ^= 0x5a;
    CHECK(H5Dwrite_chunk(d, H5P_DEFAULT, mask, offset, size, bytes) >= 0);
  } else if (how == TRUNCATE) {
    CHECK(H5Dwrite_chunk(d, H5P_DEFAULT, mask, offset, size / 2, bytes) >= 0);
  } else {
    /* A valid ParZ chunk of another shape (32x32), written raw into this dataset. */
    hid_t other = create_dataset(f, "other", H5T_IEEE_F32LE, 2, (const hsize_t[]){32, 32},
                                 (const hsize_t[]){32, 32}, n, cd);
    CHECK(H5Dwrite(other, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, in) >= 0);
    hsize_t zero[2] = {0, 0}, osize = 0;
    H5Dget_chunk_storage_size(other, zero, &osize);
    unsigned char* ob = malloc(osize);
    CHECK(H5Dread_chunk(other, H5P_DEFAULT, zero, &mask, ob) >= 0);
    CHECK(H5Dwrite_chunk(d, H5P_DEFAULT, mask, offset, osize, ob) >= 0);
    free(ob);
    H5Dclose(other);
  }
  H5Dclose(d);
  d = H5Dopen2(f, "x", H5P_DEFAULT);

  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  herr_t rc = H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, out);
  char msg[512];
  last_error(msg);
  H5Eset_auto2(H5E_DEFAULT, (H5E_auto2_t)H5Eprint2, stderr);
  CHECK(rc < 0);
  if (strstr(msg, "parz") == NULL) {
    fprintf(stderr, "bad chunk (%d) message \"%s\" does not come from ParZ\n", how, msg);
    failures++;
  }
  /* The other three chunks read as before. */
  const hsize_t starts[3][2] = {{0, 0}, {64, 0}, {64, 64}};
  for (int c = 0; c < 3; c++) {
    hsize_t cnt[2] = {64, 64};
    hid_t fs = H5Dget_space(d);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, starts[c], NULL, cnt, NULL);
    hid_t ms = H5Screate_simple(2, cnt, NULL);
    float* part = malloc(64 * 64 * 4);
    CHECK(H5Dread(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, part) >= 0);
    int same = 1;
    for (int y = 0; y < 64; y++)
      same &= memcmp(part + y * 64, good + (starts[c][0] + y) * 128 + starts[c][1], 64 * 4) == 0;
    CHECK(same);
    free(part);
    H5Sclose(ms);
    H5Sclose(fs);
  }
  H5Dclose(d);
  H5Fclose(f);
  free(bytes);
  free(good);
  free(in);
  free(out);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <shared data dir> <scratch dir>\n", argv[0]);
    return 2;
  }
  data_dir = argv[1];
  scratch_dir = argv[2];
  if (H5Zfilter_avail(H5Z_FILTER_PARZ) <= 0) {
    fprintf(stderr, "the ParZ plugin is not available: set HDF5_PLUGIN_PATH\n");
    return 1;
  }
  test_float_modes();
  test_double_modes();
  test_integer_modes();
  test_ranks();
  test_lossless();
  test_refusals();
  test_bad_chunk(CORRUPT_HEADER);
  test_bad_chunk(TRUNCATE);
  test_bad_chunk(FOREIGN);
  if (failures)
    fprintf(stderr, "%d failure(s)\n", failures);
  else
    printf("test_plugin_hdf5: all passed\n");
  return failures ? 1 : 0;
}
