/* A program outside the tree, as a user writes it: H5Zparz.h from the installed include directory,
 * HDF5 from the system, the filter loaded by HDF5 from its plugin directory. Writes 4096 floats
 * at accuracy 1e-3, reads them back and checks the bound. Built by tests/c_package_install.cmake
 * (pkg-config, find_package) and tests/h5cc_static.cmake (h5cc).
 * Usage: h5z_client FILE */
#include <math.h>
#include <stdio.h>

#include <H5Zparz.h>
#include <hdf5.h>

#define N 4096

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: h5z_client FILE\n");
    return 2;
  }
  printf("H5Zparz.h version %s (%d.%d.%d)\n", H5Z_PARZ_VERSION_STRING, H5Z_PARZ_VERSION_MAJOR,
         H5Z_PARZ_VERSION_MINOR, H5Z_PARZ_VERSION_PATCH);
  if (H5Zfilter_avail(H5Z_FILTER_PARZ) <= 0) {
    fprintf(stderr, "h5z_client: HDF5 cannot load the ParZ filter\n");
    return 1;
  }
  static float in[N], out[N];
  for (int i = 0; i < N; i++)
    in[i] = (float)sin(0.01 * i);
  hsize_t dims[1] = {N}, chunk[1] = {1024};
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = H5Z_parz_accuracy_cdata(1e-3, cd);
  hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 1, chunk);
  H5Pset_filter(dcpl, H5Z_FILTER_PARZ, H5Z_FLAG_MANDATORY, n, cd);
  hid_t d = H5Dcreate2(file, "x", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  int ok = d >= 0 && H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, in) >= 0;
  if (d >= 0)
    H5Dclose(d);
  d = ok ? H5Dopen2(file, "x", H5P_DEFAULT) : -1;
  ok = d >= 0 && H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0 &&
       H5Dget_storage_size(d) < sizeof in;
  for (int i = 0; ok && i < N; i++)
    ok = fabsf(in[i] - out[i]) <= 1e-3f;
  char name[128] = "";
  unsigned flags;
  size_t nelmts = 0;
  hid_t plist = d >= 0 ? H5Dget_create_plist(d) : -1;
  if (plist >= 0) {
    H5Pget_filter_by_id2(plist, H5Z_FILTER_PARZ, &flags, &nelmts, NULL, sizeof name, name, NULL);
    H5Pclose(plist);
  }
  if (d >= 0)
    H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Fclose(file);
  printf("filter \"%s\": %s\n", name, ok ? "round trip ok" : "FAILED");
  return ok ? 0 : 1;
}
