/* Run-time lookup of HDF5 in the library that loaded the plugin (see h5_api.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr, RTLD_NOLOAD */
#endif
#include "h5_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* Written once, when HDF5 first asks for the plugin's class (HDF5 serialises that under its own
 * lock), and only read afterwards. */
static parz_h5_api api;

const parz_h5_api* parz_h5(void) { return &api; }

static void* lookup(void* lib, const char* name) {
  void* p = lib ? dlsym(lib, name) : NULL;
  return p ? p : dlsym(RTLD_DEFAULT, name);
}

int parz_h5_api_load(const void* caller, char* why, size_t why_size) {
  if (api.H5open) return 0;
  Dl_info info;
  void* lib = NULL;
  if (caller && dladdr(caller, &info) && info.dli_fname && info.dli_fname[0])
    lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!lib) lib = dlopen(NULL, RTLD_LAZY);  /* HDF5 linked into the executable */
  parz_h5_api t;
  memset(&t, 0, sizeof t);
#define PARZ_H5_LOAD_FUNCTION(name)                                                     \
  if (!(*(void**)&t.name = lookup(lib, #name))) {                                       \
    snprintf(why, why_size, "parz: HDF5 function %s not found in the loading library", #name); \
    return -1;                                                                          \
  }
  PARZ_H5_FUNCTIONS(PARZ_H5_LOAD_FUNCTION)
#undef PARZ_H5_LOAD_FUNCTION
#define PARZ_H5_LOAD_ID(name)                                                           \
  {                                                                                     \
    const hid_t* p = lookup(lib, #name);                                                \
    if (!p) {                                                                           \
      snprintf(why, why_size, "parz: HDF5 identifier %s not found in the loading library", #name); \
      return -1;                                                                        \
    }                                                                                   \
    t.name = p;                                                                         \
  }
  PARZ_H5_IDS(PARZ_H5_LOAD_ID)
#undef PARZ_H5_LOAD_ID
  api = t;
  return 0;
}
