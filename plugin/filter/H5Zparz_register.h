/* ParZ HDF5 filter: loading its module at run time, for C programs that register the filter
 * with their own HDF5 (no HDF5_PLUGIN_PATH, no installed plugin needed) or ask the module what
 * it holds. Header-only, beside H5Zparz.h, which it includes; it uses dlopen (link with -ldl on
 * glibc older than 2.34). Include hdf5.h before it to use H5Z_parz_register. */
#ifndef H5Z_PARZ_REGISTER_H
#define H5Z_PARZ_REGISTER_H

#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "H5Zparz.h"

/* ---- the module's own entry points ---------------------------------------------------------
 * Besides HDF5's two plugin entry points, libH5Zparz.so exports (look them up with dlsym):
 *
 *   int parz_h5_register(const void* hdf5_function, char* why, size_t why_size)
 *     Binds the module to the HDF5 library that contains hdf5_function (the address of any of
 *     its functions, e.g. H5Zregister) and registers the filter there. 0, or -1 with a message
 *     in why. A process holds one such binding: registering with a second HDF5 library fails.
 *
 *   void parz_h5_config(H5Z_parz_config* config)
 *     What this build of the module holds. */
#define H5Z_PARZ_PLUGIN_FILE "libH5Zparz.so"

typedef int (*H5Z_parz_register_fn)(const void* hdf5_function, char* why, size_t why_size);

typedef struct {
  unsigned version_major, version_minor, version_patch;
  int openmp; /* 1: chunks decode on OpenMP threads */
  int cuda;   /* 1: built with the CUDA decoder and its module (parz_cuda.so) loads */
  int gpu;    /* 1: a usable CUDA GPU is present (0 without the CUDA decoder) */
} H5Z_parz_config;

typedef void (*H5Z_parz_config_fn)(H5Z_parz_config* config);

/* In-process registration: loads the module and registers the filter with the program's own
 * HDF5, so that neither HDF5_PLUGIN_PATH nor an installed plugin is needed.
 *
 *   char why[300];
 *   if (H5Z_parz_register("/opt/parz/plugins", why, sizeof why) < 0) fprintf(stderr, "%s\n", why);
 *
 * path: the module file, or a directory holding libH5Zparz.so; NULL searches HDF5's plugin path
 * (HDF5_PLUGIN_PATH when set, else HDF5's default plugin directory, where `cmake --install`
 * puts the module). Returns 0, or -1 with a message in why. The module stays loaded.
 * A macro, so that it takes the addresses of the calling program's own HDF5 functions: include
 * hdf5.h before using it. On glibc older than 2.34, link with -ldl. */
#define H5Z_parz_register(path, why, why_size)                                            \
  H5Z_parz_register_with((path), (why), (why_size), (const void*)(uintptr_t)&H5Zregister, \
                         &H5PLsize, &H5PLget)

/* Writes a message into why[why_size]; returns -1. */
static inline int H5Z_parz_fail(char* why, size_t why_size, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(why, why_size, format, args);
  va_end(args);
  return -1;
}

/* out = dir + "/" + name when it fits (0), else -1. */
static inline int H5Z_parz_join(char* out, size_t out_size, const char* dir, const char* name) {
  int n = name ? snprintf(out, out_size, "%s/%s", dir, name) : snprintf(out, out_size, "%s", dir);
  return n >= 0 && (size_t)n < out_size ? 0 : -1;
}

/* The module file for path (see H5Z_parz_register) in file[file_size]; 0, or -1 with a message. */
static inline int H5Z_parz_module_file(const char* path, int (*search_size)(unsigned*),
                                       ssize_t (*search_get)(unsigned, char*, size_t), char* file,
                                       size_t file_size, char* why, size_t why_size) {
  struct stat st;
  if (path) {
    int dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    if (H5Z_parz_join(file, file_size, path, dir ? H5Z_PARZ_PLUGIN_FILE : NULL) < 0)
      return H5Z_parz_fail(why, why_size, "parz: path too long: %.200s...", path);
    return 0;
  }
  unsigned n = 0;
  char dir[4096], searched[1024] = "";
  size_t used = 0;
  if (search_size(&n) < 0)
    n = 0;
  for (unsigned i = 0; i < n; i++) {
    if (search_get(i, dir, sizeof dir) <= 0)
      continue;
    if (H5Z_parz_join(file, file_size, dir, H5Z_PARZ_PLUGIN_FILE) == 0 && stat(file, &st) == 0)
      return 0;
    if (used + strlen(dir) + 2 < sizeof searched) {
      if (used)
        searched[used++] = ':';
      strcpy(searched + used, dir);
      used += strlen(dir);
    }
  }
  return H5Z_parz_fail(why, why_size,
                       "parz: " H5Z_PARZ_PLUGIN_FILE
                       " not found in HDF5's plugin search path "
                       "(%s); give its path to H5Z_parz_register",
                       used ? searched : "empty");
}

static inline int H5Z_parz_register_with(const char* path, char* why, size_t why_size,
                                         const void* hdf5_function, int (*search_size)(unsigned*),
                                         ssize_t (*search_get)(unsigned, char*, size_t)) {
  char local[300], file[4096];
  if (!why || why_size == 0) {
    why = local;
    why_size = sizeof local;
  }
  if (H5Z_parz_module_file(path, search_size, search_get, file, sizeof file, why, why_size) < 0)
    return -1;
  void* module = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!module)
    return H5Z_parz_fail(why, why_size, "parz: cannot load %s: %s", file, dlerror());
  void* symbol = dlsym(module, "parz_h5_register");
  if (!symbol) {
    dlclose(module);
    return H5Z_parz_fail(
        why, why_size, "parz: %s has no parz_h5_register (a module older than this header)", file);
  }
  H5Z_parz_register_fn reg;
  memcpy(&reg, &symbol, sizeof reg);
  return reg(hdf5_function, why, why_size);
}

#endif
