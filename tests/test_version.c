/* One version everywhere: codec/parz.h (the source), plugin/filter/H5Zparz.h (installed alone, its own
 * copy), the CMake project (PARZ_PROJECT_VERSION, given by the build), and the filter's name that
 * HDF5 stores in each file. The plugin is loaded from HDF5_PLUGIN_PATH.
 * Usage: test_version <scratch dir> */
#include <stdio.h>
#include <string.h>

#include <hdf5.h>

#include "H5Zparz.h"
#include "parz_chunk.h"

#include "check.h"

/* The name written into a file by a dataset created with the filter, read back after reopening. */
static void stored_name(const char* path, char* name, size_t size) {
  name[0] = 0;
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dims[1] = {64};
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = H5Z_parz_reversible_cdata(cd);
  CHECK(H5Pset_chunk(dcpl, 1, dims) >= 0);
  CHECK(H5Pset_filter(dcpl, H5Z_FILTER_PARZ, H5Z_FLAG_MANDATORY, n, cd) >= 0);
  hid_t d = H5Dcreate2(f, "x", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  float v[64];
  for (int i = 0; i < 64; i++)
    v[i] = (float)i;
  CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Fclose(f);

  f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  d = H5Dopen2(f, "x", H5P_DEFAULT);
  dcpl = H5Dget_create_plist(d);
  unsigned flags;
  size_t nelmts = 0;
  CHECK(H5Pget_filter_by_id2(dcpl, H5Z_FILTER_PARZ, &flags, &nelmts, NULL, size, name, NULL) >= 0);
  H5Pclose(dcpl);
  H5Dclose(d);
  H5Fclose(f);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_version <scratch dir>\n");
    return 2;
  }
  CHECK(H5Z_PARZ_VERSION_MAJOR == PARZ_VERSION_MAJOR);
  CHECK(H5Z_PARZ_VERSION_MINOR == PARZ_VERSION_MINOR);
  CHECK(H5Z_PARZ_VERSION_PATCH == PARZ_VERSION_PATCH);
  char version[64];
  snprintf(version, sizeof version, "%d.%d.%d", PARZ_VERSION_MAJOR, PARZ_VERSION_MINOR,
           PARZ_VERSION_PATCH);
  CHECK(strcmp(H5Z_PARZ_VERSION_STRING, version) == 0);
  CHECK(strcmp(PARZ_PROJECT_VERSION, version) == 0);

  char expected[128], name[128], path[1024];
  snprintf(expected, sizeof expected, "ParZ-%s (zfp-1.0 stream, format %d)", version,
           PARZ_CHUNK_FORMAT_VERSION);
  CHECK(strncmp(expected, H5Z_PARZ_NAME, strlen(H5Z_PARZ_NAME)) == 0);
  snprintf(path, sizeof path, "%s/version.h5", argv[1]);
  stored_name(path, name, sizeof name);
  if (strcmp(name, expected) != 0) {
    fprintf(stderr, "filter name \"%s\", expected \"%s\"\n", name, expected);
    failures++;
  }
  printf("version %s, filter name \"%s\": %s\n", version, name, failures ? "FAILED" : "ok");
  return failures != 0;
}
