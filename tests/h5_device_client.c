/* A program outside the tree, built against the installed libparz_h5_device.so and its headers
 * by tests/h5_device_install.cmake: calls into each installed header and checks the answers.
 * Without a GPU that is argument checks and the codec; with one, a context too. */
#include <stdio.h>
#include <string.h>

#include <hdf5.h>
#include <parz/parz_h5_device.h>

int main(void)
{
  parz_error e;
  parz_chunk_view view;
  unsigned char junk[64];
  memset(&e, 0, sizeof e);
  memset(junk, 0x5a, sizeof junk);
  if (parz_h5_read_device(NULL, -1, H5S_ALL, NULL, 0, NULL, &e) != PARZ_ERR_ARG ||
      !strstr(e.message, "parz_h5_read_device")) {
    fprintf(stderr, "parz_h5_read_device: no argument error (%s)\n", e.message);
    return 1;
  }
  if (parz_chunk_parse(junk, sizeof junk, &view, &e) == PARZ_OK || !e.message[0]) {
    fprintf(stderr, "parz_chunk_parse took 64 bytes of junk\n");
    return 1;
  }
  printf("junk chunk: %s\n", e.message);
  if (parz_gpu_available()) {
    parz_gpu_context* ctx = NULL;
    if (parz_gpu_context_create(&ctx, 0, &e) != PARZ_OK) {
      fprintf(stderr, "parz_gpu_context_create: %s\n", e.message);
      return 1;
    }
    parz_gpu_context_free(ctx);
    printf("GPU context created and freed\n");
  } else {
    printf("no GPU: context not tried\n");
  }
  return 0;
}
