/* fork() after ParZ has run OpenMP: the child's next ParZ write and read must work (serially),
 * not wait forever for the parent's worker threads, which a child does not have.
 * The parent writes and reads a dataset whose chunks are large enough for the OpenMP drivers
 * (ctest runs it with PARZ_EXEC=omp, PARZ_THREADS=2), then forks; the child writes another
 * dataset, reads both back and compares them with what was written. The parent gives the child
 * a time limit and kills it (a failure) when it has not finished by then. Run with
 * PARZ_EXEC=cuda on a machine with a GPU, the parent decodes on the GPU and the child must leave
 * the parent's CUDA context alone.
 * Usage: test_plugin_fork <scratch dir> [time limit in seconds, default 60] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "H5Zparz.h"

#include "check.h"

#define ROWS 256
#define COLS 512 /* one chunk of 512 KiB: above the OpenMP drivers' serial threshold */

static void field(float* v, unsigned seed) {
  for (size_t i = 0; i < (size_t)ROWS * COLS; i++)
    v[i] = (float)((double)((i * 2654435761u + seed) % 100003) * 1e-3);
}

/* Writes dataset `name` (reversible ParZ) with field(seed); returns 0 on success. */
static int write_dataset(hid_t file, const char* name, unsigned seed) {
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  const size_t n = H5Z_parz_reversible_cdata(cd);
  const hsize_t dims[2] = {ROWS, COLS};
  float* v = (float*)malloc(sizeof(float) * ROWS * COLS);
  hid_t space = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 2, dims);
  H5Pset_filter(dcpl, H5Z_FILTER_PARZ, H5Z_FLAG_MANDATORY, n, cd);
  hid_t d = H5Dcreate2(file, name, H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  field(v, seed);
  int rc = d >= 0 && H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0 ? 0 : 1;
  if (d >= 0)
    H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
  free(v);
  return rc;
}

/* Reads dataset `name` back (the chunk cache holds nothing: the file was closed since) and
 * compares it with field(seed) bit for bit; returns 0 when equal. */
static int read_dataset(hid_t file, const char* name, unsigned seed) {
  float* v = (float*)malloc(sizeof(float) * ROWS * COLS);
  float* want = (float*)malloc(sizeof(float) * ROWS * COLS);
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  field(want, seed);
  int rc = d >= 0 && H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0 &&
                   memcmp(v, want, sizeof(float) * ROWS * COLS) == 0
               ? 0
               : 1;
  if (d >= 0)
    H5Dclose(d);
  free(v);
  free(want);
  return rc;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <scratch dir> [seconds]\n", argv[0]);
    return 2;
  }
  const int limit = argc > 2 ? atoi(argv[2]) : 60;
  char path[1024];
  snprintf(path, sizeof path, "%s/fork_%ld.h5", argv[1], (long)getpid());

  /* parent: ParZ encodes and decodes on OpenMP threads */
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(file >= 0 && write_dataset(file, "parent", 1) == 0);
  H5Fclose(file);
  file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  CHECK(file >= 0 && read_dataset(file, "parent", 1) == 0);
  H5Fclose(file);
  if (failures)
    return 1;

  fflush(stdout);
  fflush(stderr);
  pid_t child = fork();
  if (child < 0) {
    perror("fork");
    return 1;
  }
  if (child == 0) {
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    int bad = f < 0 || write_dataset(f, "child", 2) != 0;
    if (f >= 0)
      H5Fclose(f);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    bad = bad || f < 0 || read_dataset(f, "parent", 1) != 0 || read_dataset(f, "child", 2) != 0;
    if (f >= 0)
      H5Fclose(f);
    _exit(bad ? 3 : 0);
  }
  int status = 0;
  const struct timespec tick = {0, 20 * 1000 * 1000};
  pid_t done = 0;
  for (int waited = 0; waited < limit * 50 && done == 0; waited++) {
    done = waitpid(child, &status, WNOHANG);
    if (done == 0)
      nanosleep(&tick, NULL);
  }
  if (done == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    fprintf(stderr,
            "the forked child did not finish its ParZ write and read within %d s "
            "(hung); killed\n",
            limit);
    return 1;
  }
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  if (failures)
    fprintf(stderr, "the forked child failed (status %d)\n", status);
  /* and the parent still works with its threads after the fork */
  file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  CHECK(file >= 0 && read_dataset(file, "child", 2) == 0 && read_dataset(file, "parent", 1) == 0);
  H5Fclose(file);
  remove(path);
  printf("%s\n", failures ? "FAILED" : "the forked child wrote and read through ParZ");
  return failures ? 1 : 0;
}
