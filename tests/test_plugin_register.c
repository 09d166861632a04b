/* In-process registration from C (H5Z_parz_register, H5Zparz_register.h): with HDF5's own
 * plugin loading switched off and HDF5_PLUGIN_PATH unset, the filter is unavailable until the program registers
 * the module, by its path or found through HDF5's plugin search path; then a dataset writes and
 * reads back within its tolerance. Wrong paths fail with messages.
 * Usage: test_plugin_register <directory holding libH5Zparz.so> <scratch dir> */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "H5Zparz_register.h"

#include "check.h"

#define ROWS 96
#define COLS 80

static void expect_failure(const char* path, const char* needle) {
  char why[300] = "";
  CHECK(H5Z_parz_register(path, why, sizeof why) == -1);
  if (strstr(why, needle) == NULL || strncmp(why, "parz: ", 6) != 0) {
    fprintf(stderr, "register(%s): message \"%s\" lacks \"%s\"\n", path ? path : "NULL", why,
            needle);
    failures++;
  }
}

/* Writes a float array with accuracy 1e-3 into <scratch>/register.h5; returns 0 on success. */
static int write_dataset(const char* file, const float* data) {
  hsize_t dims[2] = {ROWS, COLS}, chunk[2] = {32, 40};
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = H5Z_parz_accuracy_cdata(1e-3, cd);
  hid_t f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t space = H5Screate_simple(2, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 2, chunk);
  H5Pset_filter(dcpl, H5Z_FILTER_PARZ, H5Z_FLAG_MANDATORY, n, cd);
  hid_t d = -1;
  H5E_BEGIN_TRY { d = H5Dcreate2(f, "t", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT); }
  H5E_END_TRY;
  int rc = d < 0 || H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0;
  if (d >= 0)
    H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Fclose(f);
  return rc ? -1 : 0;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <plugin dir> <scratch dir>\n", argv[0]);
    return 2;
  }
  const char* plugin_dir = argv[1];
  char file[1024], module[1024];
  snprintf(file, sizeof file, "%s/register.h5", argv[2]);
  snprintf(module, sizeof module, "%s/" H5Z_PARZ_PLUGIN_FILE, plugin_dir);

  /* Nothing but the program can bring the filter in: no environment, no plugin loading, an
   * empty search path. */
  unsetenv("HDF5_PLUGIN_PATH");
  H5open();
  H5PLset_loading_state(0);
  unsigned paths = 0;
  H5PLsize(&paths);
  while (paths-- > 0)
    H5PLremove(0);
  CHECK(H5Zfilter_avail(H5Z_FILTER_PARZ) == 0);

  float* data = malloc(sizeof(float) * ROWS * COLS);
  float* back = malloc(sizeof(float) * ROWS * COLS);
  if (!data || !back)
    return 2;
  for (int i = 0; i < ROWS * COLS; i++)
    data[i] = (float)sin(i * 0.01) * 100.0f;
  CHECK(write_dataset(file, data) != 0); /* the filter is not there yet */

  expect_failure(NULL, "not found in HDF5's plugin search path (empty)");
  expect_failure(argv[2], "cannot load"); /* a directory without the module */
  expect_failure("/nonexistent/libH5Zparz.so", "cannot load");

  /* Found through HDF5's search path (where an installed module is), then again by its path. */
  H5PLappend(plugin_dir);
  char why[300] = "";
  int rc = H5Z_parz_register(NULL, why, sizeof why);
  CHECK(rc == 0);
  if (rc != 0)
    fprintf(stderr, "register(NULL): %s\n", why);
  CHECK(H5Zfilter_avail(H5Z_FILTER_PARZ) > 0);
  CHECK(H5Z_parz_register(module, why, sizeof why) == 0);
  CHECK(H5Z_parz_register(plugin_dir, NULL, 0) == 0);

  CHECK(write_dataset(file, data) == 0);
  hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, "t", H5P_DEFAULT);
  CHECK(H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0);
  double worst = 0;
  for (int i = 0; i < ROWS * COLS; i++)
    worst = fmax(worst, fabs((double)back[i] - data[i]));
  CHECK(worst <= 1e-3);
  hid_t dcpl = H5Dget_create_plist(d);
  char name[64] = "";
  unsigned flags, cd[32];
  size_t ncd = 32;
  CHECK(H5Pget_filter_by_id2(dcpl, H5Z_FILTER_PARZ, &flags, &ncd, cd, sizeof name, name, NULL) >=
        0);
  CHECK(strncmp(name, H5Z_PARZ_NAME, strlen(H5Z_PARZ_NAME)) == 0);
  H5Pclose(dcpl);
  H5Dclose(d);
  H5Fclose(f);
  free(data);
  free(back);
  if (failures)
    fprintf(stderr, "%d failure(s)\n", failures);
  else
    printf("test_plugin_register: in-process registration ok, max error %.3g\n", worst);
  return failures ? 1 : 0;
}
