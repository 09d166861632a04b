/* The ParZ filter from C: compress a raw float32 array into an HDF5 file (fixed accuracy), read
 * it back, print ratio, max error and timings. The plugin is found through HDF5_PLUGIN_PATH or
 * HDF5's default plugin directory.
 *   plugin_demo <array.bin> <out.h5> <tolerance> <dim0> [dim1 [dim2 [dim3]]] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <hdf5.h>

#include "H5Zparz.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 5 || argc > 8) {
    fprintf(stderr, "usage: %s <array.bin> <out.h5> <tolerance> <dim0> [dim1 ...]\n", argv[0]);
    return 2;
  }
  int rank = argc - 4;
  hsize_t dims[4], chunk[4];
  size_t count = 1;
  for (int i = 0; i < rank; i++) {
    dims[i] = strtoull(argv[4 + i], NULL, 10);
    count *= dims[i];
  }
  /* Chunks of whole trailing dimensions, about 2^18 values each. */
  size_t rest = count / dims[0];
  for (int i = 1; i < rank; i++)
    chunk[i] = dims[i];
  chunk[0] = rest >= (1u << 18) ? 1 : (1u << 18) / rest;
  if (chunk[0] > dims[0])
    chunk[0] = dims[0];

  float* in = malloc(count * sizeof *in);
  float* out = malloc(count * sizeof *out);
  FILE* fp = fopen(argv[1], "rb");
  if (!in || !out || !fp || fread(in, sizeof *in, count, fp) != count) {
    fprintf(stderr, "cannot read %zu float32 values from %s\n", count, argv[1]);
    return 1;
  }
  fclose(fp);

  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = H5Z_parz_accuracy_cdata(atof(argv[3]), cd);
  double t0 = now();
  hid_t f = H5Fcreate(argv[2], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t space = H5Screate_simple(rank, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, rank, chunk);
  H5Pset_filter(dcpl, H5Z_FILTER_PARZ, H5Z_FLAG_MANDATORY, n, cd);
  hid_t d = H5Dcreate2(f, "data", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (d < 0 || H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, in) < 0)
    return 1;
  H5Dclose(d);
  H5Fclose(f);
  double t_write = now() - t0;

  t0 = now();
  f = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
  d = H5Dopen2(f, "data", H5P_DEFAULT);
  if (d < 0 || H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
    return 1;
  double t_read = now() - t0;
  hsize_t stored = H5Dget_storage_size(d);
  H5Dclose(d);
  H5Fclose(f);
  H5Pclose(dcpl);
  H5Sclose(space);

  double err = 0;
  for (size_t i = 0; i < count; i++) {
    double e = fabs((double)in[i] - (double)out[i]);
    if (!(e <= err))
      err = e;
  }
  double mb = (double)count * 4 / 1e6;
  printf(
      "ratio %.2f, max error %.3g (tolerance %s), write %.3f s (%.0f MB/s), read %.3f s "
      "(%.0f MB/s)\n",
      (double)count * 4 / (double)stored, err, argv[3], t_write, mb / t_write, t_read, mb / t_read);
  free(in);
  free(out);
  return err <= atof(argv[3]) ? 0 : 1;
}
