/* parz_h5_read against H5Dread (h5_read_cases.h): every case read on one thread, on two, and on
 * OpenMP's default, and with PARZ_EXEC=serial; the same bytes as H5Dread, the same refusals.
 *
 * usage: test_h5_read SCRATCH_DIR */
#include <stdio.h>
#include <stdlib.h>

#include <hdf5.h>

#include "h5_read_cases.h"
#include "parz_h5_read.h"

static int read_host(void* ctx, hid_t dset, hid_t file_space, void* host, size_t bytes,
                     parz_error* e) {
  return parz_h5_read(dset, file_space, host, bytes, *(const int*)ctx, e);
}

int main(int argc, char** argv) {
  static const int threads[] = {1, 2, 0};
  static const char* const names[] = {"parz_h5_read, 1 thread", "parz_h5_read, 2 threads",
                                      "parz_h5_read, default threads"};
  char path[1024];
  int failures = 0;
  if (argc < 2) {
    fprintf(stderr, "usage: %s SCRATCH_DIR\n", argv[0]);
    return 2;
  }
  snprintf(path, sizeof path, "%s/h5_read.h5", argv[1]);
  if (h5_read_cases_write(path))
    return 1;
  for (int t = 0; t < 3; t++) {
    const h5_reader r = {names[t], read_host, (void*)&threads[t], 1};
    failures += h5_read_cases_check(path, &r);
  }
  {
    const h5_reader r = {"parz_h5_read, PARZ_EXEC=serial", read_host, (void*)&threads[2], 1};
    setenv("PARZ_EXEC", "serial", 1);
    failures += h5_read_cases_check(path, &r);
    unsetenv("PARZ_EXEC");
  }
  remove(path);
  printf("%s\n", failures ? "FAILED" : "all reads matched H5Dread");
  return failures ? 1 : 0;
}
