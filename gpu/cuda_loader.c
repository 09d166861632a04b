/* The CUDA module (cuda_module.h) loaded on first use: every parz_gpu.h function, called through
 * the module's table. Where the module cannot be loaded they answer as where no GPU is usable:
 * parz_gpu_available is 0, the others fail with PARZ_ERR_DEVICE and the reason, and the callers
 * fall back to the CPU or report it.
 *
 * Where the module is looked for, the first that exists wins:
 *   1. PARZ_CUDA_MODULE, when set: that file and nothing else.
 *   2. Beside the object that holds this code (the plugin, libparz_h5.so, a program), links
 *      resolved: a link to the plugin in a second plugin directory finds the module beside the
 *      plugin itself.
 *   3. PARZ_CUDA_MODULE_FILE by name: LD_LIBRARY_PATH, the holding object's RUNPATH, the system's
 *      library directories.
 *
 * The load is this file's only mutable state: the table and, on failure, its reason, written once
 * under pthread_once and only read after it. It is process-wide by nature: the module is loaded
 * into the process once and never unloaded (its host threads and the CUDA runtime in it cannot be
 * unmapped under them), and parz_gpu.h's functions take no handle that could carry it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_module.h"

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const parz_cuda_module* module;
static char missing[PATH_MAX + 256];

/* The directory of the object that holds this code, ending in '/'; 0 when it cannot be told. */
static int own_directory(char* dir, size_t size) {
  Dl_info info;
  struct link_map* map = NULL;
  char exe[PATH_MAX], real[PATH_MAX];
  const char* name;
  char* slash;
  if (!dladdr1((void*)&own_directory, &info, (void**)&map, RTLD_DL_LINKMAP) || !map)
    return 0;
  name = map->l_name;
  if (!name || !*name) { /* the program itself */
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
      return 0;
    exe[n] = '\0';
    name = exe;
  }
  if (!realpath(name, real) || !(slash = strrchr(real, '/')))
    return 0;
  slash[1] = '\0';
  return snprintf(dir, size, "%s", real) < (int)size;
}

static void* open_module(const char* path) {
  return dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
}

static const char* dl_why(void) {
  const char* why = dlerror();
  return why ? why : "no reason given";
}

/* The file a handle was loaded from, for messages. */
static const char* loaded_from(void* handle) {
  struct link_map* map = NULL;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && *map->l_name)
    return map->l_name;
  return PARZ_CUDA_MODULE_FILE;
}

static void load(void) {
  const char* forced = secure_getenv("PARZ_CUDA_MODULE");
  char dir[PATH_MAX], beside[PATH_MAX + sizeof PARZ_CUDA_MODULE_FILE];
  void* handle;
  parz_cuda_module_entry entry;
  const parz_cuda_module* m;
  if (forced && *forced) {
    if (!(handle = open_module(forced))) {
      snprintf(missing, sizeof missing, "CUDA module not loaded (PARZ_CUDA_MODULE): %s", dl_why());
      return;
    }
  } else {
    handle = NULL;
    dir[0] = '\0';
    if (own_directory(dir, sizeof dir)) {
      snprintf(beside, sizeof beside, "%s%s", dir, PARZ_CUDA_MODULE_FILE);
      if (!(handle = open_module(beside)) && access(beside, F_OK) == 0) {
        snprintf(missing, sizeof missing, "CUDA module not loaded: %s", dl_why());
        return;
      }
    }
    if (!handle && !(handle = open_module(PARZ_CUDA_MODULE_FILE))) {
      snprintf(missing, sizeof missing, "CUDA module not loaded: no %s in %s, and %s",
               PARZ_CUDA_MODULE_FILE, *dir ? dir : "this library's directory", dl_why());
      return;
    }
  }
  entry = (parz_cuda_module_entry)dlsym(handle, PARZ_CUDA_MODULE_ENTRY);
  if (!entry || !(m = entry()))
    snprintf(missing, sizeof missing,
             "%s is not a ParZ CUDA module (no " PARZ_CUDA_MODULE_ENTRY ")", loaded_from(handle));
  else if (m->size < sizeof *m || strcmp(m->version, PARZ_CUDA_MODULE_VERSION) != 0)
    snprintf(missing, sizeof missing, "CUDA module %s is ParZ %s's, not %s's", loaded_from(handle),
             m->version, PARZ_CUDA_MODULE_VERSION);
  else
    module = m;
}

static const parz_cuda_module* loaded(void) {
  pthread_once(&load_once, load);
  return module;
}

static int not_loaded(parz_error* err) { return parz_fail(err, PARZ_ERR_DEVICE, "%s", missing); }

__attribute__((visibility("hidden"))) const char* parz_cuda_module_missing(void) {
  return loaded() ? NULL : missing;
}

/* ---- parz_gpu.h through the table ---------------------------------------------------------- */

int parz_gpu_available(void) {
  const parz_cuda_module* m = loaded();
  return m ? m->parz_gpu_available() : 0;
}

int parz_gpu_context_create(parz_gpu_context** ctx, int device, parz_error* err) {
  const parz_cuda_module* m = loaded();
  if (m)
    return m->parz_gpu_context_create(ctx, device, err);
  if (ctx)
    *ctx = NULL;
  return not_loaded(err);
}

/* A context exists only where the module was loaded: freeing none loads nothing (at exit). */
void parz_gpu_context_free(parz_gpu_context* ctx) {
  if (ctx)
    loaded()->parz_gpu_context_free(ctx);
}

int parz_gpu_decode_device(parz_gpu_context* ctx, const parz_chunk_view* view, const void* d_chunk,
                           void* d_dst, void* stream, parz_error* err) {
  const parz_cuda_module* m = loaded();
  return m ? m->parz_gpu_decode_device(ctx, view, d_chunk, d_dst, stream, err) : not_loaded(err);
}

int parz_gpu_decode_device_batch(parz_gpu_context* ctx, size_t n, const parz_chunk_view* views,
                                 const void* const* d_chunks, void* const* d_dsts, void* stream,
                                 size_t* failed, parz_error* err) {
  const parz_cuda_module* m = loaded();
  return m ? m->parz_gpu_decode_device_batch(ctx, n, views, d_chunks, d_dsts, stream, failed, err)
           : not_loaded(err);
}

void* parz_gpu_staging(parz_gpu_context* ctx, size_t bytes, parz_error* err) {
  const parz_cuda_module* m = loaded();
  if (m)
    return m->parz_gpu_staging(ctx, bytes, err);
  not_loaded(err);
  return NULL;
}

int parz_gpu_assemble(parz_gpu_context* ctx, const parz_chunk_grid* grid, const parz_box* box,
                      const void* packed, size_t packed_bytes, size_t n,
                      const parz_chunk_ref* chunks, const void* fill, void* d_dst, void* stream,
                      size_t* failed, parz_error* err) {
  const parz_cuda_module* m = loaded();
  return m ? m->parz_gpu_assemble(ctx, grid, box, packed, packed_bytes, n, chunks, fill, d_dst,
                                  stream, failed, err)
           : not_loaded(err);
}

void* parz_gpu_result(parz_gpu_context* ctx, size_t bytes, parz_error* err) {
  const parz_cuda_module* m = loaded();
  if (m)
    return m->parz_gpu_result(ctx, bytes, err);
  not_loaded(err);
  return NULL;
}

int parz_gpu_download(parz_gpu_context* ctx, const void* d_src, void* dst, size_t bytes,
                      void* stream, parz_error* err) {
  const parz_cuda_module* m = loaded();
  return m ? m->parz_gpu_download(ctx, d_src, dst, bytes, stream, err) : not_loaded(err);
}

void* parz_gpu_malloc(int device, size_t bytes, parz_error* err) {
  const parz_cuda_module* m = loaded();
  if (m)
    return m->parz_gpu_malloc(device, bytes, err);
  not_loaded(err);
  return NULL;
}

/* Memory exists only where the module was loaded. */
void parz_gpu_free(int device, void* ptr) {
  if (ptr)
    loaded()->parz_gpu_free(device, ptr);
}

int parz_gpu_chunk_decode(parz_gpu_context* ctx, const void* src, size_t src_bytes, void* dst,
                          size_t dst_bytes, parz_error* err) {
  const parz_cuda_module* m = loaded();
  return m ? m->parz_gpu_chunk_decode(ctx, src, src_bytes, dst, dst_bytes, err) : not_loaded(err);
}

int parz_gpu_encode_device(parz_gpu_context* ctx, const parz_array* a, const void* d_data,
                           const parz_chunk_config* cfg, void* d_chunk, size_t chunk_bytes,
                           size_t* written, void* stream, parz_error* err) {
  const parz_cuda_module* m = loaded();
  return m ? m->parz_gpu_encode_device(ctx, a, d_data, cfg, d_chunk, chunk_bytes, written, stream,
                                       err)
           : not_loaded(err);
}

int parz_gpu_encode_device_batch(parz_gpu_context* ctx, size_t n, const parz_array* arrays,
                                 const void* const* d_data, const parz_chunk_config* cfg,
                                 void* const* d_chunks, const size_t* chunk_bytes, size_t* written,
                                 void* stream, size_t* failed, parz_error* err) {
  const parz_cuda_module* m = loaded();
  return m ? m->parz_gpu_encode_device_batch(ctx, n, arrays, d_data, cfg, d_chunks, chunk_bytes,
                                             written, stream, failed, err)
           : not_loaded(err);
}

int parz_gpu_upload(parz_gpu_context* ctx, const void* src, void* d_dst, size_t bytes, void* stream,
                    parz_error* err) {
  const parz_cuda_module* m = loaded();
  return m ? m->parz_gpu_upload(ctx, src, d_dst, bytes, stream, err) : not_loaded(err);
}

int parz_gpu_encode_box(parz_gpu_context* ctx, const parz_chunk_grid* grid, const parz_box* box,
                        const void* d_box, const void* fill, const parz_chunk_config* cfg,
                        void* stream, parz_gpu_chunk_sink sink, void* sink_arg, parz_error* err) {
  const parz_cuda_module* m = loaded();
  return m ? m->parz_gpu_encode_box(ctx, grid, box, d_box, fill, cfg, stream, sink, sink_arg, err)
           : not_loaded(err);
}

int parz_gpu_check_memory(parz_gpu_context* ctx, const void* ptr, parz_error* err) {
  const parz_cuda_module* m = loaded();
  return m ? m->parz_gpu_check_memory(ctx, ptr, err) : not_loaded(err);
}

int parz_gpu_chunk_encode(parz_gpu_context* ctx, const parz_array* a, const void* data,
                          const parz_chunk_config* cfg, void* dst, size_t dst_bytes,
                          parz_chunk_alloc alloc, void* alloc_arg, size_t* written,
                          parz_error* err) {
  const parz_cuda_module* m = loaded();
  return m ? m->parz_gpu_chunk_encode(ctx, a, data, cfg, dst, dst_bytes, alloc, alloc_arg, written,
                                      err)
           : not_loaded(err);
}

/* Advice only: without the module there is no download to prepare for. */
void parz_gpu_populate_start(parz_gpu_context* ctx, void* dst, size_t bytes) {
  const parz_cuda_module* m = loaded();
  if (m)
    m->parz_gpu_populate_start(ctx, dst, bytes);
}

void parz_gpu_populate_wait(parz_gpu_context* ctx) {
  const parz_cuda_module* m = loaded();
  if (m)
    m->parz_gpu_populate_wait(ctx);
}
