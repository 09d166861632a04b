/* Run-time lookup of HDF5 in the library that loaded the plugin (see h5_api.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr, RTLD_NOLOAD, RTLD_DEFAULT */
#endif
#include "h5_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "parz.h"

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
  /* Not in a shared library: HDF5 is linked into the executable, which exports none of its
   * functions unless linked with -rdynamic. */
  int in_program = lib == NULL;
  if (in_program) lib = dlopen(NULL, RTLD_LAZY);
  parz_h5_api t;
  memset(&t, 0, sizeof t);
#define PARZ_H5_LOAD_FUNCTION(name)                                                           \
  if (!(*(void**)&t.name = lookup(lib, #name))) {                                             \
    if (in_program)                                                                           \
      snprintf(why, why_size,                                                                 \
               "parz: HDF5 function %s not found: the program links HDF5 statically (h5cc's " \
               "default); plugins need shared HDF5: h5cc -shlib, or pkg-config hdf5-serial",  \
               #name);                                                                        \
    else                                                                                      \
      snprintf(why, why_size, "parz: HDF5 function %s not found in %s", #name,               \
               info.dli_fname);                                                               \
    return -1;                                                                                \
  }
  PARZ_H5_FUNCTIONS(PARZ_H5_LOAD_FUNCTION)
#undef PARZ_H5_LOAD_FUNCTION
  char version[32];
  snprintf(version, sizeof version, "%d.%d.%d", PARZ_VERSION_MAJOR, PARZ_VERSION_MINOR,
           PARZ_VERSION_PATCH);
  if (t.H5open() < 0 ||
      (t.err_class = t.H5Eregister_class("ParZ", "parz (HDF5 filter 37050)", version)) < 0 ||
      (t.err_major = t.H5Ecreate_msg(t.err_class, H5E_MAJOR, "ParZ filter")) < 0 ||
      (t.err_param = t.H5Ecreate_msg(t.err_class, H5E_MINOR, "invalid filter parameters")) < 0 ||
      (t.err_apply = t.H5Ecreate_msg(t.err_class, H5E_MINOR, "filter cannot apply")) < 0 ||
      (t.err_encode = t.H5Ecreate_msg(t.err_class, H5E_MINOR, "cannot encode chunk")) < 0 ||
      (t.err_decode = t.H5Ecreate_msg(t.err_class, H5E_MINOR, "cannot decode chunk")) < 0 ||
      (t.err_memory = t.H5Ecreate_msg(t.err_class, H5E_MINOR, "out of memory")) < 0) {
    snprintf(why, why_size, "parz: cannot register the ParZ error class with HDF5");
    return -1;
  }
  api = t;
  return 0;
}
