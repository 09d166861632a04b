/* Run-time lookup of HDF5 in the library that loaded the plugin (see h5_api.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr, RTLD_NOLOAD, RTLD_DEFAULT */
#endif
#include "h5_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "parz.h"

/* Written once, under `lock`, before HDF5 is handed the filter class (by H5PLget_plugin_info's
 * return or by H5Zregister), and only read afterwards. */
static parz_h5_api api;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

const parz_h5_api* parz_h5(void) { return &api; }

static void* lookup(void* lib, const char* name) {
  void* p = lib ? dlsym(lib, name) : NULL;
  return p ? p : dlsym(RTLD_DEFAULT, name);
}

/* The library holding `caller`, or the program's global scope (HDF5 linked into the executable,
 * or an address dladdr cannot name; *in_program says so). The handle adds a reference to an
 * object already loaded. */
static void* library_of(const void* caller, int* in_program) {
  Dl_info info;
  void* lib = NULL;
  if (caller && dladdr(caller, &info) && info.dli_fname && info.dli_fname[0])
    lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  *in_program = lib == NULL;
  return lib ? lib : dlopen(NULL, RTLD_LAZY);
}

/* File name of the object holding `address`, for messages. */
static const char* object_name(const void* address) {
  Dl_info info;
  if (address && dladdr(address, &info) && info.dli_fname && info.dli_fname[0])
    return info.dli_fname;
  return "the program";
}

/* in_program: HDF5 is not a shared library of this process. An executable exports none of its
 * functions unless linked with -rdynamic, so that is what a static HDF5 looks like. */
static int bind_table(void* lib, int in_program, const void* caller, char* why, size_t why_size) {
  parz_h5_api t;
  memset(&t, 0, sizeof t);
#define PARZ_H5_LOAD_FUNCTION(name)                                                           \
  if (!(*(void**)& t.name = lookup(lib, #name))) {                                            \
    if (in_program)                                                                           \
      snprintf(why, why_size,                                                                 \
               "parz: HDF5 function %s not found: the program links HDF5 statically (h5cc's " \
               "default); plugins need shared HDF5: h5cc -shlib, or pkg-config hdf5-serial",  \
               #name);                                                                        \
    else                                                                                      \
      snprintf(why, why_size, "parz: HDF5 function %s not found in %s", #name,                \
               object_name(caller));                                                          \
    return -1;                                                                                \
  }
  PARZ_H5_FUNCTIONS(PARZ_H5_LOAD_FUNCTION)
#undef PARZ_H5_LOAD_FUNCTION
#define PARZ_H5_LOAD_READER_FUNCTION(name)                            \
  if (!(*(void**)& t.name = lookup(lib, #name)) && !t.reader_missing) \
    t.reader_missing = #name;
  PARZ_H5_READER_FUNCTIONS(PARZ_H5_LOAD_READER_FUNCTION)
#undef PARZ_H5_LOAD_READER_FUNCTION
  *(void**)&t.read_chunk2 = lookup(lib, "H5Dread_chunk2");
  *(void**)&t.chunk_iter = lookup(lib, "H5Dchunk_iter");
  *(void**)&t.chunk_index_type = lookup(lib, "H5Dget_chunk_index_type");
  if (!(*(void**)& t.read_chunk1 = lookup(lib, "H5Dread_chunk")))
    *(void**)&t.read_chunk1 = lookup(lib, "H5Dread_chunk1");
  if (!t.read_chunk1 && !t.read_chunk2 && !t.reader_missing)
    t.reader_missing = "H5Dread_chunk";
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
  unsigned major = 0, minor = 0, release = 0;
  if (t.H5get_libversion(&major, &minor, &release) >= 0)
    t.chunk_errors_dropped =
        major > 1 || (major == 1 && (minor > 14 || (minor == 14 && release >= 5)));
  api = t;
  return 0;
}

int parz_h5_api_load(const void* caller, char* why, size_t why_size) {
  pthread_mutex_lock(&lock);
  int in_program;
  void* lib = library_of(caller, &in_program);
  int rc = 0;
  if (!api.H5open) {
    /* The reference to the library stays: the table must not outlive it. */
    rc = bind_table(lib, in_program, caller, why, why_size);
    if (rc == 0)
      lib = NULL;
  } else if (lookup(lib, "H5open") != (void*)api.H5open) {
    /* The table already serves another HDF5 library of this process (two copies of HDF5, e.g.
     * one bundled with h5py and the system's); its callbacks cannot serve a second one. */
    snprintf(why, why_size,
             "parz: the plugin is bound to the HDF5 library in %s and cannot serve a second one "
             "(%s) in the same process",
             object_name((const void*)api.H5open), object_name(caller));
    rc = -1;
  }
  if (lib)
    dlclose(lib);
  pthread_mutex_unlock(&lock);
  return rc;
}

int parz_h5_api_readers(const char* who, char* why, size_t why_size) {
  int bound;
  pthread_mutex_lock(&lock);
  bound = api.H5open != NULL;
  pthread_mutex_unlock(&lock);
  if (!bound && parz_h5_api_load(NULL, why, why_size) != 0) {
    char inner[200];
    snprintf(inner, sizeof inner, "%s", why);
    snprintf(why, why_size,
             "%s: no HDF5 library to call (%s); import parz first in Python, or "
             "link the program with HDF5",
             who, inner);
    return PARZ_ERR_UNSUPPORTED;
  }
  if (api.reader_missing) {
    snprintf(why, why_size, "%s: the HDF5 library lacks %s (HDF5 1.10.5 or later is needed)", who,
             api.reader_missing);
    return PARZ_ERR_UNSUPPORTED;
  }
  return PARZ_OK;
}
