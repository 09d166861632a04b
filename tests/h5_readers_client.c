/* A program outside the tree, built against the installed libparz_h5.so and its headers by
 * tests/c_package_install.cmake: calls into each installed header and checks the answers.
 * parz_h5_read and parz_h5_write are handed a dataset it creates itself (uncompressed: refused
 * with a message, the only outcome that needs no plugin); with the CUDA codec
 * (PARZ_CLIENT_DEVICE) the device reader's and writer's argument checks too, and a GPU context
 * where a GPU is present. */
#include <stdio.h>
#include <string.h>

#include <hdf5.h>
#include <parz/parz_h5_read.h>
#include <parz/parz_h5_write.h>
#include <parz/parz_omp.h>
#ifdef PARZ_CLIENT_DEVICE
#include <parz/parz_h5_device.h>
#endif

int main(int argc, char** argv) {
  parz_error e;
  parz_chunk_view view;
  unsigned char junk[64];
  float values[64];
  const hsize_t dims[1] = {64};
  memset(&e, 0, sizeof e);
  memset(junk, 0x5a, sizeof junk);
  if (parz_chunk_parse(junk, sizeof junk, &view, &e) == PARZ_OK || !e.message[0]) {
    fprintf(stderr, "parz_chunk_parse took 64 bytes of junk\n");
    return 1;
  }
  printf("junk chunk: %s\n", e.message);
  printf("OpenMP: %s\n", parz_omp_enabled() ? "yes" : "no");
  {
    hid_t f = H5Fcreate(argc > 1 ? argv[1] : "h5_readers_client.h5", H5F_ACC_TRUNC, H5P_DEFAULT,
                        H5P_DEFAULT);
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t d =
        H5Dcreate2(f, "plain", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int rc = parz_h5_read(d, H5S_ALL, values, sizeof values, 0, &e);
    parz_error we;
    const int wrc = parz_h5_write(d, H5S_ALL, values, sizeof values, 0, &we);
    H5Dclose(d);
    H5Sclose(space);
    H5Fclose(f);
    if (rc != PARZ_ERR_UNSUPPORTED || !strstr(e.message, "not chunked")) {
      fprintf(stderr, "parz_h5_read of an uncompressed dataset: %d (%s)\n", rc, e.message);
      return 1;
    }
    if (wrc != PARZ_ERR_UNSUPPORTED || !strstr(we.message, "parz_h5_write")) {
      fprintf(stderr, "parz_h5_write of an uncompressed dataset: %d (%s)\n", wrc, we.message);
      return 1;
    }
    printf("uncompressed dataset: %s; %s\n", e.message, we.message);
  }
#ifdef PARZ_CLIENT_DEVICE
  if (parz_h5_read_device(NULL, -1, H5S_ALL, NULL, 0, NULL, &e) != PARZ_ERR_ARG ||
      !strstr(e.message, "parz_h5_read_device")) {
    fprintf(stderr, "parz_h5_read_device: no argument error (%s)\n", e.message);
    return 1;
  }
  if (parz_h5_write_device(NULL, -1, H5S_ALL, NULL, 0, NULL, &e) != PARZ_ERR_ARG ||
      !strstr(e.message, "parz_h5_write_device")) {
    fprintf(stderr, "parz_h5_write_device: no argument error (%s)\n", e.message);
    return 1;
  }
  if (parz_gpu_available()) {
    parz_gpu_context* ctx = NULL;
    if (parz_gpu_context_create(&ctx, 0, &e) != PARZ_OK) {
      fprintf(stderr, "parz_gpu_context_create: %s\n", e.message);
      return 1;
    }
    parz_gpu_context_free(ctx);
    printf("GPU context created and freed\n");
  } else {
    /* The library found its CUDA module: the context fails for want of a GPU, not of it. */
    parz_gpu_context* ctx = NULL;
    if (parz_gpu_context_create(&ctx, 0, &e) == PARZ_OK || strstr(e.message, "CUDA module")) {
      fprintf(stderr, "no GPU, yet parz_gpu_context_create says: %s\n", e.message);
      return 1;
    }
    printf("no GPU: %s\n", e.message);
  }
#endif
  return 0;
}
