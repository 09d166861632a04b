/* The same plugin build loads into Debian's OpenMPI parallel HDF5 (this program links
 * libhdf5_openmpi): write and read back one dataset through the filter, one process, sec2 file
 * driver. Usage: test_plugin_mpi_load <scratch file> */
#include <math.h>
#include <stdio.h>

#include <hdf5.h>
#include <mpi.h>

#include "H5Zparz.h"
#include "check.h"

int main(int argc, char** argv) {
  if (argc != 2)
    return 2;
  MPI_Init(&argc, &argv);
  enum { N = 4096 };
  static float in[N], out[N];
  for (int i = 0; i < N; i++)
    in[i] = (float)sin(i * 0.01) * 100.0f;
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = H5Z_parz_accuracy_cdata(1e-3, cd);
  hsize_t dims[1] = {N}, chunk[1] = {1000};
  hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 1, chunk);
  H5Pset_filter(dcpl, H5Z_FILTER_PARZ, H5Z_FLAG_MANDATORY, n, cd);
  hid_t d = H5Dcreate2(f, "x", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  int io = d >= 0 && H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, in) >= 0 &&
           H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0;
  CHECK(io);
  if (io) {
    for (int i = 0; i < N; i++)
      CHECK(fabsf(in[i] - out[i]) <= 1e-3f, "value %d", i);
    CHECK(H5Dget_storage_size(d) < sizeof in);
  }
  unsigned flags;
  size_t nelmts = 0;
  char name[128] = "";
  if (d >= 0) {
    hid_t p = H5Dget_create_plist(d);
    H5Pget_filter_by_id2(p, H5Z_FILTER_PARZ, &flags, &nelmts, NULL, sizeof name, name, NULL);
    H5Pclose(p);
  }
  printf("parallel HDF5: filter \"%s\", %s\n", name, failures ? "FAILED" : "round trip ok");
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Fclose(f);
  MPI_Finalize();
  return failures != 0;
}
