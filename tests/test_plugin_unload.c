/* The plugin survives HDF5 shutting down and starting again: write and read a ParZ dataset,
 * H5close() (HDF5 unloads its plugins), read it again (the plugin loads anew), H5close(), exit.
 * With a GPU, PARZ_EXEC=auto sends the 16 MiB chunk to it, so the GPU context and its host copy
 * threads exist when the library unloads (plugin/exec/dispatch.c frees them first); without one the
 * CPU path runs. A crash or hang at either shutdown or at exit fails the test. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

#include "h5_write_one.h"

#define NY 2048
#define NX 2048
#define TOL 1e-3

static int read_back(const char* path, const float* in, float* out) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = f < 0 ? -1 : H5Dopen2(f, "data", H5P_DEFAULT);
  int bad = d < 0 || H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0;
  if (d >= 0)
    H5Dclose(d);
  if (f >= 0)
    H5Fclose(f);
  if (bad) {
    fprintf(stderr, "FAIL: cannot read %s back\n", path);
    return 1;
  }
  for (size_t i = 0; i < (size_t)NY * NX; i++)
    if (!(out[i] >= in[i] - TOL && out[i] <= in[i] + TOL)) {
      fprintf(stderr, "FAIL: value %zu is %g, wrote %g\n", i, out[i], in[i]);
      return 1;
    }
  return 0;
}

int main(int argc, char** argv) {
  char path[4096];
  hsize_t dims[2] = {NY, NX};
  float* in = malloc(sizeof(float) * NY * NX);
  float* out = malloc(sizeof(float) * NY * NX);
  if (!in || !out)
    return 1;
  snprintf(path, sizeof path, "%s/unload.h5", argc > 1 ? argv[1] : ".");
  for (size_t i = 0; i < (size_t)NY * NX; i++)
    in[i] = (float)((i * 7919) % 1000) * 0.01f;

  if (h5_write_one_chunk(path, "data", dims, TOL, in))
    return 1;

  if (read_back(path, in, out))
    return 1;
  H5close();
  if (read_back(path, in, out))
    return 1;
  H5close();
  remove(path);
  free(in);
  free(out);
  printf("test_plugin_unload: read, HDF5 shut down, read again, shut down again: ok\n");
  return 0;
}
