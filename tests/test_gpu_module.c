/* The plugin and the parz command with and without their CUDA module (gpu/cuda_module.h).
 *
 *   test_gpu_module missing|foreign|present PLUGIN PARZ_TOOL SCRATCH_DIR
 *
 * missing: PARZ_CUDA_MODULE names a file that does not exist (foreign: a shared object that is
 * not the module). A chunk of 8 MiB (which auto sends to the GPU) reads back under auto and cuda
 * exactly as under serial, with one warning in all that says why the module is not loaded; the
 * plugin reports no CUDA decoder and no GPU; parz_h5_read_cuda fails with the same reason;
 * `parz verify` passes with one warning.
 * present: the plugin finds the module beside itself and reports the CUDA decoder. Without a GPU,
 * auto reads silently and cuda warns once that there is no GPU, as where the decoder is built in;
 * with one, no warning at all, and parz_h5_read_cuda reads into GPU memory. PARZ_TEST_EXPECT_GPU=1
 * (on the GPU machine) makes a missing GPU a failure.
 * HDF5 loads the plugin from HDF5_PLUGIN_PATH. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "H5Zparz_register.h"
#include "parz.h"
#include "check.h"
#include "h5_write_one.h"

#define NY 1024
#define NX 2048 /* one chunk of 8 MiB: above auto's GPU threshold */

typedef int (*read_cuda_fn)(hid_t, hid_t, void*, size_t, void*, parz_error*);
typedef void* (*device_alloc_fn)(size_t, void**, int*, parz_error*);
typedef void (*device_release_fn)(void*);

/* stderr goes to a file while the plugin runs, so that its warnings can be counted. */
static int saved_stderr = -1;

static void capture(const char* path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  fflush(stderr);
  saved_stderr = dup(2);
  dup2(fd, 2);
  close(fd);
}

static void release(void) {
  fflush(stderr);
  dup2(saved_stderr, 2);
  close(saved_stderr);
}

/* The lines of a file that start with "parz: " (the plugin's warnings), joined in out. */
static int warnings(const char* path, char* out, size_t size) {
  char line[1024];
  int n = 0;
  FILE* f = fopen(path, "r");
  out[0] = '\0';
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "parz: ", 6) == 0) {
      n++;
      strncat(out, line, size - strlen(out) - 1);
    }
  if (f)
    fclose(f);
  return n;
}

static int read_all(const char* path, const char* exec, float* out) {
  hid_t f, d;
  herr_t rc;
  setenv("PARZ_EXEC", exec, 1);
  f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  d = H5Dopen2(f, "a", H5P_DEFAULT);
  rc = H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, out);
  H5Dclose(d);
  H5Fclose(f);
  return rc >= 0;
}

/* Runs `tool verify file` with PARZ_EXEC=auto, its stderr into err_path; its exit status. */
static int run_verify(const char* tool, const char* file, const char* err_path) {
  int status = -1;
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    setenv("PARZ_EXEC", "auto", 1);
    execl(tool, tool, "verify", file, (char*)NULL);
    _exit(127);
  }
  if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
    return -1;
  return WEXITSTATUS(status);
}

int main(int argc, char** argv) {
  char path[4096], err_path[4096], tool_err[4096], seen[4096];
  hsize_t dims[2] = {NY, NX};
  size_t i, bytes = sizeof(float) * NY * NX;
  float *in = malloc(bytes), *ref = malloc(bytes), *out = malloc(bytes);
  hid_t f, d;
  void* plugin;
  H5Z_parz_config_fn config;
  H5Z_parz_config c = {0, 0, 0, 0, 0, 0};
  read_cuda_fn read_cuda;
  int missing, nwarn, rc;
  const char* why;
  parz_error e = {0, ""};
  if (argc != 5 || !in || !ref || !out) {
    fprintf(stderr, "usage: %s missing|foreign|present PLUGIN PARZ_TOOL SCRATCH_DIR\n", argv[0]);
    return 2;
  }
  missing = strcmp(argv[1], "present") != 0;
  why = strcmp(argv[1], "missing") == 0   ? "CUDA module not loaded (PARZ_CUDA_MODULE): "
        : strcmp(argv[1], "foreign") == 0 ? "is not a ParZ CUDA module (no parz_cuda_module_v1)"
                                          : "no usable CUDA GPU";
  CHECK(missing == (getenv("PARZ_CUDA_MODULE") != NULL)); /* the test is set up as it says */
  snprintf(path, sizeof path, "%s/gpu_module_%s.h5", argv[4], argv[1]);
  snprintf(err_path, sizeof err_path, "%s/gpu_module_%s.err", argv[4], argv[1]);
  snprintf(tool_err, sizeof tool_err, "%s/gpu_module_%s_tool.err", argv[4], argv[1]);
  for (i = 0; i < (size_t)NY * NX; i++)
    in[i] = (float)((i * 7919) % 1000) * 0.01f + (float)(i % NX) * 1e-3f;

  setenv("PARZ_EXEC", "serial", 1);
  if (h5_write_one_chunk(path, "a", dims, 1e-3, in))
    return 1;

  capture(err_path);
  CHECK(read_all(path, "serial", ref));
  memset(out, 0, bytes);
  CHECK(read_all(path, "auto", out) && memcmp(out, ref, bytes) == 0);
  memset(out, 0, bytes);
  CHECK(read_all(path, "cuda", out) && memcmp(out, ref, bytes) == 0);

  /* The plugin HDF5 loaded: what it reports, and its read into GPU memory. */
  plugin = dlopen(argv[2], RTLD_NOW | RTLD_NOLOAD);
  config = plugin ? (H5Z_parz_config_fn)dlsym(plugin, "parz_h5_config") : NULL;
  read_cuda = plugin ? (read_cuda_fn)dlsym(plugin, "parz_h5_read_cuda") : NULL;
  CHECK(config && read_cuda);
  if (config && read_cuda) {
    config(&c);
    CHECK(c.cuda == !missing);
    CHECK(missing ? !c.gpu : c.gpu || !getenv("PARZ_TEST_EXPECT_GPU"));
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    d = H5Dopen2(f, "a", H5P_DEFAULT);
    if (!c.gpu) {
      char dummy[16];
      rc = read_cuda(d, H5S_ALL, dummy, bytes, NULL, &e);
      CHECK(rc == PARZ_ERR_DEVICE);
      CHECK(strstr(e.message, why));
    } else {
      device_alloc_fn alloc = (device_alloc_fn)dlsym(plugin, "parz_h5_device_alloc");
      device_release_fn free_device = (device_release_fn)dlsym(plugin, "parz_h5_device_release");
      void *data = NULL, *handle = alloc ? alloc(bytes, &data, &(int){0}, &e) : NULL;
      CHECK(handle && read_cuda(d, H5S_ALL, data, bytes, NULL, &e) == PARZ_OK);
      if (handle)
        free_device(handle);
    }
    H5Dclose(d);
    H5Fclose(f);
  }
  release();
  nwarn = warnings(err_path, seen, sizeof seen);
  if (missing)
    CHECK(nwarn == 1 && strstr(seen, why) && strstr(seen, "decoding on the CPU"));
  else if (c.gpu)
    CHECK(nwarn == 0);
  else
    CHECK(nwarn == 1 && strstr(seen, "PARZ_EXEC=cuda but no usable CUDA GPU"));
  printf("reads under serial, auto, cuda identical; plugin: cuda %d, gpu %d; %d warning(s)%s%s",
         c.cuda, c.gpu, nwarn, nwarn ? ":\n" : "\n", seen);

  /* The parz command, on its own loader. */
  rc = run_verify(argv[3], path, tool_err);
  CHECK(rc == 0);
  nwarn = warnings(tool_err, seen, sizeof seen);
  if (missing)
    CHECK(nwarn == 1 && strstr(seen, why));
  else
    CHECK(nwarn == 0);
  printf("parz verify under auto: exit %d, %d warning(s)%s%s", rc, nwarn, nwarn ? ":\n" : "\n",
         seen);

  remove(path);
  free(in);
  free(ref);
  free(out);
  if (failures)
    fprintf(stderr, "test_gpu_module %s: %d check(s) failed\n", argv[1], failures);
  return failures != 0;
}
