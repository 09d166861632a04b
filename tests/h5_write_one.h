/* Test helper: a 2D float32 dataset of one chunk written through the ParZ filter (mandatory),
 * for tests that need a ParZ file to read back. Header only: each test is its own program. */
#ifndef PARZ_TEST_H5_WRITE_ONE_H
#define PARZ_TEST_H5_WRITE_ONE_H

#include <hdf5.h>
#include <stdio.h>

#include "H5Zparz.h"

/* Writes values (dims[0] x dims[1], one chunk) as dataset `name` of a new file at path, at the
 * given absolute accuracy. Returns 0, or 1 after saying why on stderr. */
static int h5_write_one_chunk(const char* path, const char* name, const hsize_t dims[2],
                              double accuracy, const float* values) {
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = H5Z_parz_accuracy_cdata(accuracy, cd);
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t s = H5Screate_simple(2, dims, NULL);
  hid_t p = H5Pcreate(H5P_DATASET_CREATE);
  hid_t d;
  int bad;
  H5Pset_chunk(p, 2, dims);
  H5Pset_filter(p, H5Z_FILTER_PARZ, H5Z_FLAG_MANDATORY, n, cd);
  d = H5Dcreate2(f, name, H5T_IEEE_F32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
  bad = d < 0 || H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0;
  if (d >= 0)
    H5Dclose(d);
  H5Pclose(p);
  H5Sclose(s);
  if (f >= 0)
    H5Fclose(f);
  if (bad)
    fprintf(stderr, "FAIL: cannot write %s (is the plugin on HDF5_PLUGIN_PATH?)\n", path);
  return bad;
}

#endif
